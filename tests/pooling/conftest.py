"""A campaign loaded with the demo collection (5 topics, 4 runs in group 'demo', graded qrels)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from pooling.models import Campaign
from trec import Run, read_run


def demo_dir() -> Path:
    return Path(settings.WORKBENCH_DEMO_DIR)


def demo_run_paths() -> list[Path]:
    return sorted((demo_dir() / "runs").glob("*.run"))


def demo_runs() -> list[Run]:
    """The demo runs as the format layer reads them, named by tag like stored runs."""
    runs = [read_run(p) for p in demo_run_paths()]
    return [read_run(p, name=r.tag) for p, r in zip(demo_run_paths(), runs, strict=True)]


@pytest.fixture
def loaded(campaign: Campaign) -> Campaign:
    from pooling.services import runs_import, topics_import

    topics_import(campaign=campaign, path=demo_dir() / "topics.txt")
    runs_import(campaign=campaign, paths=demo_run_paths(), group="demo")
    return campaign
