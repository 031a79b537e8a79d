"""Effect sizes of a paired comparison, the two-way ANOVA table and Friedman's test with Nemenyi's post-hoc.

Pure numpy/scipy over per-topic differences or a runs × topics matrix (docs/significance.md#effect-sizes).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class EffectSize:
    """How large a paired difference is, with its uncertainty, beside whether it is significant.

    ``mean``: mean(d) with a t-based CI; ``d_z``: mean(d)/sd(d), the standardized mean difference
    of the differences, with the exact CI from the noncentral t distribution (NaN, both, when
    sd(d) <= 1e-12 or the noncentral t cannot be inverted that far out); ``d_av``:
    mean(d)/((sd_a + sd_b)/2), standardized by the two runs' average sd (Cumming 2012; Lakens
    2013), with d_z's noncentral-t bounds rescaled by sd(d)/sd_av (Algina & Keselman 2003; NaN
    with d_z's); ``g_av``: Hedges' bias-corrected d_av, J(n − 1)·d_av, its CI d_av's times J;
    ``sd_a``/``sd_b``: the two runs' per-topic sds (n − 1); ``superiority``: the probability of
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
    d_av: float = float("nan")
    d_av_ci: tuple[float, float] = (float("nan"), float("nan"))
    g_av: float = float("nan")
    g_av_ci: tuple[float, float] = (float("nan"), float("nan"))
    sd_a: float = float("nan")
    sd_b: float = float("nan")


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
    from scipy import optimize, special

    t, df = d_z * math.sqrt(n), n - 1

    def solve(target: float) -> float:
        def gap(lam: float) -> float:
            # the noncentral t's cdf itself (what stats.nct.cdf calls), without its per-call checks
            return float(special.nctdtr(df, lam, t)) - target

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


def hedges_j(df: int) -> float:
    """Hedges' (1981) exact small-sample correction J(m) = Γ(m/2) / (√(m/2) · Γ((m − 1)/2)).

    Multiplying a standardized mean difference whose standardizer has m degrees of freedom by J(m)
    removes its upward bias under normality (Hedges & Olkin 1985, ch. 5); J(m) ≈ 1 − 3/(4m − 1).
    NaN below m = 2 (Γ(0) diverges: no correction exists for two topics).
    """
    from scipy import special

    if df < 2:
        return float("nan")
    m = float(df)
    return math.exp(float(special.gammaln(m / 2) - special.gammaln((m - 1) / 2))) / math.sqrt(m / 2)


def effect_size(
    d: np.ndarray, confidence: float = 0.95, *, a: np.ndarray | None = None, b: np.ndarray | None = None
) -> EffectSize:
    """:class:`EffectSize` of the per-topic differences ``d`` (already rounded by the caller).

    ``a`` and ``b``, the two runs' per-topic scores (d = a − b), give d_av and g_av; without them
    only the effect sizes of the differences themselves are computed.
    """
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
        **(_d_av(mean, sd, interval, a, b) if a is not None and b is not None and n > 1 else {}),
    )


def _d_av(
    mean: float, sd_d: float, d_z_interval: tuple[float, float], a: np.ndarray, b: np.ndarray
) -> dict[str, Any]:
    """d_av, Hedges' g_av and their intervals (Algina & Keselman 2003's approximate interval).

    With t = mean(d)/(sd(d)/√n) and λ_L, λ_U its noncentral-t bounds (those of d_z times √n), the
    interval of d_av is [λ_L, λ_U] · sd(d)/(√n · sd_av): the d_z interval rescaled by
    sd(d)/sd_av, the ratio of the two standardizers treated as known.
    """
    n = len(a)
    sd_a, sd_b = float(np.std(a, ddof=1)), float(np.std(b, ddof=1))
    sd_av = (sd_a + sd_b) / 2.0
    if not sd_av > NO_SPREAD:  # both runs constant over the topics: nothing to standardize by
        return {"sd_a": sd_a, "sd_b": sd_b}
    d_av = mean / sd_av
    ratio = sd_d / sd_av
    ci = (d_z_interval[0] * ratio, d_z_interval[1] * ratio)  # NaN with d_z's: it rests on d_z's
    j = hedges_j(n - 1)
    return {
        "d_av": d_av,
        "d_av_ci": ci,
        "g_av": d_av * j,
        "g_av_ci": (ci[0] * j, ci[1] * j),
        "sd_a": sd_a,
        "sd_b": sd_b,
    }


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
    """Friedman's rank test of k systems over n topics with Nemenyi's all-pairs post-hoc test, and
    Kendall's W, how far the topics agree in ranking the systems (0: no agreement, 1: all alike)."""

    runs: tuple[str, ...]
    mean_ranks: tuple[float, ...]
    chi2: float
    df: int
    p: float
    pairs: list[FriedmanPair]
    kendall_w: float = float("nan")


def friedman_test(scores: np.ndarray, runs: tuple[str, ...], *, alpha: float = 0.05) -> Friedman:
    """Friedman (1937) on the runs × topics matrix, then Nemenyi (1963) as in Demšar (2006).

    Each topic ranks the runs (1 = highest score, ties get mean ranks); χ² is scipy's
    ``friedmanchisquare`` (with its tie correction). Two runs differ when
    |R̄_a − R̄_b| / sqrt(k(k + 1)/(6n)) exceeds q_α/√2 with q the studentized range of k means on
    infinite df: p = P(Q_{k,∞} >= √2 · |R̄_a − R̄_b| / sqrt(k(k + 1)/(6n))). Needs k >= 3 runs.

    Kendall's coefficient of concordance (Kendall & Babington Smith 1939) of the n topics ranking
    the k runs is W = χ²_F / (n(k − 1)), with the same tie correction as χ²_F, i.e.
    W = 12 S / (n²(k³ − k) − n Σ(t³ − t)), S the squared deviations of the rank sums from n(k + 1)/2
    and t the sizes of the tie groups within each topic.
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
    chi2 = float(res.statistic)
    return Friedman(
        runs,
        tuple(float(r) for r in mean_ranks),
        chi2,
        k - 1,
        float(res.pvalue),
        pairs,
        kendall_w=chi2 / (n * (k - 1)) if math.isfinite(chi2) else float("nan"),
    )
