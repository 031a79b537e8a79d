"""Evaluations: scoring a campaign's runs against a judgment source, and reading stored evaluations.

Evaluating is a read (:func:`source_evaluate` scores the stored runs against a source and returns
the engine's :class:`RunResult` objects); storing the outcome is ``metrics.services.evaluation_run``.
Every number shown comes from the engine (:func:`engine.evaluate.evaluate_run`) unchanged; the one
choice made here is the judged@10 convention (see :data:`JUDGED`).
"""

from __future__ import annotations

import math
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from campaigns.errors import CampaignDataError, CampaignNotFound
from campaigns.models import Campaign, Run, Topic
from campaigns.selectors import campaign_runs, ranking_from_lines
from campaigns.stored_runs import lines_from_block, run_blocks
from engine.evaluate import Judgments, RunResult, evaluate_run
from engine.measures import Measure
from engine.names import parse_measures
from jobs.models import Job
from jobs.selectors import jobs_alive
from metrics.models import Evaluation, EvaluationRun
from metrics.sources import (
    JudgmentSource,
    SourcedJudgments,
    source_judgments,
    source_key,
    source_label,
    source_normalized,
)
from trec.progress import ProgressCallback
from trec.runs import RankedRun

EVALUATE_JOB = "metrics_evaluate"
# what every evaluation computes, as `manage.py evaluate -m` takes them; iprec_at_recall draws P-R curves
BASE_SPECS = ("bpref", "infAP", "map", "ndcg_cut.10", "P.10", "judged.10", "iprec_at_recall")
# measures that need a sampled pool's design, by the design parse_measures names
SAMPLED_SPECS = (("prel", ("xinfAP", "xinfNDCG")), ("mq", ("statAP",)))
# judged@10 is ir_measures' Judged@10 (documents with a qrels line in the top 10 / min(10, retrieved))
# computed against the *labels alone*: a pooled-but-unjudged document (rel -1) counts as unjudged.
# Against judgments with no -1 line it is exactly the engine's judged_10 on the same judgments.
JUDGED = "judged_10"


# ---------------------------------------------------------------------------------- evaluating


def evaluation_measures(*, sampled: bool) -> tuple[list[Measure], list[str]]:
    """The measure requests of an evaluation and their specs (the -m arguments)."""
    measures = parse_measures(list(BASE_SPECS))
    specs = list(BASE_SPECS)
    if sampled:
        for design, group in SAMPLED_SPECS:
            measures += parse_measures(list(group), design=design)
            specs += list(group)
    return measures, specs


def _labelled_only(judgments: Judgments) -> Judgments:
    """The judgments without their pooled-but-unjudged lines (the same object when there are none)."""
    unjudged = np.flatnonzero(judgments.qrels.rels < 0)
    return judgments.without(unjudged) if len(unjudged) else judgments


@dataclass
class Evaluated:
    """Runs scored against a source: the engine's results, in the runs' tag order."""

    sourced: SourcedJudgments
    measures: list[str]
    specs: list[str]
    integer: list[str]
    runs: list[Run]
    results: list[RunResult]
    topic_count: int
    judged_count: int
    unjudged_count: int
    relevant_count: int
    seconds: float


def source_evaluate(
    *,
    campaign: Campaign,
    source: JudgmentSource,
    runs: Sequence[Run] | None = None,
    progress: ProgressCallback | None = None,
) -> Evaluated:
    """Score the campaign's runs (or ``runs``) against ``source``, one run in memory at a time."""
    started = time.monotonic()
    if progress is not None:
        progress("reading judgments", 0, 1)
    sourced = source_judgments(campaign=campaign, source=source_normalized(source))
    judgments = sourced.judgments
    rels = judgments.qrels.rels
    if not len(rels) or not bool(np.any(rels >= 0)):
        label = source_label(campaign=campaign, source=source)
        raise CampaignDataError(f"nothing to evaluate against: {label} has no graded document yet")
    measures, specs = evaluation_measures(sampled=sourced.sampled)
    labelled = _labelled_only(judgments)
    judged = [m for m in measures if m.measure_name() == JUDGED]
    chosen = list(campaign_runs(campaign=campaign)) if runs is None else list(runs)
    if not chosen:
        raise CampaignDataError(f"campaign '{campaign.slug}' has no runs to evaluate")
    results: list[RunResult] = []
    integer: set[str] = set()

    def score(ranking: RankedRun) -> RunResult:
        result = evaluate_run(judgments, ranking, measures)
        if labelled is not judgments:
            fix = evaluate_run(labelled, ranking, judged)
            assert fix.topics == result.topics  # without() keeps every topic, so the rows align
            result.per_topic[JUDGED] = fix.per_topic[JUDGED]
            result.summary[JUDGED] = fix.summary[JUDGED]
        return result

    numbers = dict(Topic.objects.filter(campaign=campaign).values_list("id", "number"))
    for i, result in enumerate(_scored(chosen, numbers, score)):
        if progress is not None:
            progress(f"evaluated {chosen[i].tag}", i + 1, len(chosen))
        results.append(result)
        integer |= result.integer
    if progress is not None:
        progress("evaluated", len(chosen), len(chosen))
    names = results[0].names
    return Evaluated(
        sourced=sourced,
        measures=names,
        specs=specs,
        integer=sorted(integer),
        runs=chosen,
        results=results,
        topic_count=len(judgments.qrels.topics),
        judged_count=int(np.count_nonzero(rels >= 0)),
        unjudged_count=int(np.count_nonzero(rels < 0)),
        relevant_count=int(np.count_nonzero(rels >= 1)),
        seconds=time.monotonic() - started,
    )


