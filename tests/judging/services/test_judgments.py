"""Judgments saved once with their history, refused when not the assessor's, never lost in a race."""

from __future__ import annotations

import threading
from itertools import pairwise
from typing import Any

import pytest
from django.db import close_old_connections, connection

from campaigns.models import Campaign
from judging.models import Judgment, JudgmentEvent
from judging.services import (
    JudgingRefused,
    assignments_create,
    judgment_record,
)
from pooling.models import Pool
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.judging.services.helpers import items, topic

pytestmark = pytest.mark.django_db


def test_judgment_history_and_double_submit(loaded: Campaign, pool: Pool, assessor: Any) -> None:
    (a,) = assignments_create(campaign=loaded, pool=pool, assessors=[assessor], topics=[topic(loaded, "401")])
    doc = items(a)[0]
    judgment_record(assessor=assessor, assignment=a, docno=doc, grade=1, active_ms=1500)
    # a double click: the page has already handed the visit's time to the first save
    judgment_record(assessor=assessor, assignment=a, docno=doc, grade=1, active_ms=0)
    judgment_record(
        assessor=assessor, assignment=a, docno=doc, grade=2, comment="on second thought", active_ms=700
    )
    judgment = Judgment.objects.get(assessor=assessor, docno=doc)
    assert (judgment.grade, judgment.revision, judgment.active_ms) == (2, 2, 1500 + 700)
    # a later visit that re-reads the document and confirms the same grade: no event, its time counts
    judgment_record(
        assessor=assessor, assignment=a, docno=doc, grade=2, comment="on second thought", active_ms=400
    )
    judgment.refresh_from_db()
    assert (judgment.revision, judgment.active_ms) == (2, 1500 + 700 + 400)
    events = list(JudgmentEvent.objects.filter(judgment=judgment).values_list("old_grade", "new_grade"))
    assert events == [(None, 1), (1, 2)]
    judgment_record(assessor=assessor, assignment=a, docno=doc, grade=None, cant_judge=True)
    judgment.refresh_from_db()
    assert judgment.grade is None and judgment.cant_judge


def test_judging_someone_elses_assignment_or_document_is_refused(
    loaded: Campaign, pool: Pool, assessor: Any, co_assessor: Any
) -> None:
    (a,) = assignments_create(campaign=loaded, pool=pool, assessors=[assessor], topics=[topic(loaded, "401")])
    with pytest.raises(JudgingRefused, match="another assessor"):
        judgment_record(assessor=co_assessor, assignment=a, docno=items(a)[0], grade=1)
    with pytest.raises(JudgingRefused, match="not in this assignment"):
        judgment_record(assessor=assessor, assignment=a, docno="DEMO-999-999", grade=1)
    with pytest.raises(JudgingRefused, match="not on the campaign's scale"):
        judgment_record(assessor=assessor, assignment=a, docno=items(a)[0], grade=7)
    assert not Judgment.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_concurrent_saves_never_lose_or_duplicate_a_judgment(loaded: Campaign, assessor: Any) -> None:
    """Many threads, each its own database connection, save the same documents at once."""
    if connection.vendor == "sqlite":
        pytest.skip("SQLite serializes writers with its lock; the race is PostgreSQL's (CI runs it there)")
    pool = pool_commit(pool=pool_build(campaign=loaded, name="d20", spec=PoolSpec("depth", depth=20)))
    (a,) = assignments_create(campaign=loaded, pool=pool, assessors=[assessor], topics=[topic(loaded, "401")])
    docs = items(a)[:10]
    threads, errors = 16, []
    barrier = threading.Barrier(threads)

    def work(n: int) -> None:
        try:
            barrier.wait()
            for i, doc in enumerate(docs):
                # every thread saves every document; grades differ by thread so revisions happen
                judgment_record(assessor=assessor, assignment=a, docno=doc, grade=(n + i) % 3, active_ms=10)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            close_old_connections()
            connection.close()

    pool_threads = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for t in pool_threads:
        t.start()
    for t in pool_threads:
        t.join()
    assert errors == []
    judgments = Judgment.objects.filter(assessor=assessor, docno__in=docs)
    assert judgments.count() == len(docs)  # exactly one current judgment per document
    for judgment in judgments:
        events = list(JudgmentEvent.objects.filter(judgment=judgment).order_by("at", "pk"))
        # the history chains: each event starts from the grade the previous one left
        assert events[0].old_grade is None
        assert all(e.old_grade == prev.new_grade for prev, e in pairwise(events))
        assert events[-1].new_grade == judgment.grade
        assert judgment.revision == len(events)
