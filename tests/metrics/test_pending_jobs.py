"""A job left running by a stopped process never stands in for a new evaluation."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from campaigns.models import Campaign
from jobs.models import Job
from metrics.jobs import EVALUATE_JOB
from metrics.selectors import evaluation_pending, source_key
from metrics.sources import JudgmentSource

pytestmark = pytest.mark.django_db


def test_a_running_job_from_before_a_restart_is_not_pending(campaign: Campaign, settings: Any) -> None:
    settings.WORKBENCH_JOBS = "thread"  # the embedded worker: one process, so a restart killed the job
    source = JudgmentSource()
    params = {"source_key": source_key(source)}
    stale = Job.objects.create(
        kind=EVALUATE_JOB,
        title="t",
        campaign=campaign,
        params=params,
        status=Job.Status.RUNNING,
        started_at=timezone.now().replace(year=2020),
    )
    assert evaluation_pending(campaign=campaign, source=source) is None
    live = Job.objects.create(
        kind=EVALUATE_JOB,
        title="t",
        campaign=campaign,
        params=params,
        status=Job.Status.RUNNING,
        started_at=timezone.now(),
    )
    assert evaluation_pending(campaign=campaign, source=source) == live
    settings.WORKBENCH_JOBS = "external"  # other processes may still be running it: it counts
    live.delete()
    assert evaluation_pending(campaign=campaign, source=source) == stale
