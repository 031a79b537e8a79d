"""Background jobs: run once, progress readable while running, failures recorded, uploads cleaned,
interrupted jobs failed, split jobs shared among parts."""

from __future__ import annotations

import os
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from jobs import liveness, progress
from jobs.models import Job
from jobs.registry import Split, register
from jobs.selectors import job_parts, job_status, jobs_alive
from jobs.services import (
    job_enqueue,
    job_execute,
    job_folder,
    jobs_interrupted_fail,
    upload_root,
    uploads_orphaned_remove,
)
from trec.progress import ProgressCallback

pytestmark = pytest.mark.django_db


def result(job: Job) -> dict[str, Any]:
    assert job.result is not None, job.errors
    return job.result


seen_during_run: list[dict[str, Any]] = []
calls: list[uuid.UUID] = []


@register("test_echo")
def _echo(job: Job, report: ProgressCallback) -> dict[str, Any]:
    calls.append(job.id)
    report("counting", 3, 4)
    seen_during_run.append(job_status(job=Job.objects.get(pk=job.pk)))
    if job.params.get("explode"):
        raise RuntimeError("boom")
    if job.params.get("refuse"):
        from campaigns.errors import CampaignDataError

        raise CampaignDataError(["a.run:3: expected 6 columns", "a.run:9: NaN score"])
    contents = [Path(path).read_text(encoding="utf-8") for path, _ in job.params.get("files", [])]
    return {"echo": job.params.get("value"), "contents": contents}


def test_a_job_runs_in_the_request_with_the_immediate_backend_and_keeps_its_result() -> None:
    job = job_enqueue(kind="test_echo", title="t", params={"value": 42})
    assert job.status == Job.Status.DONE and job.result == {"echo": 42, "contents": []}
    assert job.started_at is not None and job.finished_at is not None
    assert job.task_id and job.worker  # the django.tasks result that ran it, and where


def test_progress_is_readable_while_the_job_runs() -> None:
    seen_during_run.clear()
    job = job_enqueue(kind="test_echo", title="t")
    during = seen_during_run[0]
    assert during["status"] == "running" and during["phase"] == "counting"
    assert (during["done"], during["total"], during["percent"]) == (3, 4, 75.0)
    after = job_status(job=job)
    assert after["finished"] and after["percent"] == 100.0
    assert (job.phase, job.done, job.total) == ("counting", 3, 4)  # the last reading is kept
    assert progress.read(job_folder(job.id)) is None  # the progress file went with the job


def test_uploads_reach_the_job_then_are_removed() -> None:
    upload = SimpleUploadedFile("../../etc/passwd", b"hello")  # a hostile name stays inside the job folder
    job = job_enqueue(kind="test_echo", title="t", files=[upload])
    assert result(job)["contents"] == ["hello"]
    assert job.params["files"][0][1] == "passwd"
    assert str(job_folder(job.id)) in job.params["files"][0][0]
    assert not job_folder(job.id).exists()


def test_an_upload_cannot_take_the_name_of_the_jobs_own_files() -> None:
    uploads = [SimpleUploadedFile(name, b"x") for name in (progress.PROGRESS_FILE, liveness.LOCK_FILE)]
    job = job_enqueue(kind="test_echo", title="t", files=uploads)
    stored = [Path(path).name for path, _ in job.params["files"]]
    assert stored == [f"2-{progress.PROGRESS_FILE}", f"2-{liveness.LOCK_FILE}"]


def test_a_domain_refusal_fails_the_job_with_its_lines() -> None:
    job = job_enqueue(kind="test_echo", title="t", params={"refuse": True})
    assert job.status == Job.Status.FAILED
    assert job.errors == ["a.run:3: expected 6 columns", "a.run:9: NaN score"]


@register("test_unstorable")
def _unstorable(job: Job, report: ProgressCallback) -> dict[str, Any]:
    if job.params.get("refuse"):
        from campaigns.errors import CampaignDataError

        raise CampaignDataError(["a.run:1: token 'd\x001' is odd", "half \ud800"])
    return {"text": "a\x00b", "half": ["\udfff"]}


