"""Reads of judging for the organizer pages: assignments with their progress, the campaign's people."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth.models import User

from judging.models import Assignment, AssignmentItem, Judgment
from pooling.models import Campaign, Membership


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
    """Every assignment of the campaign with documents judged so far (by that assessor) and time spent."""
    assignments = list(
        Assignment.objects.filter(campaign=campaign)
        .select_related("topic", "assessor", "pool")
        .order_by("topic__number", "assessor__username")
    )
    items: dict[int, set[str]] = defaultdict(set)
    shared: dict[int, int] = defaultdict(int)
    for aid, docno, is_shared in AssignmentItem.objects.filter(assignment__campaign=campaign).values_list(
        "assignment_id", "docno", "shared"
    ):
        items[aid].add(docno)
        shared[aid] += int(is_shared)
    judged: dict[tuple[int, int], dict[str, int]] = defaultdict(dict)
    for assessor, topic, docno, ms in Judgment.objects.filter(campaign=campaign).values_list(
        "assessor_id", "topic_id", "docno", "active_ms"
    ):
        judged[(assessor, topic)][docno] = ms
    out = []
    for a in assignments:
        mine = judged[(a.assessor_id, a.topic_id)]
        done = items[a.pk] & mine.keys()
        out.append(
            AssignmentProgress(
                a, len(items[a.pk]), len(done), shared[a.pk], sum(mine[d] for d in done) / 1000
            )
        )
    return out


def campaign_people(*, campaign: Campaign) -> dict[str, list[User]]:
    """Per role, the campaign's members by username."""
    out: dict[str, list[User]] = {role: [] for role in Membership.Role.values}
    for m in Membership.objects.filter(campaign=campaign).select_related("user").order_by("user__username"):
        out[m.role].append(m.user)
    return out
