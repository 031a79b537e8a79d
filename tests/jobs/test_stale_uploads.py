"""What stopped processes leave behind is removed when a server or worker starts: request uploads
spooled to the workbench's own folder (FILE_UPLOAD_TEMP_DIR) once stale, and the folders of jobs
that finished or no longer exist; never a file a queued or running job still needs, nor an
upload still being written."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone

from jobs import liveness
from jobs.models import Job
from jobs.services import job_folder, upload_root
from jobs.uploads import upload_temp_dir, upload_temp_files_remove
from tests.conftest import ROOT

STALE = 2 * 3600  # seconds: older than WORKBENCH_UPLOAD_STALE_SECONDS' default (3600)


def _aged(path: Path, seconds: float) -> Path:
    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


def _incoming(name: str, age: float) -> Path:
    path = upload_temp_dir() / name
    path.write_bytes(b"half an upload")
    return _aged(path, age)


def _job_with_folder(status: str, age: float) -> Job:
    job = Job.objects.create(kind="test_echo", title="t", status=status, started_at=timezone.now())
    folder = job_folder(job.id)
    folder.mkdir(parents=True)
    (folder / "a.run").write_text("1 Q0 d 1 1 t\n")
    _aged(folder, age)
    return job


def test_the_upload_folder_is_the_workbench_s_own_and_private() -> None:
    assert Path(settings.FILE_UPLOAD_TEMP_DIR) == upload_root() / "incoming"
    assert not Path(settings.FILE_UPLOAD_TEMP_DIR).exists()  # made when first needed
    folder = upload_temp_dir()
    assert folder.is_dir() and folder.stat().st_mode & 0o777 == 0o700


def test_stale_request_uploads_are_removed_and_fresh_ones_kept(caplog: pytest.LogCaptureFixture) -> None:
    stale, fresh = _incoming("tmpold.upload.run", STALE), _incoming("tmpnew.upload.run", 60)
    with caplog.at_level(logging.WARNING, logger="jobs.uploads"):
        assert upload_temp_files_remove() == ["tmpold.upload.run"]
    assert not stale.exists() and fresh.exists()
    assert "removed 1 stale upload file(s)" in caplog.text and "tmpold.upload.run" in caplog.text


def test_the_age_is_the_setting(settings: Any) -> None:
    settings.WORKBENCH_UPLOAD_STALE_SECONDS = 30
    minute_old = _incoming("tmp1.upload", 60)
    assert upload_temp_files_remove() == [minute_old.name]


@pytest.mark.django_db(transaction=True)
def test_a_worker_start_removes_what_no_queued_or_running_job_needs(
    tasks_in_database: None, caplog: pytest.LogCaptureFixture
) -> None:
    stale, fresh = _incoming("tmpold.upload", STALE), _incoming("tmpnew.upload", 60)
    queued = _job_with_folder(Job.Status.QUEUED, STALE)
    running = _job_with_folder(Job.Status.RUNNING, STALE)
    done = _job_with_folder(Job.Status.DONE, STALE)
    failed = _job_with_folder(Job.Status.FAILED, STALE)
    just_done = _job_with_folder(Job.Status.DONE, 60)
    orphan = upload_root() / str(uuid.uuid4())
    orphan.mkdir()
    _aged(orphan, STALE)
    # the running job's worker is alive (holds its lock), else the worker start would fail it
    with caplog.at_level(logging.WARNING), liveness.Holder(running.id, job_folder(running.id)):
        call_command("jobs_worker", "--batch", "--no-startup-delay", verbosity=0)
    assert not stale.exists() and fresh.exists()
    assert job_folder(queued.id).is_dir() and (job_folder(queued.id) / "a.run").exists()
    assert job_folder(running.id).is_dir() and (job_folder(running.id) / "a.run").exists()
    assert job_folder(just_done.id).is_dir()
    assert not job_folder(done.id).exists() and not job_folder(failed.id).exists() and not orphan.exists()
    assert "removed 3 upload folder(s) of finished or missing jobs" in caplog.text
    assert "removed 1 stale upload file(s)" in caplog.text


@pytest.mark.parametrize("server", ["wsgi", "asgi"])
def test_a_web_server_start_removes_stale_uploads(tmp_path: Path, server: str) -> None:
    incoming = tmp_path / "uploads" / "incoming"
    incoming.mkdir(parents=True)
    stale, fresh = incoming / "tmpold.upload", incoming / "tmpnew.upload"
    for path in (stale, fresh):
        path.write_bytes(b"x")
    _aged(stale, STALE)
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env |= {
        "WORKBENCH_SQLITE_PATH": str(tmp_path / "db.sqlite3"),
        "WORKBENCH_UPLOAD_DIR": str(tmp_path / "uploads"),
    }
    done = subprocess.run(
        [sys.executable, "-c", f"import workbench.{server}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert not stale.exists() and fresh.exists()
    assert "removed 1 stale upload file(s)" in done.stderr and "tmpold.upload" in done.stderr
