"""Assignments with overlap and order; a queue assignment handed out one document at a time."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from campaigns.models import Campaign
from judging.models import AssignmentItem
from judging.services import (
    JudgingRefused,
    assignment_next_item,
    assignments_create,
    judgment_record,
)
from pooling.models import Pool
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.judging.services.helpers import items, topic

pytestmark = pytest.mark.django_db


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
