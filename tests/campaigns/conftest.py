"""The demo collection helpers live in tests/conftest.py; re-exported for the pooling tests' imports."""

from tests.conftest import demo_dir, demo_run_paths, demo_runs

__all__ = ["demo_dir", "demo_run_paths", "demo_runs"]
