"""Real worker processes (``manage.py jobs_worker``) on the test database: progress readable from
another process while a job's transaction is open, and work interrupted by ``kill -9`` failed with
nothing of it left behind."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from campaigns.models import Campaign, Run, RunArrays
from campaigns.services import campaign_create, campaign_import_enqueue, runs_import, topics_import
from jobs.models import Job
from jobs.selectors import job_status
from jobs.services import job_folder
from pooling.models import Pool, PoolDocument
from pooling.services import pool_build_enqueue
from pooling.spec import PoolSpec
from tests.conftest import WorkerProcess

TOPICS = 100
DOCS = 1000  # per topic: 100,000 lines (3.4 MB) per run file, about half a second to import each
FILES = 6
StartWorker = Callable[..., WorkerProcess]


def topics_file(folder: Path) -> Path:
    path = folder / "topics.txt"
    path.write_text(
        "".join(f"<top>\n<num> Number: {t}\n<title> topic {t}\n</top>\n" for t in range(1, TOPICS + 1))
    )
    return path


def run_text(tag: str, seed: int) -> bytes:
    return "".join(
        f"{t} Q0 D{t}-{(r * seed) % 5000:05d}-{r} {r} {DOCS - r / 10:.3f} {tag}\n"
        for t in range(1, TOPICS + 1)
        for r in range(1, DOCS + 1)
    ).encode()


def big_runs(prefix: str) -> list[SimpleUploadedFile]:
    return [SimpleUploadedFile(f"{prefix}{i}.run", run_text(f"{prefix}{i}", 7 + i)) for i in range(FILES)]


@pytest.fixture
def big(transactional_db: None, tmp_path: Path) -> Campaign:
    """A campaign of 100 topics, committed (a worker process reads it)."""
    campaign = campaign_create(slug="big", name="Big")
    topics_import(campaign=campaign, path=topics_file(tmp_path))
    return campaign


@pytest.fixture
def olga(transactional_db: None) -> User:
    return User.objects.create_user("olga")


def wait_for(what: str, check: Callable[[], Any], seconds: float, worker: WorkerProcess | None = None) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    log = f"\nworker log:\n{worker.output()[-3000:]}" if worker else ""
    pytest.fail(f"{what}: not within {seconds} s{log}")


def mid_way(job: Job, phase: str) -> dict[str, Any] | None:
    """The job's status once it has done part of ``phase`` but not all of it."""
    status = job_status(job=Job.objects.get(pk=job.pk))
    if status["status"] == "running" and status["phase"] == phase and 0 < status["done"] < status["total"]:
        return status
    assert not status["finished"], f"the job ended before it could be interrupted: {status}"
    return None


def test_a_worker_process_runs_a_job_whose_progress_is_readable_meanwhile(
    big: Campaign, olga: User, worker_process: StartWorker
) -> None:
    job = campaign_import_enqueue(campaign=big, user=olga, what="runs", files=big_runs("r"))
    assert job.status == Job.Status.QUEUED
    worker = worker_process()
    seen: list[tuple[str, int, int]] = []
    row_seen: list[tuple[str, int]] = []

    def finished() -> bool:
        status = job_status(job=Job.objects.get(pk=job.pk))
        seen.append((status["status"], status["done"], status["total"]))
        row = Job.objects.values_list("status", "done").get(pk=job.pk)
        row_seen.append(row)
        return bool(status["finished"])

    wait_for("the import finished", finished, 60, worker)
    job.refresh_from_db()
    assert job.status == Job.Status.DONE, job.errors
    # the import's transaction was open all along, yet its progress was read from this process
    assert any(s == "running" and 0 < done < FILES and total == FILES for s, done, total in seen), seen
    if connection.vendor == "postgresql":  # and the row, for web servers on other machines
        assert any(s == "running" and 0 < done < FILES for s, done in row_seen), row_seen
    assert job.worker.endswith(f":{worker.pid}")
    assert Run.objects.filter(campaign=big).count() == FILES
    # the uploads went with the job: removed just after its end is recorded (which the wait above
    # may see first on a busy machine)
    wait_for("the job's folder removed", lambda: not job_folder(job.id).exists(), 10, worker)
    # the task's own record is closed by django-tasks-db once the job function has returned
    # (after the job's row says done): wait for it rather than race it
    wait_for(
        "the task recorded as successful",
        lambda: DBTaskResult.objects.get(pk=job.task_id).status == TaskResultStatus.SUCCESSFUL,
        10,
        worker,
    )


