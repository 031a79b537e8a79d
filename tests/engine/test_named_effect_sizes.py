"""The effect sizes reviewers ask for by name: d_av and Hedges' g_av beside d_z, Kendall's W beside
Friedman's test, and Tukey's simultaneous intervals, each against an independent computation (a
hand-worked example with its arithmetic, scipy or statsmodels)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from engine.effects import d_z_ci, effect_size, friedman_test, hedges_j
from engine.significance import CompareSettings, ScoreMatrix, compare_matrix, tukey_hsd_two_way

# --------------------------------------------------------------------------- d_av and Hedges' g_av

# four topics, run a and run b
A4 = np.array([0.2, 0.4, 0.6, 0.8])  # mean 0.5, deviations ±0.1, ±0.3: SS 0.2, var 0.2/3
B4 = np.array([0.1, 0.2, 0.5, 0.4])  # mean 0.3, deviations ±0.1, ±0.2: SS 0.1, var 0.1/3
D4 = np.round(A4 - B4, 12)  # (0.1, 0.2, 0.1, 0.4): mean 0.2, deviations −0.1, 0, −0.1, 0.2: var 0.06/3


def test_d_av_and_hedges_g_av_on_a_hand_worked_example() -> None:
    e = effect_size(D4, 0.95, a=A4, b=B4)
    sd_a, sd_b, sd_d = math.sqrt(0.2 / 3), math.sqrt(0.1 / 3), math.sqrt(0.06 / 3)
    assert (e.sd_a, e.sd_b) == (pytest.approx(sd_a, abs=1e-15), pytest.approx(sd_b, abs=1e-15))
    assert e.d_z == pytest.approx(0.2 / sd_d, abs=1e-12)  # 1.4142: the sd of the differences
    d_av = 0.2 / ((sd_a + sd_b) / 2)  # 0.2 / 0.220386 = 0.9075: the runs' average sd
    assert e.d_av == pytest.approx(d_av, abs=1e-12)
    # J(3) = Γ(3/2) / (√(3/2) · Γ(1)) = (√π / 2) / √1.5 = 0.723601 with df = n − 1 = 3
    j3 = (math.sqrt(math.pi) / 2) / math.sqrt(1.5)
    assert hedges_j(3) == pytest.approx(j3, abs=1e-15)
    assert e.g_av == pytest.approx(d_av * j3, abs=1e-12)  # 0.6567


def test_hedges_j_is_the_gamma_ratio_and_close_to_its_usual_approximation() -> None:
    for df in (2, 5, 10, 24, 49, 99):
        exact = math.gamma(df / 2) / (math.sqrt(df / 2) * math.gamma((df - 1) / 2))
        assert hedges_j(df) == pytest.approx(exact, rel=1e-13)
        # Hedges (1981): J(m) ≈ 1 − 3/(4m − 1), within 0.2% from 5 df on
        if df >= 5:
            assert hedges_j(df) == pytest.approx(1 - 3 / (4 * df - 1), rel=2e-3)
    assert hedges_j(500) == pytest.approx(1 - 3 / 1999, rel=1e-6)  # large df: gammaln, no overflow
    assert math.isnan(hedges_j(1)) and math.isnan(hedges_j(0))  # Γ(0): no correction for n = 2


def test_d_av_interval_is_the_noncentral_t_interval_rescaled_as_algina_and_keselman() -> None:
    rng = np.random.default_rng(11)
    a = np.round(rng.beta(2, 5, 25), 4)
    b = np.round(np.clip(a - rng.normal(0.03, 0.06, 25), 0, 1), 4)
    d = np.round(a - b, 12)
    n = len(d)
    e = effect_size(d, 0.9, a=a, b=b)
    sd_av = (a.std(ddof=1) + b.std(ddof=1)) / 2
    t = d.mean() / (d.std(ddof=1) / math.sqrt(n))

    # the noncentralities putting the observed t at the 95% and 5% points, solved here on their own
    def lam(target: float) -> float:
        return float(optimize.brentq(lambda x: stats.nct.cdf(t, n - 1, x) - target, -50, 50, xtol=1e-14))

    scale = d.std(ddof=1) / (math.sqrt(n) * sd_av)  # sd(d) / (√n · sd_av)
    want = (lam(0.95) * scale, lam(0.05) * scale)
    assert e.d_av_ci == pytest.approx(want, abs=1e-9)
    assert e.d_av_ci[0] < e.d_av < e.d_av_ci[1]
    # Hedges' g_av's interval is d_av's times the same J(n − 1)
    assert e.g_av_ci == pytest.approx((want[0] * hedges_j(n - 1), want[1] * hedges_j(n - 1)), abs=1e-9)


def _ir_like(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-topic scores in [0, 1] sharing the topic's difficulty, a better than b on average."""
    theta = rng.beta(0.8, 2.0, size)
    a = np.clip(theta + rng.normal(0.12, 0.05, size), 0, 1)
    b = np.clip(theta + rng.normal(0.0, 0.05, size), 0, 1)
    return a, b


def test_d_av_interval_covers_the_population_d_av_about_as_often_as_it_says() -> None:
    rng = np.random.default_rng(2013)
    big_a, big_b = _ir_like(rng, 2_000_000)
    # the population d_av, from two million topics
    delta = (big_a - big_b).mean() / ((big_a.std() + big_b.std()) / 2)
    sims, n, covered, covered_by_d_z = 200, 15, 0, 0
    for _ in range(sims):
        a, b = _ir_like(rng, n)
        e = effect_size(np.round(a - b, 12), 0.95, a=a, b=b)
        covered += e.d_av_ci[0] <= delta <= e.d_av_ci[1]
        covered_by_d_z += e.d_z_ci[0] <= delta <= e.d_z_ci[1]
    # nominal 95%: within 3 standard errors (0.046) of it; the noncentral-t interval of d_z,
    # which estimates another quantity (the topics share their difficulty), almost never covers it
    assert abs(covered / sims - 0.95) <= 3 * math.sqrt(0.95 * 0.05 / sims)
    assert covered_by_d_z / sims < 0.2


def test_d_av_is_defined_where_d_z_is_not_and_undefined_when_both_runs_are_constant() -> None:
    # a constant difference on topics that vary: no spread in d (d_z undefined), but the runs spread
    a = np.array([0.9, 0.5, 0.7, 0.3])
    b = a - 0.2
    e = effect_size(np.round(a - b, 12), 0.95, a=a, b=b)
    assert math.isnan(e.d_z)
    assert e.d_av == pytest.approx(0.2 / a.std(ddof=1), abs=1e-12)
    # its interval rests on d_z's noncentral t: undefined with it
    assert all(math.isnan(x) for x in (*e.d_av_ci, *e.g_av_ci))
    # two constant runs: no standardizer at all
    flat = effect_size(np.full(4, 0.5), 0.95, a=np.full(4, 1.0), b=np.full(4, 0.5))
    assert math.isnan(flat.d_av) and math.isnan(flat.g_av)
    # without the two runs' scores only d_z can be given
    assert math.isnan(effect_size(D4, 0.95).d_av)


def test_d_av_undefined_cases_never_cost_the_other_pairs() -> None:
    scores = np.array([[1.0] * 6, [1.0, 1.0, 1.0, 0.5, 0.5, 0.5], [0.2] * 6])
    c = compare_matrix(
        ScoreMatrix("map", ("A", "C", "E"), tuple("123456"), scores),
        CompareSettings(permutations=200, resamples=200),
    )
    effects = {(p.a, p.b): p.effect for p in c.pairs}
    flat = effects[("A", "E")]  # both runs constant: no d_z, no d_av
    assert flat is not None and math.isnan(flat.d_av) and math.isnan(flat.d_z)
    ac = effects[("A", "C")]  # d = (0, 0, 0, .5, .5, .5); A constant, C spread as d: d_av = 2·d_z
    assert ac is not None and ac.d_av == pytest.approx(2 * ac.d_z, abs=1e-12)


# --------------------------------------------------------------------------- Kendall's W

# four topics ranking three runs (1 = best); the second topic ties runs a and b
W_SCORES = np.array(
    [
        # t1   t2   t3   t4
        [0.5, 0.6, 0.4, 0.7],  # a: ranks 1, 1.5, 1, 1 -> sum 4.5
        [0.3, 0.6, 0.2, 0.5],  # b: ranks 2, 1.5, 3, 2 -> sum 8.5
        [0.1, 0.2, 0.3, 0.1],  # c: ranks 3, 3,   2, 3 -> sum 11
    ]
)


def test_kendalls_w_on_a_hand_worked_example_with_a_tie() -> None:
    # rank sums 4.5, 8.5, 11 around n(k + 1)/2 = 8: S = 3.5² + 0.5² + 3² = 21.5; one tie of t = 2
    # on topic 2: Σ(t³ − t) = 6. W = 12 S / (n²(k³ − k) − n Σ(t³ − t)) = 258 / (384 − 24)
    fr = friedman_test(W_SCORES, ("a", "b", "c"))
    assert fr.kendall_w == pytest.approx(258 / 360, abs=1e-12)
    # and W = χ²_F / (n(k − 1)) with scipy's tie-corrected Friedman statistic
    chi2 = stats.friedmanchisquare(*W_SCORES).statistic
    assert chi2 == pytest.approx(4 * 2 * 258 / 360, abs=1e-12)
    assert fr.chi2 == pytest.approx(chi2, abs=1e-12)


def test_kendalls_w_equals_scipy_friedman_over_n_k_minus_1_on_random_scores_with_ties() -> None:
    rng = np.random.default_rng(17)
    x = np.round(rng.random((5, 30)), 1)  # tenths: many ties within a topic
    fr = friedman_test(x, tuple("abcde"))
    n, k = 30, 5
    assert fr.kendall_w == pytest.approx(stats.friedmanchisquare(*x).statistic / (n * (k - 1)), abs=1e-12)
    # the textbook form from the rank sums
    ranks = stats.rankdata(-x, axis=0)
    s = float(np.sum((ranks.sum(axis=1) - n * (k + 1) / 2) ** 2))
    ties = sum(float(np.sum(c**3 - c)) for c in (np.unique(col, return_counts=True)[1] for col in x.T))
    assert fr.kendall_w == pytest.approx(12 * s / (n**2 * (k**3 - k) - n * ties), abs=1e-12)
    # perfect agreement of the topics: W = 1; below three runs there is no Friedman test
    same = np.tile(np.array([[0.9], [0.5], [0.1]]), (1, 6))
    assert friedman_test(same, ("a", "b", "c")).kendall_w == pytest.approx(1.0)
    assert math.isnan(friedman_test(x[:2], ("a", "b")).kendall_w)


# --------------------------------------------------------------------------- Tukey's simultaneous CIs


def _matrix(x: np.ndarray) -> ScoreMatrix:
    return ScoreMatrix("m", tuple("abcdefgh"[: len(x)]), tuple(f"t{j}" for j in range(x.shape[1])), x)


def test_tukey_intervals_with_two_runs_are_the_paired_t_interval() -> None:
    # k = 2: MSE = s_d²/2 and Q_{2,df} = √2·|T_df|, so diff ± q·√(MSE/n) = mean(d) ± t·s_d/√n
    rng = np.random.default_rng(5)
    x = rng.random((2, 14))
    got = tukey_hsd_two_way(_matrix(x), alpha=0.1).pairs[0]
    ci = stats.ttest_rel(x[0], x[1]).confidence_interval(confidence_level=0.9)
    assert got.ci == pytest.approx((ci.low, ci.high), abs=1e-9)


def test_tukey_intervals_equal_statsmodels_with_the_blocked_mse_and_df() -> None:
    multicomp = pytest.importorskip("statsmodels.sandbox.stats.multicomp", reason="statsmodels: test extra")
    libqsturng = pytest.importorskip("statsmodels.stats.libqsturng")
    rng = np.random.default_rng(6)
    topic = rng.beta(1, 2, 20)
    x = np.clip(topic + np.array([[0.0], [0.03], [0.05], [0.12]]) + rng.normal(0, 0.05, (4, 20)), 0, 1)
    k, n = x.shape
    res = tukey_hsd_two_way(_matrix(x))
    df = (k - 1) * (n - 1)
    # the residual MS of score ~ system + topic, from the definition
    resid = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    mse = float(np.sum(resid**2) / df)
    assert (res.mse, res.df) == (pytest.approx(mse, abs=1e-15), df)
    # statsmodels' own studentized range quantile (Gleason's qsturng, about 3 digits)
    assert res.q_crit == pytest.approx(libqsturng.qsturng(0.95, k, df), rel=2e-3)
    assert stats.studentized_range.sf(res.q_crit, k, df) == pytest.approx(0.05, abs=1e-9)
    # statsmodels' Tukey HSD given the blocked design's MSE and df (its df argument is per group:
    # it multiplies by k), with our q and with its own
    means = x.mean(axis=1)
    ours = [p.ci for p in res.pairs]
    for q_crit, tol in ((res.q_crit, 1e-12), (None, 2e-3)):
        out = multicomp.tukeyhsd(means, n, mse, df=df / k, q_crit=q_crit)
        # statsmodels reports mean_j − mean_i for i < j; ours is a − b = mean_i − mean_j
        theirs = [(-hi, -lo) for lo, hi in out[4]]
        assert np.allclose(ours, theirs, rtol=tol, atol=1e-12)


def test_tukey_interval_excludes_zero_exactly_when_the_pair_is_significant() -> None:
    rng = np.random.default_rng(8)
    x = rng.random((5, 12)) + np.array([[0.0], [0.02], [0.1], [0.25], [0.3]])
    res = tukey_hsd_two_way(_matrix(x))
    half = res.q_crit * math.sqrt(res.mse / 12)
    for p in res.pairs:
        assert p.ci == pytest.approx((p.diff - half, p.diff + half), abs=1e-12)
        assert p.significant == (not p.ci[0] <= 0 <= p.ci[1])
    assert any(p.significant for p in res.pairs) and not all(p.significant for p in res.pairs)


def test_tukey_interval_on_the_hand_built_matrix() -> None:
    # run effects (0, 1, 3), residuals [[1,-1,0],[-1,1,0],[0,0,0]]: MSE = 4/4 = 1, df 4, n = 3;
    # a − c = −3 ± q_{0.95; 3, 4} · √(1/3), q from scipy's own ppf
    x = np.array([[1.0, -1.0, 0.0], [0.0, 2.0, 1.0], [3.0, 3.0, 3.0]])
    ac = next(p for p in tukey_hsd_two_way(_matrix(x)).pairs if (p.a, p.b) == ("a", "c"))
    q = stats.studentized_range.ppf(0.95, 3, 4)  # 5.04
    assert ac.ci == pytest.approx((-3 - q / math.sqrt(3), -3 + q / math.sqrt(3)), abs=1e-9)
    # residual-free scores: every difference exact, the interval a point; no df: undefined
    exact = tukey_hsd_two_way(_matrix(np.array([[0.1, 0.2], [0.3, 0.4], [0.6, 0.7]])))
    assert all(p.ci == (pytest.approx(p.diff), pytest.approx(p.diff)) for p in exact.pairs)
    one_topic = tukey_hsd_two_way(_matrix(np.array([[0.1], [0.3], [0.6]])))
    assert all(math.isnan(p.ci[0]) for p in one_topic.pairs)


def test_d_z_interval_is_unchanged() -> None:
    # the interval every other standardized CI here is built from
    lo, hi = d_z_ci(0.5, 20, 0.95)
    t = 0.5 * math.sqrt(20)
    assert stats.nct.cdf(t, 19, lo * math.sqrt(20)) == pytest.approx(0.975, abs=1e-9)
    assert stats.nct.cdf(t, 19, hi * math.sqrt(20)) == pytest.approx(0.025, abs=1e-9)
