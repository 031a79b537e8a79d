"""Writes of the live pages: starting the live leaderboard and the reusability report as jobs.

The page and the API of each operation call the one service here, which resolves the pool the
same way on both edges (:func:`metrics.live.selectors.live_pool`: the given one, else the newest
committed pool with assignments) and names the job's kind, campaign and parameters once.
"""

from __future__ import annotations

from django.contrib.auth.models import User

from campaigns.models import Campaign
from jobs.models import Job
from jobs.services import job_enqueue
from metrics.live.reusability import REUSE_JOB
from metrics.live.selectors import LEADERBOARD_JOB, live_pool


def reusability_report_enqueue(*, campaign: Campaign, user: User | None, pool: int | None, rule: str) -> Job:
    """Leave-one-run-out and leave-one-group-out of pool ``pool`` (default: the live one), as a job."""
    chosen = live_pool(campaign=campaign, pk=pool)
    return job_enqueue(
        kind=REUSE_JOB,
        title=f"reusability of pool '{chosen.name}' of {campaign.slug} on the judgments so far ({rule})",
        campaign=campaign,
        user=user,
        params={"pool": chosen.pk, "rule": rule},
    )


def live_leaderboard_enqueue(*, campaign: Campaign, user: User | None, pool: int | None, rule: str) -> Job:
    """Every run scored on the judgments so far of pool ``pool`` (default: the live one), as a job."""
    chosen = live_pool(campaign=campaign, pk=pool)
    return job_enqueue(
        kind=LEADERBOARD_JOB,
        title=f"leaderboard of {campaign.slug} on the judgments so far of pool '{chosen.name}' ({rule})",
        campaign=campaign,
        user=user,
        params={"pool": chosen.pk, "rule": rule},
    )
