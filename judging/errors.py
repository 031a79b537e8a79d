"""The judging app's domain error: a request the campaign refuses, with the reasons."""

from __future__ import annotations

from campaigns.errors import CampaignDataError


class JudgingRefused(CampaignDataError):
    """A judging request the campaign refuses (HTTP 400, or 403 where it names another's work)."""
