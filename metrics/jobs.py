"""The metrics app's background jobs: evaluating a campaign's runs, and comparing them pairwise.

Evaluating 100 runs reads every ranked document of every run: that runs here, outside the
request, with progress per run; the pages show the bar and the last finished evaluation. A campaign
with more runs than ``WORKBENCH_EVALUATION_PART_RUNS`` is evaluated in parts of that many runs, one
task each, so that every worker takes some; the last step stores the evaluation in one transaction.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import timezone

from campaigns.errors import CampaignDataError
from campaigns.jobs import job_campaign
from campaigns.models import Campaign
from campaigns.selectors import campaign_runs
from jobs.models import Job
from jobs.registry import Split, register
from jobs.selectors import job_parts
from metrics.comparisons import SIGNIFICANCE_JOB, SignificanceParams, significance_result
from metrics.evaluations import EVALUATE_JOB, source_evaluate
from metrics.models import Evaluation
from metrics.services import evaluated_json, evaluation_run, evaluation_store
from metrics.sources import JudgmentSource, source_from_dict, source_query
from trec.progress import ProgressCallback

EVALUATE_PART_JOB = "metrics_evaluate_part"
EVALUATE_STORE_JOB = "metrics_evaluate_store"


@register(EVALUATE_JOB, result_template="metrics/job_evaluation.html")
def evaluation_job(job: Job, progress: ProgressCallback) -> dict[str, Any] | Split:
    """Evaluate the campaign's runs here, or, when they are many, split them into parts."""
    campaign = job_campaign(job)
    source = source_from_dict(job.params.get("source") or {})
    size = max(1, int(settings.WORKBENCH_EVALUATION_PART_RUNS))
    runs = list(campaign_runs(campaign=campaign).values_list("pk", flat=True))
    if len(runs) > size:
        chunks = [runs[i : i + size] for i in range(0, len(runs), size)]
        params = [{"source": job.params.get("source") or {}, "runs": chunk} for chunk in chunks]
        return Split(EVALUATE_PART_JOB, params, EVALUATE_STORE_JOB)
    evaluation = evaluation_run(
        campaign=campaign, source=source, user=job.created_by, job=job, progress=progress
    )
    return _evaluation_result(campaign, source, evaluation)


@register(EVALUATE_PART_JOB)
def evaluation_part_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    """Score one part's runs; the result is what their rows will store."""
    campaign = job_campaign(job)
    source = source_from_dict(job.params.get("source") or {})
    runs = list(campaign_runs(campaign=campaign).filter(pk__in=job.params["runs"]))
    if not runs:
        raise CampaignDataError("the runs of this part were deleted")
    return evaluated_json(source_evaluate(campaign=campaign, source=source, runs=runs, progress=progress))


@register(EVALUATE_STORE_JOB)
def evaluation_store_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    """The last step of a split evaluation: store it from its parts, in one transaction."""
    parent = job.parent
    if parent is None:
        raise CampaignDataError("this step belongs to an evaluation")
    campaign = job_campaign(parent)
    source = source_from_dict(parent.params.get("source") or {})
    parts = [part.result for part in job_parts(job=parent) if part.result is not None]
    progress("storing the evaluation", 0, 1)
    started = parent.started_at or parent.created_at
    evaluation = evaluation_store(
        campaign=campaign,
        source=source,
        parts=parts,
        seconds=(timezone.now() - started).total_seconds(),
        user=parent.created_by,
        job=parent,
    )
    progress("storing the evaluation", 1, 1)
    return _evaluation_result(campaign, source, evaluation)


def _evaluation_result(campaign: Campaign, source: JudgmentSource, evaluation: Evaluation) -> dict[str, Any]:
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
