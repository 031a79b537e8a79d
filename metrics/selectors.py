"""Reads for the metrics pages and API: judgment sources, evaluating runs, stored evaluations, leaderboards.

Evaluating is a read (:func:`source_evaluate` scores the stored runs against a source and returns
the engine's :class:`RunResult` objects); storing the outcome is ``metrics.services.evaluation_run``.
Every number shown comes from the engine (:func:`engine.evaluate.evaluate_run`) unchanged; the one
choice made here is the judged@10 convention (see :data:`JUDGED`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.db.models import Sum

from campaigns import access
from campaigns.errors import CampaignDataError, CampaignNotFound
from campaigns.models import Campaign, Membership, QrelsSet, Run
from campaigns.selectors import campaign_qrels_sets, campaign_runs, run_ranking
from engine.evaluate import Judgments, RunResult, evaluate_run
from engine.measures import Measure
from engine.names import parse_measures
from engine.significance import (
    CORRECTIONS,
    TESTS,
    CompareSettings,
    Comparison,
    ComparisonError,
    compare_pairs,
    pair_count,
    score_matrix,
)
from jobs.models import Job
from jobs.selectors import jobs_alive
from judging.consensus import RULES
from judging.models import Judgment
from judging.selectors import campaign_assessors
from metrics.models import Evaluation, EvaluationRun
from metrics.sources import KINDS, JudgmentSource, SourcedJudgments, source_judgments
from pooling.models import Pool
from pooling.selectors import campaign_pools

ProgressFn = Callable[[str, int, int], None]

EVALUATE_JOB = "metrics_evaluate"
# what every evaluation computes, as `manage.py evaluate -m` takes them; iprec_at_recall draws P-R curves
BASE_SPECS = ("bpref", "infAP", "map", "ndcg_cut.10", "P.10", "judged.10", "iprec_at_recall")
# measures that need a sampled pool's design, by the design parse_measures names
SAMPLED_SPECS = (("prel", ("xinfAP", "xinfNDCG")), ("mq", ("statAP",)))
SAMPLED_ONLY = ("xinfAP", "xinfNDCG", "statAP")
# the leaderboard's columns, in the order the issue lists them
COLUMNS = ("bpref", "infAP", "xinfAP", "xinfNDCG", "statAP", "map", "ndcg_cut_10", "P_10", "judged_10")
LABELS = {"map": "AP", "ndcg_cut_10": "nDCG@10", "P_10": "P@10", "judged_10": "judged@10"}
DEFAULT_SORT = "map"
# judged@10 is ir_measures' Judged@10 (documents with a qrels line in the top 10 / min(10, retrieved))
# computed against the *labels alone*: a pooled-but-unjudged document (rel -1) counts as unjudged.
# Against judgments with no -1 line it is exactly the engine's judged_10 on the same judgments.
JUDGED = "judged_10"
RECALLS = tuple(i / 10 for i in range(11))
CURVE = tuple(f"iprec_at_recall_{r:.2f}" for r in RECALLS)
# the home page evaluates a campaign nobody evaluated yet in the request when it is this small
# (ranked documents over all its runs), and at most this many such campaigns per request
PREVIEW_MAX_DOCUMENTS = 50_000
PREVIEW_CAMPAIGNS = 3


# ------------------------------------------------------------------------------------ sources


def source_normalized(source: JudgmentSource) -> JudgmentSource:
    """The source with the fields its kind ignores reset, so equal choices compare equal."""
    return JudgmentSource(
        kind=source.kind,
        rule=source.rule if source.kind == "consensus" else "majority",
        assessor=source.assessor if source.kind == "assessor" else None,
        qrels_set=source.qrels_set if source.kind == "qrels" else None,
        pool=source.pool,
    )


def source_dict(source: JudgmentSource) -> dict[str, Any]:
    s = source_normalized(source)
    return {"kind": s.kind, "rule": s.rule, "assessor": s.assessor, "qrels_set": s.qrels_set, "pool": s.pool}


def source_from_dict(data: dict[str, Any]) -> JudgmentSource:
    """A source from :func:`source_dict`'s shape; raises CampaignDataError on a bad one."""
    try:
        return source_normalized(
            JudgmentSource(
                kind=str(data.get("kind") or "consensus"),
                rule=str(data.get("rule") or "majority"),
                assessor=data.get("assessor") or None,
                qrels_set=None if data.get("qrels_set") in (None, "") else int(data["qrels_set"]),
                pool=None if data.get("pool") in (None, "") else int(data["pool"]),
            )
        )
    except (TypeError, ValueError) as exc:
        raise CampaignDataError(f"bad judgment source: {exc}") from exc


