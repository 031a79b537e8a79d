"""Migration campaigns 0006: run lines stored as rows before it are each run's block after it,
and come back as the same rows when the migration is reversed.

The database is put back at campaigns 0005, filled through that schema's historical models, then
migrated forward and back; every line must read the same, bit for bit.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection

from campaigns.models import Run, RunArrays
from campaigns.selectors import run_ranking
from tests.campaigns.conftest import latest_migrations, migrate_to

BEFORE = [("campaigns", "0005_rundocument_docno_by_validation")]
TABLE = "pooling_rundocument"

# each topic's lines in canonical order: score descending, ties by docno descending (byte order)
LINES = {
    "51": [("zeta", 2.5), ("été", 1 / 3), ("d10", 1 / 3), ("d1", 1 / 3 - 1e-16), ("a", -4.0)],
    "52": [("文書", 7.0), ("d1", 0.1 + 0.2)],
}


def _apps_before() -> Any:
    """The database migrated back to campaigns 0005, and that schema's historical models."""
    return migrate_to(BEFORE).loader.project_state(BEFORE).apps


def _rows(apps: object) -> list[tuple[str, str, int, str, float]]:
    RunDocument_ = apps.get_model("campaigns", "RunDocument")  # type: ignore[attr-defined]
    rows = RunDocument_.objects.values_list("run__tag", "topic__number", "rank", "docno", "score")
    return sorted(rows)


@pytest.mark.django_db(transaction=True)
def test_rows_become_blocks_and_come_back_as_the_same_rows() -> None:
    latest = latest_migrations()
    try:
        old = _apps_before()
        Campaign_ = old.get_model("campaigns", "Campaign")
        Topic_ = old.get_model("campaigns", "Topic")
        Run_ = old.get_model("campaigns", "Run")
        RunDocument_ = old.get_model("campaigns", "RunDocument")
        camp = Campaign_.objects.create(name="Robust", slug="robust", max_docs_per_topic=1000)
        topics = {n: Topic_.objects.create(campaign=camp, number=n, title=n) for n in ("51", "52", "53")}
        now = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
        rows_run = Run_.objects.create(
            campaign=camp, tag="rows", submitted_at=now, topic_count=2, document_count=7
        )
        Run_.objects.create(campaign=camp, tag="empty", submitted_at=now)
        for number, lines in LINES.items():
            for rank, (docno, score) in enumerate(lines, start=1):
                RunDocument_.objects.create(
                    run=rows_run, topic=topics[number], rank=rank, docno=docno, score=score
                )
        before = _rows(old)

        migrate_to(latest)
        assert TABLE not in connection.introspection.table_names()
        ranked = run_ranking(run=Run.objects.get(tag="rows"))
        assert ranked.topics == ("51", "52")
        for number, lines in LINES.items():
            got = ranked.ranking(number)
            assert [d for d, _ in got] == [d for d, _ in lines]
            assert [s.hex() for _, s in got] == [s.hex() for _, s in lines]  # bit for bit
        empty = Run.objects.get(tag="empty")
        assert RunArrays.objects.filter(run=empty).exists()  # every run has a block, even with no lines
        assert len(run_ranking(run=empty)) == 0

        back = _apps_before()
        assert _rows(back) == before
        if connection.vendor == "sqlite":  # clustered on its key again, as migration 0003 made it
            with connection.cursor() as cursor:
                cursor.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = %s", [TABLE])
                assert str(cursor.fetchone()[0]).rstrip().upper().endswith("WITHOUT ROWID")
    finally:
        migrate_to(latest)


@pytest.mark.django_db(transaction=True)
def test_a_run_that_already_has_a_block_keeps_it() -> None:
    """Runs imported since migration 0004 have both: the block is what they were read from, kept as is."""
    latest = latest_migrations()
    try:
        old = _apps_before()
        camp = old.get_model("campaigns", "Campaign").objects.create(name="C", slug="c")
        topic = old.get_model("campaigns", "Topic").objects.create(campaign=camp, number="1", title="t")
        now = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
        run = old.get_model("campaigns", "Run").objects.create(campaign=camp, tag="new", submitted_at=now)
        old.get_model("campaigns", "RunDocument").objects.create(
            run=run, topic=topic, rank=1, docno="d", score=1.0
        )
        old.get_model("campaigns", "RunArrays").objects.create(run=run, data=b"the import's own block")
        migrate_to(latest)
        assert bytes(RunArrays.objects.get(run_id=run.pk).data) == b"the import's own block"
    finally:
        migrate_to(latest)
