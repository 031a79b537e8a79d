"""Writes of campaigns themselves: creating one, and with it its first organizer."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import IntegrityError, transaction

from campaigns import access
from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, Membership
from campaigns.services.members import membership_add
from campaigns.validation import DEFAULT_MAX_DOCS


@transaction.atomic
def campaign_create(
    *,
    slug: str,
    name: str = "",
    description: str = "",
    max_docs_per_topic: int = DEFAULT_MAX_DOCS,
    organizer: User | None = None,
) -> Campaign:
    """Create a campaign.

    ``organizer``: the person creating it from a page or the API; they need the permission to
    create campaigns (``access.AccessDenied`` otherwise) and become its first organizer, in the
    same transaction. Commands and scripts create campaigns without one.
    """
    if organizer is not None and not access.can_create_campaign(organizer):
        raise access.AccessDenied("creating campaigns needs the organizer permission")
    try:
        validate_slug(slug)
    except ValidationError as exc:
        raise CampaignDataError(
            f"'{slug}' is not a valid campaign slug (letters, digits, hyphens, underscores)"
        ) from exc
    taken = f"campaign '{slug}' already exists"
    if Campaign.objects.filter(slug=slug).exists():
        raise CampaignDataError(taken)
    if max_docs_per_topic < 1:
        raise CampaignDataError("a campaign must allow at least one document per topic")
    try:
        with transaction.atomic():
            campaign = Campaign.objects.create(
                slug=slug, name=name or slug, description=description, max_docs_per_topic=max_docs_per_topic
            )
    except IntegrityError as exc:  # the same slug created at the same moment
        raise CampaignDataError(taken) from exc
    if organizer is not None:
        membership_add(campaign=campaign, user=organizer, roles=[Membership.Role.ORGANIZER])
    return campaign
