"""Agreement statistics of one table: the worked examples of docs/agreement.md, edge cases, naive checks."""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from judging.agreement import (
    agreement_weights,
    cohen_kappa,
    confusion_matrix,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    krippendorff_alpha_table,
    overlap,
    pooled_kappa,
    rating_counts,
    table_agreement,
)

# IIR §8.5 writes the 2×2 tables relevant ("yes") first (docs/agreement.md#worked-examples). With labels
# sorted (0, 1) the same table is flipped on both axes.
IIR = np.array([[300, 20], [10, 70]])
IIR_01 = IIR[::-1, ::-1]
THREE = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
GRADED = np.array([[50, 10, 2, 0], [8, 20, 6, 1], [1, 5, 15, 4], [0, 1, 3, 10]])
# Fleiss (1971) as in Wikipedia's "Fleiss' kappa" worked example: 10 subjects, 5 categories,
# 14 raters per subject.
FLEISS_1971 = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)


# ----------------------------------------------------- the vectors of docs/agreement.md#worked-examples


def test_iir_table_matches_every_measures_vector() -> None:
    s = table_agreement(IIR_01, (0, 1))
    assert s.n == 400
    assert s.p_o == pytest.approx((300 + 70) / 400, abs=1e-12)  # 0.925
    assert s.pooled.p_e == pytest.approx(0.6653125, abs=5e-8)
    assert s.pooled.value == pytest.approx(0.7759104, abs=5e-8)
    assert s.cohen.p_e == pytest.approx(0.665, abs=5e-8)
    assert s.cohen.value == pytest.approx(0.7761194, abs=5e-8)
    assert s.cohen.se == pytest.approx(0.0388880, abs=5e-8)
    assert s.cohen.ci_low == pytest.approx(0.69990, abs=5e-6)
    assert s.cohen.ci_high == pytest.approx(0.85234, abs=5e-6)
    assert s.alpha_nominal == pytest.approx(0.7761905, abs=5e-8)
    assert (s.overlap.intersection, s.overlap.union) == (300, 330)
    assert s.overlap.value == pytest.approx(300 / 330, abs=1e-12)  # 0.9090909


def test_iir_cohen_p_e_is_the_product_of_each_assessors_own_marginals() -> None:
    # A says relevant 320/400, B 310/400
    assert cohen_kappa(IIR).p_e == pytest.approx(0.8 * 0.775 + 0.2 * 0.225, abs=1e-12)


def test_pooled_kappa_pools_the_marginals_of_both_assessors() -> None:
    pi_rel = (320 + 310) / 800
    assert pooled_kappa(IIR).p_e == pytest.approx(pi_rel**2 + (1 - pi_rel) ** 2, abs=1e-12)


def test_three_category_table_matches_the_measures_vectors() -> None:
    assert cohen_kappa(THREE).value == pytest.approx(0.7964094, abs=5e-8)
    assert cohen_kappa(THREE).se == pytest.approx(0.0589107, abs=5e-8)
    assert cohen_kappa(THREE, "linear").value == pytest.approx(0.8429020, abs=5e-8)
    assert cohen_kappa(THREE, "quadratic").value == pytest.approx(0.8921569, abs=5e-8)
    assert krippendorff_alpha_table(THREE, "ordinal") == pytest.approx(0.8340077, abs=5e-8)


def test_graded_table_matches_the_measures_vectors() -> None:
    s = table_agreement(GRADED, (0, 1, 2, 3))
    assert s.cohen.value == pytest.approx(0.5615663, abs=5e-8)
    assert s.linear.value == pytest.approx(0.6925194, abs=5e-8)
    assert s.quadratic.value == pytest.approx(0.8052871, abs=5e-8)
    assert s.pooled.value == pytest.approx(0.5614628, abs=5e-8)
    assert s.alpha_ordinal == pytest.approx(0.7906259, abs=5e-8)


