"""SEs of Fleiss' κ, Scott's π, AC1 and AC2 (Gwet 2014), z tests of κ against 0, PABAK and the
prevalence and bias indices, each against an independent reference."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judging.agreement import cohen_kappa, fleiss_kappa, gwet_ac1, pooled_kappa, rating_counts
from judging.agreement.inference import (
    cohen_null_test,
    fleiss_null_test,
    gwet_raw,
    pabak,
    prevalence,
    units_of_table,
)

# items × raters, -1 = not rated (Gwet's missing-data case); categories 0, 1, 2
RAW = np.array(
    [
        [0, 0, 0, -1],
        [1, 1, 2, 1],
        [2, 2, 2, 2],
        [0, 1, 0, 0],
        [1, -1, 1, -1],
        [2, 1, -1, 2],
        [0, 0, -1, -1],
        [1, 2, 2, 1],
        [0, -1, -1, -1],
        [2, 2, 1, 2],
    ]
)
RAW_COUNTS = rating_counts(np.maximum(RAW, 0), RAW >= 0, [0, 1, 2])

# Provenance: irrCAC 0.4.4 (Python; cannot be a project dependency, it downgrades numpy), in a
# scratch venv: `CAC(pd.DataFrame(RAW with NaN for -1), weights=W, categories=[0, 1, 2],
# digits=15)` then `.fleiss()["est"]` / `.gwet()["est"]`, (coefficient_value, se); irrCAC's
# weights "identity" / "linear" / "quadratic" are ours "none" / "linear" / "quadratic" on 0, 1, 2.
IRRCAC_RAW = {
    ("fleiss", "none"): (0.525901136442864, 0.161093310415987),
    ("ac1", "none"): (0.528710538170981, 0.163987431656638),
    ("fleiss", "linear"): (0.65079854157038, 0.135575636377082),
    ("ac1", "linear"): (0.647577092511014, 0.135871853550881),
    ("fleiss", "quadratic"): (0.771297884505432, 0.115820314237364),
    ("ac1", "quadratic"): (0.765743420146066, 0.113321983668385),
}
GRADED = [[10, 3, 1], [2, 6, 2], [1, 2, 5]]
RARE = [[85, 5], [5, 5]]  # index 0 = not relevant: relevant documents are rare
# Same irrCAC 0.4.4 calls on two raters, one row [i, j] per item of cell (i, j) of the table
IRRCAC_TWO = {
    ("graded", "fleiss", "none"): (0.472659176029963, 0.129679853542679),
    ("graded", "ac1", "none"): (0.49003984063745, 0.127954663678726),
    ("graded", "ac1", "linear"): (0.555318011758418, 0.122556909780812),
    ("graded", "ac1", "quadratic"): (0.61851332398317, 0.13358896976677),
    ("rare", "fleiss", "none"): (0.444444444444441, 0.147986984708707),
    ("rare", "ac1", "none"): (0.878048780487805, 0.040294911480649),
}


@pytest.mark.parametrize(("kind", "weights"), list(IRRCAC_RAW))
def test_gwet_raw_with_missing_ratings_matches_irrcac(kind: str, weights: str) -> None:
    e = gwet_raw(RAW_COUNTS, kind, weights)
    value, se = IRRCAC_RAW[kind, weights]
    assert e.value == pytest.approx(value, abs=1e-9)
    assert e.se == pytest.approx(se, abs=1e-9)
    assert e.items == 9  # the item rated once informs π_k only
    assert e.ci_low == pytest.approx(e.value - 1.959963984540054 * e.se, abs=1e-12)


@pytest.mark.parametrize(("name", "kind", "weights"), list(IRRCAC_TWO))
def test_pooled_kappa_ac1_and_ac2_ses_of_a_pair_match_irrcac(name: str, kind: str, weights: str) -> None:
    table = GRADED if name == "graded" else RARE
    e = gwet_raw(units_of_table(table), kind, weights)
    value, se = IRRCAC_TWO[name, kind, weights]
    assert e.value == pytest.approx(value, abs=1e-9)
    assert e.se == pytest.approx(se, abs=1e-9)


def test_two_rater_values_equal_the_table_formulas_of_pooled_kappa_and_ac1() -> None:
    for table in (GRADED, RARE, [[3, 0, 1], [0, 0, 2], [4, 1, 9]]):
        units = units_of_table(table)
        assert gwet_raw(units, "fleiss").value == pytest.approx(pooled_kappa(table).value, abs=1e-12)
        assert gwet_raw(units, "ac1").value == pytest.approx(gwet_ac1(table).value, abs=1e-12)


def test_complete_items_fleiss_equals_statsmodels() -> None:
    sm = pytest.importorskip("statsmodels.stats.inter_rater", reason="statsmodels is in the test extra")
    full = RAW_COUNTS[(RAW >= 0).all(axis=1)]
    assert gwet_raw(full, "fleiss").value == pytest.approx(sm.fleiss_kappa(full, method="fleiss"), abs=1e-12)
    assert gwet_raw(full, "fleiss").value == pytest.approx(fleiss_kappa(full).value, abs=1e-12)


def test_missing_data_fleiss_differs_from_the_complete_items_version() -> None:
    full = RAW_COUNTS[(RAW >= 0).all(axis=1)]
    assert abs(gwet_raw(RAW_COUNTS, "fleiss").value - gwet_raw(full, "fleiss").value) > 0.01


def test_perfect_agreement_has_an_se_of_exactly_zero_and_a_ci_inside_the_range() -> None:
    for kind in ("fleiss", "ac1"):
        e = gwet_raw(units_of_table([[7, 0, 0], [0, 3, 0], [0, 0, 11]]), kind, "quadratic")
        assert e.value == 1.0
        assert e.se == 0.0
        assert (e.ci_low, e.ci_high) == (1.0, 1.0)


def test_wald_ci_is_clipped_to_the_coefficients_range() -> None:
    # few items, high agreement: κ + 1.96·SE > 1 before clipping
    e = gwet_raw(units_of_table([[4, 1], [0, 3]]), "ac1")
    assert e.value + 1.959963984540054 * e.se > 1.0
    assert e.ci_high == 1.0


def test_fleiss_ci_is_clipped_at_its_lower_bound_minus_one_over_m_minus_1() -> None:
    # four raters split 2–2 on every item: P_a = 1/3, P_e = 1/2, κ = −1/3 = −1/(m − 1), the minimum
    e = gwet_raw([[2, 2]] * 6, "fleiss")
    assert e.value == pytest.approx(-1 / 3, abs=1e-12)
    assert e.ci_low == pytest.approx(-1 / 3, abs=1e-12)
    # three raters; unclipped, κ − 1.96·SE ≈ −0.645 would be below the minimum −1/2
    three = gwet_raw([[2, 1], [2, 1], [3, 0]], "fleiss")
    assert three.value - 1.959963984540054 * three.se < -1 / 2
    assert three.ci_low == -1 / 2


@pytest.mark.parametrize("weights", ["none", "linear", "quadratic"])
def test_cohen_null_test_matches_statsmodels_var_kappa0(weights: str) -> None:
    sm = pytest.importorskip("statsmodels.stats.inter_rater", reason="statsmodels is in the test extra")
    ref = sm.cohens_kappa(np.asarray(GRADED), wt=None if weights == "none" else weights)
    t = cohen_null_test(GRADED, weights)
    assert t.value == pytest.approx(ref["kappa"], abs=1e-12)
    assert t.se0 == pytest.approx(math.sqrt(ref["var_kappa0"]), abs=1e-12)
    assert t.z == pytest.approx(ref["z_value"], abs=1e-9)
    assert t.p == pytest.approx(ref["pvalue_two_sided"], abs=1e-12)
    # the null SE is not the general one (which the CI uses)
    assert t.se0 != pytest.approx(cohen_kappa(GRADED, weights).se, abs=1e-6)


def test_fleiss_null_se_is_fleiss_nee_landis_1979() -> None:
    counts = np.array([[3, 0], [2, 1], [0, 3], [1, 2]])  # N = 4 items, m = 3 raters
    # p = (6/12, 6/12), p_j q_j = 1/4 each: Σ pq = 1/2, Σ pq(q − p) = 0
    # SE₀ = √(2/(4·3·2)) · √((1/2)² − 0) / (1/2) = √(1/12)
    t = fleiss_null_test(counts)
    assert t.se0 == pytest.approx(math.sqrt(1 / 12), abs=1e-12)
    assert t.z == pytest.approx(fleiss_kappa(counts).value / math.sqrt(1 / 12), abs=1e-12)
    # an asymmetric case: p = (9/12, 3/12), pq = 3/16 each, Σ pq = 3/8,
    # Σ pq(q − p) = 3/16·(−1/2) + 3/16·(1/2) = 0 → SE₀ = √(1/12)·√(9/64)/(3/8) = √(1/12)
    skew = np.array([[3, 0], [3, 0], [2, 1], [1, 2]])
    assert fleiss_null_test(skew).se0 == pytest.approx(math.sqrt(1 / 12), abs=1e-12)
    # three categories: p = (4, 5, 3)/12; Σpq = (32 + 35 + 27)/144 = 94/144;
    # Σ pq(q − p) = (32·4 + 35·2 + 27·6)/1728 = 360/1728
    three = np.array([[2, 1, 0], [1, 1, 1], [1, 2, 0], [0, 1, 2]])
    s = 94 / 144
    expected = math.sqrt(2 / 24) * math.sqrt(s**2 - 360 / 1728) / s
    assert fleiss_null_test(three).se0 == pytest.approx(expected, abs=1e-12)


def test_pabak_is_2po_minus_1_binary_and_kpo_minus_1_over_k_minus_1() -> None:
    assert pabak(RARE) == pytest.approx(2 * 0.9 - 1, abs=1e-12)
    # P_o = (10 + 6 + 5)/32 over q = 3 labels
    assert pabak(GRADED) == pytest.approx((3 * 21 / 32 - 1) / 2, abs=1e-12)


def test_rare_relevant_documents_flag_the_kappa_paradox() -> None:
    p = prevalence(RARE)
    # Byrt et al. 1993: PI = (both relevant − both not)/n = (5 − 85)/100, BI = (5 − 5)/100
    assert p.prevalence_index == pytest.approx(-0.8, abs=1e-12)
    assert p.bias_index == 0.0
    # P_o = 0.9 ≥ 0.8, P_e = 0.9² + 0.1² = 0.82 ≥ 0.625, κ = (0.9 − 0.82)/(1 − 0.82) = 0.444… < 0.6,
    # while AC1 and PABAK stay high
    assert p.paradox
    assert cohen_kappa(RARE).value == pytest.approx(0.08 / 0.18, abs=1e-12)
    # P_o = 0.85 but κ = (0.85 − 0.53)/(1 − 0.53) = 0.68: no paradox
    assert not prevalence([[30, 10], [5, 55]]).paradox


def test_skewed_prevalence_alone_is_no_kappa_paradox() -> None:
    # Manning et al.'s table: 300 of 400 items relevant for both (|prevalence index| 0.575 > 0.5,
    # which the flag used to be), but κ = 0.776 is not low: nothing to explain away
    iir = [[70, 10], [20, 300]]
    assert abs(prevalence(iir).prevalence_index) > 0.5
    assert not prevalence(iir).paradox


@pytest.mark.parametrize(
    ("table", "flag"),
    [
        # P_o 0.8, each assessor 84 % not relevant: P_e = 0.84² + 0.16² = 0.7312, κ = 0.256
        ([[74, 10], [10, 6]], True),
        # P_o 0.8, 62 % relevant each: P_e = 0.62² + 0.38² = 0.5288 < 0.625, κ = 0.576: moderate, no paradox
        ([[28, 10], [10, 52]], False),
        # P_o 0.79 < 0.8: not high agreement, whatever κ (P_e = 0.85·0.86 + 0.15·0.14 = 0.752, κ = 0.15)
        ([[75, 10], [11, 4]], False),
        # P_o 0.95, P_e = 0.9·0.91 + 0.1·0.09 = 0.828 (skewed) but κ = 0.709: no paradox
        ([[88, 2], [3, 7]], False),
    ],
)
def test_the_kappa_paradox_needs_high_agreement_low_kappa_and_high_chance_agreement(
    table: list[list[int]], flag: bool
) -> None:
    from judging.agreement.inference import kappa_paradox

    k = cohen_kappa(table)
    assert prevalence(table).paradox is flag
    assert kappa_paradox(k.p_o, k.p_e) is flag
    assert (k.p_o >= 0.8 and k.value < 0.6 and k.p_e >= 0.625) is flag


def test_an_undefined_kappa_is_never_a_paradox() -> None:
    from judging.agreement.inference import kappa_paradox

    assert not prevalence([[100, 0], [0, 0]]).paradox  # P_e = 1: κ undefined
    assert not kappa_paradox(float("nan"), 0.7)


def test_bias_index_is_signed_a_only_minus_b_only() -> None:
    # rows A: A relevant & B not = 7 (cell [1, 0]), B relevant & A not = 2 (cell [0, 1])
    assert prevalence([[40, 2], [7, 51]]).bias_index == pytest.approx((7 - 2) / 100, abs=1e-12)


def test_the_group_report_carries_ac2_with_missing_ratings_as_irrcac() -> None:
    from judging.agreement import agreement_report

    # RAW as four assessors' labels on one topic, -1 = not labelled
    judgments = {
        f"r{r}": [("1", f"d{i}", int(g)) for i, g in enumerate(RAW[:, r].tolist()) if g >= 0]
        for r in range(RAW.shape[1])
    }
    group = agreement_report(judgments).group
    assert group is not None and group.inference is not None
    for kind in ("linear", "quadratic"):
        e = getattr(group.inference, f"ac2_{kind}")
        value, se = IRRCAC_RAW["ac1", kind]
        assert (e.value, e.se) == pytest.approx((value, se), abs=1e-9)
        # and weighted Fleiss' κ under the same missing-data rule (irrCAC's fleiss() with weights)
        e = getattr(group.inference, f"fleiss_{kind}")
        value, se = IRRCAC_RAW["fleiss", kind]
        assert (e.value, e.se) == pytest.approx((value, se), abs=1e-9)
        assert e.items == 9


def test_estimates_carry_their_observed_and_chance_agreement() -> None:
    # RARE as units: P_a = 0.9; Scott's π shares (0.9, 0.1): P_e = 0.82; AC1 P_e = 2 · 0.9 · 0.1 = 0.18
    units = units_of_table(RARE)
    fleiss, ac1 = gwet_raw(units, "fleiss"), gwet_raw(units, "ac1")
    assert (fleiss.p_o, fleiss.p_e) == pytest.approx((0.9, 0.82), abs=1e-12)
    assert (ac1.p_o, ac1.p_e) == pytest.approx((0.9, 0.18), abs=1e-12)
