"""Running a job: store it with its uploads, run its registered kind once, split it into parts and
move the parts' parent on, record its end.

Nothing here starts a task by itself: the caller passes ``enqueue`` (:func:`jobs.tasks.task_enqueue`
in the workbench), so this module sits below both the task (:mod:`jobs.tasks`, which runs
:func:`job_execute`) and the services that enqueue jobs (:mod:`jobs.services`), with no import circle.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import traceback
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from jobs import liveness, progress, registry
from jobs.models import Job
from trec.text import without_surrogates

log = logging.getLogger(__name__)

# names this process in Job.worker and in django_tasks_db's worker ids (at most 64 characters)
WORKER = f"{socket.gethostname()[:48]}:{os.getpid()}"

Enqueue = Callable[[Job], None]
"""Starts the task of a stored job (and records the task's id on it)."""


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


def job_create(job: Job, uploads: list[UploadedFile], *, enqueue: Enqueue) -> Job:
    """Save ``job`` and enqueue its task (``enqueue``) in one transaction; uploads go to the job's
    folder first."""
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
            enqueue(job)
    except Exception:
        if uploads:
            shutil.rmtree(job_folder(job.id), ignore_errors=True)
        raise
    job.refresh_from_db()
    return job


def job_execute(*, job_id: uuid.UUID, enqueue: Enqueue) -> Job | None:
    """Run the job to its end, once: what :func:`jobs.tasks.job_task` does (``enqueue`` starts the
    tasks of the parts it splits into).

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
            job_finish(
                job,
                errors=["cancelled: the job it is a part of ended"],
                result=None,
                reading=progress.Reading("", 0, 0),
                enqueue=enqueue,
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
                _job_split(job, outcome, enqueue)  # the job finishes with its last part
                (folder / progress.PROGRESS_FILE).unlink(missing_ok=True)  # the parts' progress is its own
            except Exception as exc:
                log.exception("job %s (%s) could not split", job.id, job.kind)
                errors, outcome = [f"internal error: {type(exc).__name__}: {exc}"], None
        if not isinstance(outcome, registry.Split):
            reading = reporter.last or progress.Reading(job.phase, job.done, job.total)
            job_finish(job, errors=errors, result=outcome, reading=reading, enqueue=enqueue)
            shutil.rmtree(folder, ignore_errors=True)  # uploads, progress and lock file
    job.refresh_from_db()
    return job


def _job_split(job: Job, split: registry.Split, enqueue: Enqueue) -> None:
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
            enqueue(part)


def _child(parent: Job, kind: str, what: str, params: dict[str, Any]) -> Job:
    return Job(
        kind=kind,
        title=f"{parent.title} ({what})"[:200],
        campaign_id=parent.campaign_id,
        created_by_id=parent.created_by_id,
        parent=parent,
        params=params,
    )


def job_finish(
    job: Job, *, errors: list[str], result: Any, reading: progress.Reading, enqueue: Enqueue
) -> None:
    """Record the job's outcome and, for a part, move its parent on; one transaction."""
    with transaction.atomic():
        parent = None
        if job.parent_id is not None:
            # one part finishes at a time: exactly one of them sees that it was the last
            parent = Job.objects.select_for_update().filter(pk=job.parent_id).first()
        changed = _running_end(job.pk, errors=errors, result=result, reading=reading)
        if changed and parent is not None:
            parent_advance(parent, job, errors=errors, result=result, reading=reading, enqueue=enqueue)


def parent_advance(
    parent: Job, child: Job, *, errors: list[str], result: Any, reading: progress.Reading, enqueue: Enqueue
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
        job_create(_child(parent, parent.params["then"], "results", {"then": True}), [], enqueue=enqueue)


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
