"""Writes of the metrics app: storing an evaluation, and enqueueing evaluations and comparisons."""

from __future__ import annotations

import math
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from campaigns.models import Campaign
from jobs.models import Job
from jobs.services import dispatch, job_enqueue
from metrics.models import Evaluation, EvaluationRun
from metrics.selectors import (
    EVALUATE_JOB,
    SIGNIFICANCE_JOB,
    TEST_LABELS,
    ProgressFn,
    SignificanceParams,
    column_label,
    evaluation_pending,
    significance_check,
    significance_job,
    source_dict,
    source_evaluate,
    source_key,
    source_label,
    source_normalized,
)
from metrics.sources import JudgmentSource


def _json(value: float) -> float | None:
    """NaN and infinities as null: PostgreSQL's jsonb stores neither."""
    v = float(value)
    return v if math.isfinite(v) else None


def evaluation_run(
    *,
    campaign: Campaign,
    source: JudgmentSource,
    user: User | None = None,
    job: Job | None = None,
    progress: ProgressFn | None = None,
) -> Evaluation:
    """Score every run of the campaign against ``source`` and store the outcome, all or nothing.

    Runs are read and scored one at a time (memory stays bounded with many runs); the rows are
    written in one transaction at the end, so a page never sees half an evaluation.
    """
    source = source_normalized(source)
    evaluated = source_evaluate(campaign=campaign, source=source, progress=progress)
    with transaction.atomic():
        evaluation = Evaluation.objects.create(
            campaign=campaign,
            source=source_dict(source),
            source_key=source_key(source),
            source_label=source_label(campaign=campaign, source=source)[:400],
            design=Evaluation.Design.SAMPLED if evaluated.sourced.sampled else Evaluation.Design.QRELS,
            measures=evaluated.measures,
            specs=evaluated.specs,
            integer=evaluated.integer,
            topic_count=evaluated.topic_count,
            judged_count=evaluated.judged_count,
            unjudged_count=evaluated.unjudged_count,
            relevant_count=evaluated.relevant_count,
            run_count=len(evaluated.results),
            seconds=evaluated.seconds,
            created_by=user,
            job=job,
        )
        EvaluationRun.objects.bulk_create(
            [
                EvaluationRun(
                    evaluation=evaluation,
                    run=run,
                    tag=result.run,
                    summary={n: _json(result.summary[n]) for n in result.names},
                    topics=result.topics,
                    per_topic={
                        n: [_json(v) for v in values.tolist()] for n, values in result.per_topic.items()
                    },
                    missing_topics=result.missing_topics,
                )
                for run, result in zip(evaluated.runs, evaluated.results, strict=True)
            ],
            batch_size=200,
        )
    return evaluation


def evaluation_enqueue(*, campaign: Campaign, source: JudgmentSource, user: User | None) -> Job:
    """The background evaluation of ``source``: the one already queued or running, else a new job."""
    source = source_normalized(source)
    pending = evaluation_pending(campaign=campaign, source=source)
    if pending is not None:
        if pending.status == Job.Status.QUEUED:
            dispatch(pending.id)  # queued before a restart: make sure a worker takes it
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
