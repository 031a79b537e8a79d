"""Paired tests, corrections, Tukey HSD and rank correlations of ``engine.significance``."""

from __future__ import annotations

import itertools
import math
from math import comb

import numpy as np
import pytest
from scipy import stats

from engine.evaluate import RunResult
from engine.significance import (
    CompareSettings,
    ComparisonError,
    ScoreMatrix,
    adjust_p_values,
    bootstrap_ci,
    compare_pairs,
    homogeneous_groups,
    kendall_tau_b,
    paired_t_test,
    randomization_test,
    randomization_test_exact,
    score_matrix,
    sign_test,
    tau_ap,
    tukey_hsd_randomised,
    tukey_hsd_two_way,
    wilcoxon_test,
)


def matrix(scores: list[list[float]] | np.ndarray, runs: str = "abcdefgh") -> ScoreMatrix:
    x = np.asarray(scores, dtype=np.float64)
    return ScoreMatrix("m", tuple(runs[: len(x)]), tuple(f"t{j}" for j in range(x.shape[1])), x)


def result(run: str, values: dict[str, float], measure: str = "map") -> RunResult:
    topics = list(values)
    return RunResult(run, topics, {measure: np.array(list(values.values()))}, {measure: 0.0}, [measure])


# --------------------------------------------------------------------------- the score matrix


def test_score_matrix_keeps_the_topics_every_run_has_and_names_the_dropped_ones() -> None:
    a = result("a", {"1": 0.1, "2": 0.2, "3": 0.3})
    b = result("b", {"1": 0.4, "3": 0.6, "4": 0.9})
    m = score_matrix([a, b], "map")
    assert m.topics == ("1", "3")
    assert m.scores.tolist() == [[0.1, 0.3], [0.4, 0.6]]
    assert m.dropped == {"2": ("b",), "4": ("a",)}


def test_score_matrix_refuses_two_runs_with_one_name() -> None:
    with pytest.raises(ComparisonError, match="two runs are named 'a'"):
        score_matrix([result("a", {"1": 0.1}), result("a", {"1": 0.2})], "map")


def test_score_matrix_refuses_runs_without_a_common_topic() -> None:
    with pytest.raises(ComparisonError, match="no evaluated topic in common"):
        score_matrix([result("a", {"1": 0.1}), result("b", {"2": 0.2})], "map")


def test_score_matrix_refuses_a_measure_without_per_topic_values() -> None:
    r = result("a", {"1": 0.1})
    r.summary_only.add("map")
    with pytest.raises(ComparisonError, match="no per-topic values"):
        score_matrix([r, result("b", {"1": 0.2})], "map")


# --------------------------------------------------------------------------- paired tests


def test_paired_t_test_matches_scipy_ttest_rel() -> None:
    rng = np.random.default_rng(7)
    a, b = rng.random(25), rng.random(25)
    expected = stats.ttest_rel(a, b)
    got = paired_t_test(a - b)
    assert got.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert got.p == pytest.approx(expected.pvalue, rel=1e-12)
    assert got.n == 25


def test_paired_t_test_degenerate_differences() -> None:
    # no difference at all: no evidence; a constant non-zero difference: no variance around it
    assert paired_t_test(np.zeros(5)).p == 1.0
    constant = paired_t_test(np.full(5, 0.25))
    assert constant.p == 0.0 and constant.statistic == math.inf
    assert math.isnan(paired_t_test(np.array([0.3])).p)


def test_wilcoxon_exact_p_for_all_positive_differences_with_zeros_dropped() -> None:
    # 5 non-zero differences all positive: W = 0 is the most extreme of 2^5 equally likely sign
    # patterns, two-sided p = 2/2^5; the two zero differences are dropped first.
    got = wilcoxon_test(np.array([0.0, 0.1, 0.0, 0.2, 0.3, 0.4, 0.5]))
    assert (got.statistic, got.n) == (0.0, 5)
    assert got.p == pytest.approx(2 / 2**5)


def test_wilcoxon_matches_scipy_without_zeros() -> None:
    d = np.array([0.12, -0.05, 0.3, 0.07, -0.21, 0.44, 0.02, 0.18, -0.09, 0.33])
    expected = stats.wilcoxon(d)
    got = wilcoxon_test(d)
    assert (got.statistic, got.p) == (pytest.approx(expected.statistic), pytest.approx(expected.pvalue))


def test_wilcoxon_without_any_difference_is_p_one() -> None:
    assert wilcoxon_test(np.zeros(4)).p == 1.0


