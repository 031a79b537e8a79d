"""Writes of a campaign's adjudication settings: which disagreements only a machine causes go to people."""

from __future__ import annotations

from django.db import transaction

from campaigns.models import Campaign
from judging.consensus import MACHINE_RULES
from judging.errors import JudgingRefused
from judging.models import AdjudicationSettings


@transaction.atomic
def adjudication_settings_set(*, campaign: Campaign, machine_rule: str) -> AdjudicationSettings:
    """Choose the campaign's machine rule (:func:`judging.consensus.to_people`).

    Nothing is decided or undone: the queue is read through the rule, so a disagreement the rule
    leaves out comes back when a wider rule is chosen, and decisions already taken stay.
    """
    if machine_rule not in MACHINE_RULES:
        raise JudgingRefused(
            f"unknown machine disagreement rule '{machine_rule}' (one of {', '.join(MACHINE_RULES)})"
        )
    settings, _ = AdjudicationSettings.objects.update_or_create(
        campaign=campaign, defaults={"machine_rule": machine_rule}
    )
    return settings
