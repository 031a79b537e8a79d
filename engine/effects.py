"""Effect sizes of a paired comparison, the two-way ANOVA table and Friedman's test with Nemenyi's post-hoc.

Pure numpy/scipy over per-topic differences or a runs × topics matrix (docs/significance.md#effect-sizes).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class EffectSize:
    """How large a paired difference is, with its uncertainty, beside whether it is significant.

    ``mean``: mean(d) with a t-based CI; ``d_z``: Cohen's d for paired data, mean(d)/sd(d), with
    the exact CI from the noncentral t distribution (NaN, both, when sd(d) <= 1e-12 or the
    noncentral t cannot be inverted that far out); ``superiority``: the probability of
    superiority (wins + ties/2)/n with a Wilson score CI; ``wins``/``ties``/``losses``: topics
    where a beats, equals, loses to b (equal after rounding the differences to 12 decimals).
    """

    n: int
    mean: float
    mean_ci: tuple[float, float]
    d_z: float
    d_z_ci: tuple[float, float]
    superiority: float
    superiority_ci: tuple[float, float]
    wins: int
    ties: int
    losses: int


NAN2 = (float("nan"), float("nan"))
NO_SPREAD = 1e-12  # sd(d) at or below this is no spread: the differences are rounded to 12 decimals


def mean_ci(d: np.ndarray, confidence: float) -> tuple[float, float]:
    """mean(d) ± t_{(1+c)/2, n−1} · sd(d)/√n, sd with n − 1 (Student 1908); [mean, mean] when sd = 0."""
    from scipy import stats

    n = len(d)
    if n < 2:
        return NAN2
    mean = float(d.mean())
    half = float(stats.t.ppf(0.5 + confidence / 2.0, n - 1)) * float(d.std(ddof=1)) / math.sqrt(n)
    return mean - half, mean + half


def d_z_ci(d_z: float, n: int, confidence: float) -> tuple[float, float]:
    """Exact CI of Cohen's d_z by inverting the noncentral t (Steiger & Fouladi 1997; Cumming 2012 §11).

    With t = d_z·√n on n − 1 df, the bounds are λ/√n for the noncentralities λ_L, λ_U with
    P(T_{n−1, λ_L} <= t) = (1 + c)/2 and P(T_{n−1, λ_U} <= t) = (1 − c)/2.
    """
    if n < 2 or not math.isfinite(d_z):
        return NAN2
    try:
        lower, upper = _d_z_bounds(d_z, n, confidence)
    except (ValueError, ArithmeticError):  # scipy's nct cdf is NaN far out (|t| beyond about 1e5)
        return NAN2
    return (lower, upper) if math.isfinite(lower) and math.isfinite(upper) else NAN2


def _d_z_bounds(d_z: float, n: int, confidence: float) -> tuple[float, float]:
    from scipy import optimize, stats

    t, df = d_z * math.sqrt(n), n - 1

    def solve(target: float) -> float:
        def gap(lam: float) -> float:
            return float(stats.nct.cdf(t, df, lam)) - target

        # the cdf falls as λ grows: widen the bracket around t until it straddles the target
        lo, hi, step = t - 1.0, t + 1.0, 1.0
        for _ in range(200):
            if not gap(lo) < 0:
                break
            step *= 2
            lo = t - step
        for _ in range(200):
            if not gap(hi) > 0:
                break
            step *= 2
            hi = t + step
        return float(optimize.brentq(gap, lo, hi, xtol=1e-13, rtol=1e-13, maxiter=500))

    return solve(0.5 + confidence / 2.0) / math.sqrt(n), solve(0.5 - confidence / 2.0) / math.sqrt(n)


def wilson_ci(successes: float, n: int, confidence: float) -> tuple[float, float]:
    """Wilson's (1927) score interval of a proportion; ties count half a success."""
    from scipy import stats

    if n == 0:
        return NAN2
    z = float(stats.norm.ppf(0.5 + confidence / 2.0))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def effect_size(d: np.ndarray, confidence: float = 0.95) -> EffectSize:
    """:class:`EffectSize` of the per-topic differences ``d`` (already rounded by the caller)."""
    n = len(d)
    wins, losses = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d < 0))
    ties = n - wins - losses
    if n == 0:
        return EffectSize(0, float("nan"), NAN2, float("nan"), NAN2, float("nan"), NAN2, 0, 0, 0)
    mean = float(d.mean())
    sd = float(d.std(ddof=1)) if n > 1 else float("nan")
    # no spread (all differences equal, or equal but for float noise): d_z is undefined, not ±1e16
    d_z = mean / sd if n > 1 and sd > NO_SPREAD else float("nan")
    interval = d_z_ci(d_z, n, confidence)
    if math.isnan(interval[0]):  # so little spread that the noncentral t cannot bound it: unbounded
        d_z = float("nan")
    superiority = (wins + ties / 2.0) / n
    return EffectSize(
        n=n,
        mean=mean,
        mean_ci=mean_ci(d, confidence),
        d_z=d_z,
        d_z_ci=interval,
        superiority=superiority,
        superiority_ci=wilson_ci(wins + ties / 2.0, n, confidence),
        wins=wins,
        ties=ties,
        losses=losses,
    )


