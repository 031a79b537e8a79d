"""Domain errors of campaign data; the edges map them to HTTP 400/404 or a command's exit code 2."""

from __future__ import annotations

from collections.abc import Sequence

from campaigns.validation import RunReport


class CampaignDataError(Exception):
    """A request the campaign's data refuses. ``problems`` are the lines to show, one per problem."""

    def __init__(self, problems: str | Sequence[str]) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__(self.problems[0] if len(self.problems) == 1 else f"{len(self.problems)} problems")


class CampaignNotFound(CampaignDataError):
    pass


class InputRefused(CampaignDataError):
    """A page's form whose fields are malformed (``field: problem`` lines); nothing was tried."""


class ImportRefused(CampaignDataError):
    """Nothing was stored. For runs, ``reports`` holds every file's validation report."""

    def __init__(self, problems: str | Sequence[str], reports: Sequence[RunReport] = ()) -> None:
        super().__init__(problems)
        self.reports = list(reports)
