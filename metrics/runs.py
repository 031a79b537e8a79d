"""Run pages: one run of a stored evaluation, per topic against each topic's median and best run."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from campaigns.errors import CampaignNotFound
from metrics.leaderboards import CURVE, DEFAULT_SORT, Column, evaluation_columns, finite_or_none
from metrics.models import Evaluation, EvaluationRun


@dataclass(frozen=True)
class TopicRow:
    topic: str
    value: float | None  # the run's value of the chosen measure
    median: float | None  # over the runs evaluated on the topic
    best: float | None
    best_runs: list[str]
    values: list[float | None]  # every leaderboard column
    others: list[float | None]  # the columns but the chosen measure (RunSummary.other_columns)


@dataclass
class RunSummary:
    """A run's scores in an evaluation, ranked among the other runs' (not campaigns' RunReport, which
    checks an uploaded run file)."""

    evaluation: Evaluation
    result: EvaluationRun
    measure: str
    columns: list[Column]
    summary: list[float | None]
    ranks: list[int | None]  # the run's rank among all runs, per column (1 = best)
    run_count: int
    topics: list[TopicRow]
    curve: list[float | None]
    median_curve: list[float | None]
    other_columns: list[Column]


def _median(values: list[float]) -> float | None:
    return float(np.median(values)) if values else None


def run_summary(*, evaluation: Evaluation, result_pk: int, measure: str | None = None) -> RunSummary:
    """One run of an evaluation: per-topic values against each topic's median and best over all runs."""
    row = EvaluationRun.objects.filter(evaluation=evaluation, pk=result_pk).first()
    if row is None:
        raise CampaignNotFound(f"evaluation {evaluation.pk} has no run {result_pk}")
    columns = evaluation_columns(evaluation=evaluation)
    names = [c.name for c in columns]
    chosen = measure if measure in names else DEFAULT_SORT
    # every run's per-topic values of the chosen measure, and every run's summary (for ranks and curves)
    others = list(
        EvaluationRun.objects.filter(evaluation=evaluation).values_list(
            "tag", "topics", "per_topic", "summary"
        )
    )
    by_topic: dict[str, list[tuple[float, str]]] = {}
    for tag, topics, per_topic, _ in others:
        for t, v in zip(topics, per_topic.get(chosen) or [None] * len(topics), strict=True):
            if v is not None and math.isfinite(v):
                by_topic.setdefault(t, []).append((float(v), tag))
    other = [j for j, n in enumerate(names) if n != chosen]
    topic_rows = []
    for i, t in enumerate(row.topics):
        scores = by_topic.get(t, [])
        best = max((v for v, _ in scores), default=None)
        values = [finite_or_none(row.per_topic[n][i]) if n in row.per_topic else None for n in names]
        topic_rows.append(
            TopicRow(
                topic=t,
                value=finite_or_none(row.per_topic.get(chosen, [None] * len(row.topics))[i]),
                median=_median([v for v, _ in scores]),
                best=best,
                best_runs=sorted(tag for v, tag in scores if v == best),
                values=values,
                others=[values[j] for j in other],
            )
        )
    summary = [finite_or_none(row.summary.get(n)) for n in names]
    ranks: list[int | None] = []
    for n, mine in zip(names, summary, strict=True):
        if mine is None:
            ranks.append(None)
            continue
        ranks.append(1 + sum(1 for *_, s in others if (finite_or_none(s.get(n)) or -math.inf) > mine))
    curve = [finite_or_none(row.summary.get(c)) for c in CURVE]
    median_curve = [
        _median([v for *_, s in others if (v := finite_or_none(s.get(c))) is not None]) for c in CURVE
    ]
    return RunSummary(
        evaluation,
        row,
        chosen,
        columns,
        summary,
        ranks,
        len(others),
        topic_rows,
        curve,
        median_curve,
        [columns[j] for j in other],
    )