def test_fleiss_kappa_reproduces_the_fleiss_1971_wikipedia_example() -> None:
    k = fleiss_kappa(FLEISS_1971)
    assert k.value == pytest.approx(0.2099307, abs=5e-8)
    # Wikipedia's intermediate values: P̄ = 0.378, P̄_e = 0.213
    assert k.p_o == pytest.approx(0.378, abs=5e-4)
    assert k.p_e == pytest.approx(0.213, abs=5e-4)


def test_gwet_ac1_uses_pooled_marginals_spread_over_q_minus_one_categories() -> None:
    pi_rel = (320 + 310) / 800
    p_e = 2 * pi_rel * (1 - pi_rel) / (2 - 1)
    assert gwet_ac1(IIR).value == pytest.approx((0.925 - p_e) / (1 - p_e), abs=1e-12)


def test_weighted_kappa_se_follows_fleiss_cohen_everitt_not_cohens_approximation() -> None:
    # Cohen's (1960) approximation sqrt(P_o(1 − P_o)/(n(1 − P_e)²)) gives another number
    approx = math.sqrt(0.925 * 0.075 / (400 * (1 - 0.665) ** 2))
    assert approx == pytest.approx(0.0393121, abs=5e-8)  # differs from the vector in the 4th decimal
    assert cohen_kappa(IIR).se == pytest.approx(0.0388880, abs=5e-8)


# --------------------------------------------------------------------------- the variants told apart


def test_linear_and_quadratic_weights_on_category_positions() -> None:
    assert agreement_weights(4, "linear")[0] == pytest.approx([1, 1 - 1 / 3, 1 - 2 / 3, 0], abs=1e-15)
    assert agreement_weights(4, "quadratic")[0] == pytest.approx([1, 1 - 1 / 9, 1 - 4 / 9, 0], abs=1e-15)
    assert agreement_weights(3, "none").tolist() == np.eye(3).tolist()


def test_ordinal_alpha_differs_from_nominal_on_graded_labels() -> None:
    assert krippendorff_alpha_table(GRADED, "nominal") < krippendorff_alpha_table(GRADED, "ordinal")


def test_alpha_nominal_equals_scott_pi_plus_its_small_sample_correction() -> None:
    # two coders, no missing value, n items: α = π + (1 − π)/(2n) (from 1 − α = (2n−1)/(2n)·(1 − π))
    for table in (IIR, THREE, GRADED):
        n = table.sum()
        pi = pooled_kappa(table).value
        assert krippendorff_alpha_table(table, "nominal") == pytest.approx(pi + (1 - pi) / (2 * n), abs=1e-12)


def test_weighted_statistics_do_not_depend_on_the_direction_of_the_scale() -> None:
    flipped = GRADED[::-1, ::-1]
    for kind in ("linear", "quadratic"):
        assert cohen_kappa(flipped, kind).value == pytest.approx(cohen_kappa(GRADED, kind).value, abs=1e-12)
    assert krippendorff_alpha_table(flipped, "ordinal") == pytest.approx(
        krippendorff_alpha_table(GRADED, "ordinal"), abs=1e-12
    )


def kappa_from_proportions(p: np.ndarray, w: np.ndarray) -> float:
    """κ_w = (Σ w p − Σ w p_i. p_.j)/(1 − Σ w p_i. p_.j), straight from the definition."""
    p_o = float((w * p).sum())
    p_e = float(p.sum(axis=1) @ w @ p.sum(axis=0))
    return (p_o - p_e) / (1 - p_e)