@pytest.mark.parametrize("refuse", [True, False])
def test_what_no_json_column_holds_is_written_out_so_the_job_still_ends(refuse: bool) -> None:
    """PostgreSQL's jsonb refuses a NUL: the job's end was lost and, still running, it was later
    failed as interrupted ("the worker stopped"), which was not why."""
    job = job_enqueue(kind="test_unstorable", title="t", params={"refuse": refuse})
    job = Job.objects.get(pk=job.pk)
    if refuse:
        assert job.status == Job.Status.FAILED
        assert job.errors == ["a.run:1: token 'd\\x001' is odd", "half \ufffd"]
    else:
        assert job.status == Job.Status.DONE and job.result == {"text": "a\\x00b", "half": ["\ufffd"]}


def test_an_unexpected_error_fails_the_job_and_says_so() -> None:
    job = job_enqueue(kind="test_echo", title="t", params={"explode": True})
    assert job.status == Job.Status.FAILED
    assert job.errors[0] == "internal error: RuntimeError: boom"


def test_unknown_kinds_are_refused_before_anything_is_stored() -> None:
    with pytest.raises(KeyError):
        job_enqueue(kind="no_such_kind", title="t")
    assert not Job.objects.exists()


# a worker closes its connection between tasks: only committed rows survive that
@pytest.mark.django_db(transaction=True)
def test_a_queued_task_waits_for_a_worker_which_runs_it_once(tasks_in_database: None) -> None:
    calls.clear()
    job = job_enqueue(kind="test_echo", title="t", params={"value": 1})
    assert job.status == Job.Status.QUEUED
    task = DBTaskResult.objects.get(pk=job.task_id)
    assert task.status == TaskResultStatus.READY and task.task_path == "jobs.tasks.job_task"
    call_command("jobs_worker", "--batch", "--no-startup-delay", verbosity=0)
    job.refresh_from_db()
    task.refresh_from_db()
    assert job.status == Job.Status.DONE and result(job)["echo"] == 1
    assert task.status == TaskResultStatus.SUCCESSFUL and task.worker_ids == [job.worker]
    job_execute(job_id=job.id)  # the same task delivered again runs nothing
    assert calls == [job.id]


@pytest.mark.django_db(transaction=True)
def test_a_failed_job_fails_its_task_result(tasks_in_database: None) -> None:
    job = job_enqueue(kind="test_echo", title="t", params={"refuse": True})
    call_command("jobs_worker", "--batch", "--no-startup-delay", verbosity=0)
    task = DBTaskResult.objects.get(pk=job.task_id)
    assert task.status == TaskResultStatus.FAILED and "a.run:3: expected 6 columns" in task.traceback


def _running(**fields: Any) -> Job:
    return Job.objects.create(
        kind="test_echo", title="t", status=Job.Status.RUNNING, started_at=timezone.now(), **fields
    )


def test_a_running_job_no_process_holds_is_failed_with_its_uploads(tasks_in_database: None) -> None:
    job = job_enqueue(kind="test_echo", title="t", files=[SimpleUploadedFile("a.run", b"x")])
    DBTaskResult.objects.filter(pk=job.task_id).update(status=TaskResultStatus.RUNNING)
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, worker="host:123")
    assert jobs_interrupted_fail() == 1
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and job.errors[0].startswith("interrupted:")
    assert "(host:123)" in job.errors[0]
    assert not job_folder(job.id).exists()
    task = DBTaskResult.objects.get(pk=job.task_id)
    assert task.status == TaskResultStatus.FAILED and task.exception_class_path == "jobs.services.WorkerLost"
    assert "interrupted" in task.traceback


def test_a_running_job_whose_process_holds_its_lock_is_left_alone() -> None:
    job = _running()
    with liveness.Holder(job.id, job_folder(job.id)):
        assert jobs_interrupted_fail() == 0
        assert list(jobs_alive(Job.objects.all())) == [job]
    assert list(jobs_alive(Job.objects.all())) == []  # the lock is free: it will never finish
    assert jobs_interrupted_fail() == 1


