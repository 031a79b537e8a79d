"""The one ``django.tasks`` task: run a registered job kind, by job id."""

from __future__ import annotations

import uuid

from django.tasks import task

from jobs.execution import job_execute
from jobs.models import Job


class JobFailed(Exception):
    """Recorded on the task result of a job that failed (the job's own errors say why)."""


@task
def job_task(job_id: str) -> str:
    """Run the job; its task result fails with it, so both tell the same story."""
    job = job_execute(job_id=uuid.UUID(job_id), enqueue=task_enqueue)
    if job is None:
        return "deleted"
    if job.status == Job.Status.FAILED:
        raise JobFailed("; ".join(job.errors[:3])[:1000])
    return str(job.status)


def task_enqueue(job: Job) -> None:
    """Start ``job``'s task and record its id on the job."""
    result = job_task.enqueue(str(job.id))
    Job.objects.filter(pk=job.pk).update(task_id=str(result.id))