def _scored(
    runs: Sequence[Run], numbers: Mapping[int, str], score: Callable[[RankedRun], RunResult]
) -> Iterator[RunResult]:
    """Each run read from the store and scored, in order: this thread reads the runs' blocks,
    eight to a query (the database connection stays with it; a block reads in about a
    millisecond) while one worker thread per core decodes and scores them (numpy and the kernels
    release the GIL); at most two runs per worker wait, besides the batch being read."""
    workers = min(os.cpu_count() or 1, 4)
    read = zip(runs, run_blocks([run.pk for run in runs]), strict=True)

    def decode_and_score(run: Run, block: bytes | None) -> RunResult:
        return score(ranking_from_lines(run, lines_from_block(block), numbers))

    if len(runs) <= 1 or workers <= 1:
        for run, block in read:
            yield decode_and_score(run, block)
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="evaluate") as pool:
        pending: deque[Future[RunResult]] = deque()
        try:
            for run, block in read:
                if len(pending) >= 2 * workers:
                    yield pending.popleft().result()
                # this thread only fetches the run's block; the workers decode it (zstd, arrays)
                pending.append(pool.submit(decode_and_score, run, block))
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


# ------------------------------------------------------------------------- stored evaluations


def evaluation_get(*, campaign: Campaign, pk: int) -> Evaluation:
    evaluation = Evaluation.objects.filter(campaign=campaign, pk=pk).select_related("created_by").first()
    if evaluation is None:
        raise CampaignNotFound(f"campaign '{campaign.slug}' has no evaluation {pk}")
    return evaluation


def evaluation_latest(*, campaign: Campaign, source: JudgmentSource) -> Evaluation | None:
    return (
        Evaluation.objects.filter(campaign=campaign, source_key=source_key(source))
        .select_related("created_by")
        .order_by("-created_at", "-pk")
        .first()
    )


def campaign_evaluations(*, campaign: Campaign) -> list[Evaluation]:
    return list(
        Evaluation.objects.filter(campaign=campaign)
        .select_related("created_by")
        .order_by("-created_at", "-pk")
    )


def evaluation_pending(*, campaign: Campaign, source: JudgmentSource) -> Job | None:
    """The evaluation job of this source still queued or running, if any."""
    pending = jobs_alive(
        Job.objects.filter(kind=EVALUATE_JOB, campaign=campaign, params__source_key=source_key(source))
    )
    return pending.order_by("-created_at").first()


def evaluation_failed(*, campaign: Campaign, source: JudgmentSource, after: Any = None) -> Job | None:
    """The last evaluation job of this source, if it failed after the latest stored evaluation."""
    job = (
        Job.objects.filter(kind=EVALUATE_JOB, campaign=campaign, params__source_key=source_key(source))
        .order_by("-created_at")
        .first()
    )
    if job is None or job.status != Job.Status.FAILED or (after is not None and job.created_at < after):
        return None
    return job


def _nan(values: Iterable[float | None]) -> np.ndarray:
    return np.array([math.nan if v is None else v for v in values], dtype=np.float64)


def stored_result(evaluation: Evaluation, row: EvaluationRun) -> RunResult:
    """A stored run's scores as the engine's RunResult again (null back to NaN), for the writers."""
    per_topic = {name: _nan(values) for name, values in row.per_topic.items()}
    return RunResult(
        run=row.tag,
        runid=row.tag,
        topics=list(row.topics),
        per_topic=per_topic,
        summary={n: math.nan if v is None else float(v) for n, v in row.summary.items()},
        names=list(evaluation.measures),
        integer=set(evaluation.integer),
        summary_only={n for n in evaluation.measures if n not in per_topic},
        missing_topics=list(row.missing_topics),
    )


def evaluation_results(*, evaluation: Evaluation, tags: Sequence[str] | None = None) -> list[RunResult]:
    rows = EvaluationRun.objects.filter(evaluation=evaluation).order_by("tag")
    if tags is not None:
        rows = rows.filter(tag__in=list(tags))
    return [stored_result(evaluation, row) for row in rows]
