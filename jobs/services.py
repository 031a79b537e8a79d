"""Enqueue and run background jobs, and fail the ones whose worker stopped.

A job is a :class:`~jobs.models.Job` row plus one ``django.tasks`` task (:func:`jobs.tasks.job_task`)
that runs its registered kind. Uploaded files wait in the job's folder until it ends.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import time
import traceback
import uuid
from collections.abc import Iterable, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from jobs import liveness, progress, registry
from jobs.models import Job
from jobs.uploads import SHOWN, stale_seconds, upload_temp_files_remove
from trec.text import without_surrogates

log = logging.getLogger(__name__)

# names this process in Job.worker and in django_tasks_db's worker ids (at most 64 characters)
WORKER = f"{socket.gethostname()[:48]}:{os.getpid()}"
# a task claimed by a worker takes its job's lock within milliseconds; one claimed this long ago
# whose job is still queued and unlocked lost its worker in between
CLAIM_GRACE = timedelta(seconds=30)


class WorkerLost(Exception):
    """Recorded on a task result whose worker stopped while running it."""


def upload_root() -> Path:
    return Path(settings.WORKBENCH_UPLOAD_DIR)


def job_folder(job_id: uuid.UUID) -> Path:
    """The job's own folder: its uploads, its progress file and (SQLite) its lock."""
    return upload_root() / str(job_id)


def _safe_name(name: str, taken: set[str]) -> str:
    base = Path(name).name.replace("\x00", "")[:150] or "upload"
    candidate, n = base, 1
    while candidate in taken or candidate in (progress.PROGRESS_FILE, liveness.LOCK_FILE):
        n += 1
        candidate = f"{n}-{base}"
    taken.add(candidate)
    return candidate


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
    return _job_create(job, list(files))


def _task_enqueue(job: Job) -> None:
    from jobs.tasks import job_task  # the task module imports this one

    result = job_task.enqueue(str(job.id))
    Job.objects.filter(pk=job.pk).update(task_id=str(result.id))


def _job_create(job: Job, uploads: list[UploadedFile]) -> Job:
    """Save ``job`` and enqueue its task in one transaction; uploads go to the job's folder first."""
    if uploads:
        folder = job_folder(job.id)
        folder.mkdir(parents=True, exist_ok=True)
        taken: set[str] = set()
        stored: list[list[str]] = []
        for upload in uploads:
            original = upload.name or "upload"
            target = folder / _safe_name(original, taken)
            with target.open("wb") as out:
                for chunk in upload.chunks():
                    out.write(chunk)
            stored.append([str(target), Path(original).name])
        job.params["files"] = stored
    try:
        with transaction.atomic():
            job.save()
            _task_enqueue(job)
    except Exception:
        if uploads:
            shutil.rmtree(job_folder(job.id), ignore_errors=True)
        raise
    job.refresh_from_db()
    return job


def job_execute(*, job_id: uuid.UUID) -> Job | None:
    """Run the job to its end, once: what :func:`jobs.tasks.job_task` does.

    The job's lock is taken before the job is marked running and released after it is marked
    finished, so a running job whose lock is free was interrupted (:func:`jobs_interrupted_fail`).
    Returns the job; None when it no longer exists (its campaign was deleted).
    """
    folder = job_folder(job_id)
    folder.mkdir(parents=True, exist_ok=True)  # for the progress file, whatever the job uploaded
    with liveness.Holder(job_id, folder) as holder:
        claimed = Job.objects.filter(pk=job_id, status=Job.Status.QUEUED).update(
            status=Job.Status.RUNNING, started_at=timezone.now(), worker=WORKER
        )
        job = Job.objects.select_related("parent").filter(pk=job_id).first()
        if not claimed or job is None:  # delivered twice, failed meanwhile, or deleted: nothing to run
            if job is None or job.finished:
                shutil.rmtree(folder, ignore_errors=True)
            return job
        if job.parent is not None and job.parent.status != Job.Status.RUNNING:
            _job_finish(
                job,
                errors=["cancelled: the job it is a part of ended"],
                result=None,
                reading=progress.Reading("", 0, 0),
            )
            shutil.rmtree(folder, ignore_errors=True)
            job.refresh_from_db()
            return job
        reporter = progress.Reporter(job.id, folder, holder.side)
        outcome: dict[str, Any] | registry.Split | None = None
        errors: list[str] = []
        try:
            outcome = registry.kind(job.kind).run(job, reporter)
            if isinstance(outcome, registry.Split):
                registry.kind(outcome.part), registry.kind(outcome.then)
        except Exception as exc:
            problems = getattr(exc, "problems", None)
            if problems is None:
                log.exception("job %s (%s) failed", job.id, job.kind)
                problems = [f"internal error: {type(exc).__name__}: {exc}"]
                if settings.DEBUG:
                    problems.append(traceback.format_exc())
            errors = [str(p) for p in problems] or ["failed"]
            outcome = getattr(exc, "result", None)
        if isinstance(outcome, registry.Split):
            try:
                _job_split(job, outcome)  # the job finishes with its last part
                (folder / progress.PROGRESS_FILE).unlink(missing_ok=True)  # the parts' progress is its own
            except Exception as exc:
                log.exception("job %s (%s) could not split", job.id, job.kind)
                errors, outcome = [f"internal error: {type(exc).__name__}: {exc}"], None
        if not isinstance(outcome, registry.Split):
            reading = reporter.last or progress.Reading(job.phase, job.done, job.total)
            _job_finish(job, errors=errors, result=outcome, reading=reading)
            shutil.rmtree(folder, ignore_errors=True)  # uploads, progress and lock file
    job.refresh_from_db()
    return job