def test_a_task_claimed_long_ago_whose_job_never_started_is_failed(tasks_in_database: None) -> None:
    job = job_enqueue(kind="test_echo", title="t")
    long_ago = timezone.now() - timedelta(minutes=5)
    DBTaskResult.objects.filter(pk=job.task_id).update(status=TaskResultStatus.RUNNING, started_at=long_ago)
    assert jobs_interrupted_fail() == 1
    assert Job.objects.get(pk=job.pk).status == Job.Status.FAILED


def test_a_task_claimed_a_moment_ago_is_left_to_its_worker(tasks_in_database: None) -> None:
    """A worker claims the task, then takes the job's lock: in between the job is queued and
    unlocked, which is not an interruption until the grace period has passed."""
    from jobs.services import CLAIM_GRACE

    job = job_enqueue(kind="test_echo", title="t")
    moments_ago = timezone.now() - CLAIM_GRACE / 3
    DBTaskResult.objects.filter(pk=job.task_id).update(
        status=TaskResultStatus.RUNNING, started_at=moments_ago
    )
    assert jobs_interrupted_fail() == 0
    assert Job.objects.get(pk=job.pk).status == Job.Status.QUEUED
    assert DBTaskResult.objects.get(pk=job.task_id).status == TaskResultStatus.RUNNING


def test_a_job_that_ended_after_it_was_listed_keeps_its_outcome() -> None:
    """A worker lists the running jobs, the job's own worker records its end and frees the lock,
    then the first worker finds the lock free: the job finished, it was not interrupted."""
    from jobs.services import _job_interrupted

    job = _running(worker="a:1")
    listed = list(Job.objects.filter(status=Job.Status.RUNNING, parts__isnull=True))
    Job.objects.filter(pk=job.pk).update(
        status=Job.Status.DONE, result={"echo": 1}, finished_at=timezone.now()
    )
    assert _job_interrupted(listed[0]) is False
    job.refresh_from_db()
    assert (job.status, job.result, job.errors) == (Job.Status.DONE, {"echo": 1}, [])


def test_a_part_whose_job_already_failed_is_cancelled_not_run(tasks_in_database: None) -> None:
    """Another part was interrupted and failed the job while this part's task was on its way to a
    worker: the part does not run; it ends cancelled."""
    calls.clear()
    parent = _running(worker="a:1")
    Job.objects.filter(pk=parent.pk).update(status=Job.Status.FAILED, errors=["part 1 of 2: interrupted"])
    part = job_enqueue(kind="test_echo", title="t", params={"part": 2, "parts": 2, "value": 2})
    Job.objects.filter(pk=part.pk).update(parent=parent)
    done = job_execute(job_id=part.id)
    assert done is not None and calls == []
    assert done.status == Job.Status.FAILED and done.errors == ["cancelled: the job it is a part of ended"]


def test_upload_folders_no_job_owns_are_removed_once_old(tasks_in_database: None) -> None:
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


# ------------------------------------------------------------------------------ split jobs

seen_parents: list[dict[str, Any]] = []


@register("test_split")
def _split(job: Job, report: ProgressCallback) -> Split:
    report("planning", 1, 1)
    return Split("test_part", [{"n": n, "fail": n == job.params.get("fail")} for n in (1, 2, 3)], "test_sum")


@register("test_part")
def _part(job: Job, report: ProgressCallback) -> dict[str, Any]:
    assert job.parent is not None
    report("squaring", 0, 1)
    seen_parents.append(job_status(job=job.parent))
    if job.params["fail"]:
        raise RuntimeError("no square today")
    return {"square": job.params["n"] ** 2}


@register("test_sum")
def _sum(job: Job, report: ProgressCallback) -> dict[str, Any]:
    assert job.parent is not None
    return {"sum": sum(result(p)["square"] for p in job_parts(job=job.parent))}


def test_a_split_job_runs_its_parts_then_its_last_step() -> None:
    seen_parents.clear()
    job = job_enqueue(kind="test_split", title="t")
    assert job.status == Job.Status.DONE and job.result == {"sum": 1 + 4 + 9}
    parts = job_parts(job=job)
    assert [p.params["part"] for p in parts] == [1, 2, 3] and all(p.worker for p in parts)
    # while the second part ran, the job showed one part of three done and a bar in between
    assert seen_parents[1]["status"] == "running" and seen_parents[1]["phase"].startswith("1 of 3 parts done")
    assert (seen_parents[1]["done"], seen_parents[1]["total"]) == (1, 3)
    assert seen_parents[1]["percent"] == round(100 * 1 / 3, 1)


