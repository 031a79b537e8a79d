"""Helpers of the judging services' tests."""

from __future__ import annotations

from campaigns.models import Campaign, Topic
from judging.models import Assignment


def topic(campaign: Campaign, number: str) -> Topic:
    return Topic.objects.get(campaign=campaign, number=number)


def items(a: Assignment) -> list[str]:
    return list(a.items.order_by("position").values_list("docno", flat=True))