def test_sign_test_is_binomial_over_the_untied_topics() -> None:
    # 8 wins, 2 losses, 3 ties: n = 10, p = 2 · P(X >= 8) = 2 · (C(10,8) + C(10,9) + C(10,10)) / 2^10
    d = np.array([0.1] * 8 + [-0.2] * 2 + [0.0] * 3)
    got = sign_test(d)
    assert (got.statistic, got.n) == (8.0, 10)
    assert got.p == pytest.approx(2 * (comb(10, 8) + comb(10, 9) + comb(10, 10)) / 2**10)  # 0.109375
    assert sign_test(np.zeros(3)).p == 1.0


def test_exact_randomization_test_counts_every_sign_vector() -> None:
    # d = (1, 2, 3): the 8 sign vectors give |sums| 6, 4, 2, 0, 0, 2, 4, 6; two reach 6
    got = randomization_test_exact(np.array([1.0, 2.0, 3.0]))
    assert got.p == 2 / 8
    assert got.statistic == 2.0


def test_monte_carlo_randomization_test_agrees_with_exact_enumeration() -> None:
    d = np.round(np.random.default_rng(3).normal(0.05, 0.1, size=12), 4)
    exact = randomization_test_exact(d).p
    permutations = 20_000
    mc = randomization_test(d, permutations=permutations, rng=np.random.default_rng(11)).p
    se = math.sqrt(exact * (1 - exact) / permutations)
    assert 0.02 < exact < 0.98  # a p-value worth estimating
    assert abs(mc - exact) < 4 * se + 1 / (permutations + 1)


def test_randomization_test_is_reproducible_from_its_seed() -> None:
    d = np.array([0.1, -0.05, 0.2, 0.15, -0.02, 0.07])
    first = randomization_test(d, permutations=500, rng=np.random.default_rng(5))
    again = randomization_test(d, permutations=500, rng=np.random.default_rng(5))
    assert first == again


def test_randomization_p_counts_the_observed_assignment_so_it_is_never_zero() -> None:
    # 20 equal positive differences: only 2 of 2^20 sign vectors reach |sum| = 20, so 999 draws
    # (almost surely) find none and p = (0 + 1) / (999 + 1)
    d = np.full(20, 0.3)
    assert randomization_test(d, permutations=999, rng=np.random.default_rng(0)).p == 1 / 1000
    assert randomization_test(np.zeros(4), permutations=99, rng=np.random.default_rng(0)).p == 1.0


def test_bootstrap_ci_of_a_constant_difference_is_that_point() -> None:
    assert bootstrap_ci(np.full(7, 0.2), resamples=200, rng=np.random.default_rng(1)) == (
        pytest.approx(0.2),
        pytest.approx(0.2),
    )


def test_bootstrap_ci_of_two_topics_spans_their_extremes() -> None:
    # d = (0, 1): resampled means are 0, 1/2, 1 with probabilities 1/4, 1/2, 1/4, so the 2.5%
    # and 97.5% quantiles are 0 and 1
    assert bootstrap_ci(np.array([0.0, 1.0]), resamples=4000, rng=np.random.default_rng(2)) == (0.0, 1.0)


def test_bootstrap_ci_agrees_with_scipy_percentile_bootstrap() -> None:
    d = np.random.default_rng(4).normal(0.03, 0.1, size=40)
    lo, hi = bootstrap_ci(d, resamples=20_000, rng=np.random.default_rng(8))
    ref = stats.bootstrap(
        (d,), np.mean, method="percentile", n_resamples=20_000, rng=np.random.default_rng(9)
    ).confidence_interval
    # two independent Monte Carlo estimates of the same quantiles; their spread is about 0.002 here
    assert lo == pytest.approx(ref.low, abs=0.005)
    assert hi == pytest.approx(ref.high, abs=0.005)
    assert bootstrap_ci(d, resamples=500, rng=np.random.default_rng(8)) == bootstrap_ci(
        d, resamples=500, rng=np.random.default_rng(8)
    )


# --------------------------------------------------------------------------- corrections

P = [0.01, 0.04, 0.03, 0.005]  # m = 4; ascending: 0.005, 0.01, 0.03, 0.04


def test_bonferroni_multiplies_by_the_family_size() -> None:
    assert adjust_p_values(P, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])


