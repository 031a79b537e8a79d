"""The stored pool's diagnostics report (pooling.reports): leave-one-run-out counts a run's unique
documents within the depth the pool read of it, as the live reusability report does."""

from __future__ import annotations

from pathlib import Path

import pytest

from campaigns.models import Campaign
from campaigns.services import qrels_set_import, runs_import, topics_import
from pooling.reports import diagnostics_report
from pooling.services import pool_build
from pooling.spec import PoolSpec

pytestmark = pytest.mark.django_db


def ranking(tag: str, docnos: list[str]) -> str:
    return "".join(f"1 Q0 {d} {r} {100 - r} {tag}\n" for r, d in enumerate(docnos, start=1))


def test_a_run_that_alone_pooled_a_relevant_document_shows_its_leave_out_effect(
    tmp_path: Path, campaign: Campaign
) -> None:
    # within depth 2, only 'alone' ranks 'key' (relevant); 'other' ranks it too, but at 40
    filler = [f"f{i:02d}" for i in range(60)]
    files = {
        "alone.run": ranking("alone", ["key", "a1", *filler]),
        "other.run": ranking("other", ["b1", "b2", *filler[:37], "key", *filler[37:]]),
        "third.run": ranking("third", ["b1", "a1", *filler]),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "topics.tsv").write_text("1\tone topic\n")
    (tmp_path / "ref.qrels").write_text("1 0 key 1\n1 0 a1 0\n1 0 b1 1\n1 0 b2 0\n")
    topics_import(campaign=campaign, path=tmp_path / "topics.tsv", fmt="tsv")
    runs_import(campaign=campaign, paths=[tmp_path / n for n in files])
    qrels = qrels_set_import(campaign=campaign, path=tmp_path / "ref.qrels")
    pool = pool_build(campaign=campaign, name="d2", spec=PoolSpec("depth", depth=2))

    report = diagnostics_report(pool=pool, qrels_set=qrels, measures=["map"])

    removals = {r["unit"]: r for r in report["reusability"]["run"]["removals"]}
    assert (removals["alone"]["removed"], removals["alone"]["removed_relevant"]) == (1, 1)
    assert removals["other"]["removed_relevant"] == 0 and removals["other"]["removed"] == 1  # b2
    held = {h["run"]: h for h in report["reusability"]["run"]["measures"][0]["runs"]}
    assert held["alone"]["drop"] > 0
