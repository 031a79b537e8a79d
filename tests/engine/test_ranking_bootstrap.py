"""Bootstrap intervals of Kendall's τ-b and τ_AP between two orderings of the same systems: the
vectorised replicates equal scipy's kendalltau and the scalar τ_AP, and the interval equals a plain
loop over the same resampled topics."""

from __future__ import annotations

import math
import time
import tracemalloc

import numpy as np
import pytest
from scipy import stats

from engine.ranking_bootstrap import rank_correlation_ci, tau_ap_rows, tau_b_rows
from engine.significance import DECIMALS, ScoreMatrix, rank_correlation, tau_ap


def _rows_with_ties(rng: np.random.Generator, rows: int, k: int) -> np.ndarray:
    return np.round(rng.random((rows, k)), 1)  # tenths: ties in most rows


def test_tau_b_rows_equal_scipy_kendalltau_row_by_row() -> None:
    rng = np.random.default_rng(1)
    for k in (2, 3, 7, 15):
        x, y = _rows_with_ties(rng, 200, k), _rows_with_ties(rng, 200, k)
        x[0] = 0.5  # an ordering that is all ties: τ-b undefined
        got = tau_b_rows(x, y)
        assert math.isnan(got[0])
        want = [stats.kendalltau(a, b, variant="b").statistic for a, b in zip(x[1:], y[1:], strict=True)]
        assert np.allclose(got[1:], want, atol=1e-12, equal_nan=True)


def test_tau_ap_rows_equal_the_scalar_tau_ap_with_ties_row_by_row() -> None:
    rng = np.random.default_rng(2)
    for k in (2, 3, 6, 12):
        x, y = _rows_with_ties(rng, 150, k), _rows_with_ties(rng, 150, k)
        got = tau_ap_rows(x, y)
        want = [tau_ap(a, b) for a, b in zip(x, y, strict=True)]
        assert np.allclose(got, want, atol=1e-12)
    # without ties, the hand values of docs/significance.md: a swap at the top costs more
    truth = np.array([[4.0, 3.0, 2.0, 1.0]] * 2)
    assert tau_ap_rows(truth, np.array([[3.0, 4.0, 2.0, 1.0], [4.0, 3.0, 1.0, 2.0]])) == pytest.approx(
        [1 / 3, 7 / 9]
    )