def test_holm_steps_down_and_stays_monotone() -> None:
    # 4·0.005 = 0.02, 3·0.01 = 0.03, 2·0.03 = 0.06, 1·0.04 = 0.04 -> running max keeps 0.06
    assert adjust_p_values(P, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_benjamini_hochberg_steps_up() -> None:
    # 4·0.005/1 = 0.02, 4·0.01/2 = 0.02, 4·0.03/3 = 0.04, 4·0.04/4 = 0.04 -> running min from the top
    assert adjust_p_values(P, "bh") == pytest.approx([0.02, 0.04, 0.04, 0.02])


def test_corrections_cap_at_one_and_leave_untestable_pairs_out_of_the_family() -> None:
    got = adjust_p_values([0.3, float("nan"), 0.6], "bonferroni")
    assert got[0] == pytest.approx(0.6) and math.isnan(got[1]) and got[2] == 1.0  # m = 2
    assert adjust_p_values([0.3, 0.6], "none").tolist() == [0.3, 0.6]
    with pytest.raises(ValueError, match="unknown correction"):
        adjust_p_values(P, "sidak")


# --------------------------------------------------------------------------- Tukey HSD


def test_two_way_tukey_with_two_runs_is_the_paired_t_test() -> None:
    # k = 2: MSE = s_d² / 2 with df n − 1, so q = √2·|t| and Q_{2,df} = √2·|T_df|
    rng = np.random.default_rng(1)
    x = rng.random((2, 12))
    got = tukey_hsd_two_way(matrix(x)).pairs[0]
    t = stats.ttest_rel(x[0], x[1])
    assert got.statistic == pytest.approx(math.sqrt(2) * abs(t.statistic))
    assert got.p == pytest.approx(t.pvalue, rel=1e-6)


def test_two_way_tukey_on_a_hand_built_matrix() -> None:
    # run effects (0, 1, 3), no topic effect, residuals [[1,-1,0],[-1,1,0],[0,0,0]] (rows and columns
    # sum to 0): SSE = 4, df = (3−1)(3−1) = 4, MSE = 1, n = 3; runs a and c: q = 3 / sqrt(1/3)
    x = [[1.0, -1.0, 0.0], [0.0, 2.0, 1.0], [3.0, 3.0, 3.0]]
    res = tukey_hsd_two_way(matrix(x))
    assert (res.mse, res.df) == (pytest.approx(1.0), 4)
    ac = next(p for p in res.pairs if (p.a, p.b) == ("a", "c"))
    assert ac.diff == pytest.approx(-3.0)
    assert ac.statistic == pytest.approx(3 * math.sqrt(3))
    assert ac.p == pytest.approx(stats.studentized_range.sf(3 * math.sqrt(3), 3, 4))


def test_two_way_tukey_removes_the_topic_effect_that_scipy_one_way_counts_as_noise() -> None:
    # same small run differences on topics of very different difficulty
    rng = np.random.default_rng(2)
    topic = np.linspace(0.05, 0.9, 20)
    x = np.vstack([topic, topic + 0.03, topic + 0.06]) + rng.normal(0, 0.01, size=(3, 20))
    one_way = stats.tukey_hsd(*x).pvalue[0, 2]
    two_way = next(p for p in tukey_hsd_two_way(matrix(x)).pairs if (p.a, p.b) == ("a", "c")).p
    assert one_way > 0.3 and two_way < 0.001


def test_randomised_tukey_with_two_runs_is_the_randomization_test() -> None:
    # with k = 2, shuffling a topic's two scores flips the sign of its difference and the range of
    # the two means is |mean difference|: the same null distribution as the paired test
    x = np.vstack([np.linspace(0.1, 0.6, 10), np.linspace(0.1, 0.6, 10) + [0.05, -0.02] * 5])
    exact = randomization_test_exact(x[0] - x[1]).p
    got = tukey_hsd_randomised(matrix(x), trials=20_000, rng=np.random.default_rng(3)).pairs[0].p
    assert got == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / 20_000) + 1e-4)


def test_randomised_tukey_is_reproducible_and_ranks_the_largest_gap_first() -> None:
    rng = np.random.default_rng(4)
    x = rng.random((4, 15)) + np.array([[0.0], [0.05], [0.1], [0.3]])
    first = tukey_hsd_randomised(matrix(x), trials=2000, rng=np.random.default_rng(9))
    again = tukey_hsd_randomised(matrix(x), trials=2000, rng=np.random.default_rng(9))
    assert first.pairs == again.pairs
    by_gap = sorted(first.pairs, key=lambda p: -abs(p.diff))
    assert [p.p for p in by_gap] == sorted(p.p for p in by_gap)


