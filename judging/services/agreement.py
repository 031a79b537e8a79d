"""Starting the agreement report: a job, since ranking the runs under each assessor takes a while."""

from __future__ import annotations

from django.contrib.auth.models import User

from campaigns.models import Campaign
from jobs.models import Job
from jobs.services import job_enqueue
from judging.reports.selectors import AGREEMENT_JOB, AgreementParams


def agreement_report_start(
    *, campaign: Campaign, user: User, params: AgreementParams, decimals: int = 4
) -> Job:
    """Enqueue the agreement report (with the run rankings when ``params.runs``) as a job."""
    what = "agreement and system rankings" if params.runs else "agreement"
    return job_enqueue(
        kind=AGREEMENT_JOB,
        title=f"{what} of {campaign.slug} (threshold {params.threshold}, bootstrap {params.bootstrap})",
        campaign=campaign,
        user=user,
        params=params.as_dict() | {"decimals": decimals},
    )