def test_a_failed_part_fails_the_job_and_cancels_the_rest() -> None:
    job = job_enqueue(kind="test_split", title="t", params={"fail": 2})
    assert job.status == Job.Status.FAILED
    assert job.errors == ["part 2 of 3: internal error: RuntimeError: no square today"]
    statuses = [p.status for p in job_parts(job=job)]
    assert statuses == [Job.Status.DONE, Job.Status.FAILED, Job.Status.FAILED]
    assert job_parts(job=job)[2].errors[0].startswith("cancelled")
    assert not job.parts.filter(kind="test_sum").exists()


def test_an_interrupted_part_fails_its_job(tasks_in_database: None) -> None:
    parent = _running(worker="a:1")
    _running(parent=parent, params={"part": 1, "parts": 2}, worker="b:2")
    Job.objects.create(kind="test_echo", title="t", parent=parent, params={"part": 2, "parts": 2})
    assert [j.pk for j in jobs_alive(Job.objects.filter(pk=parent.pk))] == [parent.pk]  # a part is queued
    assert jobs_interrupted_fail() == 1  # the part; the job lives on in its parts, it is not checked itself
    parent.refresh_from_db()
    assert parent.status == Job.Status.FAILED and parent.errors[0].startswith("part 1 of 2: interrupted")
    assert "(b:2)" in parent.errors[0]
    assert parent.parts.get(params__part=2).status == Job.Status.FAILED  # cancelled


def test_a_job_that_split_after_it_was_listed_is_not_failed(tasks_in_database: None) -> None:
    """The race CI met once on PostgreSQL: a worker lists the running jobs while another job is
    still whole; that job then commits its parts and gives its lock back on purpose; the first
    worker finds the lock free. The job lives on in its parts: failing it would be wrong."""
    from jobs.services import _job_interrupted

    parent = _running(worker="a:1")
    listed = list(Job.objects.filter(status=Job.Status.RUNNING, parts__isnull=True))
    assert [j.pk for j in listed] == [parent.pk]
    Job.objects.create(kind="test_echo", title="t", parent=parent, params={"part": 1, "parts": 1})
    assert not liveness.job_held(parent.id, job_folder(parent.id))
    assert _job_interrupted(listed[0]) is False
    parent.refresh_from_db()
    assert parent.status == Job.Status.RUNNING
    # and a job with no parts whose lock is free is still failed
    alone = _running(worker="c:3")
    assert _job_interrupted(alone) is True


# ----------------------------------------------------------------- who reads a job of no campaign


def test_a_job_of_no_campaign_is_its_creators_alone(organizer: Any, assessor: Any) -> None:
    """Every job the workbench starts names its campaign; one that does not (a command's, a test's)
    is its creator's: another logged-in user, an assessor included, gets the same 404 as for a job
    that does not exist, on the page, its status and the API; an anonymous visitor is sent to log in."""
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse
    from rest_framework.test import APIClient

    from tests.conftest import PASSWORD

    job = job_enqueue(kind="test_echo", title="no campaign", user=organizer, params={"value": "mine"})
    assert job.campaign_id is None
    admin = get_user_model().objects.create_superuser("root", "root@example.org", PASSWORD)
    urls = [reverse("jobs:job", args=[job.id]), reverse("jobs:status", args=[job.id])]
    api_url = reverse("api:job", args=[job.id])

    for who, code in [(organizer, 200), (assessor, 404), (admin, 200)]:
        client = Client()
        client.force_login(who)
        for url in urls:
            assert client.get(url).status_code == code, (who.username, url)
        api = APIClient()
        api.force_authenticate(who)
        answer = api.get(api_url)
        assert answer.status_code == code, who.username
        if code == 200:
            assert answer.json()["result"]["echo"] == "mine"
    for url in urls:
        assert Client().get(url).status_code == 302
    assert APIClient().get(api_url).status_code in (401, 403)
