"""Background jobs of the live pages: the reusability report and, for large campaigns, the leaderboard.

Registered on import (``MetricsConfig.ready`` imports this module); the pages and the API enqueue
them through the two helpers below, which name the kind, the campaign and the parameters once.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from campaigns.jobs import job_campaign
from campaigns.models import Campaign
from jobs.models import Job
from jobs.registry import register
from jobs.services import job_enqueue
from metrics.live_selectors import (
    LEADERBOARD_JOB,
    REUSE_JOB,
    leaderboard_result,
    live_pool,
    reusability_report,
)
from pooling.models import Pool
from trec.progress import ProgressCallback


@register(REUSE_JOB, result_template="metrics/reuse_result.html")
def live_reusability_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    campaign = job_campaign(job)
    pool = live_pool(campaign=campaign, pk=job.params["pool"])
    return reusability_report(campaign=campaign, pool=pool, rule=job.params["rule"], progress=progress)


@register(LEADERBOARD_JOB, result_template="metrics/live_leaderboard_result.html")
def live_leaderboard_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    campaign = job_campaign(job)
    pool = live_pool(campaign=campaign, pk=job.params["pool"])
    return leaderboard_result(campaign=campaign, pool=pool, rule=job.params["rule"], progress=progress)


def reuse_job_enqueue(*, campaign: Campaign, user: User, pool: Pool, rule: str) -> Job:
    return job_enqueue(
        kind=REUSE_JOB,
        title=f"reusability of pool '{pool.name}' of {campaign.slug} on the judgments so far ({rule})",
        campaign=campaign,
        user=user,
        params={"pool": pool.pk, "rule": rule},
    )


def leaderboard_job_enqueue(*, campaign: Campaign, user: User, pool: Pool, rule: str) -> Job:
    return job_enqueue(
        kind=LEADERBOARD_JOB,
        title=f"leaderboard of {campaign.slug} on the judgments so far of pool '{pool.name}' ({rule})",
        campaign=campaign,
        user=user,
        params={"pool": pool.pk, "rule": rule},
    )
