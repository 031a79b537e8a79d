"""``rw.compare``: ``manage.py compare`` (paired tests, corrections, Tukey HSD, Kendall tau) as a function.

It calls :func:`engine.significance.compare_runs` with the settings the command builds
(``engine/cli.py`` run_compare), so :meth:`ComparisonResults.to_dict` equals the command's
``--format json`` output.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.evaluate import Judgments
from engine.measures.base import EvalOptions, Measure
from engine.names import MeasureError, parse_measures
from engine.output import comparison_dict
from engine.significance import TESTS, CompareSettings, Comparison, compare_runs
from relevance_workbench.frames import frame
from relevance_workbench.inputs import is_path, measure_specs, run_sources, to_judgments, to_run

PAIR_COLUMNS = [
    "a",
    "b",
    "diff",
    "ci_low",
    "ci_high",
    "test",
    "statistic",
    "p",
    "p_adjusted",
    "significant",
    "n",
]


class ComparisonResults:
    """A comparison of runs on one measure; ``comparison`` is the engine's :class:`Comparison`."""

    def __init__(self, comparison: Comparison, info: dict[str, Any]) -> None:
        self.comparison = comparison
        self.info = info
        self.measure = comparison.matrix.measure
        self.runs = list(comparison.matrix.runs)
        self.topics = list(comparison.matrix.topics)

    def to_dict(self, *, per_topic: bool = False) -> dict[str, Any]:
        """Everything, exactly as ``manage.py compare --format json`` writes it (null for NaN/inf)."""
        return comparison_dict(self.comparison, self.info, per_topic=per_topic)

    def means(self) -> dict[str, float]:
        """``{run: mean score over the compared topics}``."""
        return {r: float(v) for r, v in zip(self.runs, self.comparison.matrix.means.tolist(), strict=True)}

    def pairs(self) -> dict[tuple[str, str], dict[str, dict[str, Any]]]:
        """``{(a, b): {test: {statistic, p, p_adjusted, significant, n}}}`` plus each pair's diff and CI."""
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for p in self.comparison.pairs:
            tests = {
                t: {
                    "statistic": r.statistic,
                    "p": r.p,
                    "p_adjusted": p.adjusted[t],
                    "significant": p.significant[t],
                    "n": r.n,
                }
                for t, r in p.tests.items()
            }
            out[(p.a, p.b)] = {"diff": p.diff, "ci": p.ci, **tests}
        return out

    def effects(self) -> dict[tuple[str, str], dict[str, Any]]:
        """``{(a, b): effect sizes}``: mean with its t CI, d_z with its noncentral-t CI, d_av and
        Hedges' g_av with Algina & Keselman's CI, the probability of superiority with its Wilson CI,
        wins/ties/losses (as the JSON's ``effect``)."""
        return {(p["a"], p["b"]): p["effect"] for p in self.to_dict()["pairs"] if "effect" in p}

    def anova(self) -> list[dict[str, Any]]:
        """The two-way ANOVA table behind Tukey HSD: source, ss, df, ms, f, p."""
        return list(self.to_dict()["anova"])

    def friedman(self) -> dict[str, Any] | None:
        """Friedman's test (chi2, df, p, Kendall's W, mean ranks) with Nemenyi's pairs; None below
        three runs."""
        result = self.to_dict()["friedman"]
        return dict(result) if result is not None else None

    def conventions(self) -> list[str]:
        """The conventions behind the numbers (two-sided or not, zero differences, degenerate cases)."""
        return list(self.to_dict()["conventions"])

    def scores(self) -> dict[str, dict[str, float]]:
        """The compared per-topic scores: ``{run: {topic: value}}``."""
        m = self.comparison.matrix
        return {
            r: dict(zip(m.topics, map(float, row), strict=True))
            for r, row in zip(m.runs, m.scores, strict=True)
        }

    def to_frame(self) -> Any:
        """One row per (pair, test): a, b, diff, ci_low, ci_high, test, statistic, p, p_adjusted,
        significant, n."""
        rows = [
            (p.a, p.b, p.diff, p.ci[0], p.ci[1], t, r.statistic, r.p, p.adjusted[t], p.significant[t], r.n)
            for p in self.comparison.pairs
            for t, r in p.tests.items()
        ]
        return frame(rows, PAIR_COLUMNS)

    def __repr__(self) -> str:
        sig = [
            f"{a} vs {b}"
            for (a, b), v in self.pairs().items()
            if any(v[t]["significant"] for t in self._tests)
        ]
        return (
            f"ComparisonResults: {self.measure} over {len(self.topics)} topics, runs {', '.join(self.runs)}; "
            f"significant (any test): {', '.join(sig) or 'none'}"
        )

    @property
    def _tests(self) -> tuple[str, ...]:
        return self.comparison.settings.tests