def source_key(source: JudgmentSource) -> str:
    s = source_normalized(source)
    what = {"consensus": s.rule, "assessor": s.assessor, "qrels": str(s.qrels_set), "adjudicated": ""}[s.kind]
    return f"{s.kind}:{what}|pool:{'' if s.pool is None else s.pool}"


def source_query(source: JudgmentSource) -> str:
    """The leaderboard page's query string choosing this source."""
    from urllib.parse import urlencode

    return urlencode({k: "" if v is None else v for k, v in source_dict(source).items()})


def source_label(*, campaign: Campaign, source: JudgmentSource) -> str:
    """How the source reads on a page: what counts, and which pool's unjudged documents ride along."""
    s = source_normalized(source)
    text = s.describe()
    if s.kind == "qrels" and s.qrels_set is not None:
        qsets = QrelsSet.objects.filter(campaign=campaign, pk=s.qrels_set)
        name = qsets.values_list("name", flat=True).first()
        text = f"imported judgments '{name}'" if name else text
    if s.pool is not None:
        pool = Pool.objects.filter(campaign=campaign, pk=s.pool).values_list("name", flat=True).first()
        base = text.removesuffix(" with the pool's unjudged documents")
        text = f"{base} with pool '{pool}'" if pool else text
    return text


@dataclass(frozen=True)
class SourceChoices:
    """What the source form offers for a campaign."""

    kinds: tuple[str, ...]
    rules: tuple[str, ...]
    assessors: list[str]
    qrels_sets: list[QrelsSet]
    pools: list[Pool]
    has_judgments: bool


def source_choices(*, campaign: Campaign) -> SourceChoices:
    return SourceChoices(
        kinds=KINDS,
        rules=tuple(r for r in RULES if r != "adjudicated"),  # "adjudicated" is its own kind
        assessors=campaign_assessors(campaign=campaign),
        qrels_sets=list(campaign_qrels_sets(campaign=campaign)),
        pools=list(campaign_pools(campaign=campaign)),
        has_judgments=Judgment.objects.filter(campaign=campaign).exists(),
    )


def default_source(*, campaign: Campaign) -> JudgmentSource:
    """The source a page opens with: the last one evaluated; else the consensus with the latest
    committed pool once judging started; else the latest imported judgments; else the consensus."""
    last = Evaluation.objects.filter(campaign=campaign).order_by("-created_at", "-pk").first()
    if last is not None:
        try:
            return source_from_dict(last.source)
        except CampaignDataError:
            pass
    if Judgment.objects.filter(campaign=campaign).exists():
        pool = campaign_pools(campaign=campaign).filter(status=Pool.Status.COMMITTED).first()
        return JudgmentSource(pool=pool.pk if pool else None)
    qset = QrelsSet.objects.filter(campaign=campaign).order_by("-imported_at", "-pk").first()
    if qset is not None:
        return JudgmentSource(kind="qrels", qrels_set=qset.pk)
    return JudgmentSource()


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
    progress: ProgressFn | None = None,
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
    for i, run in enumerate(chosen):
        if progress is not None:
            progress(f"evaluating {run.tag}", i, len(chosen))
        ranking = run_ranking(run=run)
        result = evaluate_run(judgments, ranking, measures)
        if labelled is not judgments:
            fix = evaluate_run(labelled, ranking, judged)
            assert fix.topics == result.topics  # without() keeps every topic, so the rows align
            result.per_topic[JUDGED] = fix.per_topic[JUDGED]
            result.summary[JUDGED] = fix.summary[JUDGED]
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