def test_work_of_a_killed_worker_fails_and_leaves_nothing_behind(
    big: Campaign, olga: User, worker_process: StartWorker, tmp_path: Path
) -> None:
    """kill -9 of a worker (``./workbench.sh serve`` killed is the same: its worker process dies).

    An import killed mid-way is failed by the next worker to start; a pool build killed mid-way by
    a worker that was running beside the killed one.
    """
    for i in range(2):  # the pool build's input
        path = tmp_path / f"p{i}.run"
        path.write_bytes(run_text(f"p{i}", 11 + i))
        runs_import(campaign=big, paths=[path])
    blocks = sorted(RunArrays.objects.values_list("run_id", flat=True))

    # 1. an import, killed half-way through its files (blocks of the first ones written, uncommitted)
    importing = campaign_import_enqueue(campaign=big, user=olga, what="runs", files=big_runs("k"))
    first = worker_process()
    wait_for("the import got half-way", lambda: mid_way(importing, "importing runs"), 60, first)
    first.kill()
    assert Job.objects.get(pk=importing.pk).status == Job.Status.RUNNING  # nobody knows yet

    # 2. two workers start: the first of them to check fails the import
    building = pool_build_enqueue(
        campaign=big,
        user=olga,
        name="killed",
        spec=PoolSpec.from_dict({"strategy": "depth", "depth": DOCS}),
    )
    workers = [worker_process(), worker_process()]
    started = time.monotonic()
    importing = wait_for(
        "the import was failed",
        lambda: Job.objects.filter(pk=importing.pk, status=Job.Status.FAILED).first(),
        10,
        workers[0],
    )
    assert time.monotonic() - started < 10
    assert importing.errors[0].startswith("interrupted: the worker running this job")
    assert f":{first.pid})" in importing.errors[0]
    assert not job_folder(importing.id).exists()  # its uploads are gone
    assert not Run.objects.filter(campaign=big, tag__startswith="k").exists()
    assert sorted(RunArrays.objects.values_list("run_id", flat=True)) == blocks
    task = DBTaskResult.objects.get(pk=importing.task_id)
    assert task.status == TaskResultStatus.FAILED and "interrupted" in task.traceback

    # 3. the pool build, killed while storing its documents; the surviving worker notices
    wait_for("the pool build got half-way", lambda: mid_way(building, "storing the pool"), 60, workers[0])
    building.refresh_from_db()
    victim = next(w for w in workers if building.worker.endswith(f":{w.pid}"))
    survivor = next(w for w in workers if w is not victim)
    victim.kill()
    started = time.monotonic()
    building = wait_for(
        "the pool build was failed",
        lambda: Job.objects.filter(pk=building.pk, status=Job.Status.FAILED).first(),
        10,
        survivor,
    )
    assert building.errors[0].startswith("interrupted") and f":{victim.pid})" in building.errors[0]
    assert not Pool.objects.filter(campaign=big).exists()
    assert not PoolDocument.objects.exists()
    assert DBTaskResult.objects.get(pk=building.task_id).status == TaskResultStatus.FAILED
    assert survivor.proc.poll() is None


def _niceness(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])  # field 19


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the niceness from /proc")
def test_a_worker_runs_at_a_lower_cpu_priority_than_the_web(worker_process: StartWorker) -> None:
    """``jobs_worker`` lowers its own CPU priority (niceness WORKBENCH_WORKER_NICE, 10 by default):
    background work takes the CPU the web processes leave."""
    import os

    ours = os.nice(0)
    default = worker_process({"WORKBENCH_WORKER_NICE": ""})
    chosen = worker_process({"WORKBENCH_WORKER_NICE": "15"})
    for worker in (default, chosen):
        worker.wait_started()
    assert _niceness(default.pid) == min(19, max(ours, 10))
    assert _niceness(chosen.pid) == min(19, max(ours, 15))
