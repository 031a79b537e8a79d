"""Background jobs: claimed once, progress readable while running, failures recorded, uploads cleaned."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.utils import timezone

from jobs import progress
from jobs.models import Job
from jobs.registry import register
from jobs.selectors import job_status
from jobs.services import job_claim, job_enqueue, job_folder, job_run, jobs_interrupted
from trec.progress import ProgressCallback

pytestmark = pytest.mark.django_db


def result(job: Job) -> dict[str, Any]:
    assert job.result is not None, job.errors
    return job.result


seen_during_run: list[dict[str, Any]] = []


@register("test_echo")
def _echo(job: Job, report: ProgressCallback) -> dict[str, Any]:
    report("counting", 3, 4)
    seen_during_run.append(job_status(job=Job.objects.get(pk=job.pk)))
    if job.params.get("explode"):
        raise RuntimeError("boom")
    if job.params.get("refuse"):
        from campaigns.errors import CampaignDataError

        raise CampaignDataError(["a.run:3: expected 6 columns", "a.run:9: NaN score"])
    contents = [Path(path).read_text(encoding="utf-8") for path, _ in job.params.get("files", [])]
    return {"echo": job.params.get("value"), "contents": contents}


def test_a_sync_job_runs_in_the_request_and_keeps_its_result() -> None:
    job = job_enqueue(kind="test_echo", title="t", params={"value": 42})
    assert job.status == Job.Status.DONE and job.result == {"echo": 42, "contents": []}
    assert job.started_at is not None and job.finished_at is not None


def test_progress_is_readable_while_the_job_runs() -> None:
    seen_during_run.clear()
    job = job_enqueue(kind="test_echo", title="t")
    during = seen_during_run[0]
    assert during["status"] == "running" and during["phase"] == "counting"
    assert (during["done"], during["total"], during["percent"]) == (3, 4, 75.0)
    after = job_status(job=job)
    assert after["finished"] and after["percent"] == 100.0 and progress.live(job.id) is None


def test_uploads_reach_the_job_then_are_removed() -> None:
    upload = SimpleUploadedFile("../../etc/passwd", b"hello")  # a hostile name stays inside the job folder
    job = job_enqueue(kind="test_echo", title="t", files=[upload])
    assert result(job)["contents"] == ["hello"]
    assert job.params["files"][0][1] == "passwd"
    assert str(job_folder(job.id)) in job.params["files"][0][0]
    assert not job_folder(job.id).exists()


def test_a_domain_refusal_fails_the_job_with_its_lines() -> None:
    job = job_enqueue(kind="test_echo", title="t", params={"refuse": True})
    assert job.status == Job.Status.FAILED
    assert job.errors == ["a.run:3: expected 6 columns", "a.run:9: NaN score"]


def test_an_unexpected_error_fails_the_job_and_says_so() -> None:
    job = job_enqueue(kind="test_echo", title="t", params={"explode": True})
    assert job.status == Job.Status.FAILED
    assert job.errors[0] == "internal error: RuntimeError: boom"


def test_external_workers_claim_each_job_once(settings: Any) -> None:
    settings.WORKBENCH_JOBS = "external"
    job = job_enqueue(kind="test_echo", title="t", params={"value": 1})
    assert Job.objects.get(pk=job.pk).status == Job.Status.QUEUED
    call_command("run_jobs", "--once")
    assert Job.objects.get(pk=job.pk).status == Job.Status.DONE
    assert job_claim() is None and job_run() is None  # nothing left to claim


def test_jobs_left_running_by_a_stopped_process_are_failed() -> None:
    stale = Job.objects.create(
        kind="test_echo", title="t", status=Job.Status.RUNNING, started_at=timezone.now().replace(year=2020)
    )
    assert jobs_interrupted() == 1
    stale.refresh_from_db()
    assert stale.status == Job.Status.FAILED and "interrupted" in stale.errors[0]


def test_unknown_kinds_are_refused_before_anything_is_stored() -> None:
    with pytest.raises(KeyError):
        job_enqueue(kind="no_such_kind", title="t")
    assert not Job.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_embedded_worker_thread_runs_queued_jobs(embedded_worker: None) -> None:
    job = job_enqueue(kind="test_echo", title="t", params={"value": "threaded"})
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.finished:
            break
        time.sleep(0.05)
    assert job.status == Job.Status.DONE and result(job)["echo"] == "threaded"


def test_upload_folders_no_job_owns_are_removed_once_old(settings: Any) -> None:
    import os
    import uuid

    from jobs.services import upload_root, uploads_orphaned_remove

    owned = job_enqueue(kind="test_echo", title="t", params={"value": 1})
    root = upload_root()
    old_orphan, new_orphan, kept = root / str(uuid.uuid4()), root / str(uuid.uuid4()), job_folder(owned.id)
    for folder in (old_orphan, new_orphan, kept):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "run.txt").write_text("x")
    hour_ago = time.time() - 7200
    for folder in (old_orphan, kept):
        os.utime(folder, (hour_ago, hour_ago))
    assert uploads_orphaned_remove() == 1
    assert not old_orphan.exists() and new_orphan.exists() and kept.exists()
