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
from pooling.services import queue_next, queue_record


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
            if order == Assignment.Order.MACHINE:
                best = _machine_grades(campaign, topic)
                docnos.sort(key=lambda d: -best.get(d, -1))  # stable: ties keep the shuffle
        try:
            design = overlap_design(
                docnos,
                [u.username for u in people],
                k=k,
                sample=sample,
                min_pair=min_pair,
                seed=rng,
                shuffle=order == Assignment.Order.RANDOM,
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
    created: list[Assignment] = []
    finished: list[str] = []
    for topic in sorted(topics, key=lambda t: t.number.encode()):
        if topic.pk in busy:
            raise JudgingRefused(f"topic {topic.number} of an adaptive pool already has its assessor")
        assignment = Assignment.objects.create(
            campaign=campaign,
            pool=pool,
            topic=topic,
            assessor=people[len(created) % len(people)],
            order=Assignment.Order.QUEUE,
            seed=seed,
            budget=budget,
        )
        # the first document is dealt now, so opening the assignment (a GET) never asks the queue;
        # each save then asks for the next one (judging.services.judgments.judgment_save). A topic
        # whose queue has nothing left gets no assignment: an empty one would be a dead end.
        if assignment_next_item(assignment=assignment) is None:
            assignment.delete()
            finished.append(topic.number)
            continue
        created.append(assignment)
    if finished and not created:
        raise JudgingRefused(f"the queue has nothing left to judge for topic(s) {', '.join(finished)}")
    return created


@transaction.atomic
def assignment_next_item(*, assignment: Assignment) -> AssignmentItem | None:
    """For a queue assignment: the document the queue wants judged next, added to the assignment.

    The queue keeps handing out the same document until it is judged, so asking twice adds it once.
    """
    locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
    if locked.order != Assignment.Order.QUEUE:
        raise JudgingRefused("only queue assignments grow one document at a time")
    # a reassigned queue topic grows only in its newest assignment: one queue, one assessor at a time
    if Assignment.objects.filter(
        pool_id=locked.pool_id, topic_id=locked.topic_id, order=Assignment.Order.QUEUE, pk__gt=locked.pk
    ).exists():
        return None
    mine = Judgment.objects.filter(assessor_id=locked.assessor_id, topic_id=locked.topic_id)
    while True:
        # the budget counts the judgments given in this assignment, not the topic's judgments made
        # before it elsewhere (an assessor who judged the topic in another pool started "finished")
        judged = mine.filter(
            docno__in=locked.items.values("docno"), created_at__gte=locked.created_at
        ).count()
        if locked.budget is not None and judged >= locked.budget:
            return None
        docno = queue_next(pool=locked.pool, topic=locked.topic.number)
        if docno is None:
            return None
        item = AssignmentItem.objects.filter(assignment=locked, docno=docno).first()
        if item is None:
            last = locked.items.order_by("-position").values_list("position", flat=True).first() or 0
            item = AssignmentItem.objects.create(assignment=locked, position=last + 1, docno=docno)
        earlier = mine.filter(docno=docno).first()
        if earlier is None:
            return item
        # already judged by this assessor (in another pool): the queue takes that judgment, as a
        # save would, and moves on; re-saving the same grade records nothing, so it would never learn
        grade = 0 if earlier.grade is None else earlier.grade
        queue_record(pool=locked.pool, topic=locked.topic.number, docno=docno, grade=grade)


@transaction.atomic
def assignment_delete(*, campaign: Campaign, assignment: Assignment) -> None:
    """Release an assignment: its documents are no longer the assessor's to judge.

    The judgments already given stay (they are the assessor's, and count in agreement and exports);
    a released queue topic can be assigned again.
    """
    if assignment.campaign_id != campaign.pk:
        raise JudgingRefused("the assignment belongs to another campaign")
    Assignment.objects.filter(pk=assignment.pk).delete()


@transaction.atomic
def assignment_reassign(*, campaign: Campaign, assignment: Assignment, assessor: User) -> Assignment:
    """Move the assignment's unjudged documents to ``assessor``; what was judged stays where it is.

    The documents join ``assessor``'s assignment of the same pool and topic (created if needed, with
    the same order, seed and budget); the original keeps its judged documents, and goes when it has
    none. A queue topic moves whole: the queue then deals only to the new assignment.
    """
    if assignment.campaign_id != campaign.pk:
        raise JudgingRefused("the assignment belongs to another campaign")
    locked = Assignment.objects.select_for_update().select_related("topic", "pool").get(pk=assignment.pk)
    if locked.assessor_id == assessor.pk:
        raise JudgingRefused(f"'{assessor.username}' already holds this assignment")
    if not has_role(assessor, campaign, Role.ASSESSOR):
        raise JudgingRefused(f"'{assessor.username}' is not an assessor of this campaign")
    judged = set(
        Judgment.objects.filter(
            assessor_id=locked.assessor_id, topic_id=locked.topic_id, docno__in=locked.items.values("docno")
        ).values_list("docno", flat=True)
    )
    moving = [i for i in locked.items.order_by("position") if i.docno not in judged]
    if not moving and locked.order != Assignment.Order.QUEUE:
        raise JudgingRefused(f"every document of topic {locked.topic.number} is judged: nothing to reassign")
    target, _ = Assignment.objects.get_or_create(
        pool=locked.pool,
        topic=locked.topic,
        assessor=assessor,
        defaults={"campaign": campaign, "order": locked.order, "seed": locked.seed, "budget": locked.budget},
    )
    if locked.order == Assignment.Order.QUEUE and judged and target.pk < locked.pk:
        # the queue deals to the newest assignment of the topic, and this one stays with its judgments
        raise JudgingRefused(
            f"'{assessor.username}' judged topic {locked.topic.number} of this pool before: "
            "choose another assessor"
        )
    have = set(target.items.values_list("docno", flat=True))
    last = target.items.order_by("-position").values_list("position", flat=True).first() or 0
    AssignmentItem.objects.bulk_create(
        AssignmentItem(assignment=target, position=last + n, docno=i.docno, shared=i.shared)
        for n, i in enumerate((i for i in moving if i.docno not in have), start=1)
    )
    AssignmentItem.objects.filter(pk__in=[i.pk for i in moving]).delete()
    if not judged:
        locked.delete()
    dealt = target.order == Assignment.Order.QUEUE and assignment_next_item(assignment=target) is not None
    if target.order == Assignment.Order.QUEUE and not dealt and not target.items.exists():
        raise JudgingRefused(f"the queue has nothing left to judge for topic {locked.topic.number}")
    return target


def _machine_grades(campaign: Campaign, topic: Topic) -> dict[str, int]:
    """The highest grade any machine assessor of the campaign gave each document of ``topic``."""
    from django.db.models import Max

    rows = (
        Judgment.objects.filter(
            campaign=campaign, topic=topic, grade__isnull=False, assessor__machine_judge__isnull=False
        )
        .values("docno")
        .annotate(best=Max("grade"))
    )
    return {r["docno"]: int(r["best"]) for r in rows}
