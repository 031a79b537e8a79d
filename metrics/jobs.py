"""The metrics app's background jobs: evaluating a campaign's runs, and comparing them pairwise.

Evaluating 100 runs reads every ranked document of every run: that runs here, outside the
request, with progress per run; the pages show the bar and the last finished evaluation.
"""

from __future__ import annotations

from typing import Any

from campaigns.errors import CampaignDataError
from campaigns.jobs import job_campaign
from jobs.models import Job
from jobs.registry import register
from metrics.models import Evaluation
from metrics.selectors import (
    EVALUATE_JOB,
    SIGNIFICANCE_JOB,
    SignificanceParams,
    significance_result,
    source_from_dict,
    source_query,
)
from metrics.services import evaluation_run
from trec.progress import ProgressCallback


@register(EVALUATE_JOB, result_template="metrics/job_evaluation.html")
def evaluation_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    campaign = job_campaign(job)
    source = source_from_dict(job.params.get("source") or {})
    evaluation = evaluation_run(
        campaign=campaign, source=source, user=job.created_by, job=job, progress=progress
    )
    return {
        "evaluation": evaluation.pk,
        "slug": campaign.slug,
        "query": source_query(source),
        "source": evaluation.source_label,
        "runs": evaluation.run_count,
        "topics": evaluation.topic_count,
        "seconds": round(evaluation.seconds, 3),
    }


@register(SIGNIFICANCE_JOB, result_template="metrics/job_significance.html")
def significance_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    campaign = job_campaign(job)
    try:
        params = SignificanceParams.from_dict(job.params)
    except (KeyError, TypeError, ValueError) as exc:
        raise CampaignDataError(f"bad comparison parameters: {exc}") from exc
    evaluation = Evaluation.objects.filter(campaign=campaign, pk=params.evaluation).first()
    if evaluation is None:
        raise CampaignDataError("the evaluation to compare was deleted")
    result = significance_result(evaluation=evaluation, params=params, progress=progress)
    result["slug"] = campaign.slug
    return result
