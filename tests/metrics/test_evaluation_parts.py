"""A campaign's evaluation shared among workers: parts of runs, one task each, stored by a last step."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from campaigns.models import Campaign
from campaigns.services import runs_import, topics_import
from jobs.models import Job
from jobs.selectors import job_parts
from metrics import jobs as metrics_jobs
from metrics.evaluations import evaluation_results
from metrics.jobs import EVALUATE_PART_JOB, EVALUATE_STORE_JOB
from metrics.models import Evaluation, EvaluationRun
from metrics.services import evaluation_enqueue, evaluation_run
from tests.conftest import WorkerProcess, demo_dir, demo_run_paths
from tests.metrics.test_leaderboard_pages import reference_source

pytestmark = pytest.mark.django_db


def test_an_evaluation_in_parts_stores_what_one_evaluation_stores(loaded: Campaign, settings: Any) -> None:
    whole = evaluation_run(campaign=loaded, source=reference_source(loaded))
    settings.WORKBENCH_EVALUATION_PART_RUNS = 3  # the demo's 4 runs: parts of 3 and 1
    job = evaluation_enqueue(campaign=loaded, source=reference_source(loaded), user=None)
    assert job.status == Job.Status.DONE, job.errors
    parts = job_parts(job=job)
    assert [len(p.params["runs"]) for p in parts] == [3, 1] and {p.kind for p in parts} == {EVALUATE_PART_JOB}
    assert job.parts.get(params__then=True).kind == EVALUATE_STORE_JOB
    shared = Evaluation.objects.get(job=job)
    assert job.result is not None and job.result["evaluation"] == shared.pk and job.result["runs"] == 4
    for field in ("measures", "specs", "integer", "topic_count", "judged_count", "relevant_count", "design"):
        assert getattr(shared, field) == getattr(whole, field), field
    for a, b in zip(evaluation_results(evaluation=whole), evaluation_results(evaluation=shared), strict=True):
        assert (a.run, a.topics, a.missing_topics) == (b.run, b.topics, b.missing_topics)
        assert a.summary == pytest.approx(b.summary, nan_ok=True)


def test_a_failed_part_fails_the_evaluation_and_stores_nothing(
    loaded: Campaign, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.WORKBENCH_EVALUATION_PART_RUNS = 1
    evaluate = metrics_jobs.source_evaluate

    def second_part_breaks(**kwargs: Any) -> Any:
        if [r.tag for r in kwargs["runs"]] == ["bm25_rm3"]:
            raise RuntimeError("disk on fire")
        return evaluate(**kwargs)

    monkeypatch.setattr(metrics_jobs, "source_evaluate", second_part_breaks)
    job = evaluation_enqueue(campaign=loaded, source=reference_source(loaded), user=None)
    assert job.status == Job.Status.FAILED
    assert job.errors == ["part 2 of 4: internal error: RuntimeError: disk on fire"]
    assert not Evaluation.objects.exists() and not EvaluationRun.objects.exists()


COPIES = 4  # the demo's four runs four times over, under other tags: 16 parts of one run


@pytest.fixture
def committed(transactional_db: None, campaign: Campaign, tmp_path: Path) -> Campaign:
    """The demo campaign with its qrels and 16 runs, committed (worker processes read it)."""
    topics_import(campaign=campaign, path=demo_dir() / "topics.txt")
    for copy in range(COPIES):
        for path in demo_run_paths():
            lines = [line.split() for line in path.read_text().splitlines() if line.strip()]
            target = tmp_path / f"{copy}-{path.name}"
            target.write_text("".join(" ".join([*f[:5], f"{f[5]}_{copy}"]) + "\n" for f in lines))
            runs_import(campaign=campaign, paths=[target])
    reference_source(campaign)
    return campaign


def test_two_worker_processes_share_the_parts_of_one_evaluation(
    committed: Campaign, worker_process: Callable[..., WorkerProcess]
) -> None:
    env = {"WORKBENCH_EVALUATION_PART_RUNS": "1"}
    workers = [worker_process(env), worker_process(env)]
    # both polling before there is work: otherwise the first one up can run every part (each takes
    # milliseconds) while the other is still starting Django
    for worker in workers:
        worker.wait_started()
    job = evaluation_enqueue(campaign=committed, source=reference_source(committed), user=None)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not Job.objects.get(pk=job.pk).finished:
        time.sleep(0.05)
    job.refresh_from_db()
    assert job.status == Job.Status.DONE, (job.errors, workers[0].output()[-2000:])
    parts = job_parts(job=job)
    assert len(parts) == 4 * COPIES and all(p.status == Job.Status.DONE for p in parts)
    # each part names the worker that ran it: both took some
    assert {p.worker.rsplit(":", 1)[1] for p in parts} == {str(w.pid) for w in workers}
    assert Evaluation.objects.get(job=job).run_count == 4 * COPIES
