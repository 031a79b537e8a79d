"""Spearman's rho, RBO with its residual, tau_AP,b and the swap rates between two system rankings,
each against an independent reference: scipy, the ``rbo`` package, tau_AP and hand arithmetic."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from engine.ranking_agreement import rbo, spearman_rho, swap_rates, tau_ap_b
from engine.significance import tau_ap

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("seed", range(5))
def test_spearman_equals_scipy_with_and_without_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = np.round(rng.uniform(0, 1, 12), 1)  # one decimal: ties
    y = x + rng.normal(0, 0.2, 12)
    assert spearman_rho(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert spearman_rho(np.round(y, 1), x) == pytest.approx(
        stats.spearmanr(np.round(y, 1), x).statistic, abs=1e-12
    )
    assert math.isnan(spearman_rho(np.ones(4), x[:4]))


def test_rbo_of_a_worked_example_by_hand_and_as_the_rbo_package() -> None:
    # a b c d against b a d c, p = 0.9: X_d = 0, 2, 2, 4, so A_d = 0, 1, 2/3, 1
    x = np.array([4.0, 3.0, 2.0, 1.0])  # a b c d
    y = np.array([3.0, 4.0, 1.0, 2.0])  # b a d c
    p = 0.9
    r = rbo(x, y, ["a", "b", "c", "d"], p=p)
    weighted = 0 * p + 1 * p**2 + (2 / 3) * p**3 + 1 * p**4
    assert r.extrapolated == pytest.approx((1 - p) / p * weighted + p**4, abs=1e-12)
    # rbo 0.1.3 (pip install rbo, in a scratch environment):
    # RankingSimilarity(list("abcd"), list("badc")).rbo_ext(p=0.9) -> 0.873
    assert r.extrapolated == pytest.approx(0.873, abs=1e-12)
    # RBO_min: nothing shared below depth 4 (Webber et al. eq. 11, X_4 = 4)
    x_d = [0, 2, 2, 4]
    minimum = (1 - p) / p * (sum((x_d[d - 1] - 4) * p**d / d for d in range(1, 5)) - 4 * math.log(1 - p))
    assert r.minimum == pytest.approx(minimum, abs=1e-12)
    # the same systems in both: the extrapolation is the maximum, min + residual
    assert r.minimum + r.residual == pytest.approx(r.extrapolated, abs=1e-12)
    assert r.depth == 4 and r.p == p


def test_rbo_of_identical_rankings_is_one_and_breaks_ties_by_name() -> None:
    x = RNG.uniform(size=8)
    assert rbo(x, x).extrapolated == pytest.approx(1.0, abs=1e-12)
    # a tie in y between the first two: broken by name, so ("a", "b") order; against x where b leads
    tied = rbo([1.0, 2.0, 0.5], [2.0, 2.0, 0.5], ["a", "b", "c"], p=0.5)
    # x: b a c; y with the tie broken by name: a b c -> A = 0, 1, 1
    assert tied.extrapolated == pytest.approx((1 - 0.5) / 0.5 * (0 * 0.5 + 0.25 + 0.125) + 0.125, abs=1e-12)
    with pytest.raises(ValueError, match="persistence"):
        rbo(x, x, p=1.0)


@pytest.mark.parametrize("seed", range(6))
def test_tau_ap_b_without_ties_is_the_mean_of_both_tau_aps(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    x, y = rng.uniform(size=9), rng.uniform(size=9)
    assert tau_ap_b(x, y) == pytest.approx((tau_ap(x, y) + tau_ap(y, x)) / 2, abs=1e-12)
    assert tau_ap_b(x, x) == pytest.approx(1.0, abs=1e-12)
    assert tau_ap_b(x, -x) == pytest.approx(-1.0, abs=1e-12)


def test_tau_ap_b_with_ties_by_hand() -> None:
    # systems s1..s4; x = 4 3 2 1 (no ties); y ties s2 and s3: y = 4 2 2 1
    x = np.array([4.0, 3.0, 2.0, 1.0])
    y = np.array([4.0, 2.0, 2.0, 1.0])
    # T(x, y): below y's top group (s1): s2 (p = 1: s1 above, x agrees: c = 1), s3 (p = 1, c = 1),
    # s4 (p = 3: s1, s2, s3 above; x ranks all three above s4: c = 3): 2/3 (1 + 1 + 1) - 1 = 1
    # T(y, x): walking down x: s2 (p = 1: s1, y agrees: c 1), s3 (p = 2: s1, s2; y has s1 above
    # s3 but s2 tied with it: c = 1), s4 (p = 3, c = 3): 2/3 (1 + 1/2 + 1) - 1 = 2/3
    assert tau_ap_b(x, y) == pytest.approx((1.0 + 2 / 3) / 2, abs=1e-12)
    assert tau_ap_b(x, y) == pytest.approx(tau_ap_b(y, x), abs=1e-12)  # symmetric


def test_swap_rates_count_opposite_pairs_and_half_ties() -> None:
    x = np.array([4.0, 3.0, 2.0, 1.0])
    y = np.array([3.0, 4.0, 2.0, 2.0])  # s1/s2 swapped; s3/s4 tied in y only
    s = swap_rates(x, y)
    assert (s.pairs, s.swapped, s.half_tied) == (6, 1, 1)
    assert (s.minimum, s.mean) == (1 / 6, 1.5 / 6)
    # without ties both rates are (1 - tau_a)/2, tau_a = Kendall's tau without tie correction
    a, b = RNG.uniform(size=10), RNG.uniform(size=10)
    tau = stats.kendalltau(a, b).statistic
    r = swap_rates(a, b)
    assert r.minimum == r.mean == pytest.approx((1 - tau) / 2, abs=1e-12)
    assert (
        sum(1 for i, j in itertools.combinations(range(10), 2) if (a[i] - a[j]) * (b[i] - b[j]) < 0)
        == r.swapped
    )
