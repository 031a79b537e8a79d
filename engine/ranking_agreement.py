"""How alike two rankings of the same systems are, beyond Kendall's tau and tau_AP.

Spearman's rho, rank-biased overlap with its residual, Urbano & Marrero's tau_AP,b for ties, and
the swap rates. Pure numpy/scipy over two score vectors of the same systems, higher score first
(docs/significance.md#rank-correlations-kendall-tau-b-and-tau_ap).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

RBO_P = 0.9  # Webber et al.'s persistence for a top-weighted comparison of short rankings


def _pair(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError("two rankings of the same systems need one score per system in each")
    return a, b


def spearman_rho(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Spearman's ρ: Pearson's correlation of the two mid-rank vectors (scipy ``spearmanr``).

    Ties get their average rank; NaN below two systems or when a ranking is all ties.
    """
    from scipy import stats

    a, b = _pair(x, y)
    if len(a) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    ra, rb = stats.rankdata(a), stats.rankdata(b)
    ra, rb = ra - ra.mean(), rb - rb.mean()
    return float(np.dot(ra, rb) / math.sqrt(np.dot(ra, ra) * np.dot(rb, rb)))


@dataclass(frozen=True)
class RBO:
    """Rank-biased overlap of two rankings seen to depth k, with persistence p.

    ``minimum`` assumes the rankings share nothing below depth k, ``residual`` is how much more
    they could share, so RBO lies in [minimum, minimum + residual]; ``extrapolated`` assumes the
    agreement at depth k goes on (Webber, Moffat & Zobel 2010, eqs. 11, 30 and 32).
    """

    p: float
    depth: int
    minimum: float
    residual: float
    extrapolated: float


def rbo(
    x: Sequence[float] | np.ndarray,
    y: Sequence[float] | np.ndarray,
    names: Sequence[str] | None = None,
    *,
    p: float = RBO_P,
) -> RBO:
    """RBO of the two orderings of the same k systems by score (higher first).

    With X_d the systems both rankings put in their top d and A_d = X_d/d:

        RBO_min = (1 − p)/p · [Σ_{d=1..k} (X_d − X_k) p^d/d − X_k ln(1 − p)]
        RBO_res = p^k − k (1 − p)/p · [−ln(1 − p) − Σ_{d=1..k} p^d/d]      (X_k = k: same systems)
        RBO_ext = (1 − p)/p · Σ_{d=1..k} A_d p^d + A_k p^k

    The two rankings hold the same systems, so X_k = k and RBO_ext = RBO_min + RBO_res (the
    extrapolation assumes full agreement below k). Ties in scores are broken by ``names`` (byte
    order; by position when not given), the same way in both rankings, so RBO is defined with ties.
    """
    a, b = _pair(x, y)
    if not 0 < p < 1:
        raise ValueError("RBO's persistence p must be in (0, 1)")
    k = len(a)
    if k == 0:
        nan = float("nan")
        return RBO(p, 0, nan, nan, nan)
    key = list(names) if names is not None else list(range(k))
    order_a = sorted(range(k), key=lambda i: (-a[i], key[i]))
    order_b = sorted(range(k), key=lambda i: (-b[i], key[i]))
    seen_a, seen_b = np.zeros(k, dtype=bool), np.zeros(k, dtype=bool)
    overlap = np.empty(k)
    common = 0
    for d in range(k):
        i, j = order_a[d], order_b[d]
        common += bool(seen_b[i]) + bool(seen_a[j]) + (i == j)
        seen_a[i] = seen_b[j] = True
        overlap[d] = common
    depths = np.arange(1, k + 1, dtype=np.float64)
    weights = p**depths
    agreement = overlap / depths
    scale = (1 - p) / p
    log_term = -math.log(1 - p)
    minimum = scale * (float(np.sum((overlap - overlap[-1]) * weights / depths)) + overlap[-1] * log_term)
    residual = p**k - k * scale * (log_term - float(np.sum(weights / depths)))
    extrapolated = scale * float(np.sum(agreement * weights)) + agreement[-1] * p**k
    return RBO(p, k, minimum, max(0.0, residual), extrapolated)


def tau_ap_b(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """τ_AP,b of Urbano & Marrero (ICTIR 2017), the AP correlation for rankings with real ties.

    Symmetric: the mean of the two directional terms T(x, y) and T(y, x), where, walking down the
    ranking y, every system i not in y's top tie group compares with the p_i systems y ranks
    strictly above it:

        T(x, y) = 2 / |{i : p_i > 0}| · Σ_{i : p_i > 0} c_i / p_i − 1

    with c_i the number of those p_i systems that x also ranks strictly above i (a pair tied in x
    is not concordant). Without ties it is the mean of τ_AP(x, y) and τ_AP(y, x). NaN below two
    systems or when a ranking is one tie group.
    """
    a, b = _pair(x, y)

    def directional(truth: np.ndarray, ranking: np.ndarray) -> float:
        above = ranking[None, :] > ranking[:, None]  # [i, j]: j strictly above i in the ranking
        p = above.sum(axis=1)
        below = p > 0
        if not below.any():
            return float("nan")
        concordant = (above & (truth[None, :] > truth[:, None])).sum(axis=1)
        return 2.0 / int(below.sum()) * float(np.sum(concordant[below] / p[below])) - 1.0

    if len(a) < 2:
        return float("nan")
    return (directional(a, b) + directional(b, a)) / 2.0


@dataclass(frozen=True)
class SwapRates:
    """Of the pairs of systems, the fraction the two rankings order oppositely.

    ``minimum``: a pair tied in either ranking is no swap; ``mean``: such a pair (tied in one
    ranking, ordered in the other) counts half, the expected swap rate when ties are broken at
    random; a pair tied in both is no swap. Without ties both are (1 − τ_a)/2.
    """

    pairs: int
    swapped: int
    half_tied: int  # tied in exactly one of the rankings
    minimum: float
    mean: float


def swap_rates(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> SwapRates:
    """Swapped system pairs between two rankings (Voorhees & Buckley 2002's swaps, over all pairs)."""
    a, b = _pair(x, y)
    n = len(a)
    pairs = n * (n - 1) // 2
    if pairs == 0:
        return SwapRates(0, 0, 0, float("nan"), float("nan"))
    upper = np.triu(np.ones((n, n), dtype=bool), k=1)
    sa = np.sign(a[:, None] - a[None, :])[upper]
    sb = np.sign(b[:, None] - b[None, :])[upper]
    swapped = int(np.count_nonzero(sa * sb < 0))
    half = int(np.count_nonzero((sa == 0) != (sb == 0)))
    return SwapRates(pairs, swapped, half, swapped / pairs, (swapped + half / 2) / pairs)
