"""Strategies on real TREC runs (robust05): depth-k against a brute-force union, sample sizes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pooling.strategies import Rankings, depth_pool, stratified_sample, take_pool
from trec.runs import RankedRun, read_run

pytestmark = pytest.mark.refdata


@pytest.fixture(scope="module")
def robust05_runs(refdata: Path) -> list[RankedRun]:
    return [read_run(p) for p in sorted((refdata / "data" / "robust05" / "runs").glob("*.run"))]


def brute_force_union(runs: list[RankedRun], depths: dict[str, int]) -> dict[str, set[str]]:
    """The depth-k pool with sets: each run's top k of each topic by RankedRun.ranking (canonical order)."""
    pool: dict[str, set[str]] = {}
    for run in runs:
        for topic in run.topics:
            pool.setdefault(topic, set()).update(d for d, _ in run.ranking(topic)[: depths[run.name]])
    return pool


@pytest.mark.parametrize("depth", [1, 10, 100, 1000])
def test_depth_pool_equals_the_brute_force_union(robust05_runs: list[RankedRun], depth: int) -> None:
    pool = depth_pool(robust05_runs, depth)
    expected = brute_force_union(robust05_runs, dict.fromkeys((r.name for r in robust05_runs), depth))
    assert {t: set(d) for t, d in pool.as_lists().items()} == expected
    # each document once
    assert all(len(d) == len(set(d)) for d in pool.as_lists().values())


def test_per_run_depths_and_a_subset_of_runs(robust05_runs: list[RankedRun]) -> None:
    chosen = robust05_runs[:4]
    depths = {r.name: 5 + 20 * i for i, r in enumerate(chosen)}
    pool = depth_pool(robust05_runs, 0, run_depths=depths, include=list(depths))
    expected = brute_force_union(chosen, depths)
    assert {t: set(d) for t, d in pool.as_lists().items() if d} == expected


def test_take_of_the_depth_pool_size_is_the_depth_pool(robust05_runs: list[RankedRun]) -> None:
    depth = depth_pool(robust05_runs, 20)
    assert take_pool(robust05_runs, total_budget=len(depth)).as_lists() == depth.as_lists()


def test_stratified_inclusion_probabilities_sum_to_the_sample_size(robust05_runs: list[RankedRun]) -> None:
    pool = stratified_sample(
        Rankings.from_runs(robust05_runs, 100), (10, 30, 100), rates=(1.0, 0.5, 0.1), seed=3
    )
    assert pool.iprobs is not None
    strata = pool.stratum_labels()
    codes = np.repeat(np.arange(len(pool.topics)), np.diff(pool.offsets))
    for t in range(len(pool.topics)):
        for label, rate in ((b"1", 1.0), (b"2", 0.5), (b"3", 0.1)):
            rows = np.flatnonzero((codes == t) & (strata == label))
            n = int(pool.sampled[rows].sum())
            # n_s = N_s * rate rounded half up (at least one); probabilities sum to n_s
            assert n == max(int(np.floor(rate * len(rows) + 0.5)), 1 if len(rows) else 0)
            assert pool.iprobs[rows].sum() == pytest.approx(n)