def _job_split(job: Job, split: registry.Split) -> None:
    """Create the parts of ``job`` and enqueue their tasks, all in one transaction."""
    count = len(split.params)
    with transaction.atomic():
        Job.objects.filter(pk=job.pk).update(params={**job.params, "then": split.then})
        parts = [
            _child(job, split.part, f"part {i} of {count}", {**params, "part": i, "parts": count})
            for i, params in enumerate(split.params, start=1)
        ] or [_child(job, split.then, "results", {"then": True})]
        Job.objects.bulk_create(parts)
        for part in parts:  # every part exists before one runs (the immediate backend runs it here)
            _task_enqueue(part)


def _child(parent: Job, kind: str, what: str, params: dict[str, Any]) -> Job:
    return Job(
        kind=kind,
        title=f"{parent.title} ({what})"[:200],
        campaign_id=parent.campaign_id,
        created_by_id=parent.created_by_id,
        parent=parent,
        params=params,
    )


def _job_finish(job: Job, *, errors: list[str], result: Any, reading: progress.Reading) -> None:
    """Record the job's outcome and, for a part, move its parent on; one transaction."""
    with transaction.atomic():
        parent = None
        if job.parent_id is not None:
            # one part finishes at a time: exactly one of them sees that it was the last
            parent = Job.objects.select_for_update().filter(pk=job.parent_id).first()
        changed = _running_end(job.pk, errors=errors, result=result, reading=reading)
        if changed and parent is not None:
            _parent_advance(parent, job, errors=errors, result=result, reading=reading)


def _parent_advance(
    parent: Job, child: Job, *, errors: list[str], result: Any, reading: progress.Reading
) -> None:
    """A part of ``parent`` ended: fail the parent, start its last step, or end it with that step."""
    if parent.status != Job.Status.RUNNING:
        return  # failed by another part already
    now = timezone.now()
    if child.params.get("then"):  # the last step: its outcome is the parent's
        _parent_end(parent, errors=errors, result=result, reading=reading)
        return
    if errors:
        label = f"part {child.params.get('part')} of {child.params.get('parts')}"
        _parent_end(parent, errors=[f"{label}: {e}" for e in errors], result=None, reading=reading)
        parent.parts.filter(status=Job.Status.QUEUED).update(  # their tasks will find nothing to do
            status=Job.Status.FAILED, errors=[f"cancelled: {label} failed"], finished_at=now
        )
        return
    if not parent.parts.exclude(status=Job.Status.DONE).exists():
        _job_create(_child(parent, parent.params["then"], "results", {"then": True}), [])


def _running_end(job_id: uuid.UUID, *, errors: list[str], result: Any, reading: progress.Reading) -> int:
    """End a job still running: failed with ``errors`` or done with ``result``, its last progress
    kept. Returns 0 when another process ended it first."""
    return Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
        status=Job.Status.FAILED if errors else Job.Status.DONE,
        errors=_storable(errors),
        result=_storable(result),
        phase=reading.phase[:100],
        done=reading.done,
        total=reading.total,
        finished_at=timezone.now(),
    )


def _storable(value: Any) -> Any:
    """``value`` (JSON) with what no database's JSON can hold written out: a NUL character as
    ``\\x00`` (PostgreSQL's jsonb refuses it, and the job would stay running until a worker failed
    it as interrupted, for the wrong reason) and a lone surrogate as U+FFFD."""
    if isinstance(value, str):
        if "\x00" in value:
            value = value.replace("\x00", "\\x00")
        return without_surrogates(value)[0]
    if isinstance(value, list):
        return [_storable(v) for v in value]
    if isinstance(value, dict):
        return {_storable(k): _storable(v) for k, v in value.items()}
    return value


def _parent_end(parent: Job, *, errors: list[str], result: Any, reading: progress.Reading) -> None:
    _running_end(parent.pk, errors=errors, result=result, reading=reading)
    folder = job_folder(parent.pk)
    transaction.on_commit(lambda: shutil.rmtree(folder, ignore_errors=True))


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
                _parent_advance(parent, job, errors=[reason], result=None, reading=reading)
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
