"""Standard errors, tests and prevalence/bias diagnostics of the chance-corrected coefficients.

Pure numpy/scipy (docs/agreement.md#standard-errors-and-confidence-intervals). Three sources:

- Gwet (2014), *Handbook of Inter-Rater Reliability*, 4th ed., ch. 5 (and Gwet 2008, *Br. J. Math.
  Stat. Psychol.* 61:29–48): Fleiss' κ, AC1 and AC2 for any number of raters with missing ratings,
  and their linearised variance;
- Fleiss, Nee & Landis (1979, *Psychol. Bull.* 86:974–977): the SE of Fleiss' κ under κ = 0;
- Fleiss, Cohen & Everitt (1969, *Psychol. Bull.* 72:323–327): the SE of (weighted) Cohen's κ
  under κ = 0, for the z test;
- Byrt, Bishop & Carlin (1993, *J. Clin. Epidemiol.* 46:423–429): PABAK and the prevalence and
  bias indices of a 2 × 2 table (the κ paradox of Feinstein & Cicchetti 1990).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from judging.agreement.tables import _ULPS, _cohen_parts, _corrected, _table, _wald, _z, agreement_weights

CHANCE = ("fleiss", "ac1")
# The κ paradox (Feinstein & Cicchetti 1990): high observed agreement, low κ, because chance
# agreement is high (skewed prevalence). Flagged when all three hold (docs/agreement.md,
# "The kappa paradox flag"):
PARADOX_P_O = 0.8  # the assessors agree on at least four items in five...
PARADOX_KAPPA = 0.6  # ...yet κ is below "substantial" (Landis & Koch 1977: 0.61–0.80)...
PARADOX_P_E = 0.625  # ...because P_e is at least that of two assessors with 3/4 in one class: 0.75² + 0.25²


def kappa_paradox(p_o: float, p_e: float) -> bool:
    """The κ paradox flag of a chance-corrected coefficient with observed agreement ``p_o`` and
    chance agreement ``p_e``: P_o ≥ 0.8, κ = (P_o − P_e)/(1 − P_e) < 0.6 and P_e ≥ 0.625.

    False when κ is undefined (NaN parts, P_e = 1). Applies to any of the κ family: Cohen's κ of a
    pair (P_e from each assessor's marginals), Fleiss' κ of the group (pooled shares), the
    binarized table's κ.
    """
    if not (np.isfinite(p_o) and np.isfinite(p_e)) or 1.0 - p_e < 1e-12:
        return False
    kappa = (p_o - p_e) / (1.0 - p_e)
    return bool(p_o >= PARADOX_P_O and kappa < PARADOX_KAPPA and p_e >= PARADOX_P_E)


class Estimate(NamedTuple):
    """A coefficient with its SE and Wald CI (clipped to its range); ``method`` names the variance."""

    value: float
    se: float
    ci_low: float
    ci_high: float
    items: int
    method: str
    p_o: float = float("nan")  # observed agreement P_a (weighted when the coefficient is)
    p_e: float = float("nan")  # chance agreement P_e


class NullTest(NamedTuple):
    """z = κ / SE₀ with SE₀ the SE under κ = 0; ``p`` two-sided from the standard normal."""

    value: float
    se0: float
    z: float
    p: float
    method: str


class Prevalence(NamedTuple):
    """Byrt, Bishop & Carlin (1993) on the 2 × 2 table [[a, b], [c, d]], index 1 = relevant.

    prevalence index = (a_rel − d_notrel)/n with a_rel both relevant and d_notrel both not
    relevant, bias index = (b − c)/n (A said relevant, B not, minus the converse); PABAK = 2P_o − 1.
    ``paradox``: :func:`kappa_paradox` of the table's Cohen's κ (P_o ≥ 0.8, κ < 0.6, P_e ≥ 0.625).
    """

    prevalence_index: float
    bias_index: float
    pabak: float
    paradox: bool


# --------------------------------------------------------------------------- Gwet's raw-data kernel


def _chance_terms(pi: np.ndarray, w: np.ndarray, kind: str) -> tuple[float, np.ndarray]:
    """P_e and the vector v with per-item chance agreement pe_i = Σ_k r_ik v_k / r_i (Gwet 2014 §5)."""
    q = len(pi)
    if kind == "fleiss":
        pe = float(pi @ w @ pi)
        v = (w @ pi + w.T @ pi) / 2.0
    elif kind == "ac1":
        tw = float(w.sum())
        scale = tw / (q * (q - 1.0)) if q >= 2 else np.nan
        pe = float(scale * (pi * (1.0 - pi)).sum())
        v = scale * (1.0 - pi)
    else:
        raise ValueError(f"kind must be one of {', '.join(CHANCE)}, not '{kind}'")
    return pe, v


def gwet_raw(
    counts: np.ndarray | Sequence[Sequence[int]],
    kind: str = "fleiss",
    weights: str = "none",
    *,
    confidence: float = 0.95,
) -> Estimate:
    """Fleiss' κ or Gwet's AC1/AC2 of a units × categories count matrix, missing ratings allowed.

    Gwet (2014, ch. 5, eqs. for ``fleiss.kappa.raw`` / ``gwet.ac1.raw``): with r_ik raters putting
    item i in category k, r_i = Σ_k r_ik, r*_ik = Σ_l w_kl r_il, n items with r_i ≥ 1 and n₂ with
    r_i ≥ 2: p_a|i = Σ_k r_ik (r*_ik − 1)/(r_i (r_i − 1)), P_a = mean of p_a|i over the n₂ items,
    π_k = (1/n) Σ_i r_ik/r_i (over all n items: the missing-data rule);
    Fleiss: P_e = Σ_kl w_kl π_k π_l; AC1/AC2: P_e = T_w/(q(q − 1)) Σ_k π_k(1 − π_k), T_w = Σ w_kl.
    Variance (linearisation, no finite-population correction, f = 0):
    κ_i = (n/n₂)(p_a|i − P_e [r_i ≥ 2])/(1 − P_e), κ*_i = κ_i − 2(1 − κ)(pe_i − P_e)/(1 − P_e),
    Var = Σ_i (κ*_i − κ)² / (n(n − 1)), pe_i = Σ_k r_ik π̄_k / r_i with π̄ = (Wπ + Wᵀπ)/2 (Fleiss)
    or T_w(1 − π_k)/(q(q − 1)) (AC1). With every item rated by the same m raters and no weights
    the Fleiss value is Fleiss' (1971) κ; with two raters it is Scott's π. CI: Wald, clipped to
    the coefficient's range: [−1/(m − 1), 1] for Fleiss' κ with m the fewest raters of an item
    rated twice or more, [−1, 1] for AC1/AC2. NaN when undefined.
    """
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 2:
        raise ValueError("counts must be units × categories")
    z = _z(confidence)
    method = "Gwet 2014 linearisation (ch. 5)"
    q = c.shape[1]
    r = c.sum(axis=1)
    keep = r >= 1
    c, r = c[keep], r[keep]
    n = len(r)
    two = r >= 2
    n2 = int(two.sum())
    nan = float("nan")
    if n2 == 0 or q == 0:
        return Estimate(nan, nan, nan, nan, int(n2), method)
    w = agreement_weights(q, weights)
    star = c @ w.T  # r*_ik = Σ_l w_kl r_il
    with np.errstate(invalid="ignore", divide="ignore"):
        pa_i = np.where(two, (c * (star - 1.0)).sum(axis=1) / (r * (r - 1.0)), 0.0)
    pa = float(pa_i[two].mean())
    pi = (c / r[:, None]).mean(axis=0)
    pe, v = _chance_terms(pi, w, kind)
    if not np.isfinite(pe) or 1.0 - pe < 1e-12:
        return Estimate(nan, nan, nan, nan, n2, method, pa, pe)
    value = (pa - pe) / (1.0 - pe)
    k_i = (n / n2) * (pa_i - pe * two) / (1.0 - pe)
    pe_i = (c @ v) / r
    k_star = k_i - 2.0 * (1.0 - value) * (pe_i - pe) / (1.0 - pe)
    dev = k_star - value
    # every κ*_i equal to κ in exact arithmetic (perfect agreement) leaves deviations of a few ulps
    # of the terms they are differences of; those are 0, not an SE of ~1e-9
    dev = np.where(np.abs(dev) <= _ULPS * (np.abs(k_star) + abs(value)), 0.0, dev)
    var = float((dev**2).sum() / (n * (n - 1.0))) if n >= 2 else nan
    se = float(np.sqrt(var)) if np.isfinite(var) else nan
    # Fleiss' κ cannot fall below −1/(m − 1) with m raters per item (Fleiss 1971); with varying
    # numbers the fewest raters give the loosest bound. AC1/AC2: −1.
    low = -1.0 / (float(r[two].min()) - 1.0) if kind == "fleiss" else -1.0
    return Estimate(float(value), se, *_wald(float(value), se, z, low), n2, method, pa, pe)


def units_of_table(table: np.ndarray | Sequence[Sequence[int]]) -> np.ndarray:
    """The units × categories counts of a two-rater confusion table: cell (i, j) gives its count
    of units with one rating in i and one in j (i = j: two in i)."""
    t = np.asarray(_table(table), dtype=np.int64)
    q = t.shape[0]
    rows = []
    for i in range(q):
        for j in range(q):
            unit = np.zeros(q, dtype=np.int64)
            unit[i] += 1
            unit[j] += 1
            rows.append(np.repeat(unit[None], t[i, j], axis=0))
    return np.concatenate(rows) if rows else np.zeros((0, q), dtype=np.int64)


# --------------------------------------------------------------------------- tests under κ = 0


def _normal_p(z: float) -> float:
    from scipy import stats  # see tables._z: scipy.stats is slow to import

    return float(2.0 * stats.norm.sf(abs(z))) if np.isfinite(z) else float("nan")


def cohen_null_test(table: np.ndarray | Sequence[Sequence[int]], weights: str = "none") -> NullTest:
    """z test of Cohen's (weighted) κ against 0 with the null SE of Fleiss, Cohen & Everitt (1969).

    SE₀² = [Σ_ij p_i. p_.j (w_ij − (w̄_i. + w̄_.j))² − P_e²] / (n (1 − P_e)²), w̄ as in
    :func:`~judging.agreement.tables.cohen_kappa`; z = κ/SE₀, p two-sided. NaN when κ is.
    """
    t = _table(table)
    w = agreement_weights(t.shape[0], weights)
    p_o, p_e, _ = _cohen_parts(t, w)
    value = float(_corrected(p_o, p_e))
    n = float(t.sum())
    nan = float("nan")
    if not np.isfinite(value):
        return NullTest(value, nan, nan, nan, "Fleiss, Cohen & Everitt 1969 (SE under kappa = 0)")
    p = t / n
    row, col = p.sum(axis=1), p.sum(axis=0)
    w_row, w_col = w @ col, row @ w
    spread = float((np.outer(row, col) * (w - (w_row[:, None] + w_col[None, :])) ** 2).sum())
    numerator = spread - float(p_e) ** 2
    numerator = 0.0 if abs(numerator) <= _ULPS * (spread + float(p_e) ** 2) else numerator
    se0 = float(np.sqrt(max(numerator, 0.0) / (n * (1.0 - float(p_e)) ** 2)))
    z = value / se0 if se0 > 0 else nan
    return NullTest(value, se0, z, _normal_p(z), "Fleiss, Cohen & Everitt 1969 (SE under kappa = 0)")


def fleiss_null_test(counts: np.ndarray | Sequence[Sequence[int]]) -> NullTest:
    """z test of Fleiss' κ against 0 with the null SE of Fleiss, Nee & Landis (1979).

    Complete items only (the same m raters each): with p_j the category proportions, q_j = 1 − p_j,
    SE₀ = √(2/(N m (m − 1))) · √((Σ p_j q_j)² − Σ p_j q_j (q_j − p_j)) / Σ p_j q_j.
    """
    from judging.agreement.tables import fleiss_kappa

    c = np.asarray(counts, dtype=np.float64)
    k = fleiss_kappa(c.astype(np.int64))
    nan = float("nan")
    method = "Fleiss, Nee & Landis 1979 (SE under kappa = 0)"
    if len(c) == 0 or not np.isfinite(k.value):
        return NullTest(k.value, nan, nan, nan, method)
    m = float(c[0].sum())
    n = float(len(c))
    p = c.sum(axis=0) / (n * m)
    pq = p * (1.0 - p)
    s = float(pq.sum())
    inner = max(s**2 - float((pq * (1.0 - 2.0 * p)).sum()), 0.0)
    se0 = float(np.sqrt(2.0 / (n * m * (m - 1.0))) * np.sqrt(inner) / s)
    z = k.value / se0 if se0 > 0 else nan
    return NullTest(k.value, se0, z, _normal_p(z), method)


# --------------------------------------------------------------------------- prevalence and bias


def pabak(table: np.ndarray | Sequence[Sequence[int]]) -> float:
    """Prevalence- and bias-adjusted κ (Byrt, Bishop & Carlin 1993): (q P_o − 1)/(q − 1).

    2P_o − 1 for a 2 × 2 table; q is the number of labels of the table. NaN with no items or q < 2.
    """
    t = _table(table)
    q, n = t.shape[0], float(t.sum())
    if q < 2 or n == 0:
        return float("nan")
    return float((q * np.trace(t) / n - 1.0) / (q - 1.0))


def prevalence(table: np.ndarray | Sequence[Sequence[int]]) -> Prevalence:
    """:class:`Prevalence` of a 2 × 2 table (index 0 = not relevant, 1 = relevant, rows assessor A)."""
    t = _table(table)
    if t.shape != (2, 2):
        raise ValueError("the prevalence and bias indices need a 2 × 2 table")
    n = float(t.sum())
    if n == 0:
        nan = float("nan")
        return Prevalence(nan, nan, nan, False)
    pi = float((t[1, 1] - t[0, 0]) / n)
    bi = float((t[1, 0] - t[0, 1]) / n)
    p_o, p_e, _ = _cohen_parts(t, agreement_weights(2, "none"))
    return Prevalence(pi, bi, pabak(t), kappa_paradox(float(p_o), float(p_e)))


# --------------------------------------------------------------------------- per pair, per group


class PairInference(NamedTuple):
    """SEs, z tests and the prevalence/bias block of one pair's concatenated table.

    ``pooled`` (Scott's π), ``ac1``, ``ac2_linear`` and ``ac2_quadratic`` are :func:`gwet_raw` of the
    table's units (two ratings each); the ``*_test`` fields test Cohen's κ (plain, linear,
    quadratic weights) against 0; ``pabak`` is that of the graded table (q labels); ``binary``
    is :class:`Prevalence` of the table binarized at the threshold, whose pooled κ and AC1 get SEs
    in ``binary_pooled`` and ``binary_ac1``.
    """

    pooled: Estimate
    ac1: Estimate
    ac2_linear: Estimate
    ac2_quadratic: Estimate
    cohen_test: NullTest
    linear_test: NullTest
    quadratic_test: NullTest
    pabak: float
    binary: Prevalence
    binary_pooled: Estimate
    binary_ac1: Estimate
    alpha_interval: float  # Krippendorff's α on the grade values (judging.agreement.multi)
    alpha_ratio: float


class GroupInference(NamedTuple):
    """Fleiss' κ and AC1 of all assessors with SEs: on the items every assessor judged
    (``*_complete``) and with Gwet's missing-data rule on every judged item (``*_missing``)."""

    fleiss_complete: Estimate
    ac1_complete: Estimate
    fleiss_missing: Estimate
    ac1_missing: Estimate
    fleiss_test: NullTest
    missing_items: int  # items with at least one rating, the n of the missing-data versions
    conger: float  # Conger (1980) on the items every assessor judged
    light: float  # Light (1971): mean pairwise Cohen's κ, each pair on the items both judged
    light_pairs: int  # pairs with a defined κ in that mean
    alpha_interval: float  # Krippendorff's α on the grade values, items judged by two or more
    alpha_ratio: float
    # Gwet's AC2 of all assessors (missing-data rule, every judged item), linear and quadratic
    ac2_linear: Estimate | None = None
    ac2_quadratic: Estimate | None = None
    # Fleiss' κ with agreement weights (Gwet 2014 ch. 2 and 5), same missing-data rule
    fleiss_linear: Estimate | None = None
    fleiss_quadratic: Estimate | None = None


def pair_inference(
    table: np.ndarray, binary: np.ndarray, labels: Sequence[int], *, confidence: float = 0.95
) -> PairInference:
    """:class:`PairInference` of a graded confusion table (rows and columns ``labels``) and its
    binarized 2 × 2 table."""
    from judging.agreement.multi import krippendorff_alpha_values_table

    units, two = units_of_table(table), units_of_table(binary)
    return PairInference(
        pooled=gwet_raw(units, "fleiss", confidence=confidence),
        ac1=gwet_raw(units, "ac1", confidence=confidence),
        ac2_linear=gwet_raw(units, "ac1", "linear", confidence=confidence),
        ac2_quadratic=gwet_raw(units, "ac1", "quadratic", confidence=confidence),
        cohen_test=cohen_null_test(table),
        linear_test=cohen_null_test(table, "linear"),
        quadratic_test=cohen_null_test(table, "quadratic"),
        pabak=pabak(table),
        binary=prevalence(binary),
        binary_pooled=gwet_raw(two, "fleiss", confidence=confidence),
        binary_ac1=gwet_raw(two, "ac1", confidence=confidence),
        alpha_interval=krippendorff_alpha_values_table(table, labels, "interval"),
        alpha_ratio=krippendorff_alpha_values_table(table, labels, "ratio"),
    )


def group_inference(
    complete: np.ndarray,
    every: np.ndarray,
    *,
    complete_grades: np.ndarray,
    labels: Sequence[int],
    pairable: np.ndarray,
    light: tuple[float, int],
    confidence: float = 0.95,
) -> GroupInference:
    """:class:`GroupInference` from the counts of the complete items and of every judged item,
    the complete items' grades (items × assessors, for Conger's κ) on ``labels``, the pairable
    items' counts on ``labels`` (for α) and Light's κ (:func:`~judging.agreement.multi.light_kappa`)."""
    from judging.agreement.multi import conger_kappa, krippendorff_alpha_values

    return GroupInference(
        fleiss_complete=gwet_raw(complete, "fleiss", confidence=confidence),
        ac1_complete=gwet_raw(complete, "ac1", confidence=confidence),
        fleiss_missing=gwet_raw(every, "fleiss", confidence=confidence),
        ac1_missing=gwet_raw(every, "ac1", confidence=confidence),
        fleiss_test=fleiss_null_test(complete),
        missing_items=int(np.count_nonzero(np.asarray(every).sum(axis=1) >= 1)),
        conger=conger_kappa(complete_grades, labels),
        light=light[0],
        light_pairs=light[1],
        alpha_interval=krippendorff_alpha_values(pairable, labels, "interval"),
        alpha_ratio=krippendorff_alpha_values(pairable, labels, "ratio"),
        ac2_linear=gwet_raw(every, "ac1", "linear", confidence=confidence),
        ac2_quadratic=gwet_raw(every, "ac1", "quadratic", confidence=confidence),
        fleiss_linear=gwet_raw(every, "fleiss", "linear", confidence=confidence),
        fleiss_quadratic=gwet_raw(every, "fleiss", "quadratic", confidence=confidence),
    )
