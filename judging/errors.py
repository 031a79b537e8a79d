"""The judging app's domain error: a request the campaign refuses, with the reasons."""

from __future__ import annotations

from typing import Any

from campaigns.errors import CampaignDataError


class JudgingRefused(CampaignDataError):
    """A judging request the campaign refuses (HTTP 400, or 403 where it names another's work)."""


class MachineRunFailed(JudgingRefused):
    """A machine assessor's run in which no document got an answer: the job fails with the reason
    and keeps the run's ``result`` (its counts, state and reason) for its page."""

    def __init__(self, problems: str, result: dict[str, Any]) -> None:
        super().__init__(problems)
        self.result = result