# ---------------------------------------------------------------------------------- leaderboard


@dataclass(frozen=True)
class Column:
    name: str
    label: str


def column_label(name: str) -> str:
    return LABELS.get(name, name)


@dataclass(frozen=True)
class BoardRow:
    tag: str
    result: int | None  # the EvaluationRun's pk (None in a preview, which stores nothing)
    values: list[float | None]


@dataclass
class Leaderboard:
    columns: list[Column]
    rows: list[BoardRow]  # sorted by ``sort``, best first
    sort: str
    sampled: bool
    missing: list[str]  # leaderboard measures this design cannot compute
    curves: dict[str, list[float | None]] = field(default_factory=dict)  # tag -> mean iP at RECALLS

    def values_of(self, name: str) -> list[float | None]:
        i = [c.name for c in self.columns].index(name)
        return [r.values[i] for r in self.rows]


def _number(value: Any) -> float | None:
    if value is None:
        return None
    v = float(value)
    return v if math.isfinite(v) else None


def _board(
    names: Sequence[str], summaries: Sequence[tuple[str, int | None, dict[str, Any]]], sort: str | None
) -> Leaderboard:
    columns = [Column(n, column_label(n)) for n in COLUMNS if n in names]
    sampled = any(n in names for n in SAMPLED_ONLY)
    key = sort if sort in [c.name for c in columns] else DEFAULT_SORT
    rows = [BoardRow(tag, pk, [_number(s.get(c.name)) for c in columns]) for tag, pk, s in summaries]
    i = [c.name for c in columns].index(key)
    # best first; a value that is not a number sorts last; ties by tag
    rows.sort(key=lambda r: (r.values[i] is None, -(r.values[i] or 0.0), r.tag))
    curves = {tag: [_number(s.get(c)) for c in CURVE] for tag, _, s in summaries if CURVE[0] in s}
    return Leaderboard(columns, rows, key, sampled, [] if sampled else list(SAMPLED_ONLY), curves)


def leaderboard(*, evaluation: Evaluation, sort: str | None = None) -> Leaderboard:
    """The stored evaluation's runs with their 'all' values, best first by ``sort`` (default AP)."""
    rows = (
        EvaluationRun.objects.filter(evaluation=evaluation)
        .order_by("tag")
        .values_list("tag", "pk", "summary")
    )
    return _board(evaluation.measures, list(rows), sort)


def preview_leaderboard(evaluated: Evaluated, sort: str | None = None) -> Leaderboard:
    return _board(evaluated.measures, [(r.run, None, r.summary) for r in evaluated.results], sort)


# ------------------------------------------------------------------------------------ run page


@dataclass(frozen=True)
class TopicRow:
    topic: str
    value: float | None  # the run's value of the chosen measure
    median: float | None  # over the runs evaluated on the topic
    best: float | None
    best_runs: list[str]
    values: list[float | None]  # every leaderboard column
    others: list[float | None]  # the columns but the chosen measure (RunReport.other_columns)


@dataclass
class RunReport:
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


