"""Reads of jobs for pages and the API: status and progress, live when the job runs in this process."""

from __future__ import annotations

from typing import Any

from jobs import progress
from jobs.models import Job


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
