"""Agreement statistics of one confusion matrix (two assessors) or one units × categories count matrix.

Pure numpy/scipy (docs/agreement.md#overview). The private kernels take stacks of tables (any leading batch
axes) so that per-topic tables and thousands of bootstrap resamples go through one call; the
public wrappers check one table and return NamedTuples. A statistic that is undefined (no items,
P_e = 1 because a single category was used, D_e = 0) is NaN, never an exception.

Categories are the positions of ``labels`` (sorted grades): weights and Krippendorff's ordinal
metric use those positions or their frequencies, never the grade values themselves, as
scikit-learn's ``cohen_kappa_score`` does with ``labels``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

WEIGHTS = ("none", "linear", "quadratic")
LEVELS = ("nominal", "ordinal")
# 1 − P_e below this is taken as 0: κ = 0/0 is undefined, not ±huge from rounding noise.
_EPS = 1e-12
# Relative rounding allowance of a difference of sums of O(q²) terms (see _cohen_parts).
_ULPS = 1024 * np.finfo(np.float64).eps


class Confusion(NamedTuple):
    """``counts[i, j]``: items that assessor A labelled ``labels[i]`` and assessor B ``labels[j]``."""

    labels: tuple[int, ...]
    counts: np.ndarray


class Kappa(NamedTuple):
    """A chance-corrected agreement (P_o − P_e)/(1 − P_e) with its parts.

    ``se`` and the asymptotic CI are NaN where no large-sample formula is implemented.
    """

    value: float
    p_o: float
    p_e: float
    se: float = float("nan")
    ci_low: float = float("nan")
    ci_high: float = float("nan")


class Overlap(NamedTuple):
    """Voorhees (2000) overlap |R_A ∩ R_B| / |R_A ∪ R_B|; NaN when neither found anything relevant."""

    intersection: int
    union: int
    value: float


class Binary(NamedTuple):
    """The graded table collapsed at ``threshold`` (relevant = grade ≥ threshold), as TREC reports κ.

    ``counts`` is 2 × 2: index 0 = not relevant (grade < threshold), 1 = relevant; rows assessor A.
    κ (with its SE and CI), pooled κ and AC1 are those of that table (:func:`binary_agreement`).
    """

    threshold: int
    counts: np.ndarray
    n: int
    p_o: float
    cohen: Kappa
    pooled: Kappa
    ac1: Kappa


class TableAgreement(NamedTuple):
    """Every two-assessor statistic of one confusion matrix (see :func:`table_agreement`)."""

    labels: tuple[int, ...]
    counts: np.ndarray
    n: int
    p_o: float
    cohen: Kappa
    linear: Kappa
    quadratic: Kappa
    pooled: Kappa
    ac1: Kappa
    alpha_nominal: float
    alpha_ordinal: float
    overlap: Overlap
    binary: Binary


# --------------------------------------------------------------------------- building tables


def confusion_matrix(
    a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray, labels: Sequence[int] | None = None
) -> Confusion:
    """Cross-tabulate two assessors' grades of the same items (``a[i]`` and ``b[i]`` label item i).

    ``labels`` defaults to the sorted union of the grades seen; a grade outside ``labels`` is an error.
    """
    x, y = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("confusion_matrix needs two 1-d arrays of the same length")
    cats = np.unique(np.concatenate([x, y])) if labels is None else np.asarray(labels, dtype=np.int64)
    if cats.size and np.any(np.diff(cats) <= 0):
        raise ValueError("labels must be strictly increasing")
    q = len(cats)
    ix, iy = np.searchsorted(cats, x), np.searchsorted(cats, y)
    for idx, values in ((ix, x), (iy, y)):
        bad = (idx >= q) | (cats[np.minimum(idx, max(q - 1, 0))] != values) if q else idx >= 0
        if np.any(bad):
            raise ValueError(f"grade {int(values[np.argmax(bad)])} is not among the labels {cats.tolist()}")
    counts = np.bincount(ix * q + iy, minlength=q * q).reshape(q, q) if q else np.zeros((0, 0), np.int64)
    return Confusion(tuple(int(c) for c in cats), counts.astype(np.int64))


def rating_counts(grades: np.ndarray, judged: np.ndarray, labels: Sequence[int]) -> np.ndarray:
    """Units × categories counts ``n_uc`` (how many assessors put unit u in category c).

    ``grades`` and ``judged`` are units × assessors; unjudged cells are ignored. This is the input
    of :func:`fleiss_kappa` and :func:`krippendorff_alpha`.
    """
    cats = np.asarray(labels, dtype=np.int64)
    g, mask = np.asarray(grades, dtype=np.int64), np.asarray(judged, dtype=bool)
    units = np.broadcast_to(np.arange(g.shape[0])[:, None], g.shape)[mask]
    pos = np.searchsorted(cats, g[mask])
    if np.any(pos >= len(cats)) or np.any(cats[np.minimum(pos, len(cats) - 1)] != g[mask]):
        raise ValueError(f"a grade is not among the labels {cats.tolist()}")
    out = np.zeros((g.shape[0], len(cats)), dtype=np.int64)
    np.add.at(out, (units, pos), 1)
    return out


def agreement_weights(q: int, kind: str = "none") -> np.ndarray:
    """Cohen's (1968) agreement weights on category positions i, j = 0..q−1.

    none: 1 if i = j else 0; linear: 1 − |i − j|/(q − 1); quadratic: 1 − (i − j)²/(q − 1)².
    With two categories all three coincide; with one, the weight is 1.
    """
    if kind not in WEIGHTS:
        raise ValueError(f"weights must be one of {', '.join(WEIGHTS)}, not '{kind}'")
    i = np.arange(q)
    d = np.abs(i[:, None] - i[None, :]).astype(np.float64)
    if kind == "none" or q < 2:
        return (d == 0).astype(np.float64)
    return 1.0 - (d / (q - 1) if kind == "linear" else d**2 / (q - 1) ** 2)


# --------------------------------------------------------------------------- kernels (batched)


def _proportions(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """p = table/n over the last two axes (NaN where n = 0) and n."""
    t = np.asarray(tables, dtype=np.float64)
    n = t.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = t / n[..., None, None]
    return p, n


def _if_items(n: np.ndarray, *parts: np.ndarray) -> tuple[np.ndarray, ...]:
    """NaN where a table is empty: sums over no cells would otherwise read as P_o = P_e = 0."""
    return tuple(np.where(n > 0, x, np.nan) for x in parts)


def _corrected(p_o: np.ndarray, p_e: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (p_o - p_e) / (1.0 - p_e)
    return np.where(1.0 - p_e > _EPS, value, np.nan)


def _cohen_parts(tables: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted P_o = Σ w_ij p_ij, P_e = Σ w_ij p_i. p_.j, and the Fleiss–Cohen–Everitt variance."""
    p, n = _proportions(tables)
    row, col = p.sum(axis=-1), p.sum(axis=-2)
    p_o = (p * w).sum(axis=(-2, -1))
    p_e = np.einsum("...i,ij,...j->...", row, w, col)
    kappa = _corrected(p_o, p_e)
    w_row = np.einsum("ij,...j->...i", w, col)  # w̄_i. = Σ_j p_.j w_ij
    w_col = np.einsum("...i,ij->...j", row, w)  # w̄_.j = Σ_i p_i. w_ij
    k = kappa[..., None, None]
    spread = (p * (w - (w_row[..., :, None] + w_col[..., None, :]) * (1.0 - k)) ** 2).sum(axis=(-2, -1))
    centre = (kappa - p_e * (1.0 - kappa)) ** 2
    # The numerator is a difference of two sums of a few terms each. Where the variance is 0 in
    # exact arithmetic (perfect agreement, a table with a single off-diagonal pattern) the
    # floating-point difference is a few ulps either side of 0, and its square root would print
    # as an SE of ~1e-8: a difference within rounding of its terms is taken as exactly 0.
    numerator = spread - centre
    numerator = np.where(np.abs(numerator) <= _ULPS * (np.abs(spread) + centre), 0.0, numerator)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = numerator / (n * (1.0 - p_e) ** 2)
    p_o, p_e, var = _if_items(n, p_o, p_e, var)
    return p_o, p_e, np.maximum(var, 0.0)


