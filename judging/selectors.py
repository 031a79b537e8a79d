"""Reads of judging for the organizer pages: assignments with their progress, the campaign's people."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import Count, Exists, OuterRef, Q, Sum

from campaigns.models import Campaign, Membership
from judging.models import Assignment, AssignmentItem, Judgment


@dataclass(frozen=True)
class AssignmentProgress:
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