def test_homogeneous_groups_are_maximal_non_significant_stretches() -> None:
    # a > b > c by mean; only a–c differs: {a, b} and {b, c}
    assert homogeneous_groups(["a", "b", "c"], {frozenset("ac")}) == [("a", "b"), ("b", "c")]
    assert homogeneous_groups(["a", "b", "c"], set()) == [("a", "b", "c")]
    all_pairs = {frozenset(p) for p in itertools.combinations("abc", 2)}
    assert homogeneous_groups(["a", "b", "c"], all_pairs) == [("a",), ("b",), ("c",)]


# --------------------------------------------------------------------------- rank correlations

TRUTH = [4.0, 3.0, 2.0, 1.0]  # systems w > x > y > z


def test_kendall_tau_b_matches_scipy_and_the_one_swap_value() -> None:
    # one discordant pair out of 6: (5 − 1) / 6
    assert kendall_tau_b(TRUTH, [3.0, 4.0, 2.0, 1.0]) == pytest.approx(4 / 6)
    x, y = [0.3, 0.2, 0.2, 0.5, 0.1], [0.25, 0.3, 0.1, 0.5, 0.1]
    assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y).statistic)
    assert math.isnan(kendall_tau_b([1.0, 1.0], [1.0, 2.0]))


def test_tau_ap_is_one_for_identical_and_minus_one_for_reversed_orders() -> None:
    assert tau_ap(TRUTH, TRUTH) == pytest.approx(1.0)
    assert tau_ap(TRUTH, TRUTH[::-1]) == pytest.approx(-1.0)


def test_tau_ap_penalises_a_swap_at_the_top_more_than_at_the_bottom() -> None:
    # estimate x, w, y, z: C(2) = 0 of 1, C(3) = 2 of 2, C(4) = 3 of 3 -> 2/3 · 2 − 1 = 1/3
    assert tau_ap(TRUTH, [3.0, 4.0, 2.0, 1.0]) == pytest.approx(1 / 3)
    # estimate w, x, z, y: 1/1 + 2/2 + 2/3 = 8/3 -> 2/3 · 8/3 − 1 = 7/9 (Kendall's τ is 2/3 for both)
    assert tau_ap(TRUTH, [4.0, 3.0, 1.0, 2.0]) == pytest.approx(7 / 9)


def test_tau_ap_is_asymmetric_the_first_argument_being_the_truth() -> None:
    estimate = [2.0, 4.0, 3.0, 1.0]  # x, y, w, z
    # walking x, y, w, z against the truth: 1/1 + 0/2 + 3/3 = 2 -> 2/3 · 2 − 1 = 1/3
    assert tau_ap(TRUTH, estimate) == pytest.approx(1 / 3)
    # walking w, x, y, z against x > y > w > z: 0/1 + 1/2 + 3/3 = 3/2 -> 2/3 · 3/2 − 1 = 0
    assert tau_ap(estimate, TRUTH) == pytest.approx(0.0)


def _plain_tau_ap(truth: list[int], estimate: list[int]) -> float:
    """The 2008 definition on untied rankings, written out: positions walked down the estimate."""
    order = sorted(range(len(estimate)), key=lambda i: -estimate[i])
    total = sum(sum(truth[order[j]] > truth[order[i]] for j in range(i)) / i for i in range(1, len(order)))
    return 2 * total / (len(order) - 1) - 1


def _tie_breakings(values: list[float]) -> list[list[int]]:
    """Every untied ranking (as scores) consistent with ``values``' order."""
    n = len(values)
    out = []
    for perm in itertools.permutations(range(n)):
        keyed = sorted(range(n), key=lambda i: (values[i], perm[i]))
        score = [0] * n
        for rank, i in enumerate(keyed):
            score[i] = rank
        if score not in out:
            out.append(score)
    return out


@pytest.mark.parametrize(
    ("truth", "estimate"),
    [
        ([3.0, 2.0, 1.0], [2.0, 1.0, 1.0]),
        ([2.0, 2.0, 1.0, 0.0], [1.0, 1.0, 1.0, 0.0]),
        ([1.0, 2.0, 3.0, 3.0], [3.0, 3.0, 1.0, 2.0]),
        ([5.0, 1.0, 4.0, 2.0, 3.0], [1.0, 1.0, 2.0, 2.0, 0.0]),
    ],
)
def test_tau_ap_with_ties_is_the_mean_over_random_tie_breaking(
    truth: list[float], estimate: list[float]
) -> None:
    values = [_plain_tau_ap(t, e) for t in _tie_breakings(truth) for e in _tie_breakings(estimate)]
    assert tau_ap(truth, estimate) == pytest.approx(float(np.mean(values)))


