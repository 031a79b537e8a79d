"""Comparing systems on per-topic scores: paired tests, corrections, Tukey HSD and rank correlations.

Pure: numpy and scipy over a runs × topics score matrix; no Django, no files (docs/significance.md#overview).
Every random procedure takes a seed or a ``numpy.random.Generator``; nothing reads global state.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from engine.effects import NAN2, AnovaRow, EffectSize, Friedman, anova_two_way, effect_size, friedman_test
from engine.evaluate import Judgments, RunResult, evaluate_run
from engine.measures import Measure
from engine.measures.base import EvalOptions
from engine.ranking_agreement import RBO, SwapRates, rbo, spearman_rho, swap_rates, tau_ap_b
from engine.ranking_bootstrap import RankingCI, rank_correlation_ci
from trec.runs import RankedRun

TESTS = ("t", "wilcoxon", "sign", "randomization")
# Chosen by name only, never by "all": it enumerates 2^n sign vectors (n = topics, at most 22).
EXACT = "exact"
ALL_TESTS = (*TESTS, EXACT)
CORRECTIONS = ("holm", "bonferroni", "bh", "by", "none")
ALTERNATIVES = ("two-sided", "greater", "less")  # greater: run a scores higher than run b
ZERO_METHODS = ("wilcox", "pratt", "zsplit")
CI_METHODS = ("percentile", "bca")  # the bootstrap interval of the mean difference
EXACT_MAX_TOPICS = 22

# Scores come out of float arithmetic: two systems with the same AP on a topic can differ in the
# 17th digit. Rounding differences keeps that noise from counting as a win for the sign test or
# from splitting a tie for Wilcoxon.
DECIMALS = 12
# Random draws are made in batches of at most this many numbers, whatever B and the topic count.
_BATCH = 2_000_000
# The exact test enumerates sign vectors this many at a time: about 6 MB per array at 22 topics.
_EXACT_ROWS = 2**15
# seed-stream keys: one independent stream per use
_RANDOMIZATION, _BOOTSTRAP, _TUKEY, _RANK_CORRELATION = 0, 1, 2, 3


class ComparisonError(ValueError):
    """Runs that cannot be compared: no common topic, unknown baseline, duplicate names..."""


# --------------------------------------------------------------------------- the score matrix


@dataclass(frozen=True, eq=False)
class ScoreMatrix:
    """One measure's per-topic scores: ``scores[i, j]`` is run ``runs[i]`` on topic ``topics[j]``.

    ``dropped`` maps each topic evaluated for some runs but not all to the runs lacking it: the
    paired procedures need one score per run and topic, so those topics are left out.
    """

    measure: str
    runs: tuple[str, ...]
    topics: tuple[str, ...]
    scores: np.ndarray
    dropped: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def means(self) -> np.ndarray:
        return np.asarray(self.scores.mean(axis=1), dtype=np.float64)

    def index(self, run: str) -> int:
        try:
            return self.runs.index(run)
        except ValueError:
            raise ComparisonError(f"no run named '{run}'; the runs are: {', '.join(self.runs)}") from None


def score_matrix(results: Sequence[RunResult], measure: str) -> ScoreMatrix:
    """The runs × topics matrix of ``measure`` over the topics every run was evaluated on."""
    if not results:
        raise ComparisonError("no runs to compare")
    names = [r.run for r in results]
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ComparisonError(f"two runs are named '{name}' (names come from file names): rename one")
        seen.add(name)
    for r in results:
        if measure not in r.per_topic or measure in r.summary_only:
            raise ComparisonError(f"measure '{measure}' has no per-topic values to compare")
    topic_sets = [set(r.topics) for r in results]
    common = set.intersection(*topic_sets)
    topics = tuple(t for t in results[0].topics if t in common)
    if not topics:
        raise ComparisonError("the runs have no evaluated topic in common")
    dropped = {
        t: tuple(r.run for r, ts in zip(results, topic_sets, strict=True) if t not in ts)
        for t in sorted(set.union(*topic_sets) - common)
    }
    rows = []
    for r in results:
        pos = {t: i for i, t in enumerate(r.topics)}
        rows.append(np.asarray(r.per_topic[measure], dtype=np.float64)[[pos[t] for t in topics]])
    return ScoreMatrix(measure, tuple(names), topics, np.vstack(rows), dropped)


# --------------------------------------------------------------------------- paired tests


@dataclass(frozen=True)
class PairTest:
    """One paired test: its statistic, its two-sided p-value and the topics it used."""

    statistic: float
    p: float
    n: int


def paired_t_test(d: np.ndarray, alternative: str = "two-sided") -> PairTest:
    """Student's paired t-test on the differences (scipy ``ttest_1samp(d, 0)`` = ``ttest_rel(a, b)``).

    Degenerate cases scipy leaves as nan: all differences zero gives t = 0, p = 1 (no evidence
    in any direction); all equal and non-zero gives t = ±inf, p = 0 (no variance around a
    non-zero mean), or 1 when a one-sided alternative points the other way.
    """
    from scipy import stats

    n = len(d)
    if n < 2:
        return PairTest(float("nan"), float("nan"), n)
    if np.all(d == d[0]):
        if d[0] == 0:
            return PairTest(0.0, 1.0, n)
        t = float(np.copysign(np.inf, d[0]))
        against = (alternative == "greater" and t < 0) or (alternative == "less" and t > 0)
        return PairTest(t, 1.0 if against else 0.0, n)
    res = stats.ttest_1samp(d, 0.0, alternative=alternative)
    return PairTest(float(res.statistic), float(res.pvalue), n)


def wilcoxon_test(d: np.ndarray, alternative: str = "two-sided", zero_method: str = "wilcox") -> PairTest:
    """Wilcoxon signed-rank test; ``zero_method`` says what zero differences do.

    ``wilcox`` (default, Wilcoxon's own convention): zero differences are dropped first, so scipy
    sees only the non-zero ones and uses the exact null distribution whenever there are at most
    50 of them and no tied |d| (given the zeros, scipy would switch to the normal approximation
    above 13): this is why p can differ from ``scipy.stats.wilcoxon(a, b)``. ``pratt`` (Pratt
    1959) ranks the zeros with the others and then drops them; ``zsplit`` splits their ranks
    between the two signs: both hand scipy every difference (``wilcoxon(d, zero_method=...)``).
    Tied |d| get mid-ranks and scipy's tie handling. The statistic is scipy's: the smaller rank
    sum two-sided, the sum of positive ranks one-sided. No non-zero difference: W = 0, p = 1.
    """
    from scipy import stats

    if zero_method not in ZERO_METHODS:
        raise ValueError(f"unknown zero method '{zero_method}' (one of {', '.join(ZERO_METHODS)})")
    nonzero = d[d != 0]
    if len(nonzero) == 0:
        return PairTest(0.0, 1.0, 0)
    if zero_method == "wilcox":
        res = stats.wilcoxon(nonzero, alternative=alternative)
        return PairTest(float(res.statistic), float(res.pvalue), len(nonzero))
    res = stats.wilcoxon(d, zero_method=zero_method, alternative=alternative)
    return PairTest(float(res.statistic), float(res.pvalue), len(d))


def sign_test(d: np.ndarray, alternative: str = "two-sided") -> PairTest:
    """Sign test: wins of the first run among the topics where the runs differ, Binomial(n, 1/2).

    Ties (zero differences) are dropped, so n counts only the topics with a winner; the p-value
    is scipy's exact ``binomtest`` (two-sided: the sum of outcomes no likelier than the observed
    one). The statistic is the number of wins.
    """
    from scipy import stats

    wins = int(np.count_nonzero(d > 0))
    n = wins + int(np.count_nonzero(d < 0))
    if n == 0:
        return PairTest(0.0, 1.0, 0)
    return PairTest(float(wins), float(stats.binomtest(wins, n, 0.5, alternative=alternative).pvalue), n)


def _at_least(values: np.ndarray, observed: float | np.ndarray, scale: float) -> np.ndarray:
    # sums of the same numbers in another order differ in the last bits: count those as equal
    return values >= observed - 1e-9 * scale


def _extreme(signed: np.ndarray, total: float, scale: float, alternative: str) -> np.ndarray:
    """Which sign-flipped sums Σ ±d are at least as extreme as the observed Σ d."""
    if alternative == "greater":
        return _at_least(signed, total, scale)
    if alternative == "less":
        return _at_least(-signed, -total, scale)
    return _at_least(np.abs(signed), abs(total), scale)


def randomization_test(
    d: np.ndarray, *, permutations: int = 10_000, rng: np.random.Generator, alternative: str = "two-sided"
) -> PairTest:
    """Paired randomization (permutation) test of the mean difference, Monte Carlo.

    Under H0 the two runs' labels are exchangeable within a topic, i.e. each difference keeps or
    flips its sign with probability 1/2. ``c`` counts the B random sign vectors whose sum is at
    least as extreme as the observed one (|Σ ±d| >= |Σ d| two-sided; Σ ±d >= Σ d for "greater",
    <= for "less"); p = (c + 1) / (B + 1), which counts the observed assignment and so is never 0
    (Phipson & Smyth 2010). The statistic is the observed mean difference.
    """
    n = len(d)
    if n == 0:
        return PairTest(float("nan"), float("nan"), 0)
    total = float(d.sum())
    scale = float(np.abs(d).sum())
    per = max(1, _BATCH // n)
    count = 0
    done = 0
    while done < permutations:
        b = min(per, permutations - done)
        # one random bit per topic says whether its difference keeps its sign: Σ ±d = 2·Σ kept − Σ d
        bits = np.unpackbits(np.frombuffer(rng.bytes((b * n + 7) // 8), dtype=np.uint8), count=b * n)
        signed = 2.0 * (bits.reshape(b, n) @ d) - total
        count += int(np.count_nonzero(_extreme(signed, total, scale, alternative)))
        done += b
    return PairTest(float(d.mean()), (count + 1) / (permutations + 1), n)


def randomization_test_exact(d: np.ndarray, alternative: str = "two-sided") -> PairTest:
    """The same test over all 2^n sign vectors: p = c / 2^n exactly (the identity is among them).

    Sign vector k flips topic i's difference when bit i of k is set. They are enumerated
    ``_EXACT_ROWS`` at a time, so memory stays a few tens of MB whatever n (under 30 MB at the
    limit, n = ``EXACT_MAX_TOPICS`` = 22, where the 4,194,304 vectors take about a second);
    above the limit it refuses, since each further topic doubles the time.
    """
    n = len(d)
    if n > EXACT_MAX_TOPICS:
        raise ValueError(
            f"the exact randomization test enumerates 2^{n} sign vectors, too many above "
            f"{EXACT_MAX_TOPICS} topics; use the Monte Carlo randomization test"
        )
    total = float(d.sum())
    scale = float(np.abs(d).sum())
    bits = np.arange(n)
    count = 0
    for start in range(0, 2**n, _EXACT_ROWS):
        codes = np.arange(start, min(start + _EXACT_ROWS, 2**n), dtype=np.int64)[:, None] >> bits
        signs = 1.0 - 2.0 * (codes & 1)
        count += int(np.count_nonzero(_extreme(signs @ d, total, scale, alternative)))
    return PairTest(float(d.mean()) if n else float("nan"), count / 2**n, n)


def bootstrap_ci(
    d: np.ndarray,
    *,
    resamples: int = 10_000,
    confidence: float = 0.95,
    rng: np.random.Generator,
    method: str = "percentile",
) -> tuple[float, float]:
    """Bootstrap CI of the mean difference, resampling topics with replacement.

    ``percentile``: the (1 − confidence)/2 and (1 + confidence)/2 quantiles (numpy's linear
    interpolation) of the B resampled means (Efron & Tibshirani 1993, §13.3). ``bca``: the
    bias-corrected and accelerated interval of the same resamples (ibid. §14.3): with
    z0 = Φ⁻¹((#{θ*_b < θ̂} + #{θ*_b <= θ̂})/(2B)), the jackknife acceleration
    a = Σ(θ̄_(·) − θ_(i))³ / (6 [Σ(θ̄_(·) − θ_(i))²]^{3/2}) and z_q = Φ⁻¹(q), the quantiles taken
    are Φ(z0 + (z0 + z_q)/(1 − a(z0 + z_q))) for q = (1 ∓ confidence)/2, as
    ``scipy.stats.bootstrap(method="BCa")`` does. Differences with no spread give [mean, mean].
    """
    if method not in CI_METHODS:
        raise ValueError(f"unknown bootstrap interval '{method}' (one of {', '.join(CI_METHODS)})")
    n = len(d)
    if n == 0:
        return float("nan"), float("nan")
    means = np.empty(resamples)
    per = max(1, _BATCH // n)
    for start in range(0, resamples, per):
        b = min(per, resamples - start)
        means[start : start + b] = d[rng.integers(0, n, size=(b, n), dtype=np.int32)].sum(axis=1) / n
    low_q, high_q = 0.5 * (1 - confidence), 0.5 * (1 + confidence)
    if method == "bca":
        if n < 2 or np.all(d == d[0]):
            return float(d[0]), float(d[0])
        from scipy import special

        theta = float(d.mean())
        # resampled means equal to θ̂ count half (percentileofscore's "mean" kind, as scipy)
        below = np.count_nonzero(means < theta) + np.count_nonzero(means <= theta)
        z0 = float(special.ndtri(below / (2.0 * resamples)))
        jack = (d.sum() - d) / (n - 1)
        spread = jack.mean() - jack
        accel = float(np.sum(spread**3) / (6.0 * np.sum(spread**2) ** 1.5))

        def adjusted(q: float) -> float:
            zq = float(special.ndtri(q))
            return float(special.ndtr(z0 + (z0 + zq) / (1.0 - accel * (z0 + zq))))

        low_q, high_q = adjusted(low_q), adjusted(high_q)
        if not (np.isfinite(low_q) and np.isfinite(high_q)):  # every resample on one side of θ̂
            return float("nan"), float("nan")
    lo, hi = np.percentile(means, [100 * low_q, 100 * high_q])
    return float(lo), float(hi)


# --------------------------------------------------------------------------- multiple comparisons


def adjust_p_values(p: Sequence[float] | np.ndarray, method: str) -> np.ndarray:
    """Family-wise (Holm, Bonferroni) or false-discovery-rate (Benjamini–Hochberg, –Yekutieli) adjusted p.

    With m finite p-values p_(1) <= ... <= p_(m): Bonferroni min(1, m·p); Holm (1979)
    max_{j<=i} min(1, (m − j + 1)·p_(j)); BH (1995) min_{j>=i} min(1, m·p_(j)/j); BY (2001) the
    BH values times c(m) = Σ_{i=1..m} 1/i, valid under any dependence between the tests (scipy's
    ``false_discovery_control`` for both). nan p-values (untestable pairs) stay nan and are not
    counted in m.
    """
    from scipy import stats

    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction '{method}'; expected one of {', '.join(CORRECTIONS)}")
    arr = np.asarray(p, dtype=np.float64)
    out = np.full_like(arr, np.nan)
    ok = np.isfinite(arr)
    q = arr[ok]
    m = len(q)
    if method == "none" or m == 0:
        out[ok] = q
    elif method == "bonferroni":
        out[ok] = np.minimum(1.0, m * q)
    elif method == "holm":
        order = np.argsort(q, kind="stable")
        steps = np.maximum.accumulate((m - np.arange(m)) * q[order])
        adj = np.empty(m)
        adj[order] = np.minimum(1.0, steps)
        out[ok] = adj
    else:
        out[ok] = stats.false_discovery_control(q, method=method)
    return out


# --------------------------------------------------------------------------- Tukey HSD


@dataclass(frozen=True)
class TukeyPair:
    a: str
    b: str
    diff: float  # mean(a) − mean(b)
    statistic: float  # studentized range q (two-way) or the difference itself (randomised)
    p: float
    significant: bool
    ci: tuple[float, float] = NAN2  # two-way only: Tukey's simultaneous interval of diff


@dataclass(frozen=True)
class TukeyHSD:
    """All-pairs Tukey HSD; ``groups`` are runs not significantly different from one another."""

    method: str  # "two-way ANOVA" or "randomised"
    pairs: list[TukeyPair]
    groups: list[tuple[str, ...]]
    mse: float = float("nan")  # two-way only: residual mean square and its degrees of freedom
    df: int = 0
    trials: int = 0  # randomised only
    q_crit: float = float("nan")  # two-way only: the 1 − alpha quantile of Q_{k, df}
    confidence: float = float("nan")  # two-way only: of the simultaneous intervals

    @property
    def simultaneous(self) -> bool:
        """Whether its pairs carry Tukey's simultaneous intervals (the two-way ANOVA form)."""
        return self.method == "two-way ANOVA"


def tukey_hsd_two_way(matrix: ScoreMatrix, *, alpha: float = 0.05) -> TukeyHSD:
    """Tukey HSD with topics as blocks: the two-way ANOVA without replication used in IR.

    ``scipy.stats.tukey_hsd`` is one-way: it treats the topics as independent samples, so the
    large topic-to-topic variation counts as noise. Here the residual of
    x_ij = μ + run_i + topic_j + e_ij gives MSE = Σ e² / ((k − 1)(n − 1)); for each pair
    q = |mean_a − mean_b| / sqrt(MSE / n) and p = P(Q_{k, (k−1)(n−1)} >= q), the studentized
    range distribution (Sakai 2018, *Laboratory Experiments in IR*, ch. 4). With k = 2 runs this
    is exactly the paired t-test (q = √2·|t|).

    Tukey's simultaneous intervals: diff ± q_crit · sqrt(MSE / n), q_crit the 1 − alpha quantile of
    Q_{k, (k−1)(n−1)}; all of them cover their true differences together with probability
    1 − alpha, and one excludes 0 exactly when its pair's p < alpha. With k = 2 it is the
    paired t interval.
    """
    from scipy import stats
    from scipy.integrate import IntegrationWarning

    x = matrix.scores
    k, n = x.shape
    means = matrix.means
    resid = x - means[:, None] - x.mean(axis=0)[None, :] + x.mean()
    df = (k - 1) * (n - 1)
    mse = float(np.sum(resid**2) / df) if df > 0 else float("nan")
    pairs = list(itertools.combinations(range(k), 2))
    diffs = np.array([means[i] - means[j] for i, j in pairs])
    q_crit = float("nan")
    if df == 0:
        q = np.full(len(pairs), np.nan)
        p = q.copy()
        half = float("nan")
    elif mse <= 1e-24:  # residual-free data: any difference is exact
        same = np.round(diffs, DECIMALS) == 0
        q = np.where(same, 0.0, np.inf)
        p = np.where(same, 1.0, 0.0)
        half = 0.0
    else:
        q = np.abs(diffs) / np.sqrt(mse / n)
        with warnings.catch_warnings():
            # far in the tail the quadrature reports slow convergence; the p-value is ~0 either way
            warnings.simplefilter("ignore", IntegrationWarning)
            p = np.asarray(stats.studentized_range.sf(q, k, df), dtype=np.float64)
            q_crit = studentized_range_quantile(alpha, k, df, known=(q, p))
        half = q_crit * float(np.sqrt(mse / n))
    out, groups = _tukey_pairs(matrix, pairs, diffs, q, p, alpha)
    out = [replace(t, ci=(t.diff - half, t.diff + half)) for t in out]
    return TukeyHSD("two-way ANOVA", out, groups, mse=mse, df=df, q_crit=q_crit, confidence=1 - alpha)


def studentized_range_quantile(
    alpha: float, k: int, df: int, *, known: tuple[np.ndarray, np.ndarray] | None = None
) -> float:
    """q_crit with P(Q_{k, df} >= q_crit) = alpha, by root-finding on scipy's studentized range.

    The root lies between √2·t_{1−α/2, df} (the quantile for k = 2, equal to it there) and
    √2·t_{1−α/(k(k−1)), df} (Bonferroni over the k(k − 1)/2 pairs bounds Tukey's from above);
    ``known`` (q values and their p) narrows the bracket for free. A few evaluations of the
    survival function where ``studentized_range.ppf`` takes several times as long.
    """
    from scipy import optimize, stats
    from scipy.integrate import IntegrationWarning

    low = float(np.sqrt(2.0) * stats.t.ppf(1 - alpha / 2, df))
    if k == 2:
        return low
    high = float(np.sqrt(2.0) * stats.t.ppf(1 - alpha / (k * (k - 1)), df))
    if known is not None:
        q, p = (np.asarray(v, dtype=np.float64) for v in known)
        ok = np.isfinite(q) & np.isfinite(p)
        low = max([low, *q[ok & (p > alpha)].tolist()])
        high = min([high, *q[ok & (p < alpha)].tolist()])

    def gap(x: float) -> float:
        return float(stats.studentized_range.sf(x, k, df)) - alpha

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IntegrationWarning)
        try:
            return float(optimize.brentq(gap, low, high, xtol=1e-12, rtol=1e-12))
        except ValueError:  # the quadrature's noise at a bracket's end: scipy's own inversion
            return float(stats.studentized_range.ppf(1 - alpha, k, df))


def tukey_hsd_randomised(
    matrix: ScoreMatrix, *, trials: int = 10_000, rng: np.random.Generator, alpha: float = 0.05
) -> TukeyHSD:
    """Sakai's randomised Tukey HSD (Carterette 2012; Sakai 2014, 2018 ch. 4): distribution-free.

    Each trial shuffles every topic's scores across the runs independently (H0: the run labels
    are exchangeable within a topic) and records the range max − min of the k run means. A
    pair's p is (c + 1) / (B + 1), c counting trials whose range reaches |mean_a − mean_b|: all
    pairs are measured against the same maximum, which controls the family-wise error.
    """
    x = matrix.scores
    k, n = x.shape
    means = matrix.means
    pairs = list(itertools.combinations(range(k), 2))
    diffs = np.array([means[i] - means[j] for i, j in pairs])
    observed = np.abs(diffs)
    scale = float(np.abs(x).max())
    counts = np.zeros(len(pairs), dtype=np.int64)
    per = max(1, _BATCH // (k * n))
    done = 0
    while done < trials:
        b = min(per, trials - done)
        shuffled = rng.permuted(np.broadcast_to(x, (b, k, n)), axis=1).mean(axis=2)
        ranges = shuffled.max(axis=1) - shuffled.min(axis=1)
        counts += np.count_nonzero(_at_least(ranges[:, None], observed[None, :], scale), axis=0)
        done += b
    p = (counts + 1) / (trials + 1)
    out, groups = _tukey_pairs(matrix, pairs, diffs, diffs, p, alpha)
    return TukeyHSD("randomised", out, groups, trials=trials)


def _tukey_pairs(
    matrix: ScoreMatrix,
    pairs: list[tuple[int, int]],
    diffs: np.ndarray,
    statistic: np.ndarray,
    p: np.ndarray,
    alpha: float,
) -> tuple[list[TukeyPair], list[tuple[str, ...]]]:
    runs = matrix.runs
    out = [
        TukeyPair(runs[i], runs[j], float(d), float(s), float(pv), bool(pv < alpha))
        for (i, j), d, s, pv in zip(pairs, diffs, statistic, p, strict=True)
    ]
    significant = {frozenset((t.a, t.b)) for t in out if t.significant}
    order = [runs[i] for i in np.argsort(-matrix.means, kind="stable")]
    return out, homogeneous_groups(order, significant)


def homogeneous_groups(ordered: Sequence[str], significant: set[frozenset[str]]) -> list[tuple[str, ...]]:
    """Maximal runs of consecutive systems (ordered by mean) with no significant pair inside.

    With equal topic counts Tukey's p falls as |difference| grows, so the non-significant sets
    are contiguous in mean order: this is the classic underline (letter) display.
    """
    groups: list[tuple[str, ...]] = []
    for i in range(len(ordered)):
        j = i
        while j + 1 < len(ordered) and all(
            frozenset((ordered[m], ordered[j + 1])) not in significant for m in range(i, j + 1)
        ):
            j += 1
        group = tuple(ordered[i : j + 1])
        if not any(set(group) <= set(g) for g in groups):
            groups.append(group)
    return groups


# --------------------------------------------------------------------------- rank correlations


def kendall_tau_b(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Kendall's τ-b between two score vectors over the same systems (scipy ``kendalltau``).

    τ-b corrects for ties in either ranking; nan when fewer than 2 systems or a ranking is all ties.
    """
    from scipy import stats

    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(a) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(stats.kendalltau(a, b, variant="b").statistic)


def tau_ap(truth: Sequence[float] | np.ndarray, estimate: Sequence[float] | np.ndarray) -> float:
    """AP rank correlation τ_AP (Yilmaz, Aslam & Robertson 2008); higher scores rank first.

    τ_AP = 2/(N − 1) · Σ_{i=2..N} C(i)/(i − 1) − 1, walking down the *estimated* ranking, where
    C(i) counts the systems above position i that the *truth* also ranks above it. Asymmetric:
    the first argument is the truth. Identical orders give 1, reversed orders −1, and a swap at
    the top costs more than one at the bottom.

    Ties: the value is the expectation of τ_AP when ties in each ranking are broken uniformly at
    random. With ties only in the estimate this is Urbano & Marrero's τ_AP,a (ICTIR 2017); a pair
    tied in the truth counts as half concordant. Computed in closed form: a system in an
    estimated tie group of size t below p others sits at each of positions p+1..p+t with
    probability 1/t, and a pair inside a group is ordered either way with probability 1/2.
    """
    x, y = np.asarray(truth, dtype=np.float64), np.asarray(estimate, dtype=np.float64)
    if len(x) != len(y):
        raise ValueError("tau_ap needs two scores per system")
    size = len(x)
    if size < 2:
        return float("nan")
    above = np.count_nonzero(y[None, :] > y[:, None], axis=1)  # systems strictly above, per system
    tied = np.count_nonzero(y[None, :] == y[:, None], axis=1)  # its tie group's size (itself included)
    # E[1/(position − 1)] for a uniform position in p+1..p+t; position 1 has no term
    groups = list(zip(above.tolist(), tied.tolist(), strict=True))
    weight = np.array([sum(1.0 / (p + u) for u in range(t) if p + u > 0) / t for p, t in groups])
    concordant = (x[None, :] > x[:, None]) + 0.5 * (x[None, :] == x[:, None])  # [i, j]: j truly above i
    higher = y[None, :] > y[:, None]  # [i, j]: j strictly above i in the estimate
    between = float(np.sum(weight * np.sum(concordant * higher, axis=1)))
    # inside a group (p, t), positions p+1+u for u = 1..t−1 have u group members above, each right
    # with probability 1/2; spread over the t members so that summing per system counts it once
    within = float(sum(0.5 * sum(u / (p + u) for u in range(1, t)) / t for p, t in groups))
    return 2.0 * (between + within) / (size - 1) - 1.0


@dataclass(frozen=True)
class RankCorrelation:
    """Agreement between two orderings of the same runs by mean score (engine.ranking_agreement)."""

    truth: str
    other: str
    runs: int
    tau_b: float
    tau_ap: float
    spearman: float = float("nan")
    tau_ap_b: float = float("nan")  # Urbano & Marrero's symmetric τ_AP for rankings with ties
    rbo: RBO | None = None  # rank-biased overlap, p = RBO_P, ties broken by run name
    swaps: SwapRates | None = None
    ci: RankingCI | None = None  # bootstrap intervals of tau_b and tau_ap over topics


def rank_correlation(
    truth: ScoreMatrix,
    other: ScoreMatrix,
    truth_label: str,
    other_label: str,
    *,
    resamples: int = 0,
    confidence: float = 0.95,
    rng: np.random.Generator | None = None,
) -> RankCorrelation:
    """τ-b, τ_AP(truth, other), Spearman's ρ, τ_AP,b, RBO and the swap rates between the runs' mean
    scores in two matrices (same runs); with ``rng`` and ``resamples``, percentile bootstrap
    intervals of τ-b and τ_AP over the topics (:mod:`engine.ranking_bootstrap`).

    Means are rounded to :data:`DECIMALS` first so that float noise does not break a real tie.
    The bootstrap is paired when both matrices hold the same topics (matched by name), else each
    ordering is resampled from its own topics.
    """
    positions = [other.index(r) for r in truth.runs]
    x, y = np.round(truth.means, DECIMALS), np.round(other.means[positions], DECIMALS)
    ci = None
    if rng is not None and resamples > 0:
        other_scores = other.scores[positions]
        paired = set(truth.topics) == set(other.topics)
        if paired:  # the other matrix's topics in the truth's order
            column = {t: j for j, t in enumerate(other.topics)}
            other_scores = other_scores[:, [column[t] for t in truth.topics]]
        ci = rank_correlation_ci(
            truth.scores,
            other_scores,
            paired=paired,
            resamples=resamples,
            confidence=confidence,
            rng=rng,
            decimals=DECIMALS,
        )
    return RankCorrelation(
        truth_label,
        other_label,
        len(x),
        kendall_tau_b(x, y),
        tau_ap(x, y),
        spearman=spearman_rho(x, y),
        tau_ap_b=tau_ap_b(x, y),
        rbo=rbo(x, y, truth.runs),
        swaps=swap_rates(x, y),
        ci=ci,
    )


# --------------------------------------------------------------------------- comparing runs


@dataclass(frozen=True)
class CompareSettings:
    baseline: str | None = None  # compare every run with it; None: all pairs
    tests: tuple[str, ...] = TESTS
    correction: str = "holm"  # applied per test over the family of compared pairs
    alpha: float = 0.05  # significance level; the bootstrap CI is at 1 − alpha
    permutations: int = 10_000  # randomization test and randomised Tukey HSD trials
    resamples: int = 10_000  # bootstrap
    seed: int = 0
    alternative: str = "two-sided"  # of every paired test: "greater" = run a scores higher than b
    zero_method: str = "wilcox"  # Wilcoxon's treatment of zero differences
    ci_method: str = "percentile"  # the bootstrap interval: percentile or bca


@dataclass(frozen=True)
class PairComparison:
    a: str
    b: str
    diff: float  # mean over topics of a − b
    ci: tuple[float, float]  # bootstrap percentile CI of diff at 1 − alpha
    tests: dict[str, PairTest]
    adjusted: dict[str, float]
    significant: dict[str, bool]  # adjusted p < alpha
    effect: EffectSize | None = None  # effect sizes with CIs at 1 − alpha, wins/ties/losses


@dataclass(frozen=True)
class Comparison:
    matrix: ScoreMatrix
    settings: CompareSettings
    pairs: list[PairComparison]
    tukey: list[TukeyHSD]
    correlations: list[RankCorrelation]
    anova: list[AnovaRow] = field(default_factory=list)  # the two-way ANOVA behind Tukey HSD
    friedman: Friedman | None = None  # with Nemenyi's post-hoc; None below 3 runs


def _validate(settings: CompareSettings) -> None:
    unknown = [t for t in settings.tests if t not in ALL_TESTS]
    if unknown or not settings.tests:
        raise ComparisonError(f"unknown test(s) {unknown}; expected some of {', '.join(ALL_TESTS)}")
    for what, value, choices in (
        ("alternative", settings.alternative, ALTERNATIVES),
        ("bootstrap interval", settings.ci_method, CI_METHODS),
        ("zero method", settings.zero_method, ZERO_METHODS),
        ("correction", settings.correction, CORRECTIONS),
    ):
        if value not in choices:
            raise ComparisonError(f"unknown {what} '{value}'; expected one of {', '.join(choices)}")
    if not 0 < settings.alpha < 1:
        raise ComparisonError("alpha must be between 0 and 1")
    if settings.permutations < 1 or settings.resamples < 1:
        raise ComparisonError("the numbers of permutations and bootstrap resamples must be positive")
    if settings.seed < 0:
        raise ComparisonError("the seed must be a non-negative integer")


def compare_pairs(
    matrix: ScoreMatrix, settings: CompareSettings, on_pair: Callable[[str], None] | None = None
) -> list[PairComparison]:
    """Paired tests for every pair of runs (or every run against the baseline), then the correction.

    Pair (i, j) draws from its own stream seeded by (seed, i, j), so its p-values and CI do not
    depend on which other pairs are compared.
    """
    _validate(settings)
    if EXACT in settings.tests and len(matrix.topics) > EXACT_MAX_TOPICS:
        raise ComparisonError(
            f"the exact randomization test enumerates 2^{len(matrix.topics)} sign vectors: at most "
            f"{EXACT_MAX_TOPICS} topics; use 'randomization' (Monte Carlo) for {len(matrix.topics)} topics"
        )
    k = len(matrix.runs)
    if settings.baseline is not None:
        base = matrix.index(settings.baseline)
        index_pairs = [(i, base) for i in range(k) if i != base]
    else:
        index_pairs = list(itertools.combinations(range(k), 2))
    raw: list[tuple[int, int, dict[str, PairTest], tuple[float, float], EffectSize]] = []
    for i, j in index_pairs:
        d = np.round(matrix.scores[i] - matrix.scores[j], DECIMALS)
        results = {test: _pair_test(test, d, settings, i, j) for test in settings.tests}
        rng = np.random.default_rng([settings.seed, _BOOTSTRAP, i, j])
        try:
            ci = bootstrap_ci(
                d,
                resamples=settings.resamples,
                confidence=1 - settings.alpha,
                rng=rng,
                method=settings.ci_method,
            )
        except (ValueError, ArithmeticError):  # one pair's degenerate statistic never costs the others
            ci = NAN2
        effect = effect_size(d, 1 - settings.alpha, a=matrix.scores[i], b=matrix.scores[j])
        raw.append((i, j, results, ci, effect))
        if on_pair is not None:
            on_pair(f"{matrix.runs[i]} vs {matrix.runs[j]}")
    adjusted = {
        test: adjust_p_values([r[2][test].p for r in raw], settings.correction) for test in settings.tests
    }
    out = []
    for n, (i, j, results, ci, effect) in enumerate(raw):
        adj = {test: float(adjusted[test][n]) for test in settings.tests}
        out.append(
            PairComparison(
                a=matrix.runs[i],
                b=matrix.runs[j],
                diff=float(matrix.means[i] - matrix.means[j]),
                ci=ci,
                tests=results,
                adjusted=adj,
                significant={test: bool(p < settings.alpha) for test, p in adj.items()},
                effect=effect,
            )
        )
    return out


def _pair_test(test: str, d: np.ndarray, settings: CompareSettings, i: int, j: int) -> PairTest:
    """One paired test of pair (i, j); NaN (an untestable pair, left out of the correction) where
    scipy fails on degenerate differences, so that the other pairs are still compared."""
    alt = settings.alternative
    try:
        if test == "t":
            return paired_t_test(d, alt)
        if test == "wilcoxon":
            return wilcoxon_test(d, alt, settings.zero_method)
        if test == "sign":
            return sign_test(d, alt)
        if test == EXACT:
            return randomization_test_exact(d, alt)
        rng = np.random.default_rng([settings.seed, _RANDOMIZATION, i, j])
        return randomization_test(d, permutations=settings.permutations, rng=rng, alternative=alt)
    except (ValueError, ArithmeticError):
        return PairTest(float("nan"), float("nan"), len(d))


def conventions(settings: CompareSettings) -> list[str]:
    """The conventions behind the numbers, printed with every comparison (text legend and JSON)."""
    side = {
        "two-sided": "every paired test is two-sided (H1: a and b differ); Tukey HSD and Friedman always are",
        "greater": "every paired test is one-sided, H1: a scores higher than b (--alternative greater)",
        "less": "every paired test is one-sided, H1: a scores lower than b (--alternative less)",
    }[settings.alternative]
    zeros = {
        "wilcox": "Wilcoxon drops zero differences before ranking and before choosing the exact "
        "(n <= 50 non-zero, no tied |d|) or normal method, so its p can differ from "
        "scipy.stats.wilcoxon(a, b)",
        "pratt": "Wilcoxon ranks zero differences with the others, then drops their ranks (Pratt 1959)",
        "zsplit": "Wilcoxon splits the ranks of zero differences between the two signs",
    }[settings.zero_method]
    return [
        side,
        f"d = a - b per topic, rounded to {DECIMALS} decimals before any test, so equal scores tie",
        zeros,
        "t-test: all differences zero gives t = 0, p = 1 (scipy: nan); "
        "all equal and non-zero t = +-inf, p = 0",
        "sign test: ties dropped, exact binomial p; "
        "randomization: p = (c + 1)/(B + 1) over random sign flips",
        f"p_adj: {settings.correction} over the compared pairs, separately for each test",
        f"CIs at {100 * (1 - settings.alpha):g}%: bootstrap "
        + ("BCa" if settings.ci_method == "bca" else "percentile")
        + " of the mean difference (topics resampled), t-based for the mean, noncentral t for "
        "d_z, Algina-Keselman (d_z's noncentral t bounds x sd(d)/sd_av) for d_av and Hedges' g_av, "
        "Wilson for P(a > b); Tukey's simultaneous intervals from the studentized range; "
        "bootstrap percentile over topics for tau-b and tau_AP",
        "effect sizes: d_z = mean(d)/sd(d); d_av = mean(d)/((sd_a + sd_b)/2), sd_a and sd_b the two "
        "runs' sds over the topics; Hedges' g_av = d_av x J(n - 1), J(m) = Gamma(m/2)/(sqrt(m/2) "
        "Gamma((m - 1)/2)) (all sds with n - 1); P(a > b) = (wins + ties/2)/topics; Kendall's W = "
        "chi2_Friedman/(n(k - 1)), tie-corrected as chi2",
    ]


def pair_count(runs: int, settings: CompareSettings) -> int:
    """How many pairs :func:`compare_pairs` tests (for progress reporting)."""
    return runs - 1 if settings.baseline is not None else runs * (runs - 1) // 2


def compare_matrix(
    matrix: ScoreMatrix,
    settings: CompareSettings,
    on_pair: Callable[[str], None] | None = None,
    *,
    tukey: bool = True,
) -> Comparison:
    """Paired tests with the correction, effect sizes, the ANOVA table, Friedman with Nemenyi, and
    (unless ``tukey`` is False: the randomised variant takes B shuffles of the whole matrix) both
    Tukey HSD variants across all runs."""
    pairs = compare_pairs(matrix, settings, on_pair)
    hsd = (
        [
            tukey_hsd_two_way(matrix, alpha=settings.alpha),
            tukey_hsd_randomised(
                matrix,
                trials=settings.permutations,
                rng=np.random.default_rng([settings.seed, _TUKEY]),
                alpha=settings.alpha,
            ),
        ]
        if tukey
        else []
    )
    return Comparison(
        matrix,
        settings,
        pairs,
        hsd,
        [],
        anova=anova_two_way(matrix.scores),
        friedman=friedman_test(matrix.scores, matrix.runs, alpha=settings.alpha)
        if len(matrix.runs) >= 3
        else None,
    )


def compare_runs(
    judgments: Judgments,
    runs: Sequence[RankedRun],
    measure: Measure,
    options: EvalOptions,
    settings: CompareSettings,
    *,
    other_measure: Measure | None = None,
    other_judgments: Judgments | None = None,
    on_pair: Callable[[str], None] | None = None,
) -> Comparison:
    """Evaluate ``runs`` with ``measure`` and compare them; optionally correlate their ordering
    with the one by ``other_measure`` (same judgments) or under ``other_judgments`` (same measure).

    In a correlation the first ordering (``measure`` under ``judgments``) plays the truth in τ_AP.
    """
    if len(runs) < 2:
        raise ComparisonError("give at least two runs to compare")
    name = measure.measure_name()
    measures = [measure] if other_measure is None else [measure, other_measure]
    results = [evaluate_run(judgments, run, measures, options) for run in runs]
    matrix = score_matrix(results, name)
    correlations = []

    def bootstrap(kind: int) -> dict[str, Any]:
        # one stream per kind of correlation: its interval does not depend on the other being asked
        rng = np.random.default_rng([settings.seed, _RANK_CORRELATION, kind])
        return {"resamples": settings.resamples, "confidence": 1 - settings.alpha, "rng": rng}

    if other_measure is not None:
        other_name = other_measure.measure_name()
        correlations.append(
            rank_correlation(matrix, score_matrix(results, other_name), name, other_name, **bootstrap(0))
        )
    if other_judgments is not None:
        other_results = [evaluate_run(other_judgments, run, [measure], options) for run in runs]
        correlations.append(
            rank_correlation(
                matrix,
                score_matrix(other_results, name),
                f"{name} ({judgments.qrels.path})",
                f"{name} ({other_judgments.qrels.path})",
                **bootstrap(1),
            )
        )
    return replace(compare_matrix(matrix, settings, on_pair), correlations=correlations)