def run_report(*, evaluation: Evaluation, result_pk: int, measure: str | None = None) -> RunReport:
    """One run of an evaluation: per-topic values against each topic's median and best over all runs."""
    row = EvaluationRun.objects.filter(evaluation=evaluation, pk=result_pk).first()
    if row is None:
        raise CampaignNotFound(f"evaluation {evaluation.pk} has no run {result_pk}")
    columns = [Column(n, column_label(n)) for n in COLUMNS if n in evaluation.measures]
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
        values = [_number(row.per_topic[n][i]) if n in row.per_topic else None for n in names]
        topic_rows.append(
            TopicRow(
                topic=t,
                value=_number(row.per_topic.get(chosen, [None] * len(row.topics))[i]),
                median=_median([v for v, _ in scores]),
                best=best,
                best_runs=sorted(tag for v, tag in scores if v == best),
                values=values,
                others=[values[j] for j in other],
            )
        )
    summary = [_number(row.summary.get(n)) for n in names]
    ranks: list[int | None] = []
    for n, mine in zip(names, summary, strict=True):
        if mine is None:
            ranks.append(None)
            continue
        ranks.append(1 + sum(1 for *_, s in others if (_number(s.get(n)) or -math.inf) > mine))
    curve = [_number(row.summary.get(c)) for c in CURVE]
    median_curve = [_median([v for *_, s in others if (v := _number(s.get(c))) is not None]) for c in CURVE]
    return RunReport(
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


# ------------------------------------------------------------------------------------ home page


@dataclass
class CampaignBoard:
    campaign: Campaign
    evaluation: Evaluation | None
    board: Leaderboard | None
    preview_source: str = ""  # set when the board was computed for the page, not stored
    problem: str = ""
    chart: str = ""  # the view's SVG of the board


def home_boards(*, user: Any, top: int = 10) -> list[CampaignBoard]:
    """The leaderboard of each campaign the user organizes: its latest evaluation, or for a small
    campaign nobody evaluated yet, its runs scored against the default source in the request."""
    out = []
    previews = 0
    for campaign in access.visible_campaigns(user).order_by("slug"):
        if not access.has_role(user, campaign, Membership.Role.ORGANIZER):
            continue
        latest = Evaluation.objects.filter(campaign=campaign).order_by("-created_at", "-pk").first()
        if latest is not None:
            board = leaderboard(evaluation=latest)
            board.rows = board.rows[:top]
            out.append(CampaignBoard(campaign, latest, board))
            continue
        size = Run.objects.filter(campaign=campaign).aggregate(n=Sum("document_count"))["n"] or 0
        if size == 0 or size > PREVIEW_MAX_DOCUMENTS or previews >= PREVIEW_CAMPAIGNS:
            out.append(CampaignBoard(campaign, None, None))
            continue
        previews += 1
        source = default_source(campaign=campaign)
        try:
            evaluated = source_evaluate(campaign=campaign, source=source)
        except CampaignDataError as exc:
            out.append(CampaignBoard(campaign, None, None, problem="; ".join(exc.problems)))
            continue
        board = preview_leaderboard(evaluated)
        board.rows = board.rows[:top]
        out.append(
            CampaignBoard(
                campaign, None, board, preview_source=source_label(campaign=campaign, source=source)
            )
        )
    return out


# ------------------------------------------------------------------------------- significance

SIGNIFICANCE_JOB = "metrics_significance"
TEST_LABELS = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "randomization": "paired randomization test",
}
CORRECTION_LABELS = {
    "none": "no correction",
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini–Hochberg (false discovery rate)",
}
BOOTSTRAP = 10_000  # resamples of each pair's CI: manage.py compare's default, so its numbers match


