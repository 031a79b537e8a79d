"""The child processes of ``bench_stored.py``: each imports what the evaluation job's process
imports and nothing of the benchmark's own (its harness and workload generator).

    python benchmarks/stored_job.py store-qrels QRELS     # the campaign's judgments, untimed
    python benchmarks/stored_job.py evaluate [--out JSON]  # timed: what the evaluation job does
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CAMPAIGN = "bench"


def _django() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "workbench.settings")
    from workbench.startup import django_setup

    django_setup()  # as manage.py does


def store_qrels(path: str) -> None:
    _django()
    from campaigns.models import Campaign
    from campaigns.services.qrels import qrels_set_import

    campaign = Campaign.objects.get(slug=CAMPAIGN)
    qrels_set_import(campaign=campaign, path=path, name="qrels")


def evaluate_stored(out: str | None) -> None:
    """What the evaluation job does: score every stored run against the stored qrels and store it.

    The seconds after Django's start-up (what the job takes in a worker that is already running)
    are appended to the file named by ``WORKBENCH_BENCH_STORED_SECONDS``, when set."""
    _django()
    from jobs.registry import kind
    from metrics.evaluations import EVALUATE_JOB

    kind(EVALUATE_JOB)  # the job's code, imported as a worker imports it for its first such job
    started = time.perf_counter()
    from campaigns.models import Campaign, QrelsSet
    from metrics.models import EvaluationRun
    from metrics.services import evaluation_run
    from metrics.sources import JudgmentSource

    campaign = Campaign.objects.get(slug=CAMPAIGN)
    qset = QrelsSet.objects.get(campaign=campaign, name="qrels")
    evaluation = evaluation_run(campaign=campaign, source=JudgmentSource(kind="qrels", qrels_set=qset.pk))
    seconds = time.perf_counter() - started
    if out:
        rows = EvaluationRun.objects.filter(evaluation=evaluation).values_list("tag", "summary")
        Path(out).write_text(json.dumps({tag: summary for tag, summary in rows}))
    sidecar = os.environ.get("WORKBENCH_BENCH_STORED_SECONDS")
    if sidecar:
        with open(sidecar, "a") as f:
            f.write(f"{seconds}\n")


def main(argv: list[str]) -> None:
    if len(argv) == 2 and argv[0] == "store-qrels":
        store_qrels(argv[1])
    elif argv[:1] == ["evaluate"] and len(argv) in (1, 3) and argv[1:2] in ([], ["--out"]):
        evaluate_stored(argv[2] if len(argv) == 3 else None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
