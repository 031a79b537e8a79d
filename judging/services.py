"""Writes of judging: the scale, assignments, judgments (with history) and adjudications. All atomic.

A judgment is saved the moment the assessor gives it. Two requests for the same (assessor, topic,
document) — two tabs, a double click, a retry after a timeout — meet at the database: the row is
locked (or created under its unique constraint, the loser of the race retrying as an update), so
there is always exactly one current judgment and every real change is one history event.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import F

from campaigns.access import Role, has_role
from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, Topic
from judging.design import overlap_design
from judging.models import Adjudication, Assignment, AssignmentItem, Grade, Judgment, JudgmentEvent
from pooling.models import Pool
from pooling.selectors import pool_topic_documents
from pooling.services import queue_next, queue_record

DEFAULT_SCALE = (
    (0, "Not relevant", "Nothing on the topic, or only a passing mention."),
    (1, "Relevant", "Some information the topic asks for."),
    (2, "Highly relevant", "Substantially about the topic; what the searcher wants."),
)


# other processes may accept a grade the scale just dropped for this long (scale_set refuses to drop
# grades already in use, so at worst a judgment lands on a value about to be re-added or refused)
SCALE_CACHE_SECONDS = 10


class JudgingRefused(CampaignDataError):
    """A judging request the campaign refuses (HTTP 400, or 403 where it names another's work)."""


# ---------------------------------------------------------------------------------------- scale


def campaign_scale(*, campaign: Campaign) -> list[Grade]:
    """The campaign's grades, lowest first; the default 0-2 scale is created on first use."""
    grades = list(Grade.objects.filter(campaign=campaign).order_by("value"))
    if grades:
        return grades
    # insert only, never replace: an organizer saving a scale at this moment must win
    Grade.objects.bulk_create(
        [
            Grade(campaign=campaign, value=v, label=label, description=desc, key=str(v))
            for v, label, desc in DEFAULT_SCALE
        ],
        ignore_conflicts=True,
    )
    return list(Grade.objects.filter(campaign=campaign).order_by("value"))


@transaction.atomic
def scale_set(
    *, campaign: Campaign, levels: Sequence[tuple[int, str, str]], keys: Sequence[str] = ()
) -> list[Grade]:
    """Replace the scale: ``levels`` are (value, label, description); keys default to the values' digits.

    Refused when a stored judgment or decision uses a value the new scale drops.
    """
    values = [int(v) for v, _, _ in levels]
    if not levels:
        raise JudgingRefused("a scale needs at least one grade")
    if len(set(values)) != len(values) or min(values) < 0:
        raise JudgingRefused("grade values are distinct whole numbers of 0 or more")
    chosen = list(keys) or [str(v) if 0 <= v <= 9 else "" for v in values]
    if len(chosen) != len(values) or any(len(k) != 1 for k in chosen) or len(set(chosen)) != len(chosen):
        raise JudgingRefused("each grade needs its own one-character key (grades above 9 need keys given)")
    graded = Judgment.objects.filter(campaign=campaign, grade__isnull=False).values_list("grade", flat=True)
    used = {int(g) for g in graded if g is not None}
    used |= set(Adjudication.objects.filter(campaign=campaign).values_list("grade", flat=True))
    dropped = sorted(used - set(values))
    if dropped:
        raise JudgingRefused(f"grades {dropped} are already used by judgments: keep them in the scale")
    Grade.objects.filter(campaign=campaign).delete()
    transaction.on_commit(lambda: cache.delete(f"judging:scale:{campaign.pk}"))
    return Grade.objects.bulk_create(
        Grade(campaign=campaign, value=v, label=label[:60], description=desc[:300], key=key)
        for (v, label, desc), key in zip(levels, chosen, strict=True)
    )


def scale_values(*, campaign_id: int) -> frozenset[int]:
    """The scale's values, read (never created: no write races on the hot path of a save) and kept
    for a few seconds in this process's cache, since every save checks its grade against them."""
    key = f"judging:scale:{campaign_id}"
    values = cache.get(key)
    if values is None:
        stored = Grade.objects.filter(campaign_id=campaign_id).values_list("value", flat=True)
        values = frozenset(stored) or frozenset(v for v, _, _ in DEFAULT_SCALE)
        cache.set(key, values, SCALE_CACHE_SECONDS)
    return frozenset(values)


# ---------------------------------------------------------------------------------- assignments


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
    campaign_scale(campaign=campaign)  # the scale assessors will use exists before anyone judges
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
        created.append(
            Assignment.objects.create(
                campaign=campaign,
                pool=pool,
                topic=topic,
                assessor=people[i % len(people)],
                order=Assignment.Order.QUEUE,
                seed=seed,
                budget=budget,
            )
        )
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


# ------------------------------------------------------------------------------------ judgments


def _check_grade(campaign: Campaign, grade: int | None, cant_judge: bool) -> None:
    if cant_judge:
        if grade is not None:
            raise JudgingRefused("a document the assessor cannot judge has no grade")
        return
    if grade is None:
        raise JudgingRefused("a judgment needs a grade (or 'can't judge')")
    values = scale_values(campaign_id=campaign.pk)
    if grade not in values:
        raise JudgingRefused(
            f"grade {grade} is not on the campaign's scale ({', '.join(map(str, sorted(values)))})"
        )


@transaction.atomic
def judgment_record(
    *,
    assessor: User,
    assignment: Assignment,
    docno: str,
    grade: int | None,
    cant_judge: bool = False,
    comment: str = "",
    active_ms: int = 0,
    item: AssignmentItem | None = None,
) -> Judgment:
    """Save the assessor's judgment of ``docno`` now; a repeat with the same values changes nothing.

    The document must be an item of the assessor's own assignment; a caller that has already read
    that item passes it as ``item`` and saves the lookup.
    """
    if assignment.assessor_id != assessor.pk:
        raise JudgingRefused("this assignment belongs to another assessor")
    known = item is not None and item.assignment_id == assignment.pk and item.docno == docno
    if not known and not AssignmentItem.objects.filter(assignment=assignment, docno=docno).exists():
        raise JudgingRefused(f"document '{docno}' is not in this assignment")
    campaign = assignment.campaign
    _check_grade(campaign, grade, cant_judge)
    comment = comment.strip()
    active_ms = max(0, min(int(active_ms), 24 * 3600 * 1000))
    key = {"assessor": assessor, "topic_id": assignment.topic_id, "docno": docno}
    # of=self and no ordering: lock the judgment row only, never the topic or campaign rows a join
    # would bring in (every save of the campaign would queue on them and deadlock)
    judgment = Judgment.objects.select_for_update(of=("self",)).filter(**key).order_by().first()
    created = False
    if judgment is None:
        try:
            with transaction.atomic():  # a savepoint: losing the race must not break the outer transaction
                judgment = Judgment.objects.create(
                    campaign=campaign,
                    grade=grade,
                    cant_judge=cant_judge,
                    comment=comment,
                    active_ms=active_ms,
                    **key,
                )
                created = True
        except IntegrityError:
            judgment = Judgment.objects.select_for_update(of=("self",)).get(**key)
    if created:
        JudgmentEvent.objects.create(
            judgment=judgment,
            assessor=assessor,
            new_grade=grade,
            new_cant_judge=cant_judge,
            comment=comment,
            active_ms=active_ms,
        )
    elif (judgment.grade, judgment.cant_judge, judgment.comment) != (grade, cant_judge, comment):
        JudgmentEvent.objects.create(
            judgment=judgment,
            assessor=assessor,
            old_grade=judgment.grade,
            new_grade=grade,
            old_cant_judge=judgment.cant_judge,
            new_cant_judge=cant_judge,
            comment=comment,
            active_ms=active_ms,
        )
        judgment.grade, judgment.cant_judge, judgment.comment = grade, cant_judge, comment
        judgment.active_ms += active_ms
        judgment.revision += 1
        judgment.save(update_fields=["grade", "cant_judge", "comment", "active_ms", "revision", "updated_at"])
    else:
        # the same judgment again: no history event, but a visit that re-read the document still
        # counts its time (a network retry of the same save would count twice: rare, and the
        # alternative loses every re-confirming visit)
        if active_ms:
            Judgment.objects.filter(pk=judgment.pk).update(active_ms=F("active_ms") + active_ms)
            judgment.refresh_from_db(fields=["active_ms"])
        return judgment
    if assignment.order == Assignment.Order.QUEUE:
        # "can't judge" reaches the queue as not relevant, so it moves on; the judgment keeps saying
        # "can't judge" for agreement, consensus and exports
        queue_grade = 0 if grade is None else grade
        queue_record(pool=assignment.pool, topic=assignment.topic.number, docno=docno, grade=queue_grade)
    return judgment


# --------------------------------------------------------------------------------- adjudication


@transaction.atomic
def adjudication_record(
    *, adjudicator: User, campaign: Campaign, topic: Topic, docno: str, grade: int, note: str = ""
) -> Adjudication:
    """Record (or change) the adjudicator's final grade of a judged document."""
    if not has_role(adjudicator, campaign, Role.ADJUDICATOR, Role.ORGANIZER):
        raise JudgingRefused("deciding disagreements needs the adjudicator role")
    if topic.campaign_id != campaign.pk:
        raise JudgingRefused("the topic belongs to another campaign")
    if not Judgment.objects.filter(topic=topic, docno=docno).exists():
        raise JudgingRefused(f"nobody judged '{docno}' for topic {topic.number}")
    _check_grade(campaign, grade, False)
    decision, _ = Adjudication.objects.update_or_create(
        topic=topic,
        docno=docno,
        defaults={"campaign": campaign, "adjudicator": adjudicator, "grade": grade, "note": note.strip()},
    )
    return decision
