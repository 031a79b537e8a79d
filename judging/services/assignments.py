"""Writes of assignments: dealing a pool's documents to assessors, and growing a queue assignment."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from django.contrib.auth.models import User
from django.db import transaction

from campaigns.access import Role, has_role
from campaigns.models import Campaign, Topic
from judging.design import overlap_design
from judging.errors import JudgingRefused
from judging.models import Assignment, AssignmentItem, Judgment
from judging.services.scale import scale_ensure
from pooling.models import Pool
from pooling.selectors import pool_topic_documents
from pooling.services import queue_next


@transaction.atomic
def assignments_create(
    *,
    campaign: Campaign,
    pool: Pool,
    assessors: Sequence[User],
    topics: Sequence[Topic] | None = None,
    k: int | None = 1,
    sample: float | None = None,
    min_pair: int = 0,
    order: str = Assignment.Order.RANDOM,
    seed: int = 0,
    budget: int | None = None,
) -> list[Assignment]:
    """Deal the pool's documents of each topic to the assessors with the chosen overlap.

    ``k`` assessors per document, or (``k=None``) a double-judged ``sample`` share balanced over
    the pairs (:func:`judging.design.overlap_design`). ``order``: a seeded shuffle (``random``),
    ``docno`` order, or the pool's adaptive ``queue`` (one assessor per topic, documents handed
    out one at a time, up to ``budget``).
    """
    if pool.campaign_id != campaign.pk:
        raise JudgingRefused("the pool belongs to another campaign")
    scale_ensure(campaign=campaign)  # the scale assessors will use exists before anyone judges
    if pool.status != Pool.Status.COMMITTED:
        raise JudgingRefused(f"pool '{pool.name}' is a draft: commit it before assigning it")
    if order not in Assignment.Order.values:
        raise JudgingRefused(f"unknown order '{order}' (one of {', '.join(Assignment.Order.values)})")
    people = list(dict.fromkeys(assessors))
    if not people:
        raise JudgingRefused("choose at least one assessor")
    not_assessors = [u.username for u in people if not has_role(u, campaign, Role.ASSESSOR)]
    if not_assessors:
        raise JudgingRefused(f"not assessors of this campaign: {', '.join(sorted(not_assessors))}")
    chosen = (
        list(topics)
        if topics is not None
        else list(Topic.objects.filter(campaign=campaign, number__in=pool.sizes))
    )
    if any(t.campaign_id != campaign.pk for t in chosen):
        raise JudgingRefused("a topic belongs to another campaign")
    taken = Assignment.objects.filter(pool=pool, topic__in=chosen, assessor__in=people).select_related(
        "topic", "assessor"
    )
    if taken.exists():
        shown = ", ".join(f"{a.assessor.username} on {a.topic.number}" for a in taken[:10])
        raise JudgingRefused(f"already assigned: {shown}")
    if order == Assignment.Order.QUEUE:
        return _queue_assignments(campaign, pool, people, chosen, seed, budget, k, sample)
    rng = np.random.default_rng(seed)
    created: list[Assignment] = []
    for topic in sorted(chosen, key=lambda t: t.number.encode()):
        docnos = pool_topic_documents(pool=pool, topic=topic)
        if order == Assignment.Order.DOCNO:
            docnos = sorted(docnos, key=lambda d: d.encode())
        else:
            docnos = [docnos[i] for i in rng.permutation(len(docnos))]
        try:
            design = overlap_design(
                docnos, [u.username for u in people], k=k, sample=sample, min_pair=min_pair, seed=rng
            )
        except ValueError as exc:
            raise JudgingRefused(f"topic {topic.number}: {exc}") from exc
        for user in people:
            items = design[user.username]
            if not items:
                continue
            assignment = Assignment.objects.create(
                campaign=campaign,
                pool=pool,
                topic=topic,
                assessor=user,
                order=order,
                seed=seed,
                budget=budget,
            )
            AssignmentItem.objects.bulk_create(
                AssignmentItem(assignment=assignment, position=i, docno=d, shared=shared)
                for i, (d, shared) in enumerate(items, start=1)
            )
            created.append(assignment)
    return created


def _queue_assignments(
    campaign: Campaign,
    pool: Pool,
    people: list[User],
    topics: list[Topic],
    seed: int,
    budget: int | None,
    k: int | None,
    sample: float | None,
) -> list[Assignment]:
    if not pool.adaptive:
        raise JudgingRefused(f"pool '{pool.name}' is not adaptive: it has no queue to take the order from")
    if (k not in (None, 1)) or sample:
        raise JudgingRefused(
            "an adaptive queue hands each document to one assessor: overlap needs a static pool"
        )
    busy = set(Assignment.objects.filter(pool=pool, topic__in=topics).values_list("topic_id", flat=True))
    created = []
    for i, topic in enumerate(sorted(topics, key=lambda t: t.number.encode())):
        if topic.pk in busy:
            raise JudgingRefused(f"topic {topic.number} of an adaptive pool already has its assessor")
        assignment = Assignment.objects.create(
            campaign=campaign,
            pool=pool,
            topic=topic,
            assessor=people[i % len(people)],
            order=Assignment.Order.QUEUE,
            seed=seed,
            budget=budget,
        )
        # the first document is dealt now, so opening the assignment (a GET) never asks the queue;
        # each save then asks for the next one (judging.services.judgments.judgment_save)
        assignment_next_item(assignment=assignment)
        created.append(assignment)
    return created


@transaction.atomic
def assignment_next_item(*, assignment: Assignment) -> AssignmentItem | None:
    """For a queue assignment: the document the queue wants judged next, added to the assignment.

    The queue keeps handing out the same document until it is judged, so asking twice adds it once.
    """
    locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
    if locked.order != Assignment.Order.QUEUE:
        raise JudgingRefused("only queue assignments grow one document at a time")
    judged = Judgment.objects.filter(assessor_id=locked.assessor_id, topic_id=locked.topic_id).count()
    if locked.budget is not None and judged >= locked.budget:
        return None
    docno = queue_next(pool=locked.pool, topic=locked.topic.number)
    if docno is None:
        return None
    item = AssignmentItem.objects.filter(assignment=locked, docno=docno).first()
    if item is None:
        last = locked.items.order_by("-position").values_list("position", flat=True).first() or 0
        item = AssignmentItem.objects.create(assignment=locked, position=last + 1, docno=docno)
    return item