def _loop_ci(
    x: np.ndarray, y: np.ndarray, resamples: int, seed: int, confidence: float
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The paired bootstrap written out plainly: one topic sample per replicate, scipy's τ-b."""
    rng = np.random.default_rng(seed)
    n = x.shape[1]
    idx = rng.integers(0, n, size=(resamples, n))
    taus_b, taus_ap = [], []
    for row in idx:
        mx, my = np.round(x[:, row].mean(axis=1), DECIMALS), np.round(y[:, row].mean(axis=1), DECIMALS)
        taus_b.append(stats.kendalltau(mx, my, variant="b").statistic)
        taus_ap.append(tau_ap(mx, my))
    q = [50 * (1 - confidence), 50 * (1 + confidence)]
    lo_b, hi_b = np.percentile(np.array(taus_b)[np.isfinite(taus_b)], q)
    lo_ap, hi_ap = np.percentile(taus_ap, q)
    return (float(lo_b), float(hi_b)), (float(lo_ap), float(hi_ap))


def test_paired_interval_equals_a_plain_loop_over_the_same_resampled_topics() -> None:
    rng = np.random.default_rng(3)
    k, n = 8, 25
    topic = rng.beta(1, 2, n)
    x = np.clip(topic + np.linspace(0, 0.1, k)[:, None] + rng.normal(0, 0.08, (k, n)), 0, 1)
    y = np.clip(x + rng.normal(0, 0.05, (k, n)), 0, 1)  # a second measure, correlated per topic
    got = rank_correlation_ci(
        x, y, paired=True, resamples=400, confidence=0.9, rng=np.random.default_rng(7), decimals=DECIMALS
    )
    want_b, want_ap = _loop_ci(x, y, 400, 7, 0.9)
    assert got.tau_b == pytest.approx(want_b, abs=1e-12)
    assert got.tau_ap == pytest.approx(want_ap, abs=1e-12)
    assert (got.resamples, got.paired, got.undefined) == (400, True, 0)
    assert got.tau_b[0] < got.tau_b[1] and -1 <= got.tau_ap[0] <= got.tau_ap[1] <= 1


def test_the_interval_is_seeded_and_does_not_depend_on_the_batch_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import engine.ranking_bootstrap as rb

    rng = np.random.default_rng(4)
    x, y = rng.random((6, 20)), rng.random((6, 20))
    first = rank_correlation_ci(
        x, y, paired=True, resamples=300, confidence=0.95, rng=np.random.default_rng(1), decimals=DECIMALS
    )
    again = rank_correlation_ci(
        x, y, paired=True, resamples=300, confidence=0.95, rng=np.random.default_rng(1), decimals=DECIMALS
    )
    assert first == again
    monkeypatch.setattr(rb, "_BATCH", 500)  # many small batches
    small = rank_correlation_ci(
        x, y, paired=True, resamples=300, confidence=0.95, rng=np.random.default_rng(1), decimals=DECIMALS
    )
    assert small == first
    other = rank_correlation_ci(
        x, y, paired=True, resamples=300, confidence=0.95, rng=np.random.default_rng(2), decimals=DECIMALS
    )
    assert other != first


def test_orderings_over_different_topics_are_resampled_independently() -> None:
    rng = np.random.default_rng(5)
    x, y = rng.random((5, 12)), rng.random((5, 9))
    got = rank_correlation_ci(
        x, y, paired=False, resamples=200, confidence=0.95, rng=np.random.default_rng(3), decimals=DECIMALS
    )
    # the two orderings draw from two independent child streams of the generator
    gx, gy = np.random.default_rng(3).spawn(2)
    ix, iy = gx.integers(0, 12, size=(200, 12)), gy.integers(0, 9, size=(200, 9))
    taus = [
        stats.kendalltau(
            np.round(x[:, a].mean(axis=1), DECIMALS), np.round(y[:, b].mean(axis=1), DECIMALS)
        ).statistic
        for a, b in zip(ix, iy, strict=True)
    ]
    assert got.paired is False
    assert got.tau_b == pytest.approx(tuple(np.percentile(taus, [2.5, 97.5])), abs=1e-12)


def test_undefined_replicates_are_left_out_and_counted() -> None:
    # two runs that differ on one topic of ten: a resample missing it ties them (τ-b undefined)
    x = np.vstack([np.full(10, 0.5), np.r_[0.9, np.full(9, 0.5)]])
    got = rank_correlation_ci(
        x, x, paired=True, resamples=500, confidence=0.95, rng=np.random.default_rng(0), decimals=DECIMALS
    )
    # P(topic 1 missing from a resample) = 0.9^10 = 0.349: about 174 of 500
    assert 130 <= got.undefined <= 220
    assert got.tau_b == (1.0, 1.0)  # every defined replicate orders the two runs alike
    # τ_AP is defined on every replicate: 1, or 0 where both orderings tie the two runs (the
    # expectation over breaking each tie at random)
    assert got.tau_ap == (0.0, 1.0)


def test_identical_orderings_far_apart_give_the_point_interval_at_one() -> None:
    x = np.vstack([np.full(15, v) for v in (0.1, 0.4, 0.7)]) + np.linspace(0, 0.01, 15)
    got = rank_correlation_ci(
        x, x, paired=True, resamples=200, confidence=0.95, rng=np.random.default_rng(0), decimals=DECIMALS
    )
    assert got.tau_b == (1.0, 1.0) and got.tau_ap == (1.0, 1.0)


def test_rank_correlation_carries_the_interval_when_given_a_generator() -> None:
    rng = np.random.default_rng(6)
    topics = tuple(f"t{j}" for j in range(15))
    runs = ("a", "b", "c", "d")
    x = rng.random((4, 15))
    truth = ScoreMatrix("map", runs, topics, x)
    # the other matrix lists the runs and the topics in other orders: both are matched by name
    order = [2, 0, 3, 1]
    perm = rng.permutation(15)
    other = ScoreMatrix(
        "P_10", tuple(runs[i] for i in order), tuple(topics[j] for j in perm), (x + 0.01)[order][:, perm]
    )
    plain = rank_correlation(truth, other, "map", "P_10")
    assert plain.ci is None
    got = rank_correlation(
        truth, other, "map", "P_10", resamples=300, confidence=0.95, rng=np.random.default_rng(9)
    )
    assert got.ci is not None and got.ci.paired
    # the same orderings shifted by 0.01 on every topic: identical in every resample
    assert got.tau_b == pytest.approx(1.0) and got.ci.tau_b == (1.0, 1.0) and got.ci.tau_ap == (1.0, 1.0)


def test_many_runs_stay_fast_and_small() -> None:
    # 100 runs x 50 topics x 10,000 resamples: vectorised in bounded batches
    rng = np.random.default_rng(7)
    x = rng.random((100, 50)) + np.linspace(0, 0.3, 100)[:, None]
    y = x + rng.normal(0, 0.05, x.shape)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        got = rank_correlation_ci(
            x,
            y,
            paired=True,
            resamples=10_000,
            confidence=0.95,
            rng=np.random.default_rng(0),
            decimals=DECIMALS,
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    elapsed = time.perf_counter() - started
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MB"
    assert elapsed < 60, f"{elapsed:.1f} s"
    assert 0 < got.tau_b[0] < got.tau_b[1] < 1
