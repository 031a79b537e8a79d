"""A job left running by a stopped process never stands in for a new evaluation."""

from __future__ import annotations

import pytest
from django.utils import timezone

from campaigns.models import Campaign
from jobs.liveness import Holder
from jobs.models import Job
from jobs.services import job_folder
from metrics.evaluations import EVALUATE_JOB, evaluation_pending
from metrics.sources import JudgmentSource, source_key

pytestmark = pytest.mark.django_db


def test_a_running_job_whose_worker_stopped_is_not_pending(campaign: Campaign) -> None:
    source = JudgmentSource()
    params = {"source_key": source_key(source)}

    def running() -> Job:
        return Job.objects.create(
            kind=EVALUATE_JOB,
            title="t",
            campaign=campaign,
            params=params,
            status=Job.Status.RUNNING,
            started_at=timezone.now(),
        )

    stale = running()  # no process holds its lock: its worker stopped before marking it failed
    assert evaluation_pending(campaign=campaign, source=source) is None
    live = running()
    with Holder(live.id, job_folder(live.id)):  # what the worker running it holds
        assert evaluation_pending(campaign=campaign, source=source) == live
    stale.delete()
    queued = Job.objects.create(kind=EVALUATE_JOB, title="t", campaign=campaign, params=params)
    assert evaluation_pending(campaign=campaign, source=source) == queued
