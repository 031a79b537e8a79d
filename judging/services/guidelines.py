"""Writes of a campaign's assessor guidelines: what relevant means here, shown on the judging page."""

from __future__ import annotations

from django.db import transaction

from campaigns.models import Campaign
from judging.errors import JudgingRefused

GUIDELINES_MAX = 50_000


@transaction.atomic
def campaign_guidelines_set(*, campaign: Campaign, guidelines: str) -> Campaign:
    """Replace the campaign's assessor guidelines (plain text; "" removes them).

    Line endings are normalized and trailing blank space dropped, so what the organizer typed is
    what every assessor reads, line for line.
    """
    text = guidelines.replace("\r\n", "\n").replace("\r", "\n").rstrip()
    if len(text) > GUIDELINES_MAX:
        raise JudgingRefused(f"the guidelines are {len(text)} characters long; at most {GUIDELINES_MAX}")
    campaign.guidelines = text
    campaign.save(update_fields=["guidelines"])
    return campaign
