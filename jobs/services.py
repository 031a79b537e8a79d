"""Enqueue, claim and run background jobs. Uploaded files wait in the job's folder until it ends."""

from __future__ import annotations

import logging
import shutil
import time
import traceback
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile
from django.db import connection, transaction
from django.utils import timezone

from jobs import progress, registry
from jobs.models import Job

log = logging.getLogger(__name__)
PROCESS_STARTED = timezone.now()


def upload_root() -> Path:
    return Path(settings.WORKBENCH_UPLOAD_DIR)


def job_folder(job_id: uuid.UUID) -> Path:
    return upload_root() / str(job_id)


def _safe_name(name: str, taken: set[str]) -> str:
    base = Path(name).name.replace("\x00", "")[:150] or "upload"
    candidate, n = base, 1
    while candidate in taken:
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
    hand it to a worker once the caller's transaction commits."""
    registry.kind(kind)  # an unknown kind is a programming error: fail before storing anything
    job = Job(kind=kind, title=title[:200], campaign=campaign, created_by=user, params=dict(params or {}))
    stored: list[list[str]] = []
    uploads = list(files)
    if uploads:
        folder = job_folder(job.id)
        folder.mkdir(parents=True, exist_ok=True)
        taken: set[str] = set()
        for upload in uploads:
            original = upload.name or "upload"
            target = folder / _safe_name(original, taken)
            with target.open("wb") as out:
                for chunk in upload.chunks():
                    out.write(chunk)
            stored.append([str(target), Path(original).name])
        job.params["files"] = stored
    try:
        job.save()
    except Exception:
        if uploads:
            shutil.rmtree(job_folder(job.id), ignore_errors=True)
        raise
    if settings.WORKBENCH_JOBS == "sync":
        job_run(job.id)  # inside the caller's transaction: what "sync" means, and what tests need
        job.refresh_from_db()
    else:
        transaction.on_commit(lambda: dispatch(job.id))
    return job


def dispatch(job_id: uuid.UUID) -> None:
    """Start the job as the settings say: on this process's worker thread (``thread``, the default)
    or not at all (``external``: ``manage.py run_jobs`` workers claim it)."""
    if settings.WORKBENCH_JOBS == "thread":
        from jobs.worker import wake

        wake()


def job_claim(job_id: uuid.UUID | None = None) -> Job | None:
    """Mark the oldest queued job (or ``job_id``) running and return it; None when there is none.

    PostgreSQL's SKIP LOCKED lets several workers claim side by side; SQLite's write lock makes
    the claim exclusive anyway.
    """
    with transaction.atomic():
        queued = Job.objects.filter(status=Job.Status.QUEUED)
        if job_id is not None:
            queued = queued.filter(pk=job_id)
        if connection.features.has_select_for_update_skip_locked:
            queued = queued.select_for_update(skip_locked=True)
        job = queued.order_by("created_at").first()
        if job is None:
            return None
        job.status = Job.Status.RUNNING
        job.started_at = timezone.now()
        job.save(update_fields=["status", "started_at"])
        return job


def job_run(job_id: uuid.UUID | None = None) -> Job | None:
    """Claim one job and run it to the end; returns it, or None if nothing was waiting."""
    job = job_claim(job_id)
    if job is None:
        return None
    reporter = progress.Reporter(job.id)
    result: dict[str, Any] | None
    try:
        result = registry.kind(job.kind).run(job, reporter)
    except Exception as exc:
        problems = getattr(exc, "problems", None)
        if problems is None:
            log.exception("job %s (%s) failed", job.id, job.kind)
            problems = [f"internal error: {type(exc).__name__}: {exc}"]
            if settings.DEBUG:
                problems.append(traceback.format_exc())
        job.status = Job.Status.FAILED
        job.errors = [str(p) for p in problems]
        result = getattr(exc, "result", None)
    else:
        job.status = Job.Status.DONE
    reading = progress.live(job.id)
    if reading is not None:
        job.phase, job.done, job.total = reading.phase[:100], reading.done, reading.total
    job.result = result
    job.finished_at = timezone.now()
    job.save()
    progress.forget(job.id)
    shutil.rmtree(job_folder(job.id), ignore_errors=True)
    return job


def jobs_interrupted() -> int:
    """Fail the jobs a stopped process left running (the embedded worker calls it when it starts).

    Only jobs started before this process: the embedded worker serves one web process.
    """
    return Job.objects.filter(status=Job.Status.RUNNING, started_at__lt=PROCESS_STARTED).update(
        status=Job.Status.FAILED,
        errors=[
            "interrupted: the workbench stopped while this job ran; nothing of it was kept, start it again"
        ],
        finished_at=timezone.now(),
    )


ORPHAN_AGE_SECONDS = 3600


def uploads_orphaned_remove(*, older_than: float = ORPHAN_AGE_SECONDS) -> int:
    """Remove upload folders no job owns: left by a request whose transaction rolled back after
    the files were written. Only old ones: a folder is written just before its job row commits."""
    root = upload_root()
    if not root.is_dir():
        return 0
    removed = 0
    now = time.time()
    for folder in root.iterdir():
        try:
            job_id = uuid.UUID(folder.name)
        except ValueError:
            continue
        if now - folder.stat().st_mtime < older_than or Job.objects.filter(pk=job_id).exists():
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed += 1
    return removed
