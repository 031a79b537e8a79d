"""Reads of jobs for pages and the API: status and progress, live when the job runs in this process."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet

from jobs import progress
from jobs.models import Job


def jobs_alive(jobs: QuerySet[Job]) -> QuerySet[Job]:
    """The queued jobs and the running ones that may still finish.

    With the embedded worker, a job running since before this process started was running in a
    process that is gone: it will never finish, so it must not stand in for new work.
    """
    from jobs.services import PROCESS_STARTED

    alive = Q(status=Job.Status.QUEUED) | Q(status=Job.Status.RUNNING)
    if settings.WORKBENCH_JOBS == "thread":
        alive = Q(status=Job.Status.QUEUED) | Q(status=Job.Status.RUNNING, started_at__gte=PROCESS_STARTED)
    return jobs.filter(alive)


def job_status(*, job: Job) -> dict[str, Any]:
    """What a progress bar needs: status, phase, done of total, percent, errors, and whether finished."""
    reading = progress.live(job.id) if job.status == Job.Status.RUNNING else None
    phase, done, total = (
        (reading.phase, reading.done, reading.total) if reading else (job.phase, job.done, job.total)
    )
    percent = None
    if job.status == Job.Status.DONE:
        percent = 100.0
    elif total > 0:
        percent = round(100.0 * min(done, total) / total, 1)
    return {
        "id": str(job.id),
        "kind": job.kind,
        "title": job.title,
        "status": job.status,
        "phase": phase,
        "done": done,
        "total": total,
        "percent": percent,
        "finished": job.finished,
        "errors": job.errors,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }
