"""Writes of the metrics app: storing an evaluation, and enqueueing evaluations and comparisons."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from django.contrib.auth.models import User
from django.db import transaction

from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, Run
from jobs.models import Job
from jobs.services import job_enqueue
from metrics.comparisons import (
    SIGNIFICANCE_JOB,
    TEST_LABELS,
    SignificanceParams,
    significance_check,
    significance_job,
)
from metrics.evaluations import EVALUATE_JOB, Evaluated, evaluation_pending, source_evaluate
from metrics.leaderboards import column_label
from metrics.models import Evaluation, EvaluationRun
from metrics.sources import JudgmentSource, source_dict, source_key, source_label, source_normalized
from trec.progress import ProgressCallback


def _json(value: float) -> float | None:
    """NaN and infinities as null: PostgreSQL's jsonb stores neither."""
    v = float(value)
    return v if math.isfinite(v) else None


def _json_list(values: np.ndarray) -> list[float | None]:
    """:func:`_json` of every value, with one pass of numpy over the usual all-finite array."""
    floats: list[Any] = np.asarray(values, dtype=np.float64).tolist()
    return floats if bool(np.isfinite(values).all()) else [_json(v) for v in floats]


def evaluated_json(evaluated: Evaluated) -> dict[str, Any]:
    """Scored runs as JSON: what a part of a shared evaluation hands to the step that stores it.

    Each run's entry holds exactly what its :class:`EvaluationRun` row stores.
    """
    return {
        "measures": evaluated.measures,
        "specs": evaluated.specs,
        "integer": evaluated.integer,
        "sampled": evaluated.sourced.sampled,
        "topic_count": evaluated.topic_count,
        "judged_count": evaluated.judged_count,
        "unjudged_count": evaluated.unjudged_count,
        "relevant_count": evaluated.relevant_count,
        "seconds": evaluated.seconds,
        "runs": [
            {
                "run": run.pk,
                "tag": result.run,
                "summary": {n: _json(result.summary[n]) for n in result.names},
                "topics": result.topics,
                "per_topic": {n: _json_list(values) for n, values in result.per_topic.items()},
                "missing_topics": result.missing_topics,
            }
            for run, result in zip(evaluated.runs, evaluated.results, strict=True)
        ],
    }


def evaluation_run(
    *,
    campaign: Campaign,
    source: JudgmentSource,
    user: User | None = None,
    job: Job | None = None,
    progress: ProgressCallback | None = None,
) -> Evaluation:
    """Score every run of the campaign against ``source`` and store the outcome, all or nothing.

    Runs are read and scored one at a time (memory stays bounded with many runs); the rows are
    written in one transaction at the end, so a page never sees half an evaluation.
    """
    source = source_normalized(source)
    evaluated = source_evaluate(campaign=campaign, source=source, progress=progress)
    return evaluation_store(
        campaign=campaign,
        source=source,
        parts=[evaluated_json(evaluated)],
        seconds=evaluated.seconds,
        user=user,
        job=job,
    )


def evaluation_store(
    *,
    campaign: Campaign,
    source: JudgmentSource,
    parts: Sequence[Mapping[str, Any]],
    seconds: float,
    user: User | None = None,
    job: Job | None = None,
) -> Evaluation:
    """Store an evaluation from its parts (:func:`evaluated_json`, in run order), in one transaction.

    Runs deleted since they were scored are left out.
    """
    if not parts:
        raise CampaignDataError("an evaluation needs at least one part")
    source = source_normalized(source)
    first = parts[0]
    rows = [row for part in parts for row in part["runs"]]
    alive = set(
        Run.objects.filter(campaign=campaign, pk__in=[r["run"] for r in rows]).values_list("pk", flat=True)
    )
    rows = [row for row in rows if row["run"] in alive]
    with transaction.atomic():
        evaluation = Evaluation.objects.create(
            campaign=campaign,
            source=source_dict(source),
            source_key=source_key(source),
            source_label=source_label(campaign=campaign, source=source)[:400],
            design=Evaluation.Design.SAMPLED if first["sampled"] else Evaluation.Design.QRELS,
            measures=first["measures"],
            specs=first["specs"],
            integer=sorted({name for part in parts for name in part["integer"]}),
            topic_count=first["topic_count"],
            judged_count=first["judged_count"],
            unjudged_count=first["unjudged_count"],
            relevant_count=first["relevant_count"],
            run_count=len(rows),
            seconds=seconds,
            created_by=user,
            job=job,
        )
        EvaluationRun.objects.bulk_create(
            [
                EvaluationRun(
                    evaluation=evaluation,
                    run_id=row["run"],
                    tag=row["tag"],
                    summary=row["summary"],
                    topics=row["topics"],
                    per_topic=row["per_topic"],
                    missing_topics=row["missing_topics"],
                )
                for row in rows
            ],
            batch_size=200,
        )
    return evaluation


def evaluation_enqueue(*, campaign: Campaign, source: JudgmentSource, user: User | None) -> Job:
    """The background evaluation of ``source``: the one already queued or running, else a new job."""
    source = source_normalized(source)
    pending = evaluation_pending(campaign=campaign, source=source)
    if pending is not None:
        return pending
    label = source_label(campaign=campaign, source=source)
    return job_enqueue(
        kind=EVALUATE_JOB,
        title=f"evaluate the runs of {campaign.slug} against {label}"[:200],
        campaign=campaign,
        user=user,
        params={"source": source_dict(source), "source_key": source_key(source)},
    )


def significance_enqueue(*, evaluation: Evaluation, params: SignificanceParams, user: User | None) -> Job:
    """The comparison job of exactly these parameters: a finished or pending one, else a new one."""
    significance_check(evaluation=evaluation, params=params)
    for finished in (True, False):
        existing = significance_job(evaluation=evaluation, params=params, finished=finished)
        if existing is not None:
            return existing
    title = (
        f"compare the runs of {evaluation.campaign.slug} on {column_label(params.measure)} "
        f"({TEST_LABELS[params.test]}, {params.correction})"
    )
    extra: dict[str, Any] = params.as_dict()
    return job_enqueue(
        kind=SIGNIFICANCE_JOB, title=title[:200], campaign=evaluation.campaign, user=user, params=extra
    )