def test_tau_ap_with_ties_hand_values() -> None:
    # estimate w, then x = y tied: breaking the tie gives 1 (w, x, y) or 1/2 (w, y, x) -> 3/4
    assert tau_ap([3.0, 2.0, 1.0], [2.0, 1.0, 1.0]) == pytest.approx(0.75)
    # an estimate that ties everything says nothing: expected τ_AP 0
    assert tau_ap(TRUTH, [1.0] * 4) == pytest.approx(0.0)


# --------------------------------------------------------------------------- comparing pairs

SCORES = [
    [0.50, 0.62, 0.31, 0.80, 0.45, 0.66, 0.72, 0.58],
    [0.41, 0.60, 0.25, 0.71, 0.47, 0.52, 0.70, 0.49],
    [0.20, 0.35, 0.10, 0.42, 0.30, 0.33, 0.41, 0.28],
]


def test_compare_pairs_corrects_each_test_over_the_family_of_pairs() -> None:
    pairs = compare_pairs(matrix(SCORES), CompareSettings(permutations=999, resamples=999))
    assert [(p.a, p.b) for p in pairs] == [("a", "b"), ("a", "c"), ("b", "c")]
    for test in ("t", "wilcoxon", "sign", "randomization"):
        expected = adjust_p_values([p.tests[test].p for p in pairs], "holm")
        assert [p.adjusted[test] for p in pairs] == pytest.approx(expected.tolist())
        assert [p.significant[test] for p in pairs] == [bool(q < 0.05) for q in expected]
    x = np.array(SCORES)
    assert pairs[0].diff == pytest.approx(float(np.mean(x[0] - x[1])))
    assert pairs[0].tests["t"].p == pytest.approx(stats.ttest_rel(x[0], x[1]).pvalue)


def test_baseline_orients_every_pair_as_run_minus_baseline() -> None:
    pairs = compare_pairs(matrix(SCORES), CompareSettings(baseline="b", tests=("t",), resamples=99))
    assert [(p.a, p.b) for p in pairs] == [("a", "b"), ("c", "b")]
    assert pairs[1].diff < 0
    with pytest.raises(ComparisonError, match="no run named 'zz'; the runs are: a, b, c"):
        compare_pairs(matrix(SCORES), CompareSettings(baseline="zz"))


def test_a_pairs_random_results_do_not_depend_on_the_other_pairs() -> None:
    settings = CompareSettings(tests=("randomization",), permutations=999, resamples=999, seed=42)
    all_pairs = compare_pairs(matrix(SCORES), settings)
    against_b = compare_pairs(matrix(SCORES), CompareSettings(**{**settings.__dict__, "baseline": "b"}))
    assert all_pairs[0].tests == against_b[0].tests
    assert all_pairs[0].ci == against_b[0].ci


def test_float_noise_in_scores_is_a_tie_not_a_win() -> None:
    # 0.1 + 0.2 and 0.3 differ by 5.6e-17: the sign test must not count that topic
    x = [[0.1 + 0.2, 0.5, 0.6], [0.3, 0.4, 0.4]]
    pair = compare_pairs(matrix(x), CompareSettings(tests=("sign",), resamples=99))[0]
    assert (pair.tests["sign"].statistic, pair.tests["sign"].n) == (2.0, 2)


@pytest.mark.parametrize(("baseline", "expected"), [(None, 4 * 3 // 2), ("b", 4 - 1)])
def test_compare_pairs_reports_each_pair_for_progress(baseline: str | None, expected: int) -> None:
    from engine.significance import pair_count

    seen: list[str] = []
    settings = CompareSettings(baseline=baseline, permutations=50, resamples=50)
    scores = [[0.1, 0.2, 0.3], [0.2, 0.2, 0.5], [0.0, 0.4, 0.1], [0.3, 0.3, 0.3]]
    pairs = compare_pairs(matrix(scores), settings, on_pair=seen.append)
    assert len(seen) == len(pairs) == expected == pair_count(4, settings)
    assert seen[0] == f"{pairs[0].a} vs {pairs[0].b}"