def test_cohen_se_is_the_delta_method_variance_of_the_multinomial() -> None:
    # independent derivation: Var(κ̂) ≈ ∇κ(p)ᵀ (diag p − p pᵀ) ∇κ(p) / n, gradient by central differences
    for table, kind in ((IIR, "none"), (THREE, "none"), (THREE, "linear"), (GRADED, "quadratic")):
        n, q = table.sum(), table.shape[0]
        p = table.ravel() / n
        w = agreement_weights(q, kind)
        h, eye = 1e-6, np.eye(q * q)
        grad = np.array(
            [
                (
                    kappa_from_proportions((p + h * e).reshape(q, q), w)
                    - kappa_from_proportions((p - h * e).reshape(q, q), w)
                )
                / (2 * h)
                for e in eye
            ]
        )
        var = grad @ (np.diag(p) - np.outer(p, p)) @ grad / n
        assert cohen_kappa(table, kind).se == pytest.approx(math.sqrt(var), rel=1e-6)


# --------------------------------------------------------------------------- edge cases


def test_one_category_only_leaves_every_kappa_undefined() -> None:
    s = table_agreement([[7]], (1,))
    assert s.p_o == 1.0
    assert s.cohen.p_e == 1.0
    for value in (s.cohen.value, s.cohen.se, s.linear.value, s.quadratic.value, s.pooled.value, s.ac1.value):
        assert math.isnan(value)
    assert math.isnan(s.alpha_nominal) and math.isnan(s.alpha_ordinal)
    assert s.overlap.value == 1.0


def test_one_category_used_of_a_two_label_scale_gives_ac1_one_and_kappa_undefined() -> None:
    s = table_agreement([[5, 0], [0, 0]], (0, 1))
    assert math.isnan(s.cohen.value)
    assert s.ac1.value == 1.0  # Gwet's P_e = Σ π(1 − π)/(q − 1) = 0
    assert math.isnan(s.overlap.value)  # nobody found anything relevant: the union is empty


def test_an_empty_table_is_undefined_not_zero() -> None:
    s = table_agreement(np.zeros((0, 0)), ())
    assert s.n == 0
    assert all(math.isnan(v) for v in (s.p_o, s.cohen.value, s.pooled.value, s.ac1.value, s.alpha_nominal))
    assert math.isnan(fleiss_kappa(np.zeros((0, 3), dtype=int)).value)


def test_a_single_disagreeing_item_gives_kappa_zero_and_a_single_agreeing_item_none() -> None:
    assert cohen_kappa([[0, 1], [0, 0]]).value == 0.0  # P_o = 0, P_e = 1·0 + 0·1 = 0
    assert math.isnan(cohen_kappa([[1, 0], [0, 0]]).value)


def test_perfect_agreement_has_kappa_one_and_an_se_of_exactly_zero() -> None:
    # the variance is 0 in exact arithmetic; rounding used to leave ~1e-16 whose root is ~1e-8
    for table, kind in [
        ([[10, 0], [0, 5]], "none"),
        ([[7, 0, 0], [0, 3, 0], [0, 0, 11]], "linear"),
        ([[7, 0, 0], [0, 3, 0], [0, 0, 11]], "quadratic"),
        ([[33, 0], [0, 17]], "none"),
    ]:
        k = cohen_kappa(table, kind)
        assert (k.value, k.se, k.ci_low, k.ci_high) == (1.0, 0.0, 1.0, 1.0)


def test_kappa_confidence_intervals_are_clipped_to_minus_one_and_one() -> None:
    # κ = 0.8197 with SE 0.169: the Wald interval κ + 1.96·SE = 1.151 lies past κ's maximum
    k = cohen_kappa([[5, 1], [0, 5]])
    assert k.value + 1.959963984540054 * k.se > 1.0
    assert k.ci_high == 1.0
    assert k.ci_low == pytest.approx(k.value - 1.959963984540054 * k.se, abs=1e-12)
    # and at the bottom: complete disagreement, P_o = 0, P_e = (6·5 + 5·6)/11² = 60/121
    low = cohen_kappa([[0, 6], [5, 0]])
    assert low.value == pytest.approx((0 - 60 / 121) / (1 - 60 / 121), abs=1e-12)
    assert low.value - 1.959963984540054 * low.se < -1.0
    assert low.ci_low == -1.0


