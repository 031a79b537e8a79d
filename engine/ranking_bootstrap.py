"""Bootstrap intervals of Kendall's τ-b and τ_AP between two orderings of the same systems.

The orderings are by mean score over topics; resampling the topics with replacement and
re-ordering gives the spread a τ would have over another sample of topics (percentile interval,
Efron & Tibshirani 1993 §13.3). Pure numpy over runs × topics matrices, vectorised over the
resamples in bounded batches; seeded by the caller's generator (docs/significance.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# At most this many numbers in any intermediate array of a batch (about 16 MB of float64).
_BATCH = 2_000_000


@dataclass(frozen=True)
class RankingCI:
    """Percentile bootstrap intervals of τ-b and τ_AP (first ordering the truth) at ``confidence``.

    ``paired``: both orderings were recomputed on the same resampled topics (same topics in both),
    else each on its own resample. ``undefined``: replicates where τ-b has no value (an ordering
    all ties), left out of its interval.
    """

    tau_b: tuple[float, float]
    tau_ap: tuple[float, float]
    resamples: int
    confidence: float
    paired: bool
    undefined: int


def tau_b_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's τ-b of each row pair (x[r], y[r]) (as scipy's ``kendalltau(variant="b")``).

    τ-b = (C − D) / sqrt(U_x · U_y) with C and D the concordant and discordant pairs of systems
    and U_x, U_y the pairs not tied in x, in y; NaN for a row whose ordering is all ties. Counted
    over ordered pairs (i, j): U_x = #{x_i > x_j}, C = #{x_i > x_j, y_i > y_j} and
    D = U_x − C − #{x_i > x_j, y_i = y_j}.
    """
    x, y = np.atleast_2d(x), np.atleast_2d(y)
    rows, k = x.shape
    out = np.full(rows, np.nan)
    per = max(1, _BATCH // (k * k))
    for start in range(0, rows, per):
        xb, yb = x[start : start + per], y[start : start + per]
        above_x = xb[:, :, None] > xb[:, None, :]
        above_y = yb[:, :, None] > yb[:, None, :]
        untied_x, untied_y = above_x.sum(axis=(1, 2)), above_y.sum(axis=(1, 2))
        concordant = (above_x & above_y).sum(axis=(1, 2))
        tied_y_only = (above_x & (yb[:, :, None] == yb[:, None, :])).sum(axis=(1, 2))
        discordant = untied_x - concordant - tied_y_only
        denominator = np.sqrt(untied_x.astype(np.float64) * untied_y)
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = (concordant - discordant) / denominator
        out[start : start + per] = np.where(denominator > 0, tau, np.nan)
    return out


def tau_ap_rows(truth: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """τ_AP(truth[r], estimate[r]) of each row pair, ties averaged as ``engine.significance.tau_ap``.

    Per system i of a row, with p_i systems strictly above it in the estimate and t_i its tie
    group's size: weight_i = (H(p_i + t_i − 1) − H(max(p_i − 1, 0)))/t_i (the mean of 1/(position − 1)
    over its possible positions, H the harmonic numbers), the pairs inside a tie group add
    ½ · ((t_i − 1) − p_i (H(p_i + t_i − 1) − H(p_i)))/t_i, and a pair tied in the truth counts half.
    """
    x, y = np.atleast_2d(truth), np.atleast_2d(estimate)
    rows, k = x.shape
    out = np.full(rows, np.nan)
    if k < 2:
        return out
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, k + 1))])  # H(0..k)
    per = max(1, _BATCH // (k * k))
    for start in range(0, rows, per):
        xb, yb = x[start : start + per], y[start : start + per]
        higher = yb[:, None, :] > yb[:, :, None]  # [r, i, j]: j strictly above i in the estimate
        above = higher.sum(axis=2)
        tied = (yb[:, None, :] == yb[:, :, None]).sum(axis=2)
        top = harmonic[above + tied - 1]
        weight = (top - harmonic[np.maximum(above - 1, 0)]) / tied
        right = ((xb[:, None, :] > xb[:, :, None]) & higher).sum(axis=2)  # the truth agrees
        half = ((xb[:, None, :] == xb[:, :, None]) & higher).sum(axis=2)  # the truth ties them
        between = np.sum(weight * (right + 0.5 * half), axis=1)
        within = np.sum(0.5 * ((tied - 1) - above * (top - harmonic[above])) / tied, axis=1)
        out[start : start + per] = 2.0 * (between + within) / (k - 1) - 1.0
    return out


def resampled_means(
    scores: np.ndarray, rng: np.random.Generator, resamples: int, decimals: int
) -> np.ndarray:
    """resamples × k: each run's mean over n topics drawn with replacement (the same draw for
    every run), rounded to ``decimals``. Draws ``rng.integers(0, n, size=(rows, n))`` batch by
    batch, which gives the same numbers whatever the batch size."""
    k, n = scores.shape
    out = np.empty((resamples, k))
    per = max(1, _BATCH // (k * n))
    for start in range(0, resamples, per):
        rows = min(per, resamples - start)
        idx = rng.integers(0, n, size=(rows, n))
        # k × rows × n, summed along the last axis: two identical runs get identical means
        out[start : start + rows] = scores[:, idx].mean(axis=2).T
    return np.round(out, decimals)


def rank_correlation_ci(
    truth_scores: np.ndarray,
    other_scores: np.ndarray,
    *,
    paired: bool,
    resamples: int,
    confidence: float,
    rng: np.random.Generator,
    decimals: int,
) -> RankingCI:
    """Percentile bootstrap intervals of τ-b and τ_AP between the runs' orderings by mean score.

    ``truth_scores`` and ``other_scores`` are runs × topics with the runs in the same order.
    ``paired``: the topics are the same, in the same order, in both (two measures, or two qrels
    over the same topics): each replicate draws one topic sample for both orderings. Otherwise
    each ordering is resampled from its own topics, from two independent child streams of ``rng``.
    Replicates where τ-b is undefined are left out of its interval and counted. The resampled
    means are rounded to ``decimals``, as the point estimates' means are.
    """
    x, y = np.asarray(truth_scores, dtype=np.float64), np.asarray(other_scores, dtype=np.float64)
    if x.shape[0] != y.shape[0]:
        raise ValueError("the two orderings must be of the same runs")
    if paired and x.shape != y.shape:
        raise ValueError("a paired bootstrap needs the same topics in both orderings")
    nan2 = (float("nan"), float("nan"))
    if x.shape[0] < 2 or resamples < 1:
        return RankingCI(nan2, nan2, resamples, confidence, paired, 0)
    if paired:
        k = x.shape[0]
        both = resampled_means(np.vstack([x, y]), rng, resamples, decimals)
        mx, my = both[:, :k], both[:, k:]
    else:
        rng_x, rng_y = rng.spawn(2)
        mx, my = (
            resampled_means(x, rng_x, resamples, decimals),
            resampled_means(y, rng_y, resamples, decimals),
        )
    taus_b, taus_ap = tau_b_rows(mx, my), tau_ap_rows(mx, my)
    defined = np.isfinite(taus_b)
    q = [50.0 * (1 - confidence), 50.0 * (1 + confidence)]

    def interval(values: np.ndarray) -> tuple[float, float]:
        if len(values) == 0:
            return nan2
        lo, hi = np.percentile(values, q)
        return float(lo), float(hi)

    return RankingCI(
        interval(taus_b[defined]),
        interval(taus_ap),
        resamples,
        confidence,
        paired,
        int(np.count_nonzero(~defined)),
    )
