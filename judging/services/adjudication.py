"""Writes of adjudication: the adjudicator's final grade of a document the assessors disagree on."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from campaigns.access import Role, has_role
from campaigns.models import Campaign, Topic
from judging.errors import JudgingRefused
from judging.models import Adjudication, Judgment
from judging.reports.selectors import still_to_judge
from judging.services.scale import grade_check


@transaction.atomic
def adjudication_decide(
    *, adjudicator: User, campaign: Campaign, topic: str, docno: str, grade: int, note: str = ""
) -> Adjudication:
    """Record (or change) the adjudicator's final grade of a judged document of topic number ``topic``.

    The one operation behind the adjudication page's form and the API's decide endpoint.
    """
    if not has_role(adjudicator, campaign, Role.ADJUDICATOR, Role.ORGANIZER):
        raise JudgingRefused("deciding disagreements needs the adjudicator role")
    found = Topic.objects.filter(campaign=campaign, number=topic).first()
    if found is None:
        raise JudgingRefused(f"campaign '{campaign.slug}' has no topic '{topic}'")
    if not Judgment.objects.filter(topic=found, docno=docno).exists():
        raise JudgingRefused(f"nobody judged '{docno}' for topic {topic}")
    if still_to_judge(campaign=campaign, user=adjudicator)((topic, docno)):
        raise JudgingRefused(f"you still have to judge '{docno}' for topic {topic} yourself: judge it first")
    grade_check(campaign=campaign, grade=grade, cant_judge=False)
    decision, _ = Adjudication.objects.update_or_create(
        topic=found,
        docno=docno,
        defaults={"campaign": campaign, "adjudicator": adjudicator, "grade": grade, "note": note.strip()},
    )
    return decision