def test_cohen_kappa_se_matches_statsmodels_non_null_variance() -> None:
    sm = pytest.importorskip("statsmodels.stats.inter_rater", reason="statsmodels is in the test extra")
    for table in ([[20, 5, 1], [3, 15, 4], [0, 2, 10]], [[5, 1], [0, 5]], [[30, 2], [4, 9]]):
        ours = cohen_kappa(table)
        ref = sm.cohens_kappa(np.asarray(table))
        assert ours.value == pytest.approx(ref.kappa, abs=1e-12)
        assert ours.se == pytest.approx(ref.std_kappa, abs=1e-12)


def test_confusion_matrix_uses_the_sorted_union_of_labels() -> None:
    c = confusion_matrix([2, 0, 0, 1], [2, 0, 1, 1])
    assert c.labels == (0, 1, 2)
    assert c.counts.tolist() == [[1, 1, 0], [0, 1, 0], [0, 0, 1]]


def test_confusion_matrix_rejects_a_grade_off_the_given_labels() -> None:
    with pytest.raises(ValueError, match="grade 3 is not among the labels"):
        confusion_matrix([0, 3], [0, 1], labels=[0, 1])


def test_fleiss_kappa_rejects_items_with_different_numbers_of_raters() -> None:
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([[2, 1], [1, 1]])


def test_unknown_weights_and_levels_are_errors() -> None:
    with pytest.raises(ValueError, match="weights"):
        cohen_kappa(IIR, "cubic")
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha_table(IIR, "interval")


def test_overlap_counts_relevant_at_the_threshold() -> None:
    # grades 0..3; relevant = grade >= 2: rows/cols 2 and 3
    o = overlap(GRADED, (0, 1, 2, 3), threshold=2)
    assert o.intersection == 15 + 4 + 3 + 10
    assert o.union == GRADED[2:, :].sum() + GRADED[:2, 2:].sum()


# --------------------------------------------------------------------------- naive references


def naive_kappa(a: list[int], b: list[int], kind: str) -> float:
    """Cohen's weighted κ by loops over items and category pairs (reference for the kernels)."""
    cats = sorted(set(a) | set(b))
    q, n = len(cats), len(a)
    pos = {c: i for i, c in enumerate(cats)}

    def w(i: int, j: int) -> float:
        if kind == "none" or q < 2:
            return float(i == j)
        d = abs(i - j) / (q - 1)
        return 1 - d if kind == "linear" else 1 - d * d

    p_o = sum(w(pos[x], pos[y]) for x, y in zip(a, b, strict=True)) / n
    fa = [sum(1 for x in a if x == c) / n for c in cats]
    fb = [sum(1 for y in b if y == c) / n for c in cats]
    p_e = sum(w(i, j) * fa[i] * fb[j] for i in range(q) for j in range(q))
    return math.nan if p_e >= 1 - 1e-12 else (p_o - p_e) / (1 - p_e)


def naive_alpha(units: list[list[int]], level: str) -> float:
    """Krippendorff's α by enumerating the ordered pairs of values inside each unit."""
    pairable = [u for u in units if len(u) >= 2]
    cats = sorted({v for u in pairable for v in u})
    o = {(c, k): 0.0 for c in cats for k in cats}
    for u in pairable:
        for i, j in permutations(range(len(u)), 2):
            o[u[i], u[j]] += 1 / (len(u) - 1)
    n_c = {c: sum(o[c, k] for k in cats) for c in cats}
    n = sum(n_c.values())

    def d2(c: int, k: int) -> float:
        if level == "nominal":
            return float(c != k)
        lo, hi = min(c, k), max(c, k)
        return (sum(n_c[g] for g in cats if lo <= g <= hi) - (n_c[c] + n_c[k]) / 2) ** 2

    d_o = sum(o[c, k] * d2(c, k) for c in cats for k in cats)
    d_e = sum(n_c[c] * n_c[k] * d2(c, k) for c in cats for k in cats)
    return math.nan if d_e == 0 or n < 2 else 1 - (n - 1) * d_o / d_e


