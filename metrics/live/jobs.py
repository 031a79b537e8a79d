"""Background jobs of the live pages: the reusability report and, for large campaigns, the leaderboard.

Registered on import (``MetricsConfig.ready`` imports this module); :mod:`metrics.live.services`
enqueues them.
"""

from __future__ import annotations

from typing import Any

from campaigns.jobs import job_campaign
from jobs.models import Job
from jobs.registry import register
from metrics.live.reusability import REUSE_JOB, reusability_report
from metrics.live.selectors import LEADERBOARD_JOB, live_leaderboard_result, live_pool
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
    return live_leaderboard_result(campaign=campaign, pool=pool, rule=job.params["rule"], progress=progress)
