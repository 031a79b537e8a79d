"""Starting the agreement report: a job, since ranking the runs under each assessor takes a while."""

from __future__ import annotations

from django.contrib.auth.models import User

from campaigns.access import Role, has_role
from campaigns.models import Campaign
from jobs.models import Job
from jobs.services import job_enqueue
from judging.errors import JudgingRefused
from judging.reports.selectors import AGREEMENT_JOB, AgreementParams


def agreement_report_start(
    *, campaign: Campaign, user: User, params: AgreementParams, decimals: int = 4
) -> Job:
    """Enqueue the agreement report (with the run rankings when ``params.runs``) as a job.

    The run rankings name the runs and their scores: organizers only (an adjudicator may also be
    a participant, who must not read how the runs fare under each assessor).
    """
    if params.runs and not has_role(user, campaign, Role.ORGANIZER):
        raise JudgingRefused("ranking the runs names them and their scores: only organizers may ask for it")
    what = "agreement and system rankings" if params.runs else "agreement"
    return job_enqueue(
        kind=AGREEMENT_JOB,
        title=f"{what} of {campaign.slug} (threshold {params.threshold}, bootstrap {params.bootstrap})",
        campaign=campaign,
        user=user,
        params=params.as_dict() | {"decimals": decimals},
    )