def naive_fleiss(units: list[list[int]]) -> float:
    m, cats = len(units[0]), sorted({v for u in units for v in u})
    p_i = [(sum(u.count(c) ** 2 for c in cats) - m) / (m * (m - 1)) for u in units]
    p_j = [sum(u.count(c) for u in units) / (len(units) * m) for c in cats]
    p_bar, p_e = sum(p_i) / len(units), sum(x * x for x in p_j)
    return math.nan if p_e >= 1 - 1e-12 else (p_bar - p_e) / (1 - p_e)


def same(x: float, y: float) -> bool:
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= 1e-9


grade_pairs = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40)


@given(grade_pairs, st.sampled_from(["none", "linear", "quadratic"]))
def test_cohen_kappa_matches_the_naive_loop(pairs: list[tuple[int, int]], kind: str) -> None:
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    assert same(cohen_kappa(confusion_matrix(a, b).counts, kind).value, naive_kappa(a, b, kind))


@given(grade_pairs, st.sampled_from(["none", "linear", "quadratic"]))
def test_kappa_and_its_se_are_symmetric_in_the_two_assessors(pairs: list[tuple[int, int]], kind: str) -> None:
    t = confusion_matrix([x for x, _ in pairs], [y for _, y in pairs]).counts
    k, kt = cohen_kappa(t, kind), cohen_kappa(t.T, kind)
    assert same(k.value, kt.value)
    assert same(k.se**2, kt.se**2)  # the variance: near 0 its square root magnifies rounding noise


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=40))
def test_weighted_kappa_equals_unweighted_with_two_categories(pairs: list[tuple[int, int]]) -> None:
    t = confusion_matrix([x for x, _ in pairs], [y for _, y in pairs], labels=[0, 1]).counts
    for kind in ("linear", "quadratic"):
        assert same(cohen_kappa(t, kind).value, cohen_kappa(t).value)


@given(grade_pairs)
def test_pooled_kappa_is_fleiss_kappa_for_two_raters(pairs: list[tuple[int, int]]) -> None:
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    c = confusion_matrix(a, b)
    grades = np.array(pairs)
    counts = rating_counts(grades, np.ones_like(grades, dtype=bool), c.labels)
    assert same(pooled_kappa(c.counts).value, fleiss_kappa(counts).value)


@given(grade_pairs, st.sampled_from(["nominal", "ordinal"]))
def test_two_coder_alpha_matches_the_naive_pair_enumeration(pairs: list[tuple[int, int]], level: str) -> None:
    t = confusion_matrix([x for x, _ in pairs], [y for _, y in pairs]).counts
    assert same(krippendorff_alpha_table(t, level), naive_alpha([list(p) for p in pairs], level))


units_with_missing = st.lists(st.lists(st.integers(0, 3), min_size=0, max_size=5), min_size=1, max_size=25)


@given(units_with_missing, st.sampled_from(["nominal", "ordinal"]))
def test_alpha_with_missing_values_matches_the_naive_pair_enumeration(
    units: list[list[int]], level: str
) -> None:
    counts = np.array([[u.count(c) for c in range(4)] for u in units])
    assert same(krippendorff_alpha(counts, level), naive_alpha(units, level))


@given(
    st.integers(2, 6).flatmap(
        lambda m: st.lists(st.lists(st.integers(0, 3), min_size=m, max_size=m), min_size=1, max_size=20)
    )
)
def test_fleiss_kappa_matches_the_naive_loop(units: list[list[int]]) -> None:
    counts = np.array([[u.count(c) for c in range(4)] for u in units])
    assert same(fleiss_kappa(counts).value, naive_fleiss(units))
