"""The agreement report as a background job: ranking the runs under each assessor can take a while."""

from __future__ import annotations

from typing import Any

from campaigns.errors import CampaignDataError
from jobs.models import Job
from jobs.registry import register
from judging.reports.selectors import (
    AGREEMENT_JOB,
    READERS,
    AgreementParams,
    agreement_result,
    calibration_result,
    campaign_agreement,
    campaign_calibrations,
)
from trec.progress import ProgressCallback


@register(AGREEMENT_JOB, result_template="judging/results/agreement.html", readers=READERS)
def agreement_report_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    if job.campaign is None:
        raise CampaignDataError("the job lost its campaign")
    params = AgreementParams.from_dict(job.params)
    report = campaign_agreement(campaign=job.campaign, params=params, progress=progress)
    result = agreement_result(report, params)
    result["decimals"] = int(job.params.get("decimals", 4))
    # machine assessors against the humans' consensus (the same agreement core, two label sets)
    calibrations = campaign_calibrations(campaign=job.campaign, params=params, progress=progress)
    result["calibrations"] = [calibration_result(c, params) for c in calibrations]
    return result
