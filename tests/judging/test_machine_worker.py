"""A machine assessor's judging in a real worker process, killed with ``kill -9`` mid-run: the next
worker fails the job as interrupted, judging again asks only what was not stored, and at most the
one request in flight at the kill is asked twice (its answer was never stored)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User

from campaigns.services import campaign_create, documents_import, runs_import, topics_import
from jobs.models import Job
from judging.llm.config import JudgeConfig
from judging.llm.endpoints import Endpoint
from judging.models import AssignmentItem, Judgment, MachineCall
from judging.services import assignments_create
from judging.services.machine import machine_judge_create, machine_judging_start
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import WorkerProcess, demo_dir, demo_run_paths
from tests.llm.fake_llm import FakeLLM, Reply


def _slow_answer(request: dict[str, Any], n: int) -> Reply:
    passage = request["messages"][-1]["content"].split("Passage: ", 1)[-1]
    return Reply(f"##final score: {len(passage) % 4}", delay=0.08)


def _wait(what: str, check: Callable[[], Any], seconds: float, worker: WorkerProcess) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    pytest.fail(f"waited {seconds} s for: {what}\n{worker.log.read_text()[-2000:]}")


def test_a_killed_worker_loses_at_most_the_answer_in_flight(
    transactional_db: None, worker_process: Callable[..., WorkerProcess], settings: Any
) -> None:
    campaign = campaign_create(slug="mk", name="Machine kill")
    topics_import(campaign=campaign, path=demo_dir() / "topics.txt")
    runs_import(campaign=campaign, paths=demo_run_paths(), group="demo")
    documents_import(campaign=campaign, paths=[demo_dir() / "documents.tsv"])
    pool = pool_commit(pool=pool_build(campaign=campaign, name="d5", spec=PoolSpec("depth", depth=5)))
    organizer = User.objects.create_user("olga", password="pw")
    with FakeLLM(_slow_answer) as server:
        declared = {"fake": {"base_url": server.base_url, "allow_private": True}}
        settings.WORKBENCH_JUDGE_ENDPOINTS = declared  # here, and in the workers' environment
        env = {"WORKBENCH_JUDGE_ENDPOINTS": json.dumps(declared)}
        endpoint = Endpoint("fake", server.base_url, allow_private=True)
        config = JudgeConfig(endpoint, "fake-1", requests_per_minute=100_000, concurrency=1)
        judge = machine_judge_create(campaign=campaign, username="llm", config=config)
        assignments_create(campaign=campaign, pool=pool, assessors=[judge.user], seed=1)
        items = AssignmentItem.objects.filter(assignment__assessor=judge.user).count()
        assert items > 20
        job = machine_judging_start(judge=judge, user=organizer)
        first = worker_process(env)
        _wait("some answers stored", lambda: MachineCall.objects.filter(judge=judge).count() >= 8, 60, first)
        first.kill()
        recorded = MachineCall.objects.filter(judge=judge).count()
        asked = len(server.seen)
        assert recorded < items and asked - recorded <= 1  # one request at a time: one in flight at most
        second = worker_process(env)
        failed = _wait(
            "the job failed as interrupted",
            lambda: Job.objects.filter(pk=job.pk, status=Job.Status.FAILED).first(),
            20,
            second,
        )
        assert failed.errors[0].startswith("interrupted")
        # its judgments are kept, and it says so (not "nothing of it was kept")
        assert failed.errors[0].endswith(
            f"the {recorded} judgments it made before the stop are kept: start it again to go on "
            "(nothing judged is asked twice)"
        )
        again = machine_judging_start(judge=judge, user=organizer)
        done = _wait(
            "judging again ended",
            lambda: Job.objects.filter(pk=again.pk, status=Job.Status.DONE).first(),
            60,
            second,
        )
    assert done.result["cached"] == recorded and done.result["asked"] == items - recorded
    assert MachineCall.objects.filter(judge=judge).count() == items
    assert Judgment.objects.filter(campaign=campaign, assessor=judge.user).count() == items
    assert items <= len(server.seen) <= items + 1  # nothing asked twice but the one in flight
