"""Reads of judging shared by its pages: the scale, assignments with their progress, the campaign's people."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import Count, Exists, OuterRef, Q, Sum

from campaigns.models import Campaign, Membership
from judging.models import Assignment, AssignmentItem, Grade, Judgment

DEFAULT_SCALE = (
    (0, "Not relevant", "Nothing on the topic, or only a passing mention."),
    (1, "Relevant", "Some information the topic asks for."),
    (2, "Highly relevant", "Substantially about the topic; what the searcher wants."),
)


def default_grades(*, campaign: Campaign) -> list[Grade]:
    """The default 0-2 scale as unsaved grades (:func:`judging.services.scale_ensure` stores them)."""
    return [
        Grade(campaign=campaign, value=v, label=label, description=desc, key=str(v))
        for v, label, desc in DEFAULT_SCALE
    ]


def campaign_grades(*, campaign: Campaign) -> list[Grade]:
    """The campaign's grades, lowest first; the default scale (unsaved) while it has none stored.

    A read for pages and GETs: the scale is stored when the first assignment is dealt.
    """
    stored = list(Grade.objects.filter(campaign=campaign).order_by("value"))
    return stored or default_grades(campaign=campaign)


def grades_json(grades: list[Grade]) -> list[dict[str, object]]:
    """The scale as the API and the judging page's script see it."""
    return [{"value": g.value, "label": g.label, "description": g.description, "key": g.key} for g in grades]


@dataclass(frozen=True)
class AssignmentProgress:
    """An assignment as the organizer follows it: documents judged so far, shared ones, time spent."""

    assignment: Assignment
    total: int
    judged: int
    shared: int
    active_seconds: float

    @property
    def percent(self) -> int:
        return round(100 * self.judged / self.total) if self.total else 0


def campaign_assignments(*, campaign: Campaign) -> list[AssignmentProgress]:
    """Every assignment of the campaign with documents judged so far (by that assessor) and time spent.

    Counted by the database (three queries whatever the number of items): an assignment item is
    judged when its assessor has a judgment of that document for the topic.
    """
    mine = Judgment.objects.filter(
        assessor_id=OuterRef("assignment__assessor_id"),
        topic_id=OuterRef("assignment__topic_id"),
        docno=OuterRef("docno"),
    )
    counts = {
        row["assignment_id"]: row
        for row in AssignmentItem.objects.filter(assignment__campaign=campaign)
        .values("assignment_id")
        .annotate(
            total=Count("pk"),
            shared=Count("pk", filter=Q(shared=True)),
            judged=Count("pk", filter=Q(Exists(mine))),
        )
        .order_by()
    }
    seconds = {
        (row["assessor_id"], row["topic_id"]): (row["ms"] or 0) / 1000
        for row in Judgment.objects.filter(campaign=campaign)
        .values("assessor_id", "topic_id")
        .annotate(ms=Sum("active_ms"))
        .order_by()
    }
    out = []
    for a in (
        Assignment.objects.filter(campaign=campaign)
        .select_related("topic", "assessor", "pool")
        .order_by("topic__number", "assessor__username")
    ):
        c = counts.get(a.pk, {"total": 0, "shared": 0, "judged": 0})
        active = seconds.get((a.assessor_id, a.topic_id), 0.0)
        out.append(AssignmentProgress(a, c["total"], c["judged"], c["shared"], active))
    return out


def campaign_people(*, campaign: Campaign) -> dict[str, list[User]]:
    """Per role, the campaign's members by username."""
    out: dict[str, list[User]] = {role: [] for role in Membership.Role.values}
    for m in Membership.objects.filter(campaign=campaign).select_related("user").order_by("user__username"):
        out[m.role].append(m.user)
    return out


def campaign_assessors(*, campaign: Campaign) -> list[str]:
    """Usernames of everyone with a stored judgment in the campaign, sorted."""
    names = Judgment.objects.filter(campaign=campaign).values_list("assessor__username", flat=True)
    return sorted(set(names))