# --------------------------------------------------------------------------- ANOVA


@dataclass(frozen=True)
class AnovaRow:
    source: str  # "systems", "topics", "residual", "total"
    ss: float
    df: int
    ms: float
    f: float
    p: float


def anova_two_way(scores: np.ndarray) -> list[AnovaRow]:
    """The two-way ANOVA without replication behind Tukey HSD (systems × topics as blocks).

    SS_systems = n Σ_i (x̄_i. − x̄)², SS_topics = k Σ_j (x̄_.j − x̄)², SS_total = Σ (x_ij − x̄)²,
    SS_residual = the rest, on k − 1, n − 1, (k − 1)(n − 1) and kn − 1 degrees of freedom;
    F = MS / MS_residual, p from the F distribution (as statsmodels' ``anova_lm`` of
    ``score ~ C(system) + C(topic)``). MS_residual is Tukey HSD's MSE.
    """
    from scipy import stats

    x = np.asarray(scores, dtype=np.float64)
    k, n = x.shape
    grand = x.mean()
    ss_sys = float(n * np.sum((x.mean(axis=1) - grand) ** 2))
    ss_top = float(k * np.sum((x.mean(axis=0) - grand) ** 2))
    ss_tot = float(np.sum((x - grand) ** 2))
    ss_res = max(0.0, ss_tot - ss_sys - ss_top)
    df_sys, df_top, df_res = k - 1, n - 1, (k - 1) * (n - 1)
    ms_res = ss_res / df_res if df_res > 0 else float("nan")

    def row(source: str, ss: float, df: int) -> AnovaRow:
        ms = ss / df if df > 0 else float("nan")
        with np.errstate(divide="ignore", invalid="ignore"):
            f = ms / ms_res if df > 0 and ms_res > 0 else float("nan")
        p = float(stats.f.sf(f, df, df_res)) if math.isfinite(f) else float("nan")
        return AnovaRow(source, ss, df, ms, float(f), p)

    nan = float("nan")
    return [
        row("systems", ss_sys, df_sys),
        row("topics", ss_top, df_top),
        AnovaRow("residual", ss_res, df_res, ms_res, nan, nan),
        AnovaRow("total", ss_tot, k * n - 1, nan, nan, nan),
    ]


# --------------------------------------------------------------------------- Friedman


@dataclass(frozen=True)
class FriedmanPair:
    a: str
    b: str
    rank_diff: float  # mean rank of a − mean rank of b (rank 1 = best)
    statistic: float  # |ΔR| / sqrt(k(k + 1)/(6n)), the z of the difference
    p: float  # Nemenyi: family-wise, from the studentized range with infinite df
    significant: bool


@dataclass(frozen=True)
class Friedman:
    """Friedman's rank test of k systems over n topics with Nemenyi's all-pairs post-hoc test."""

    runs: tuple[str, ...]
    mean_ranks: tuple[float, ...]
    chi2: float
    df: int
    p: float
    pairs: list[FriedmanPair]


def friedman_test(scores: np.ndarray, runs: tuple[str, ...], *, alpha: float = 0.05) -> Friedman:
    """Friedman (1937) on the runs × topics matrix, then Nemenyi (1963) as in Demšar (2006).

    Each topic ranks the runs (1 = highest score, ties get mean ranks); χ² is scipy's
    ``friedmanchisquare`` (with its tie correction). Two runs differ when
    |R̄_a − R̄_b| / sqrt(k(k + 1)/(6n)) exceeds q_α/√2 with q the studentized range of k means on
    infinite df: p = P(Q_{k,∞} >= √2 · |R̄_a − R̄_b| / sqrt(k(k + 1)/(6n))). Needs k >= 3 runs.
    """
    from scipy import stats

    x = np.asarray(scores, dtype=np.float64)
    k, n = x.shape
    if k < 3 or n < 2:
        return Friedman(runs, tuple(float("nan") for _ in runs), float("nan"), k - 1, float("nan"), [])
    ranks = stats.rankdata(-x, axis=0)  # per topic: 1 = best
    mean_ranks = ranks.mean(axis=1)
    res = stats.friedmanchisquare(*x)
    scale = math.sqrt(k * (k + 1) / (6.0 * n))
    pairs = []
    for i, j in itertools.combinations(range(k), 2):
        diff = float(mean_ranks[i] - mean_ranks[j])
        z = abs(diff) / scale
        p = float(stats.studentized_range.sf(math.sqrt(2.0) * z, k, np.inf))
        pairs.append(FriedmanPair(runs[i], runs[j], diff, z, p, p < alpha))
    return Friedman(
        runs, tuple(float(r) for r in mean_ranks), float(res.statistic), k - 1, float(res.pvalue), pairs
    )
