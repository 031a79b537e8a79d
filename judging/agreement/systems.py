"""Do the disagreements matter? Rank the runs under each assessor's judgments and correlate the rankings.

Voorhees (2000, *IP&M* 36:697–716): evaluate every run with each assessor's qrels and compare the
system orderings. The measures are the evaluation engine's (engine.evaluate), the correlations
engine.significance's Kendall τ-b and τ_AP; nothing is reimplemented here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from engine.evaluate import Judgments, RunResult, evaluate_run
from engine.measures.base import EvalOptions
from engine.names import parse_measures
from engine.significance import ScoreMatrix, rank_correlation, score_matrix
from trec.qrels import Qrels
from trec.runs import RankedRun

DEFAULT_MEASURES = ("map", "ndcg", "P.10", "bpref")


@dataclass(frozen=True)
class SystemCorrelation:
    """Rankings of the runs by mean ``measure`` under assessors a and b, over the ``topics`` both
    judged and every run retrieved for. τ_AP is asymmetric: ``tau_ap_ab`` takes a's ranking as the
    truth, ``tau_ap_ba`` b's."""

    measure: str
    a: str
    b: str
    topics: int
    runs: int
    tau_b: float
    tau_ap_ab: float
    tau_ap_ba: float
    # engine.ranking_agreement: symmetric τ_AP,b, Spearman's ρ, RBO (p = 0.9, a's ranking read
    # first, ties broken by run name) in [rbo_min, rbo_min + rbo_residual], and the swap rates
    tau_ap_b: float = float("nan")
    spearman: float = float("nan")
    rbo: float = float("nan")
    rbo_min: float = float("nan")
    rbo_residual: float = float("nan")
    swap_min: float = float("nan")
    swap_mean: float = float("nan")


@dataclass(frozen=True)
class SystemRankings:
    """``means[assessor][measure][run]``: the run's mean over that assessor's topics (those every
    run has results for); ``topics[assessor]`` counts them."""

    runs: tuple[str, ...]
    measures: tuple[str, ...]
    means: dict[str, dict[str, dict[str, float]]]
    topics: dict[str, int]
    correlations: list[SystemCorrelation]


def _restrict(matrix: ScoreMatrix, topics: list[str]) -> ScoreMatrix:
    pos = {t: i for i, t in enumerate(matrix.topics)}
    return ScoreMatrix(matrix.measure, matrix.runs, tuple(topics), matrix.scores[:, [pos[t] for t in topics]])


def _common_topics(a: ScoreMatrix | None, b: ScoreMatrix | None) -> list[str]:
    if a is None or b is None:
        return []
    theirs = set(b.topics)
    return [t for t in a.topics if t in theirs]


def system_rankings(
    judgments: Mapping[str, Qrels],
    runs: Sequence[RankedRun],
    *,
    measures: Sequence[str] = DEFAULT_MEASURES,
    options: EvalOptions | None = None,
) -> SystemRankings:
    """Evaluate ``runs`` under each assessor's qrels and correlate the orderings for every pair.

    ``measures`` are trec_eval / ir_measures names (:func:`engine.names.parse_measures`); a bad
    name raises ``MeasureError`` (a ValueError). A pair is compared on the topics both assessors
    judged; the correlation is NaN with fewer than two runs or no common topic. Two runs with the
    same name, or a measure without per-topic values, raise ``ComparisonError`` (a ValueError).
    """
    parsed = [m for spec in measures for m in parse_measures([spec])]
    names = list(dict.fromkeys(m.measure_name() for m in parsed))
    assessors = tuple(judgments)
    results: dict[str, list[RunResult]] = {
        name: [evaluate_run(Judgments(q), run, parsed, options) for run in runs]
        for name, q in judgments.items()
    }
    matrices: dict[str, dict[str, ScoreMatrix | None]] = {}
    for assessor, res in results.items():
        matrices[assessor] = {}
        # no run, or no topic with results from every run: nothing to rank under this assessor
        usable = bool(res) and bool(set.intersection(*(set(r.topics) for r in res)))
        for m in names:
            matrices[assessor][m] = score_matrix(res, m) if usable else None
    run_names = tuple(r.name for r in runs)
    means = {
        a: {
            m: {r: float(v) for r, v in zip(run_names, mat.means, strict=True)} if mat is not None else {}
            for m, mat in by_m.items()
        }
        for a, by_m in matrices.items()
    }
    topics = {
        a: max((len(mat.topics) for mat in by_m.values() if mat is not None), default=0)
        for a, by_m in matrices.items()
    }
    correlations = []
    for a, b in combinations(assessors, 2):
        for m in names:
            ma, mb = matrices[a][m], matrices[b][m]
            common = _common_topics(ma, mb)
            if ma is None or mb is None or not common:
                nan = float("nan")
                correlations.append(SystemCorrelation(m, a, b, 0, len(runs), nan, nan, nan))
                continue
            ra, rb = _restrict(ma, common), _restrict(mb, common)
            ab, ba = rank_correlation(ra, rb, a, b), rank_correlation(rb, ra, b, a)
            nan = float("nan")
            correlations.append(
                SystemCorrelation(
                    m,
                    a,
                    b,
                    len(common),
                    len(runs),
                    ab.tau_b,
                    ab.tau_ap,
                    ba.tau_ap,
                    tau_ap_b=ab.tau_ap_b,
                    spearman=ab.spearman,
                    rbo=ab.rbo.extrapolated if ab.rbo else nan,
                    rbo_min=ab.rbo.minimum if ab.rbo else nan,
                    rbo_residual=ab.rbo.residual if ab.rbo else nan,
                    swap_min=ab.swaps.minimum if ab.swaps else nan,
                    swap_mean=ab.swaps.mean if ab.swaps else nan,
                )
            )
    return SystemRankings(run_names, tuple(names), means, topics, correlations)