@dataclass(frozen=True)
class SignificanceParams:
    """What a significance matrix is computed with; ``key`` finds a finished one to show again."""

    evaluation: int
    measure: str = DEFAULT_SORT
    test: str = "t"
    correction: str = "holm"
    seed: int = 0
    permutations: int = 10_000
    alpha: float = 0.05

    def settings(self) -> CompareSettings:
        return CompareSettings(
            tests=(self.test,),
            correction=self.correction,
            alpha=self.alpha,
            permutations=self.permutations,
            resamples=BOOTSTRAP,
            seed=self.seed,
        )

    def key(self) -> str:
        return (
            f"{self.evaluation}|{self.measure}|{self.test}|{self.correction}|{self.seed}|"
            f"{self.permutations}|{self.alpha!r}"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "evaluation": self.evaluation,
            "measure": self.measure,
            "test": self.test,
            "correction": self.correction,
            "seed": self.seed,
            "permutations": self.permutations,
            "alpha": self.alpha,
            "key": self.key(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SignificanceParams:
        return cls(
            evaluation=int(data["evaluation"]),
            measure=str(data["measure"]),
            test=str(data["test"]),
            correction=str(data["correction"]),
            seed=int(data["seed"]),
            permutations=int(data["permutations"]),
            alpha=float(data["alpha"]),
        )


def significance_measures(*, evaluation: Evaluation) -> list[Column]:
    """The measures a matrix can compare: the leaderboard's, which all have per-topic values."""
    return [Column(n, column_label(n)) for n in COLUMNS if n in evaluation.measures]


def significance_check(*, evaluation: Evaluation, params: SignificanceParams) -> None:
    problems = []
    if params.measure not in [c.name for c in significance_measures(evaluation=evaluation)]:
        problems.append(f"measure '{params.measure}' is not in this evaluation")
    if params.test not in TESTS:
        problems.append(f"unknown test '{params.test}' (one of {', '.join(TESTS)})")
    if params.correction not in CORRECTIONS:
        problems.append(f"unknown correction '{params.correction}' (one of {', '.join(CORRECTIONS)})")
    if params.seed < 0:
        problems.append("the seed must be a non-negative integer")
    if not 1 <= params.permutations <= 1_000_000:
        problems.append("permutations must be between 1 and 1,000,000")
    if not 0 < params.alpha < 1:
        problems.append("alpha must be between 0 and 1")
    if evaluation.run_count < 2:
        problems.append("a comparison needs at least two runs")
    if problems:
        raise CampaignDataError(problems)


def significance_compare(
    *, evaluation: Evaluation, params: SignificanceParams, progress: ProgressFn | None = None
) -> Comparison:
    """Every pair of the evaluation's runs under one paired test and correction (engine.significance)."""
    significance_check(evaluation=evaluation, params=params)
    results = evaluation_results(evaluation=evaluation)
    settings = params.settings()
    try:
        matrix = score_matrix(results, params.measure)
    except ComparisonError as exc:
        raise CampaignDataError(str(exc)) from exc
    total = pair_count(len(matrix.runs), settings)
    done = 0

    def on_pair(label: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(f"comparing {label}", done, total)

    pairs = compare_pairs(matrix, settings, on_pair)
    return Comparison(matrix, settings, pairs, [], [])


def significance_result(
    *, evaluation: Evaluation, params: SignificanceParams, progress: ProgressFn | None = None
) -> dict[str, Any]:
    """The comparison as JSON: ``manage.py compare --format json``'s shape, with the parameters."""
    from metrics.management.commands.compare import as_dict

    comparison = significance_compare(evaluation=evaluation, params=params, progress=progress)
    info = {"evaluation": evaluation.pk, "source": evaluation.source_label, "level": 1}
    return {"params": params.as_dict(), "comparison": as_dict(comparison, info, per_topic=False)}


def significance_job(*, evaluation: Evaluation, params: SignificanceParams, finished: bool) -> Job | None:
    """The latest finished (``finished``) or still pending job of exactly these parameters."""
    statuses = (Job.Status.DONE,) if finished else (Job.Status.QUEUED, Job.Status.RUNNING)
    return (
        Job.objects.filter(
            kind=SIGNIFICANCE_JOB,
            campaign_id=evaluation.campaign_id,
            status__in=statuses,
            params__key=params.key(),
        )
        .order_by("-created_at")
        .first()
    )


@dataclass(frozen=True)
class Cell:
    other: str  # the column's run
    p: float | None
    p_adjusted: float | None
    diff: float | None  # mean of row − column
    ci: tuple[float | None, float | None]
    significant: bool
    direction: str  # "better" (row > column), "worse" or "tie"


@dataclass(frozen=True)
class MatrixRow:
    run: str
    mean: float | None
    cells: list[Cell | None]  # None on the diagonal


@dataclass
class SignificanceMatrix:
    runs: list[str]  # best mean first
    rows: list[MatrixRow]
    topics: int
    dropped: list[str]
    significant_pairs: int
    pairs: int


def significance_matrix(result: dict[str, Any]) -> SignificanceMatrix:
    """The job's JSON as a square matrix for the page: rows and columns in order of the mean."""
    c = result["comparison"]
    test = result["params"]["test"]
    means = {r["run"]: r["mean"] for r in c["runs"]}
    runs = sorted(means, key=lambda r: (means[r] is None, -(means[r] or 0.0), r))
    by_pair: dict[tuple[str, str], Cell] = {}
    significant = 0
    for p in c["pairs"]:
        t = p["tests"][test]
        significant += bool(t["significant"])
        for a, b, sign in ((p["a"], p["b"], 1.0), (p["b"], p["a"], -1.0)):
            diff = None if p["diff"] is None else sign * p["diff"]
            lo, hi = p["ci"]
            ci = (lo, hi) if sign > 0 else (None if hi is None else -hi, None if lo is None else -lo)
            direction = "tie" if not diff else "better" if diff > 0 else "worse"
            by_pair[(a, b)] = Cell(b, t["p"], t["p_adjusted"], diff, ci, bool(t["significant"]), direction)
    rows = [MatrixRow(a, means[a], [None if a == b else by_pair.get((a, b)) for b in runs]) for a in runs]
    return SignificanceMatrix(
        runs, rows, len(c["topics"]), sorted(c["dropped"]), significant, len(c["pairs"])
    )


def significance_csv(result: dict[str, Any]) -> str:
    """One line per run mean and per pair, under ``manage.py compare --format csv``'s columns."""
    import csv
    import io

    from metrics.management.commands.compare import CSV_COLUMNS

    def cell(v: Any) -> Any:
        if v is None:
            return ""
        if isinstance(v, bool):
            return int(v)
        return repr(v) if isinstance(v, float) else v

    c = result["comparison"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in c["runs"]:
        writer.writerow(["mean", r["run"], "", "", "", cell(r["mean"]), "", "", "", "", "", ""])
    for topic, runs in c["dropped"].items():
        for run in runs:
            writer.writerow(["dropped", run, "", topic, "", "", "", "", "", "", "", ""])
    for p in c["pairs"]:
        for test, t in p["tests"].items():
            writer.writerow(
                [
                    "pair",
                    p["a"],
                    p["b"],
                    "",
                    test,
                    cell(p["diff"]),
                    cell(p["ci"][0]),
                    cell(p["ci"][1]),
                    cell(t["statistic"]),
                    cell(t["p"]),
                    cell(t["p_adjusted"]),
                    cell(t["significant"]),
                ]
            )
    return out.getvalue()


# ------------------------------------------------------------------------------------ downloads

FILE_FORMATS = {
    "trec": ("text/plain; charset=utf-8", "txt"),
    "csv": ("text/csv; charset=utf-8", "csv"),
    "json": ("application/json", "json"),
}


@dataclass(frozen=True)
class EvaluationFile:
    body: str
    content_type: str
    filename: str


def evaluation_file(
    *, evaluation: Evaluation, fmt: str, tags: Sequence[str] | None = None, per_topic: bool = True
) -> EvaluationFile:
    """The evaluation as ``manage.py evaluate`` writes it (same writer): with per-topic lines (-q),
    4 decimals, one block per run in tag order, each line led by the run's name when there are several.
    """
    import io

    from engine.output import Writer

    if fmt not in FILE_FORMATS:
        raise CampaignDataError(f"unknown format '{fmt}' (one of {', '.join(FILE_FORMATS)})")
    results = evaluation_results(evaluation=evaluation, tags=tags)
    if tags is not None and not results:
        raise CampaignNotFound(f"evaluation {evaluation.pk} has no run {', '.join(tags)}")
    out = io.StringIO()
    writer = Writer(
        out, fmt, per_topic=per_topic, digits=4, with_run=len(results) > 1, trec_eval_layout=False
    )
    for result in results:
        writer.write(result)
    writer.close(
        {
            "campaign": evaluation.campaign.slug,
            "evaluation": evaluation.pk,
            "source": evaluation.source,
            "source_label": evaluation.source_label,
            "design": evaluation.design,
            "measures": evaluation.specs,
            "created_at": evaluation.created_at.isoformat(),
        }
    )
    content_type, ext = FILE_FORMATS[fmt]
    stem = "-".join([evaluation.campaign.slug, f"evaluation{evaluation.pk}", *(tags or [])])
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in stem)
    return EvaluationFile(out.getvalue(), content_type, f"{safe}.{ext}")
