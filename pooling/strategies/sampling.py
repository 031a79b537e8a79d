"""Sampled pools: uniform sampling of a depth-k pool (infAP) and stratified sampling by best rank (xinfAP).

Each stratum is a fixed-size simple random sample without replacement: n_s of its N_s
documents, every one with inclusion probability n_s / N_s, so the probabilities of a stratum
sum to its sample size exactly. Unsampled documents stay in the pool (``sampled`` False) with
their stratum, because a sample_eval prel lists the whole stratum (Yilmaz, Kanoulas & Aslam 2008).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from pooling.strategies.fixed import (
    RunsLike,
    as_rankings,
    pool_from_candidates,
    rank_priority,
    take_in_order,
)
from pooling.strategies.pool import PoolSelection


def _generator(seed: int | np.random.Generator) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _round_half_up(x: np.ndarray) -> np.ndarray:
    return np.floor(x + 0.5).astype(np.int64)


def sizes_from_rates(population: np.ndarray, rates: np.ndarray) -> np.ndarray:
    """n = rate x N rounded half up, but at least one document from a non-empty stratum of positive rate.

    The floor of one keeps every stratum of the design represented, which its estimator needs.
    """
    n = _round_half_up(rates * population)
    n = np.where((rates > 0) & (population > 0), np.maximum(n, 1), n)
    return np.minimum(n, population)


def allocate(population: np.ndarray, weights: np.ndarray, budget: int) -> np.ndarray:
    """Integer sample sizes summing to min(budget, sum N): n_i proportional to w_i N_i, capped at N_i.

    Water-filling: find c with sum min(N_i, c w_i N_i) = budget (cells whose cap binds are
    filled and the rest share what is left), then round by largest remainder, ties to the
    earlier cell. Uniform weights give proportional allocation, i.e. one sampling rate.
    """
    if budget < 0:
        raise ValueError("a budget must be 0 or more")
    population = np.asarray(population, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    if (weights < 0).any():
        raise ValueError("stratum weights must be 0 or more")
    live = (weights > 0) & (population > 0)
    target = min(budget, int(population[live].sum()))
    share = np.zeros(len(population), dtype=np.float64)
    full = np.zeros(len(population), dtype=bool)
    while target > 0:
        free = live & ~full
        left = target - population[full].sum()
        demand = (weights * population)[free].sum()
        if demand <= 0:
            break
        c = left / demand
        newly = free & (c * weights >= 1.0)
        if not newly.any():
            share[free] = c * weights[free] * population[free]
            break
        full |= newly
    share[full] = population[full]
    n = np.floor(share + 1e-9).astype(np.int64)
    short = target - int(n.sum())
    if short > 0:
        room = np.flatnonzero(live & (n < population))
        frac = (share - n)[room]
        pick = room[np.lexsort([room, -frac])][:short]
        n[pick] += 1
    return n


def stratified_sample(
    runs: RunsLike,
    strata: Sequence[int] = (10, 30, 100),
    *,
    rates: Sequence[float] | None = None,
    budget: int | None = None,
    total_budget: int | None = None,
    weights: Sequence[float] | None = None,
    include: Collection[str] | None = None,
    seed: int | np.random.Generator = 0,
    strategy: str = "stratified",
) -> PoolSelection:
    """Stratify the depth-``strata[-1]`` pool by best rank and sample each stratum.

    ``strata`` are the last ranks of the strata: (10, 30, 100) means ranks 1-10, 11-30, 31-100,
    labelled "1", "2", "3". Sample sizes come from per-stratum ``rates`` (see
    :func:`sizes_from_rates`), or from a ``budget`` per topic or a ``total_budget`` over all
    topics, allocated by :func:`allocate` with ``weights`` per stratum (default: the rates if
    given, else uniform). The draw is seeded and independent of the order of the runs:
    candidates get random keys in (topic, docno) order and each stratum keeps its n_s smallest.
    """
    bounds = np.asarray(list(strata), dtype=np.int64)
    if len(bounds) == 0 or (bounds < 1).any() or (np.diff(bounds) <= 0).any():
        raise ValueError("strata are increasing last ranks, e.g. 10,30,100")
    n_strata = len(bounds)
    if (rates is None) == (budget is None and total_budget is None):
        raise ValueError("give sampling rates per stratum, or a budget (per topic or total), not both")
    rk = as_rankings(runs, depth=int(bounds[-1]), include=include)
    ids, best, votes = rank_priority(rk)
    topic = rk.doc_topic[ids]
    stratum = np.searchsorted(bounds, best, side="left")
    n_topics = len(rk.topics)
    cell = topic * n_strata + stratum
    population = np.bincount(cell, minlength=n_topics * n_strata).astype(np.int64)
    if rates is not None:
        rate = np.asarray(list(rates), dtype=np.float64)
        if len(rate) != n_strata or (rate < 0).any() or (rate > 1).any():
            raise ValueError(f"give {n_strata} rates between 0 and 1, one per stratum")
        size = sizes_from_rates(population, np.tile(rate, n_topics))
    else:
        w = np.asarray(list(weights) if weights is not None else [1.0] * n_strata, dtype=np.float64)
        if len(w) != n_strata:
            raise ValueError(f"give {n_strata} weights, one per stratum")
        cell_w = np.tile(w, n_topics)
        size = np.zeros_like(population)
        if budget is not None:
            for t in range(n_topics):
                cells = slice(t * n_strata, (t + 1) * n_strata)
                size[cells] = allocate(population[cells], cell_w[cells], budget)
        if total_budget is not None:
            cap = size if budget is not None else population
            size = allocate(cap, cell_w, total_budget)
    rng = _generator(seed)
    keys = rng.random(len(ids))
    by_cell = np.lexsort([keys, cell])
    sorted_cell = cell[by_cell]
    pos_in_cell = np.arange(len(ids)) - np.searchsorted(sorted_cell, sorted_cell, side="left")
    sampled = np.empty(len(ids), dtype=bool)
    sampled[by_cell] = pos_in_cell < size[sorted_cell]
    iprob = size[cell] / np.maximum(population[cell], 1)
    # judging order: the sample first (best rank, votes, docno), then the unsampled rest
    kept = take_in_order(topic, (~sampled).astype(np.int64), [best, -votes, ids])
    labels = np.array([str(s + 1).encode() for s in range(n_strata)], dtype="S")
    params = {
        "strata": bounds.tolist(),
        "rates": None if rates is None else [float(r) for r in rates],
        "budget": budget,
        "total_budget": total_budget,
        "weights": None if weights is None else [float(x) for x in weights],
        "seed": seed if isinstance(seed, int) else None,
    }
    return pool_from_candidates(
        strategy,
        rk,
        ids[kept],
        params,
        sampled=sampled[kept],
        strata=labels[stratum[kept]],
        iprobs=iprob[kept],
    )


def uniform_sample(
    runs: RunsLike,
    depth: int = 100,
    *,
    rate: float | None = None,
    budget: int | None = None,
    total_budget: int | None = None,
    include: Collection[str] | None = None,
    seed: int | np.random.Generator = 0,
) -> PoolSelection:
    """A simple random sample of each topic's depth-k pool (infAP, Yilmaz & Aslam 2006): one stratum."""
    return stratified_sample(
        runs,
        (depth,),
        rates=None if rate is None else [rate],
        budget=budget,
        total_budget=total_budget,
        include=include,
        seed=seed,
        strategy="uniform",
    )