def _one_measure(spec: Any) -> Measure:
    specs = measure_specs(spec)
    if len(specs) != 1:
        raise MeasureError(f"compare takes one measure, got {len(specs)}")
    measures = parse_measures(specs)
    if len(measures) != 1:
        names = ", ".join(m.measure_name() for m in measures)
        raise MeasureError(f"'{specs[0]}' names {len(measures)} measures ({names}): compare one at a time")
    return measures[0]


def compare(
    qrels: Any,
    runs: Any,
    measure: Any,
    *,
    baseline: str | None = None,
    tests: str | Sequence[str] = "all",
    correction: str = "holm",
    alpha: float = 0.05,
    permutations: int = 10_000,
    bootstrap: int = 10_000,
    seed: int = 0,
    alternative: str = "two-sided",
    zero_method: str = "wilcox",
    ci: str = "percentile",
    compare_measure: Any = None,
    compare_qrels: Any = None,
    level: int = 1,
    judged_only: bool = False,
    complete: bool = False,
) -> ComparisonResults:
    """Compare two or more runs on one measure, as ``manage.py compare`` does; see docs/python_api.md.

    ``runs`` is a dict ``{name: run}`` or a list of run files (named after their files). ``baseline``
    is a run name (or its path); ``tests`` ``"all"`` or some of t, wilcoxon, sign, randomization,
    exact; ``alternative`` two-sided, greater (a better than b) or less; ``zero_method`` Wilcoxon's
    wilcox, pratt or zsplit; ``correction`` holm, bonferroni, bh, by or none; ``ci`` the bootstrap
    interval, percentile or bca.
    """
    measure_ = _one_measure(measure)
    other_measure = _one_measure(compare_measure) if compare_measure is not None else None
    judgments = to_judgments(qrels)
    other = to_judgments(compare_qrels) if compare_qrels is not None else None
    sources = run_sources(runs)
    by_path = {str(s.source): s.name for s in sources if s.is_file}
    settings = CompareSettings(
        baseline=by_path.get(str(baseline), baseline) if baseline is not None else None,
        tests=TESTS if tests == "all" else (tests,) if isinstance(tests, str) else tuple(tests),
        correction=correction,
        alpha=alpha,
        permutations=permutations,
        resamples=bootstrap,
        seed=seed,
        alternative=alternative,
        zero_method=zero_method,
        ci_method=ci,
    )
    options = EvalOptions(level=level, judged_only=judged_only, complete=complete)
    ranked = [to_run(s.source, s.name) for s in sources]
    comparison = compare_runs(
        judgments, ranked, measure_, options, settings, other_measure=other_measure, other_judgments=other
    )
    info = {
        "qrels": _label(qrels, judgments),
        "level": level,
        "judged_only": judged_only,
        "complete": complete,
    }
    return ComparisonResults(comparison, info)


def _label(source: Any, judgments: Judgments) -> str:
    """What the command prints as the qrels: the path given, else where the judgments came from."""
    return str(source) if is_path(source) else judgments.qrels.path