def _scott_parts(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p, n = _proportions(tables)
    pooled = (p.sum(axis=-1) + p.sum(axis=-2)) / 2.0
    p_o, p_e = _if_items(n, np.trace(p, axis1=-2, axis2=-1), (pooled**2).sum(axis=-1))
    return p_o, p_e


def _ac1_parts(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p, n = _proportions(tables)
    q = p.shape[-1]
    pooled = (p.sum(axis=-1) + p.sum(axis=-2)) / 2.0
    p_o = np.trace(p, axis1=-2, axis2=-1)
    # one category: chance agreement is certain and AC1 undefined
    p_e = np.ones_like(p_o) if q < 2 else (pooled * (1.0 - pooled)).sum(axis=-1) / (q - 1)
    p_o, p_e = _if_items(n, p_o, p_e)
    return p_o, p_e


def _alpha(coincidence: np.ndarray, level: str) -> np.ndarray:
    """Krippendorff's α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck from coincidence matrices."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not '{level}'")
    o = np.asarray(coincidence, dtype=np.float64)
    q = o.shape[-1]
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    i = np.arange(q)
    if level == "nominal":
        delta = np.broadcast_to((i[:, None] != i[None, :]).astype(np.float64), o.shape)
    else:
        # ordinal: δ_ck = Σ_{g=c..k} n_g − (n_c + n_k)/2 over the categories between c and k
        lo, hi = np.minimum(i[:, None], i[None, :]), np.maximum(i[:, None], i[None, :])
        cum = np.cumsum(n_c, axis=-1)
        between = cum[..., hi] - cum[..., lo] + n_c[..., lo]
        delta = (between - (n_c[..., :, None] + n_c[..., None, :]) / 2.0) ** 2
    observed = (o * delta).sum(axis=(-2, -1))
    expected = (n_c[..., :, None] * n_c[..., None, :] * delta).sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        value = 1.0 - (n - 1.0) * observed / expected
    return np.where((expected > 0) & (n >= 2), value, np.nan)


def _coincidence(counts: np.ndarray) -> np.ndarray:
    """Krippendorff's coincidence matrix o_ck = Σ_u (n_uc n_uk − [c = k] n_uc)/(m_u − 1), m_u ≥ 2."""
    c = np.asarray(counts, dtype=np.float64)
    m = c.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        weight = np.where(m >= 2, 1.0 / (m - 1.0), 0.0)
    pairs = np.einsum("...uc,...uk,...u->...ck", c, c, weight)
    diag = np.einsum("...uc,...u->...c", c, weight)
    return pairs - diag[..., :, None] * np.eye(c.shape[-1])


def _fleiss_parts(
    items: np.ndarray, agreement_sum: np.ndarray, totals: np.ndarray, raters: int
) -> tuple[np.ndarray, np.ndarray]:
    """Fleiss' P̄ and P̄_e from N items, Σ_i P_i and the category totals Σ_i n_ij (m raters per item)."""
    items = np.asarray(items, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_bar = agreement_sum / items
        p_j = np.asarray(totals, dtype=np.float64) / (items[..., None] * raters)
    p_bar, p_e = _if_items(items, p_bar, (p_j**2).sum(axis=-1))
    return p_bar, p_e


def _fleiss_sums(counts: np.ndarray, raters: int) -> tuple[int, float, np.ndarray]:
    """N, Σ_i P_i with P_i = (Σ_j n_ij² − m)/(m(m − 1)), and the category totals."""
    c = np.asarray(counts, dtype=np.float64)
    agree = ((c**2).sum(axis=-1) - raters) / (raters * (raters - 1.0))
    return int(c.shape[0]), float(agree.sum()), c.sum(axis=0)


def _overlap_counts(tables: np.ndarray, relevant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(tables)
    inter = t[..., relevant, :][..., :, relevant].sum(axis=(-2, -1))
    neither = t[..., ~relevant, :][..., :, ~relevant].sum(axis=(-2, -1))
    return inter, t.sum(axis=(-2, -1)) - neither


def _binarized(tables: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """k × q × q tables summed into k × 2 × 2 ones: index 0 not relevant, 1 relevant."""
    t = np.asarray(tables)
    side = relevant.astype(np.int64)
    out = np.zeros((*t.shape[:-2], 2, 2), dtype=t.dtype)
    for i in (0, 1):
        for j in (0, 1):
            out[..., i, j] = t[..., side == i, :][..., :, side == j].sum(axis=(-2, -1))
    return out


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


# --------------------------------------------------------------------------- public wrappers


def _table(table: np.ndarray | Sequence[Sequence[int]]) -> np.ndarray:
    t = np.asarray(table)
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise ValueError(f"a confusion matrix must be square, got shape {t.shape}")
    if t.size and (np.any(t < 0) or not np.all(np.isfinite(t))):
        raise ValueError("a confusion matrix holds non-negative counts")
    return t.astype(np.float64)


def _wald(value: float, se: float, z: float, low: float = -1.0, high: float = 1.0) -> tuple[float, float]:
    """value ± z·SE, clipped to the statistic's range [low, high] (κ and its kin: [−1, 1])."""
    # np.clip keeps NaN (an undefined κ) NaN, where max()/min() would return the bound
    return float(np.clip(value - z * se, low, high)), float(np.clip(value + z * se, low, high))


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be between 0 and 1")
    # imported here: scipy.stats costs about 0.45 s to import, which every process loading the
    # Django apps (every manage.py command, every worker) would otherwise pay
    from scipy import stats

    return float(stats.norm.ppf(0.5 + confidence / 2.0))


def cohen_kappa(
    table: np.ndarray | Sequence[Sequence[int]], weights: str = "none", *, confidence: float = 0.95
) -> Kappa:
    """Cohen's κ (1960) and weighted κ_w (1968) with the large-sample SE of Fleiss, Cohen & Everitt (1969).

    κ_w = (P_o − P_e)/(1 − P_e), P_o = Σ w_ij p_ij, P_e = Σ w_ij p_i. p_.j with each assessor's own
    marginals and agreement weights ``weights`` (:func:`agreement_weights`; "none" is plain κ).
    SE² = [Σ p_ij (w_ij − (w̄_i. + w̄_.j)(1 − κ))² − (κ − P_e(1 − κ))²] / (n (1 − P_e)²),
    w̄_i. = Σ_j p_.j w_ij, w̄_.j = Σ_i p_i. w_ij: the non-null variance (FCE 1969; it is the
    delta method on the multinomial), not Cohen's 1960 approximation P_o(1 − P_o)/(n(1 − P_e)²).
    CI = κ ± z·SE (Wald), clipped to [−1, 1], κ's range. An SE that is 0 in exact arithmetic
    (perfect agreement) is 0, not the square root of rounding noise. NaN when n = 0 or P_e = 1.
    """
    t = _table(table)
    p_o, p_e, var = _cohen_parts(t, agreement_weights(t.shape[0], weights))
    value = float(_corrected(p_o, p_e))
    se = float(np.sqrt(var)) if np.isfinite(value) else float("nan")
    return Kappa(value, float(p_o), float(p_e), se, *_wald(value, se, _z(confidence)))


def pooled_kappa(table: np.ndarray | Sequence[Sequence[int]]) -> Kappa:
    """Pooled κ of Manning, Raghavan & Schütze, *Introduction to IR* §8.5 (= Scott's π, 1955).

    P_o = Σ p_ii; P_e = Σ_k π_k² with π_k = (p_k. + p_.k)/2, the marginals pooled over both
    assessors; equal to Fleiss' κ for two raters. No SE (NaN): use the topic bootstrap.
    """
    p_o, p_e = _scott_parts(_table(table))
    return Kappa(float(_corrected(p_o, p_e)), float(p_o), float(p_e))


def gwet_ac1(table: np.ndarray | Sequence[Sequence[int]]) -> Kappa:
    """Gwet's AC1 (Gwet 2008, *Br. J. Math. Stat. Psychol.* 61:29–48), unweighted.

    P_o = Σ p_ii; P_e = Σ_k π_k(1 − π_k)/(q − 1), π_k = (p_k. + p_.k)/2, q = number of labels of
    the table (the whole scale when ``labels`` were given). NaN with one category; unlike κ it is
    defined (and 1) when both assessors used one category of a larger scale. No SE.
    """
    p_o, p_e = _ac1_parts(_table(table))
    return Kappa(float(_corrected(p_o, p_e)), float(p_o), float(p_e))


def krippendorff_alpha_table(table: np.ndarray | Sequence[Sequence[int]], level: str = "nominal") -> float:
    """Krippendorff's α for two coders who both coded every item: coincidences o = T + Tᵀ.

    α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck (n = 2·items pairable values; Krippendorff,
    *Content Analysis*, 2004/2013, §12). nominal: δ² = [c ≠ k]; ordinal: δ²_ck =
    (Σ_{g=c..k} n_g − (n_c + n_k)/2)², Krippendorff's ordinal metric on the category ranks.
    """
    t = _table(table)
    return float(_alpha(t + t.T, level))


def krippendorff_alpha(counts: np.ndarray | Sequence[Sequence[int]], level: str = "nominal") -> float:
    """Krippendorff's α for any number of coders with missing values, from units × categories counts.

    ``counts[u, c]`` = coders who put unit u in category c (:func:`rating_counts`). Units with
    fewer than two values are not pairable and drop out, as Krippendorff prescribes. Coincidences
    o_ck = Σ_u (n_uc n_uk − [c = k] n_uc)/(m_u − 1); then α as in :func:`krippendorff_alpha_table`.
    """
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 2:
        raise ValueError("counts must be units × categories")
    return float(_alpha(_coincidence(c), level))


def fleiss_kappa(counts: np.ndarray | Sequence[Sequence[int]]) -> Kappa:
    """Fleiss' κ (Fleiss 1971, *Psychol. Bull.* 76:378–382) for m raters per item.

    ``counts[i, j]`` = raters who put item i in category j; every row must sum to the same m ≥ 2.
    P_i = (Σ_j n_ij² − m)/(m(m − 1)), P̄ = mean P_i, p_j = Σ_i n_ij/(N m), P̄_e = Σ_j p_j²,
    κ = (P̄ − P̄_e)/(1 − P̄_e). No SE (Fleiss' 1971 variance holds only under κ = 0).
    """
    c = np.asarray(counts, dtype=np.int64)
    if c.ndim != 2:
        raise ValueError("counts must be items × categories")
    m = c.sum(axis=1)
    if len(m) == 0:
        return Kappa(float("nan"), float("nan"), float("nan"))
    if np.any(m != m[0]) or m[0] < 2:
        raise ValueError("Fleiss' kappa needs the same number (at least 2) of raters for every item")
    n, agree, totals = _fleiss_sums(c, int(m[0]))
    p_bar, p_e = _fleiss_parts(np.asarray(n), np.asarray(agree), totals, int(m[0]))
    return Kappa(float(_corrected(p_bar, p_e)), float(p_bar), float(p_e))


def overlap(
    table: np.ndarray | Sequence[Sequence[int]], labels: Sequence[int], threshold: int = 1
) -> Overlap:
    """Voorhees (2000, *IP&M* 36:697–716) overlap of the relevant sets, relevant = grade ≥ ``threshold``.

    Over the shared items of the table: |R_A ∩ R_B| / |R_A ∪ R_B|; NaN when the union is empty.
    """
    t = np.asarray(_table(table), dtype=np.int64)
    relevant = np.asarray(labels, dtype=np.int64) >= threshold
    if len(relevant) != t.shape[0]:
        raise ValueError("one label per row of the table")
    inter, union = _overlap_counts(t, relevant)
    return Overlap(int(inter), int(union), float(_ratio(inter, union)))


def binary_agreement(
    table: np.ndarray | Sequence[Sequence[int]],
    labels: Sequence[int],
    threshold: int = 1,
    *,
    confidence: float = 0.95,
) -> Binary:
    """Cohen's κ (with SE and CI), pooled κ and AC1 of the labels binarized at ``threshold``.

    Relevant = grade ≥ ``threshold``: the q × q table is summed into the 2 × 2 table of
    (A relevant?, B relevant?), and :func:`cohen_kappa`, :func:`pooled_kappa` and :func:`gwet_ac1`
    are taken of it (AC1 with q = 2). TREC's assessor studies report this binary κ. When one
    side of the threshold is empty for both assessors, κ and pooled κ are NaN (P_e = 1).
    """
    t = np.asarray(_table(table), dtype=np.int64)
    relevant = np.asarray(labels, dtype=np.int64) >= threshold
    if len(relevant) != t.shape[0]:
        raise ValueError("one label per row of the table")
    two = _binarized(t, relevant)
    return Binary(
        threshold=int(threshold),
        counts=two,
        n=int(two.sum()),
        p_o=float(_scott_parts(two.astype(np.float64))[0]),
        cohen=cohen_kappa(two, confidence=confidence),
        pooled=pooled_kappa(two),
        ac1=gwet_ac1(two),
    )


def table_agreement(
    table: np.ndarray | Sequence[Sequence[int]],
    labels: Sequence[int] | None = None,
    *,
    threshold: int = 1,
    confidence: float = 0.95,
) -> TableAgreement:
    """All two-assessor statistics of one table; ``labels`` default to 0..q−1 (rows = assessor A).

    ``threshold`` (relevant = grade ≥ threshold) sets the overlap and the binarized block
    (:func:`binary_agreement`)."""
    t = _table(table)
    cats = tuple(range(t.shape[0])) if labels is None else tuple(int(x) for x in labels)
    return table_agreements(t[None], cats, threshold=threshold, confidence=confidence)[0]


def table_agreements(
    tables: np.ndarray, labels: Sequence[int], *, threshold: int = 1, confidence: float = 0.95
) -> list[TableAgreement]:
    """:func:`table_agreement` of each table of a stack (k × q × q), computed in one batch."""
    t = np.asarray(tables, dtype=np.int64)
    cats = tuple(int(x) for x in labels)
    if t.ndim != 3 or t.shape[1] != t.shape[2] or t.shape[1] != len(cats):
        raise ValueError(
            f"expected k × {len(cats)} × {len(cats)} tables (one label per category), got {t.shape}"
        )
    z = _z(confidence)
    n = t.sum(axis=(-2, -1))
    cols = {kind: _cohen_parts(t, agreement_weights(len(cats), kind)) for kind in WEIGHTS}
    scott, ac1 = _scott_parts(t), _ac1_parts(t)
    nominal, ordinal = (_alpha(t + np.swapaxes(t, -1, -2), level) for level in LEVELS)
    relevant = np.asarray(cats, dtype=np.int64) >= threshold
    inter, union = _overlap_counts(t, relevant)
    ratio = _ratio(inter, union)
    two = _binarized(t, relevant)
    binary_cols = _cohen_parts(two, agreement_weights(2, "none"))
    binary_scott, binary_ac1 = _scott_parts(two), _ac1_parts(two)

    def cohen_of(parts: tuple[np.ndarray, np.ndarray, np.ndarray], i: int) -> Kappa:
        p_o, p_e, var = (float(x[i]) for x in parts)
        value = float(_corrected(np.asarray(p_o), np.asarray(p_e)))
        se = float(np.sqrt(var)) if np.isfinite(value) else float("nan")
        return Kappa(value, p_o, p_e, se, *_wald(value, se, z))

    def plain(parts: tuple[np.ndarray, np.ndarray], i: int) -> Kappa:
        p_o, p_e = float(parts[0][i]), float(parts[1][i])
        return Kappa(float(_corrected(np.asarray(p_o), np.asarray(p_e))), p_o, p_e)

    return [
        TableAgreement(
            labels=cats,
            counts=t[i],
            n=int(n[i]),
            p_o=float(cols["none"][0][i]),
            cohen=cohen_of(cols["none"], i),
            linear=cohen_of(cols["linear"], i),
            quadratic=cohen_of(cols["quadratic"], i),
            pooled=plain(scott, i),
            ac1=plain(ac1, i),
            alpha_nominal=float(nominal[i]),
            alpha_ordinal=float(ordinal[i]),
            overlap=Overlap(int(inter[i]), int(union[i]), float(ratio[i])),
            binary=Binary(
                threshold=int(threshold),
                counts=two[i],
                n=int(n[i]),
                p_o=float(binary_cols[0][i]),
                cohen=cohen_of(binary_cols, i),
                pooled=plain(binary_scott, i),
                ac1=plain(binary_ac1, i),
            ),
        )
        for i in range(len(t))
    ]
