"""The campaign tests' helpers and clients, shared with the pool tests."""

from tests.campaigns.conftest import api, demo_dir, demo_run_paths, demo_runs, web

__all__ = ["api", "demo_dir", "demo_run_paths", "demo_runs", "web"]
