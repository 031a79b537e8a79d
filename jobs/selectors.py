"""Reads of jobs for pages and the API: status and progress, live while the job runs."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from jobs import liveness, progress
from jobs.models import Job
from jobs.services import job_folder


def _alive(job: Job) -> bool:
    """A running job may still finish: its process holds its lock, or it split into parts of which
    one is queued or running."""
    if liveness.job_held(job.pk, job_folder(job.pk)):
        return True
    return job.parts.filter(status__in=(Job.Status.QUEUED, Job.Status.RUNNING)).exists()


def jobs_alive(jobs: QuerySet[Job]) -> QuerySet[Job]:
    """The queued jobs and the running ones that may still finish.

    A running job whose worker stopped will never finish, so it must not stand in for new work,
    even before a worker marks it failed.
    """
    lost = [job.pk for job in jobs.filter(status=Job.Status.RUNNING).only("pk") if not _alive(job)]
    return jobs.filter(status__in=(Job.Status.QUEUED, Job.Status.RUNNING)).exclude(pk__in=lost)


def job_parts(*, job: Job) -> list[Job]:
    """The parts a job split into (:class:`jobs.registry.Split`), in order, without its last step."""
    parts = [p for p in job.parts.all() if not p.params.get("then")]
    return sorted(parts, key=lambda p: int(p.params.get("part", 0)))


def _reading(job: Job) -> progress.Reading:
    if job.status == Job.Status.RUNNING:
        reading = progress.read(job_folder(job.id))
        if reading is not None:
            return reading
    return progress.Reading(job.phase, job.done, job.total)


def _parts_reading(parts: list[Job]) -> progress.Reading:
    """A split job's progress: parts done, and the bar at the mean of the parts' fractions."""
    done = sum(p.status == Job.Status.DONE for p in parts)
    running = [p for p in parts if p.status == Job.Status.RUNNING]
    phase = f"{done} of {len(parts)} parts done" + (f", {len(running)} running" if running else "")
    return progress.Reading(phase, done, len(parts))


def _parts_percent(parts: list[Job]) -> float:
    fractions = []
    for part in parts:
        r = _reading(part)
        if part.status == Job.Status.DONE:
            fractions.append(1.0)
        else:
            fractions.append(min(r.done, r.total) / r.total if r.total > 0 else 0.0)
    return round(100.0 * sum(fractions) / len(fractions), 1)


def job_status(*, job: Job) -> dict[str, Any]:
    """What a progress bar needs: status, phase, done of total, percent, errors, and whether finished.

    A running job's progress comes from its progress file when it runs on this machine (fresh
    whatever its transaction is doing), else from its row (written about once a second); a job
    split into parts shows how many are done, its bar the mean of theirs.
    """
    parts = job_parts(job=job) if job.status == Job.Status.RUNNING else []
    reading = _parts_reading(parts) if parts else _reading(job)
    phase, done, total = reading.phase, reading.done, reading.total
    percent = None
    if job.status == Job.Status.DONE:
        percent = 100.0
    elif parts:
        percent = _parts_percent(parts)
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
        "worker": job.worker,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }
