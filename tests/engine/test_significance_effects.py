"""One-sided tests, Wilcoxon's zero methods, Benjamini-Yekutieli, effect sizes, the ANOVA table and
Friedman/Nemenyi, each checked against an independent reference (scipy, statsmodels, scikit-posthocs)."""

from __future__ import annotations

import itertools
import math
import time
import tracemalloc

import numpy as np
import pytest
from scipy import stats

from engine import significance
from engine.effects import anova_two_way, d_z_ci, effect_size, friedman_test, wilson_ci
from engine.significance import (
    CompareSettings,
    ComparisonError,
    ScoreMatrix,
    adjust_p_values,
    compare_matrix,
    paired_t_test,
    randomization_test,
    randomization_test_exact,
    sign_test,
    wilcoxon_test,
)

RNG = np.random.default_rng(20261124)
A = np.round(RNG.uniform(0, 1, 30), 4)
B = np.round(np.clip(A - RNG.normal(0.05, 0.1, 30), 0, 1), 4)
D = np.round(A - B, 12)
# eight topics x four runs: runs are columns here as scikit-posthocs takes them (blocks x groups)
X = np.array(
    [
        [0.61, 0.52, 0.40, 0.10],
        [0.45, 0.50, 0.38, 0.12],
        [0.70, 0.66, 0.55, 0.30],
        [0.33, 0.35, 0.20, 0.05],
        [0.52, 0.48, 0.49, 0.20],
        [0.80, 0.71, 0.60, 0.41],
        [0.25, 0.30, 0.22, 0.02],
        [0.66, 0.59, 0.58, 0.33],
    ]
)
RUNS = ("r1", "r2", "r3", "r4")


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_one_sided_t_sign_and_wilcoxon_equal_scipy(alternative: str) -> None:
    t = paired_t_test(D, alternative)
    ref = stats.ttest_rel(A, B, alternative=alternative)
    assert t.statistic == pytest.approx(ref.statistic, abs=1e-9)
    assert t.p == pytest.approx(ref.pvalue, abs=1e-12)
    wins, losses = int((D > 0).sum()), int((D < 0).sum())
    assert sign_test(D, alternative).p == pytest.approx(
        stats.binomtest(wins, wins + losses, 0.5, alternative=alternative).pvalue, abs=1e-12
    )
    w = wilcoxon_test(D, alternative)
    ref_w = stats.wilcoxon(D[D != 0], alternative=alternative)
    assert (w.statistic, w.p) == pytest.approx((ref_w.statistic, ref_w.pvalue), abs=1e-12)


def test_one_sided_p_values_split_the_two_sided_one() -> None:
    # a positive mean difference: p(greater) is half the two-sided p, p(less) its complement
    t2, tg, tl = (paired_t_test(D, alt).p for alt in ("two-sided", "greater", "less"))
    assert D.mean() > 0
    assert tg == pytest.approx(t2 / 2, abs=1e-12)
    assert tl == pytest.approx(1 - t2 / 2, abs=1e-12)


@pytest.mark.parametrize("zero_method", ["pratt", "zsplit"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_wilcoxon_pratt_and_zsplit_equal_scipy(zero_method: str, alternative: str) -> None:
    d = D.copy()
    d[:6] = 0.0  # six ties
    ours = wilcoxon_test(d, alternative, zero_method)
    ref = stats.wilcoxon(d, zero_method=zero_method, alternative=alternative)
    assert (ours.statistic, ours.p) == pytest.approx((ref.statistic, ref.pvalue), abs=1e-12)
    assert ours.n == len(d)


def test_wilcox_zero_method_differs_from_scipy_on_a_b_as_the_convention_says() -> None:
    # P@5-like differences: four wins (0.2, 0.4, 0.2, 0.2) and eleven zeros. Dropping the zeros
    # first leaves n = 4, all positive: the exact one-in-eight two-sided p = 2/16 = 0.125;
    # scipy.stats.wilcoxon(a, b) keeps 15 differences with zeros and takes the normal approximation
    d = np.array([0.2, 0.4, 0.2, 0.2] + [0.0] * 11)
    b = np.full(len(d), 0.4)
    ours = wilcoxon_test(d)
    assert (ours.p, ours.n) == (2 / 16, 4)
    assert ours.p == pytest.approx(stats.wilcoxon(d[d != 0]).pvalue, abs=1e-12)
    assert stats.wilcoxon(b + d, b).pvalue == pytest.approx(0.0588, abs=1e-4)


def test_t_test_degenerate_conventions_with_one_sided_alternatives() -> None:
    zeros = np.zeros(5)
    assert (paired_t_test(zeros).statistic, paired_t_test(zeros).p) == (0.0, 1.0)
    assert math.isnan(stats.ttest_1samp(zeros, 0.0).pvalue)  # what scipy gives instead
    up = np.full(5, 0.1)
    assert paired_t_test(up, "greater").p == 0.0
    assert paired_t_test(up, "less").p == 1.0
    assert paired_t_test(up).statistic == math.inf


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_randomization_counts_sign_vectors_by_hand(alternative: str) -> None:
    d = np.array([0.3, 0.1, -0.2])  # Σ = 0.2; the 8 sign vectors give sums ±0.6, ±0.2, ±0.4, ±0.0
    sums = [
        sum(s * x for s, x in zip(signs, d, strict=True)) for signs in itertools.product([1, -1], repeat=3)
    ]
    if alternative == "greater":
        expected = sum(x >= 0.2 - 1e-12 for x in sums) / 8
    elif alternative == "less":
        expected = sum(x <= 0.2 + 1e-12 for x in sums) / 8
    else:
        expected = sum(abs(x) >= 0.2 - 1e-12 for x in sums) / 8
    assert randomization_test_exact(d, alternative).p == expected


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_monte_carlo_randomization_is_within_four_standard_errors_of_the_exact_p(alternative: str) -> None:
    d = D[:16]
    exact = randomization_test_exact(d, alternative).p
    b = 20_000
    mc = randomization_test(d, permutations=b, rng=np.random.default_rng(7), alternative=alternative).p
    assert abs(mc - exact) <= 4 * math.sqrt(exact * (1 - exact) / b) + 1 / (b + 1)


def test_benjamini_yekutieli_equals_statsmodels() -> None:
    multitest = pytest.importorskip("statsmodels.stats.multitest", reason="statsmodels is in the test extra")
    p = np.array([0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216, 0.5])
    ref = multitest.multipletests(p, method="fdr_by")[1]
    assert adjust_p_values(p, "by") == pytest.approx(ref, abs=1e-12)
    # and BY is BH times c(m) = Σ 1/i, capped at 1
    cm = sum(1 / i for i in range(1, len(p) + 1))
    assert adjust_p_values(p, "by") == pytest.approx(np.minimum(1, adjust_p_values(p, "bh") * cm), abs=1e-12)


def test_mean_difference_ci_equals_scipy_t_interval() -> None:
    e = effect_size(D, 0.9)
    ci = stats.ttest_1samp(D, 0.0).confidence_interval(confidence_level=0.9)
    assert e.mean_ci == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert e.mean == pytest.approx(D.mean(), abs=1e-15)


def test_d_z_and_its_noncentral_t_interval() -> None:
    e = effect_size(D, 0.95)
    n = len(D)
    assert e.d_z == pytest.approx(D.mean() / D.std(ddof=1), abs=1e-15)
    t = e.d_z * math.sqrt(n)
    lo, hi = e.d_z_ci
    # the bounds are the noncentralities (over √n) that put the observed t at the 97.5% and 2.5% points
    assert stats.nct.cdf(t, n - 1, lo * math.sqrt(n)) == pytest.approx(0.975, abs=1e-9)
    assert stats.nct.cdf(t, n - 1, hi * math.sqrt(n)) == pytest.approx(0.025, abs=1e-9)
    assert lo < e.d_z < hi
    # d_z = 0 gives an interval symmetric about 0 (the noncentral t is then the central one)
    lo0, hi0 = d_z_ci(0.0, 20, 0.95)
    assert lo0 == pytest.approx(-hi0, abs=1e-9)


def test_probability_of_superiority_counts_ties_half_with_a_wilson_interval() -> None:
    proportion = pytest.importorskip(
        "statsmodels.stats.proportion", reason="statsmodels is in the test extra"
    )
    d = np.array([0.1, 0.2, 0.0, -0.1, 0.3, 0.0, 0.05, -0.2, 0.4, 0.1])  # 6 wins, 2 ties, 2 losses
    e = effect_size(d, 0.95)
    assert (e.wins, e.ties, e.losses) == (6, 2, 2)
    assert e.superiority == (6 + 2 / 2) / 10
    ref = proportion.proportion_confint(7, 10, alpha=0.05, method="wilson")
    assert e.superiority_ci == pytest.approx(ref, abs=1e-12)
    assert wilson_ci(0, 5, 0.95)[0] == 0.0


def test_anova_table_equals_statsmodels_anova_lm() -> None:
    pd = pytest.importorskip("pandas")
    smf = pytest.importorskip("statsmodels.formula.api", reason="statsmodels is in the test extra")
    sm_anova = pytest.importorskip("statsmodels.stats.anova")
    scores = X.T  # runs x topics
    frame = pd.DataFrame(
        [(RUNS[i], f"t{j}", scores[i, j]) for i in range(4) for j in range(8)],
        columns=["system", "topic", "score"],
    )
    ref = sm_anova.anova_lm(smf.ols("score ~ C(system) + C(topic)", data=frame).fit())
    rows = {r.source: r for r in anova_two_way(scores)}
    for ours, theirs in (("systems", "C(system)"), ("topics", "C(topic)"), ("residual", "Residual")):
        assert rows[ours].ss == pytest.approx(ref.loc[theirs, "sum_sq"], abs=1e-12)
        assert rows[ours].df == ref.loc[theirs, "df"]
    for ours, theirs in (("systems", "C(system)"), ("topics", "C(topic)")):
        assert rows[ours].f == pytest.approx(ref.loc[theirs, "F"], abs=1e-9)
        assert rows[ours].p == pytest.approx(ref.loc[theirs, "PR(>F)"], abs=1e-12)
    # its residual mean square is Tukey HSD's MSE
    comparison = compare_matrix(
        ScoreMatrix("m", RUNS, tuple(f"t{j}" for j in range(8)), scores), CompareSettings()
    )
    assert rows["residual"].ms == pytest.approx(comparison.tukey[0].mse, abs=1e-15)


# scikit-posthocs 0.17.1, posthoc_nemenyi_friedman(X) (X as above, blocks x groups), run in a
# scratch environment: its p-value matrix, upper triangle in (r1,r2) (r1,r3) (r1,r4) (r2,r3) ... order
NEMENYI_SCIKIT_POSTHOCS = [
    9.3784189191723888e-01,
    9.2643122861033489e-02,
    2.7845604257381584e-04,
    3.0144940874266324e-01,
    2.7631723368045646e-03,
    3.0144940874266324e-01,
]


def test_friedman_equals_scipy_and_nemenyi_equals_scikit_posthocs() -> None:
    scores = X.T
    fr = friedman_test(scores, RUNS)
    ref = stats.friedmanchisquare(*scores)
    assert (fr.chi2, fr.p) == pytest.approx((ref.statistic, ref.pvalue), abs=1e-12)
    assert fr.df == 3
    # mean ranks with 1 = best: r1 leads on 6 of 8 topics
    assert fr.mean_ranks == pytest.approx(tuple(stats.rankdata(-X, axis=1).mean(axis=0)), abs=1e-15)
    assert [q.p for q in fr.pairs] == pytest.approx(NEMENYI_SCIKIT_POSTHOCS, abs=1e-9)
    assert [(q.a, q.b) for q in fr.pairs] == list(itertools.combinations(RUNS, 2))


def test_exact_test_refuses_more_than_22_topics() -> None:
    many = ScoreMatrix("m", ("a", "b"), tuple(str(i) for i in range(30)), np.vstack([A, B]))
    with pytest.raises(ComparisonError, match="2\\^30"):
        compare_matrix(many, CompareSettings(tests=("exact",)))


def test_bca_interval_agrees_with_scipy_within_four_monte_carlo_errors() -> None:
    from engine.significance import bootstrap_ci

    # right-skewed differences (skewness about 1.1), where BCa and the percentile interval part
    d = np.round(np.random.default_rng(5).exponential(0.1, 20) ** 1.5 - 0.02, 6)
    b, runs = 4000, 16

    def scipy_bca(seed: int) -> tuple[float, float]:
        ci = stats.bootstrap(
            (d,), np.mean, n_resamples=b, method="BCa", random_state=np.random.default_rng(seed)
        ).confidence_interval
        return float(ci.low), float(ci.high)

    ours = np.array(
        [bootstrap_ci(d, resamples=b, rng=np.random.default_rng(s), method="bca") for s in range(runs)]
    )
    pct = np.array([bootstrap_ci(d, resamples=b, rng=np.random.default_rng(s)) for s in range(runs)])
    theirs = np.array([scipy_bca(100 + s) for s in range(runs)])
    # each endpoint: the means of 16 runs differ by less than 4 standard errors of their difference
    se = np.sqrt(ours.var(axis=0, ddof=1) / runs + theirs.var(axis=0, ddof=1) / runs)
    assert np.all(np.abs(ours.mean(axis=0) - theirs.mean(axis=0)) <= 4 * se)
    # the test can tell: the percentile interval of the same resamples lies far outside that
    assert np.all(np.abs(pct.mean(axis=0) - theirs.mean(axis=0)) > 4 * se)
    assert bootstrap_ci(np.full(5, 0.2), resamples=100, rng=np.random.default_rng(0), method="bca") == (
        0.2,
        0.2,
    )


def _exact_p_by_full_enumeration(d: np.ndarray, alternative: str) -> float:
    """The exact test written out plainly: every one of the 2^n sign vectors at once, as a matrix."""
    n = len(d)
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=n))).reshape(2**n, n)
    signed = signs @ d
    total, slack = float(d.sum()), 1e-9 * float(np.abs(d).sum())
    if alternative == "greater":
        extreme = signed >= total - slack
    elif alternative == "less":
        extreme = -signed >= -total - slack
    else:
        extreme = np.abs(signed) >= abs(total) - slack
    return int(np.count_nonzero(extreme)) / 2**n


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_randomization_in_chunks_equals_full_enumeration(
    alternative: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(significance, "_EXACT_ROWS", 8)  # many chunks even at small n, one ragged
    rng = np.random.default_rng(7)
    for n in range(0, 12):
        # tenths: many sign vectors tie with the observed sum, and ties must count the same way
        for d in (rng.integers(-5, 6, size=n) / 10, rng.normal(0.02, 0.1, size=n)):
            want = _exact_p_by_full_enumeration(d, alternative)
            assert randomization_test_exact(d, alternative).p == want, (n, d.tolist())


def test_exact_randomization_memory_is_bounded_at_its_largest_topic_count() -> None:
    # the whole 2^22 × 22 sign matrix took 1.7 GB; chunks of sign vectors stay far under 200 MB,
    # and all 4,194,304 vectors are still enumerated within a few seconds
    d = np.random.default_rng(3).normal(0.01, 0.05, size=significance.EXACT_MAX_TOPICS)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        got = randomization_test_exact(d)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    elapsed = time.perf_counter() - started
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MB"
    assert elapsed < 30, f"{elapsed:.1f} s"
    assert got.n == 22 and 0 < got.p <= 1 and (got.p * 2**22).is_integer()


def test_d_z_is_undefined_for_constant_differences_despite_float_noise() -> None:
    d = np.full(6, 0.8)  # e.g. AP 1 against AP 1/5 on every topic
    assert d.std(ddof=1) > 0  # numpy's mean of six equal 0.8s is not exactly 0.8
    e = effect_size(d, 0.95)
    assert math.isnan(e.d_z) and all(math.isnan(x) for x in e.d_z_ci)
    assert e.mean == pytest.approx(0.8) and e.mean_ci == pytest.approx((0.8, 0.8))
    assert (e.wins, e.ties, e.losses) == (6, 0, 0)


@pytest.mark.parametrize("jitter", [1e-12, 1e-9])
def test_d_z_is_undefined_for_nearly_constant_differences(jitter: float) -> None:
    # sd 4e-13 (below the 12 decimals d is rounded to) or 4e-10 (d_z ~ 1e9: no noncentral t bounds it)
    d = np.round(np.array([1 / 3] * 5 + [1 / 3 + jitter]), 12)
    e = effect_size(d, 0.95)
    assert math.isnan(e.d_z) and all(math.isnan(x) for x in e.d_z_ci)
    assert all(math.isnan(x) for x in d_z_ci(1e9, 6, 0.95))  # NaN bounds, no exception


def test_a_degenerate_pair_does_not_cost_the_other_pairs() -> None:
    scores = np.array([[1.0] * 6, [1.0, 1.0, 1.0, 0.5, 0.5, 0.5], [0.2] * 6])
    matrix = ScoreMatrix("map", ("A", "C", "E"), tuple("123456"), scores)
    c = compare_matrix(matrix, CompareSettings(permutations=200, resamples=200))
    by_pair = {(p.a, p.b): p for p in c.pairs}
    assert set(by_pair) == {("A", "C"), ("A", "E"), ("C", "E")}
    degenerate = by_pair[("A", "E")].effect
    assert degenerate is not None and math.isnan(degenerate.d_z) and degenerate.mean == pytest.approx(0.8)
    for pair in (("A", "C"), ("C", "E")):
        effect = by_pair[pair].effect
        assert effect is not None and math.isfinite(effect.d_z) and math.isfinite(effect.d_z_ci[0])
