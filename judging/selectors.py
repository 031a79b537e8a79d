"""Reads of judging shared by its pages: the scale, assignments with their progress, the campaign's people."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import Count, Exists, OuterRef, Q, Sum
from django.urls import reverse
from django.utils import timezone
from django.utils.timezone import localtime

from campaigns.accounts.models import LoginLink
from campaigns.accounts.selectors import login_links_latest
from campaigns.errors import CampaignNotFound
from campaigns.models import Campaign, Membership, Topic
from campaigns.sections import StepLink, StepState
from campaigns.selectors import NOT_YOURS_TO_MANAGE, members_management
from jobs.models import Job
from judging.models import Assignment, AssignmentItem, Grade, Judgment
from pooling.models import Pool

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


@dataclass(frozen=True)
class Person:
    """A member of the campaign as the people page lists them."""

    user: User
    roles: list[str]
    # why the organizer viewing the page may not reset the password or deactivate the account
    # (campaigns.selectors.NOT_YOURS_TO_MANAGE), or "" when they may
    not_yours: str = ""
    machine: bool = False  # a machine assessor's account: deactivated, never given a password
    link: LoginLink | None = None  # the account's latest one-time login link, used or not

    @property
    def manageable(self) -> bool:
        return not self.not_yours

    @property
    def link_status(self) -> str:
        """Where the account's latest login link stands ("" when it never had one)."""
        link = self.link
        if link is None:
            return ""
        if link.used_at is not None:
            return f"used {localtime(link.used_at):%Y-%m-%d %H:%M}"
        if link.revoked_at is not None:
            return "replaced or withdrawn"
        if link.expires <= timezone.now():
            return "expired unused"
        return f"not used yet (works until {localtime(link.expires):%Y-%m-%d %H:%M})"


def campaign_members(*, campaign: Campaign, viewer: User) -> list[Person]:
    """Every member, by username, with their roles and whether ``viewer`` may manage the account."""
    roles: dict[int, list[str]] = {}
    users: dict[int, User] = {}
    for m in (
        Membership.objects.filter(campaign=campaign)
        .select_related("user", "user__origin")
        .order_by("user__username", "role")
    ):
        roles.setdefault(m.user_id, []).append(m.role)
        users[m.user_id] = m.user
    why = members_management(campaign=campaign, users=list(users.values()), by=viewer)
    links = login_links_latest(user_ids=list(users))
    return [
        Person(
            u,
            roles[pk],
            NOT_YOURS_TO_MANAGE[why[pk]] if why[pk] else "",  # type: ignore[index]
            bool(getattr(u, "origin", None) and u.origin.machine),
            links.get(pk),
        )
        for pk, u in users.items()
    ]


def member_get(*, campaign: Campaign, user_id: int) -> User:
    """A member of the campaign by account id; the campaign's people only, never any account."""
    user = User.objects.filter(pk=user_id, memberships__campaign=campaign).distinct().first()
    if user is None:
        raise CampaignNotFound(f"campaign '{campaign.slug}' has no member {user_id}")
    return user


def assignment_get(*, campaign: Campaign, pk: int) -> Assignment:
    assignment = (
        Assignment.objects.filter(campaign=campaign, pk=pk).select_related("topic", "assessor").first()
    )
    if assignment is None:
        raise CampaignNotFound(f"campaign '{campaign.slug}' has no assignment {pk}")
    return assignment


def campaign_assessors(*, campaign: Campaign) -> list[str]:
    """Usernames of everyone with a stored judgment in the campaign, sorted."""
    names = Judgment.objects.filter(campaign=campaign).values_list("assessor__username", flat=True)
    return sorted(set(names))


# ---------------------------------------------------------------- the campaign overview's steps


def _link(label: str, name: str, campaign: Campaign) -> StepLink:
    return StepLink(label, reverse(name, args=[campaign.slug]))


