"""Coefficients of more than two assessors beyond Fleiss' κ: Light's and Conger's κ, and
Krippendorff's α at the interval and ratio levels (on the grade values, not their positions)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np

from judging.agreement.tables import _coincidence, _table, confusion_matrix

VALUE_LEVELS = ("interval", "ratio")


def _value_delta(values: np.ndarray, level: str) -> np.ndarray:
    """Krippendorff's metric differences δ²_ck on the category values (2004/2013, §12.4)."""
    v = np.asarray(values, dtype=np.float64)
    diff = v[:, None] - v[None, :]
    if level == "interval":
        return diff**2
    if level == "ratio":
        if np.any(v < 0):
            # a ratio scale has a true zero: negative grades (junk as a category) have no ratio α
            return np.full_like(diff, np.nan)
        total = v[:, None] + v[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(diff == 0, 0.0, diff**2 / np.where(total > 0, total, 1.0) ** 2)
    raise ValueError(f"level must be one of {', '.join(VALUE_LEVELS)}, not '{level}'")


def alpha_values(coincidence: np.ndarray, values: Sequence[int], level: str) -> np.ndarray:
    """α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck with δ² of :func:`_value_delta`, for a stack
    of coincidence matrices (any leading axes: topics, bootstrap resamples).

    interval: δ²_ck = (v_c − v_k)²; ratio: δ²_ck = ((v_c − v_k)/(v_c + v_k))², v the grades.
    NaN when fewer than two pairable values, no expected disagreement, or (ratio) a negative grade.
    """
    o = np.asarray(coincidence, dtype=np.float64)
    delta = _value_delta(np.asarray(values), level)
    if not np.all(np.isfinite(delta)):
        return np.full(o.shape[:-2], np.nan)
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    observed = (o * delta).sum(axis=(-2, -1))
    expected = (n_c[..., :, None] * n_c[..., None, :] * delta).sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        value = 1.0 - (n - 1.0) * observed / expected
    return np.where((expected > 0) & (n >= 2), value, np.nan)


def alpha_from_coincidence(coincidence: np.ndarray, values: Sequence[int], level: str) -> float:
    """:func:`alpha_values` of one coincidence matrix."""
    return float(alpha_values(np.asarray(coincidence, dtype=np.float64)[None], values, level)[0])


def krippendorff_alpha_values(
    counts: np.ndarray | Sequence[Sequence[int]], values: Sequence[int], level: str = "interval"
) -> float:
    """Krippendorff's α at the interval or ratio level from units × categories counts
    (:func:`~judging.agreement.tables.rating_counts`; ``values[c]`` is category c's grade)."""
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 2 or c.shape[1] != len(values):
        raise ValueError("counts must be units × categories, one value per category")
    return alpha_from_coincidence(_coincidence(c), values, level)


def krippendorff_alpha_values_table(
    table: np.ndarray | Sequence[Sequence[int]], values: Sequence[int], level: str = "interval"
) -> float:
    """Two coders who both coded every item: coincidences o = T + Tᵀ."""
    t = _table(table)
    return alpha_from_coincidence(t + t.T, values, level)


def conger_kappa(grades: np.ndarray | Sequence[Sequence[int]], labels: Sequence[int]) -> float:
    """Conger's (1980, *Psychol. Bull.* 88:322–328) κ: Cohen's κ generalised to m raters.

    ``grades[i, g]``: rater g's grade of item i, every rater rating every item. P_a as Fleiss'
    (the share of agreeing rater pairs per item, averaged); P_e = Σ_k (p̄_k² − s²_k/m) with p_gk
    rater g's share of category k, p̄_k its mean over the raters and s²_k its variance over the
    raters (divisor m − 1), i.e. the mean over rater pairs of Σ_k p_gk p_hk (Gwet 2014, §2.5).
    With two raters it is Cohen's κ. NaN without items or when P_e = 1.
    """
    g = np.asarray(grades, dtype=np.int64)
    if g.ndim != 2 or g.shape[1] < 2:
        raise ValueError("grades must be items × raters, two raters or more")
    cats = np.asarray(labels, dtype=np.int64)
    n, m = g.shape
    if n == 0:
        return float("nan")
    onehot = (g[:, :, None] == cats[None, None, :]).astype(np.float64)  # items × raters × categories
    if not np.all(onehot.sum(axis=2) == 1):
        raise ValueError(f"a grade is not among the labels {cats.tolist()}")
    r_ik = onehot.sum(axis=1)
    p_a = float(((r_ik * (r_ik - 1.0)).sum(axis=1) / (m * (m - 1.0))).mean())
    p_gk = onehot.mean(axis=0)  # raters × categories
    p_e = float((p_gk.mean(axis=0) ** 2 - p_gk.var(axis=0, ddof=1) / m).sum())
    if 1.0 - p_e < 1e-12:
        return float("nan")
    return (p_a - p_e) / (1.0 - p_e)


def light_kappa(
    grades: np.ndarray, judged: np.ndarray, labels: Sequence[int] | None = None
) -> tuple[float, int]:
    """Light's (1971, *Psychol. Bull.* 76:365–377) κ: the mean of Cohen's κ over the rater pairs,
    each pair on the items both judged; pairs whose κ is undefined are left out. Returns
    (κ, pairs averaged)."""
    from judging.agreement.tables import cohen_kappa

    g, j = np.asarray(grades, dtype=np.int64), np.asarray(judged, dtype=bool)
    values = []
    for a, b in combinations(range(g.shape[1]), 2):
        both = j[:, a] & j[:, b]
        if not both.any():
            continue
        k = cohen_kappa(confusion_matrix(g[both, a], g[both, b], labels).counts).value
        if np.isfinite(k):
            values.append(k)
    return (float(np.mean(values)) if values else float("nan")), len(values)
