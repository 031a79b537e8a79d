"""Shared fixtures: the reference data folder (skipped with a reason when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def refdata_dir() -> Path | None:
    value = os.environ.get("WORKBENCH_REFDATA")
    if not value:
        return None
    path = Path(value)
    return path if (path / "expected" / "reference.tsv.gz").is_file() else None


@pytest.fixture(scope="session")
def refdata() -> Path:
    path = refdata_dir()
    if path is None:
        pytest.skip(
            "reference data absent: set WORKBENCH_REFDATA to ../shared/refdata "
            "(the folder holding expected/reference.tsv.gz) to run the trec_eval/sample_eval comparisons"
        )
    return path


# CI runs the property tests on a fixed example stream, so a red build can be replayed exactly.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    _hypothesis_settings.load_profile("ci")