def people_step(campaign: Campaign) -> StepState:
    people = campaign_people(campaign=campaign)
    assessors, adjudicators = len(people[Membership.Role.ASSESSOR]), len(people[Membership.Role.ADJUDICATOR])
    if not assessors:
        return StepState("not started", "no assessor yet", _link("Add people", "judging:people", campaign))
    summary = f"{assessors} assessor(s), {adjudicators} adjudicator(s)"
    return StepState("done", summary, _link("Manage people", "judging:people", campaign))


def assignments_step(campaign: Campaign) -> StepState:
    """Which topics of the committed pools have an assessor: the step is done when all have."""
    action = _link("Assign a pool", "judging:assignments", campaign)
    pools = list(Pool.objects.filter(campaign=campaign, status=Pool.Status.COMMITTED))
    if not pools:
        return StepState("not started", "commit a pool first", action)
    wanted = {(p.pk, number) for p in pools for number in p.sizes}
    numbers = dict(Topic.objects.filter(campaign=campaign).values_list("id", "number"))
    assigned = {
        (pool, numbers[topic])
        for pool, topic in Assignment.objects.filter(campaign=campaign).values_list("pool_id", "topic_id")
    } & wanted
    summary = f"{len(assigned)} of {len(wanted)} pooled topics assigned"
    if not assigned:
        return StepState("not started", summary, action)
    if len(assigned) < len(wanted):
        return StepState("in progress", summary, action)
    return StepState("done", summary, _link("Manage assignments", "judging:assignments", campaign))


def judging_step(campaign: Campaign) -> StepState:
    rows = campaign_assignments(campaign=campaign)
    action = _link("Follow judging progress", "judging:assignments", campaign)
    if not rows:
        return StepState("not started", "nothing assigned yet", action)
    total, judged = sum(r.total for r in rows), sum(r.judged for r in rows)
    summary = f"{judged} of {total} assigned documents judged"
    if not judged:
        return StepState("not started", summary, action)
    # a queue assignment grows as it is judged: it is finished when its queue has nothing more
    return StepState("in progress" if judged < total else "done", summary, action)


def adjudication_step(campaign: Campaign) -> StepState:
    """The open and decided disagreements, of each kind, under the campaign's machine rule; each
    kind links to the queue filtered to it, and the rule to where it is chosen."""
    from judging.consensus import MACHINE_RULES  # the reports import this module
    from judging.reports.selectors import KIND_NAMES, adjudication_queue

    queue = adjudication_queue(campaign=campaign, show="all")
    queue_url = reverse("judging:adjudication", args=[campaign.slug])
    kinds = tuple(
        StepLink(f"{c.open} open {KIND_NAMES[k]} ({c.decided} decided)", f"{queue_url}?show=open&kind={k}")
        for k, c in queue.by_kind.items()
    )
    rule = StepLink(
        f"Machine disagreements that go to people: {MACHINE_RULES[queue.machine_rule]}",
        reverse("judging:adjudication_settings", args=[campaign.slug]),
    )
    action = StepLink("Adjudicate", queue_url)
    summary = f"{queue.open} open, {queue.decided} decided"
    if not queue.open and not queue.decided:
        return StepState("not started", "no disagreement yet", action, (rule,))
    return StepState("in progress" if queue.open else "done", summary, action, (*kinds, rule))


def agreement_step(campaign: Campaign) -> StepState:
    from judging.reports.selectors import AGREEMENT_JOB  # the reports import this module

    jobs = Job.objects.filter(campaign=campaign, kind=AGREEMENT_JOB, status=Job.Status.DONE)
    results = tuple(
        StepLink(f"{j.title} ({j.created_at:%Y-%m-%d %H:%M})", reverse("jobs:job", args=[j.id]))
        for j in jobs.order_by("-created_at")[:5]
    )
    action = _link("Compute agreement", "judging:agreement", campaign)
    if not results:
        return StepState("not started", "needs documents judged by two assessors", action)
    return StepState("done", f"{jobs.count()} report(s)", action, results)
