"""Assignments with overlap and order, judgments saved once with their history, adjudication."""

from __future__ import annotations

import threading
from collections import Counter
from itertools import pairwise
from typing import Any

import pytest
from django.db import close_old_connections, connection

from campaigns.models import Campaign, Topic
from judging.models import Adjudication, Assignment, AssignmentItem, Judgment, JudgmentEvent
from judging.services import (
    JudgingRefused,
    adjudication_record,
    assignment_next_item,
    assignments_create,
    campaign_scale,
    judgment_record,
    scale_set,
)
from pooling.models import Pool
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec

pytestmark = pytest.mark.django_db


@pytest.fixture
def pool(loaded: Campaign) -> Pool:
    return pool_commit(pool=pool_build(campaign=loaded, name="d5", spec=PoolSpec("depth", depth=5)))


def topic(campaign: Campaign, number: str) -> Topic:
    return Topic.objects.get(campaign=campaign, number=number)


def items(a: Assignment) -> list[str]:
    return list(a.items.order_by("position").values_list("docno", flat=True))


def test_default_scale_is_created_on_first_use(campaign: Campaign) -> None:
    grades = campaign_scale(campaign=campaign)
    assert [(g.value, g.key) for g in grades] == [(0, "0"), (1, "1"), (2, "2")]


def test_scale_cannot_drop_a_grade_in_use(loaded: Campaign, pool: Pool, assessor: Any) -> None:
    (a,) = assignments_create(campaign=loaded, pool=pool, assessors=[assessor], topics=[topic(loaded, "401")])
    judgment_record(assessor=assessor, assignment=a, docno=items(a)[0], grade=2)
    with pytest.raises(JudgingRefused, match=r"\[2\] are already used"):
        scale_set(campaign=loaded, levels=[(0, "no", ""), (1, "yes", "")])
    scale_set(campaign=loaded, levels=[(0, "no", ""), (1, "yes", ""), (2, "very", ""), (3, "key", "")])
    assert [g.label for g in campaign_scale(campaign=loaded)] == ["no", "yes", "very", "key"]


def test_k_two_assigns_every_pooled_document_twice(
    loaded: Campaign, pool: Pool, assessor: Any, co_assessor: Any
) -> None:
    created = assignments_create(campaign=loaded, pool=pool, assessors=[assessor, co_assessor], k=2, seed=4)
    per_topic: dict[str, list[str]] = {}
    for a in created:
        per_topic.setdefault(a.topic.number, []).extend(items(a))
    for number, size in pool.sizes.items():
        assert Counter(per_topic[number]) == Counter({d: 2 for d in set(per_topic[number])})
        assert len(set(per_topic[number])) == size["judge"]
    assert all(AssignmentItem.objects.filter(assignment=a, shared=False).count() == 0 for a in created)


def test_random_order_is_seeded_and_docno_order_is_byte_order(
    loaded: Campaign, pool: Pool, assessor: Any, co_assessor: Any
) -> None:
    t = topic(loaded, "402")
    (one,) = assignments_create(campaign=loaded, pool=pool, assessors=[assessor], topics=[t], seed=9)
    (two,) = assignments_create(
        campaign=loaded, pool=pool, assessors=[co_assessor], topics=[t], order="docno"
    )
    assert items(two) == sorted(items(one), key=str.encode)
    assert items(one) != items(two)  # 5+ documents: a seeded shuffle is not docno order here


def test_assigning_twice_or_to_non_assessors_is_refused(
    loaded: Campaign, pool: Pool, assessor: Any, outsider: Any
) -> None:
    t = [topic(loaded, "401")]
    assignments_create(campaign=loaded, pool=pool, assessors=[assessor], topics=t)
    with pytest.raises(JudgingRefused, match="already assigned: alice on 401"):
        assignments_create(campaign=loaded, pool=pool, assessors=[assessor], topics=t)
    with pytest.raises(JudgingRefused, match="not assessors of this campaign: oscar"):
        assignments_create(campaign=loaded, pool=pool, assessors=[outsider], topics=t)


def test_a_draft_pool_cannot_be_assigned(loaded: Campaign, assessor: Any) -> None:
    draft = pool_build(campaign=loaded, name="draft", spec=PoolSpec("depth", depth=2))
    with pytest.raises(JudgingRefused, match="draft"):
        assignments_create(campaign=loaded, pool=draft, assessors=[assessor])


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


def test_queue_assignment_hands_out_documents_one_at_a_time(loaded: Campaign, assessor: Any) -> None:
    adaptive = pool_commit(pool=pool_build(campaign=loaded, name="mm", spec=PoolSpec("maxmean", depth=10)))
    (a,) = assignments_create(
        campaign=loaded,
        pool=adaptive,
        assessors=[assessor],
        topics=[topic(loaded, "403")],
        order="queue",
        budget=3,
    )
    seen: list[str] = []
    while (item := assignment_next_item(assignment=a)) is not None:
        assert assignment_next_item(assignment=a) == item  # asked twice before judging: the same one
        judgment_record(assessor=assessor, assignment=a, docno=item.docno, grade=len(seen) % 2)
        seen.append(item.docno)
    assert len(seen) == 3 == a.items.count()  # the budget
    adaptive.refresh_from_db()
    assert adaptive.queue_state is not None
    assert [d for d, _, _ in adaptive.queue_state["topics"]["403"]["log"]] == seen


def test_adjudication_needs_the_role_and_a_judged_document(
    loaded: Campaign, pool: Pool, assessor: Any, adjudicator: Any
) -> None:
    t = topic(loaded, "401")
    (a,) = assignments_create(campaign=loaded, pool=pool, assessors=[assessor], topics=[t])
    doc = items(a)[0]
    with pytest.raises(JudgingRefused, match="nobody judged"):
        adjudication_record(adjudicator=adjudicator, campaign=loaded, topic=t, docno=doc, grade=1)
    judgment_record(assessor=assessor, assignment=a, docno=doc, grade=0)
    with pytest.raises(JudgingRefused, match="adjudicator role"):
        adjudication_record(adjudicator=assessor, campaign=loaded, topic=t, docno=doc, grade=1)
    adjudication_record(adjudicator=adjudicator, campaign=loaded, topic=t, docno=doc, grade=1)
    adjudication_record(adjudicator=adjudicator, campaign=loaded, topic=t, docno=doc, grade=2, note="changed")
    decision = Adjudication.objects.get(topic=t, docno=doc)
    assert (decision.grade, decision.note) == (2, "changed")


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
