"""Enqueue and run background jobs, and fail the ones whose worker stopped.

A job is a :class:`~jobs.models.Job` row plus one ``django.tasks`` task (:func:`jobs.tasks.job_task`)
that runs its registered kind. Uploaded files wait in the job's folder until it ends.
"""

from __future__ import annotations

import logging
import shutil
import time
import uuid
from collections.abc import Iterable, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from jobs import liveness, progress, registry
from jobs.execution import job_create, job_folder, parent_advance, upload_root
from jobs.execution import job_execute as _execute
from jobs.models import Job
from jobs.tasks import task_enqueue
from jobs.uploads import SHOWN, stale_seconds, upload_temp_files_remove

log = logging.getLogger(__name__)

# a task claimed by a worker takes its job's lock within milliseconds; one claimed this long ago
# whose job is still queued and unlocked lost its worker in between
CLAIM_GRACE = timedelta(seconds=30)


class WorkerLost(Exception):
    """Recorded on a task result whose worker stopped while running it."""


def job_enqueue(
    *,
    kind: str,
    title: str,
    campaign: Any = None,
    user: User | None = None,
    params: Mapping[str, Any] | None = None,
    files: Iterable[UploadedFile] = (),
) -> Job:
    """Store the job (and its uploads, as ``params['files']``: [[path, original name], ...]) and
    enqueue its task in the same transaction: a worker sees both once the caller commits.

    With the immediate backend (tests) the task runs right here, inside the caller's transaction.
    """
    registry.kind(kind)  # an unknown kind is a programming error: fail before storing anything
    job = Job(kind=kind, title=title[:200], campaign=campaign, created_by=user, params=dict(params or {}))
    return job_create(job, list(files), enqueue=task_enqueue)


def job_execute(*, job_id: uuid.UUID) -> Job | None:
    """Run the job to its end, once, as its task does (:func:`jobs.execution.job_execute`)."""
    return _execute(job_id=job_id, enqueue=task_enqueue)


def _interrupted_reason(job: Job) -> str:
    worker = f" ({job.worker})" if job.worker else ""
    kept = "nothing of it was kept, start it again"
    try:
        said = registry.kind(job.kind).interrupted
    except KeyError:  # a kind this process does not know
        said = None
    if said is not None:
        try:
            kept = said(job)
        except Exception:  # the hook failing must not keep the job running
            log.exception("job %s (%s): what the interruption kept is unknown", job.id, job.kind)
    return (
        f"interrupted: the worker running this job{worker} stopped before it finished (killed or "
        f"crashed); {kept}"
    )


def _job_interrupted(job: Job) -> bool:
    """Fail ``job``, its task result and, for a part, its parent; False when it ended meanwhile."""
    reason = _interrupted_reason(job)
    now = timezone.now()
    with transaction.atomic():
        parent = None
        if job.parent_id is not None:
            parent = Job.objects.select_for_update().filter(pk=job.parent_id).first()
        # A job that split into parts gave its lock back on purpose and lives on in them. The caller
        # listed it before the split committed, and checked its lock after: the split's parts are
        # committed by then (before the lock is released), so this statement sees them.
        changed = (
            Job.objects.filter(pk=job.pk, status=job.status)
            .exclude(pk__in=Job.objects.filter(parent_id=job.pk).values("parent_id"))
            .update(status=Job.Status.FAILED, errors=[reason], finished_at=now)
        )
        if changed:
            _task_result_fail(job.task_id, reason, now)
            if parent is not None:
                reading = progress.Reading(job.phase, job.done, job.total)
                parent_advance(
                    parent, job, errors=[reason], result=None, reading=reading, enqueue=task_enqueue
                )
            # before the failure shows: should the commit fail, the job is still running, unlocked,
            # and the next look fails it
            shutil.rmtree(job_folder(job.id), ignore_errors=True)
    if changed:
        log.warning("job %s (%s) marked failed: %s", job.id, job.kind, reason)
    return bool(changed)


def _task_result_fail(task_id: str, reason: str, now: Any) -> None:
    try:
        pk = uuid.UUID(task_id)
    except ValueError:
        return  # not a database-backend task: nothing stored to fail
    DBTaskResult.objects.filter(pk=pk, status__in=(TaskResultStatus.READY, TaskResultStatus.RUNNING)).update(
        status=TaskResultStatus.FAILED,
        finished_at=now,
        exception_class_path=f"{WorkerLost.__module__}.{WorkerLost.__qualname__}",
        traceback=f"{WorkerLost.__qualname__}: {reason}",
    )


def jobs_interrupted_fail() -> int:
    """Fail the jobs whose worker stopped: every worker runs this when it starts, then every few
    seconds, so one dead worker among several is noticed by the others.

    A job is interrupted when it is marked running but no live process holds its lock, or when a
    worker claimed its task long ago but never took the lock. Each job's writes are one transaction,
    which the database rolled back when its process died, so failing the row (and its task result,
    and the job it is a part of) and removing its uploads leaves nothing of it behind. Returns how
    many jobs were failed.
    """
    # a job that split into parts lives on in them: each part is checked instead
    running = list(Job.objects.filter(status=Job.Status.RUNNING, parts__isnull=True))
    claimed_ids = [
        str(pk)
        for pk in DBTaskResult.objects.filter(
            status=TaskResultStatus.RUNNING, started_at__lt=timezone.now() - CLAIM_GRACE
        ).values_list("pk", flat=True)
    ]
    never_started = list(Job.objects.filter(status=Job.Status.QUEUED, task_id__in=claimed_ids))
    failed = 0
    for job in running + never_started:
        if not liveness.job_held(job.id, job_folder(job.id)) and _job_interrupted(job):
            failed += 1
    return failed


def uploads_orphaned_remove(*, older_than: float | None = None) -> int:
    """Remove job folders nothing needs any more: those no job owns (a request whose transaction
    rolled back after the files were written, a deleted campaign's queued jobs) and those of jobs
    that finished (a worker killed between recording the end and removing the folder). Only folders
    unchanged for ``older_than`` seconds (default ``WORKBENCH_UPLOAD_STALE_SECONDS``): a folder is
    written just before its job row commits. A queued or running job's folder is never touched.
    Returns how many folders were removed, which is logged."""
    root = upload_root()
    if not root.is_dir():
        return 0
    limit = stale_seconds() if older_than is None else older_than
    now = time.time()
    old: dict[uuid.UUID, Path] = {}
    for folder in root.iterdir():
        try:
            job_id = uuid.UUID(folder.name)
            if now - folder.stat().st_mtime >= limit:
                old[job_id] = folder
        except (ValueError, FileNotFoundError):
            continue
    if not old:
        return 0
    needed = set(
        Job.objects.filter(pk__in=list(old))
        .exclude(status__in=(Job.Status.DONE, Job.Status.FAILED))
        .values_list("pk", flat=True)
    )
    removed = [folder for job_id, folder in old.items() if job_id not in needed]
    for folder in removed:
        shutil.rmtree(folder, ignore_errors=True)
    if removed:
        log.warning(
            "removed %d upload folder(s) of finished or missing jobs from %s: %s",
            len(removed),
            root,
            ", ".join(sorted(f.name for f in removed)[:SHOWN]) + (", ..." if len(removed) > SHOWN else ""),
        )
    return len(removed)


def uploads_stale_remove() -> None:
    """What a worker removes when it starts: stale request uploads, then the folders of jobs that
    finished or no longer exist (see :mod:`jobs.uploads`)."""
    upload_temp_files_remove()
    uploads_orphaned_remove()
