"""Comparisons: every pair of a stored evaluation's runs under one paired test and correction.

The numbers are :mod:`engine.significance`'s, in ``manage.py compare --format json``'s shape
(:func:`engine.output.comparison_dict`), so the page, its downloads and the command agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campaigns.errors import CampaignDataError
from engine.output import comparison_dict
from engine.significance import (
    ALL_TESTS,
    CORRECTIONS,
    EXACT,
    EXACT_MAX_TOPICS,
    CompareSettings,
    Comparison,
    ComparisonError,
    compare_matrix,
    pair_count,
    score_matrix,
)
from jobs.models import Job
from metrics.evaluations import evaluation_results
from metrics.leaderboards import DEFAULT_SORT, Column, evaluation_columns
from metrics.models import Evaluation, EvaluationRun
from trec.progress import ProgressCallback

SIGNIFICANCE_JOB = "metrics_significance"
TEST_LABELS = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "randomization": "paired randomization test",
    "exact": f"exact randomization test (all 2^n sign flips; at most {EXACT_MAX_TOPICS} topics)",
}
CORRECTION_LABELS = {
    "none": "no correction",
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini–Hochberg (false discovery rate)",
    "by": "Benjamini–Yekutieli (false discovery rate, any dependence)",
}
ZERO_METHOD_LABELS = {
    "wilcox": "Wilcoxon: drop zero differences",
    "pratt": "Wilcoxon: Pratt (rank zeros, then drop)",
    "zsplit": "Wilcoxon: zsplit (split zeros' ranks)",
}
CI_LABELS = {"percentile": "bootstrap percentile", "bca": "bootstrap BCa"}
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
    # two-sided always: the matrix reads each pair both ways (a one-sided test answers one of
    # them); one-sided tests are for manage.py compare --alternative and rw.compare
    zero_method: str = "wilcox"
    ci: str = "percentile"

    def settings(self) -> CompareSettings:
        return CompareSettings(
            tests=(self.test,),
            correction=self.correction,
            alpha=self.alpha,
            permutations=self.permutations,
            resamples=BOOTSTRAP,
            seed=self.seed,
            zero_method=self.zero_method,
            ci_method=self.ci,
        )

    def key(self) -> str:
        key = (
            f"{self.evaluation}|{self.measure}|{self.test}|{self.correction}|{self.seed}|"
            f"{self.permutations}|{self.alpha!r}"
        )
        # the defaults keep the key comparisons had before these choices existed, so their
        # finished results are still found
        extra = (self.zero_method, self.ci)
        return key if extra == ("wilcox", "percentile") else key + "|" + "|".join(extra)

    def as_dict(self) -> dict[str, Any]:
        return {
            "evaluation": self.evaluation,
            "measure": self.measure,
            "test": self.test,
            "correction": self.correction,
            "seed": self.seed,
            "permutations": self.permutations,
            "alpha": self.alpha,
            "zero_method": self.zero_method,
            "ci": self.ci,
            "key": self.key(),
        }

    def query(self) -> dict[str, Any]:
        """The parameters a page's query string carries (the evaluation is in the path)."""
        return {k: v for k, v in self.as_dict().items() if k not in ("evaluation", "key")}

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
            zero_method=str(data.get("zero_method", "wilcox")),
            ci=str(data.get("ci", "percentile")),
        )


def significance_measures(*, evaluation: Evaluation) -> list[Column]:
    """The measures a matrix can compare: the leaderboard's, which all have per-topic values."""
    return evaluation_columns(evaluation=evaluation)


def significance_check(*, evaluation: Evaluation, params: SignificanceParams) -> None:
    problems = []
    if params.measure not in [c.name for c in significance_measures(evaluation=evaluation)]:
        problems.append(f"measure '{params.measure}' is not in this evaluation")
    if params.test not in ALL_TESTS:
        problems.append(f"unknown test '{params.test}' (one of {', '.join(ALL_TESTS)})")
    if params.test == EXACT:
        topics = _topic_count(evaluation, params.measure)
        if topics > EXACT_MAX_TOPICS:
            problems.append(
                f"the exact randomization test enumerates 2^n sign flips, at most {EXACT_MAX_TOPICS} "
                f"topics; this evaluation has {topics}: choose the (Monte Carlo) randomization test"
            )
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


def _topic_count(evaluation: Evaluation, measure: str) -> int:
    """Topics with a value of ``measure`` in the evaluation's first run (the runs share them)."""
    first = EvaluationRun.objects.filter(evaluation=evaluation).order_by("pk").first()
    values = (first.per_topic or {}).get(measure, {}) if first is not None else {}
    return len(values)


def significance_compare(
    *, evaluation: Evaluation, params: SignificanceParams, progress: ProgressCallback | None = None
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

    return compare_matrix(matrix, settings, on_pair, tukey=False)


def significance_result(
    *, evaluation: Evaluation, params: SignificanceParams, progress: ProgressCallback | None = None
) -> dict[str, Any]:
    """The comparison as JSON: ``manage.py compare --format json``'s shape, with the parameters."""
    comparison = significance_compare(evaluation=evaluation, params=params, progress=progress)
    info = {"evaluation": evaluation.pk, "source": evaluation.source_label, "level": 1}
    return {"params": params.as_dict(), "comparison": comparison_dict(comparison, info, per_topic=False)}


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


@dataclass
class SignificanceState:
    """What the significance page shows for one set of parameters."""

    done: Job | None  # the latest finished job of these parameters
    pending: Job | None  # one still queued or running
    matrix: SignificanceMatrix | None  # ``done``'s result as a matrix


def significance_state(*, evaluation: Evaluation, params: SignificanceParams) -> SignificanceState:
    done = significance_job(evaluation=evaluation, params=params, finished=True)
    pending = significance_job(evaluation=evaluation, params=params, finished=False)
    matrix = significance_matrix(done.result) if done is not None and done.result else None
    return SignificanceState(done, pending, matrix)


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
