"""Sampled pools: uniform sampling of a depth-k pool (infAP), stratified sampling by best rank (xinfAP)
and by a machine assessor's grade.

Each stratum is a fixed-size simple random sample without replacement: n_s of its N_s
documents, every one with inclusion probability n_s / N_s, so the probabilities of a stratum
sum to its sample size exactly. Unsampled documents stay in the pool (``sampled`` False) with
their stratum, because a sample_eval prel lists the whole stratum (Yilmaz, Kanoulas & Aslam 2008).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pooling.strategies.fixed import (
    RunsLike,
    as_rankings,
    pool_from_candidates,
    rank_priority,
    take_in_order,
)
from pooling.strategies.pool import PoolSelection
from pooling.strategies.rankings import Rankings
from trec.qrels import Qrels


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


@dataclass(frozen=True)
class _Design:
    """How much of each stratum to draw: per-stratum ``rates``, or a ``budget`` per topic or a
    ``total_budget`` allocated by ``weights``; and the ``seed`` of the draw."""

    rates: Sequence[float] | None
    budget: int | None
    total_budget: int | None
    weights: Sequence[float] | None
    seed: int | np.random.Generator

    def params(self) -> dict[str, Any]:
        return {
            "rates": None if self.rates is None else [float(r) for r in self.rates],
            "budget": self.budget,
            "total_budget": self.total_budget,
            "weights": None if self.weights is None else [float(x) for x in self.weights],
            "seed": self.seed if isinstance(self.seed, int) else None,
        }


def _draw(
    topic: np.ndarray, stratum: np.ndarray, n_topics: int, n_strata: int, design: _Design
) -> tuple[np.ndarray, np.ndarray]:
    """Which candidates a stratified design draws, and each one's inclusion probability.

    The candidates (``topic``, ``stratum`` codes, in (topic, docno) order) fall into cells of
    one topic and one stratum. Sample sizes come from per-stratum ``rates``
    (:func:`sizes_from_rates`), or from a ``budget`` per topic or a ``total_budget`` over all
    topics, allocated by :func:`allocate` with ``weights`` per stratum (default: uniform, i.e.
    proportional allocation). Each cell is then a simple random sample without replacement of
    its size: candidates get seeded random keys and each cell keeps its n smallest, so every
    candidate of a cell has probability n/N and the draw does not depend on the runs' order.
    """
    rates, budget, total_budget, weights = design.rates, design.budget, design.total_budget, design.weights
    if (rates is None) == (budget is None and total_budget is None):
        raise ValueError("give sampling rates per stratum, or a budget (per topic or total), not both")
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
    rng = _generator(design.seed)
    keys = rng.random(len(cell))
    by_cell = np.lexsort([keys, cell])
    sorted_cell = cell[by_cell]
    pos_in_cell = np.arange(len(cell)) - np.searchsorted(sorted_cell, sorted_cell, side="left")
    sampled = np.empty(len(cell), dtype=bool)
    sampled[by_cell] = pos_in_cell < size[sorted_cell]
    return sampled, size[cell] / np.maximum(population[cell], 1)


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
    rk = as_rankings(runs, depth=int(bounds[-1]), include=include)
    ids, best, votes = rank_priority(rk)
    stratum = np.searchsorted(bounds, best, side="left")
    # judging order: the sample first (best rank, votes, docno), then the unsampled rest
    return _sampled_pool(
        strategy,
        rk,
        (ids, best, votes),
        stratum,
        [str(s + 1) for s in range(n_strata)],
        {"strata": bounds.tolist()},
        _Design(rates, budget, total_budget, weights, seed),
        by_stratum=False,
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


UNGRADED = "ungraded"  # the stratum of candidates the machine did not grade (or could not judge)


def machine_strata(grades: Collection[int]) -> list[str]:
    """Stratum labels of a machine-stratified pool: one per grade, highest first, then the ungraded."""
    return [f"g{g}" for g in sorted(set(grades), reverse=True)] + [UNGRADED]


def machine_grades_of(
    machine: Qrels, topics: Sequence[str], topic: np.ndarray, docnos: np.ndarray
) -> np.ndarray:
    """The machine's grade of each candidate (-1 where it has none), candidates in (topic, docno) order."""
    out = np.full(len(docnos), -1, dtype=np.int64)
    index = machine.topic_index()
    starts = np.searchsorted(topic, np.arange(len(topics) + 1))
    for i, name in enumerate(topics):
        a, b = int(starts[i]), int(starts[i + 1])
        if a < b and name in index:
            out[a:b] = machine.lookup(index[name], docnos[a:b], -1)
    return out


def machine_sample(
    runs: RunsLike,
    machine: Qrels,
    depth: int = 100,
    *,
    grades: Collection[int] | None = None,
    rates: Sequence[float] | None = None,
    budget: int | None = None,
    total_budget: int | None = None,
    weights: Sequence[float] | None = None,
    include: Collection[str] | None = None,
    seed: int | np.random.Generator = 0,
) -> PoolSelection:
    """Stratify the depth-``depth`` pool by a machine assessor's grade and sample each stratum.

    The machine (an LLM judge, say) grades the candidates first; humans then judge a sample
    drawn by the design of :func:`stratified_sample`, with the machine's grade as the stratum
    instead of the best rank: strata ``g<grade>`` for each grade of the scale (``grades``;
    default the grades found in ``machine``), highest first, and ``ungraded`` for candidates
    it has no grade for. ``rates`` (one per stratum in that order) or a ``budget`` with
    ``weights`` decide how much of each stratum humans judge: typically all of what the
    machine calls relevant and a tenth of the rest. Every candidate keeps its stratum and its
    inclusion probability n_s/N_s, so xinfAP/xinfNDCG (and the Horvitz-Thompson estimate of
    the relevant count) over the humans' judgments stay unbiased however wrong the machine is:
    the machine decides where the judging effort goes, never what counts as relevant.

    Judging order: the sample first, by the machine's grade (highest first, ungraded last),
    then best rank, votes and docno; then the unsampled rest.
    """
    if depth < 1:
        raise ValueError("a machine-stratified pool needs a depth of 1 or more")
    rk = as_rankings(runs, depth=depth, include=include)
    ids, best, votes = rank_priority(rk)
    topic = rk.doc_topic[ids]
    graded = machine_grades_of(machine, rk.topics, topic, rk.docnos[ids])
    levels = sorted(set(grades) if grades is not None else {g for g in machine.rels.tolist() if g >= 0})
    if any(g < 0 for g in levels):
        raise ValueError("the scale's grades are 0 or more")
    off_scale = np.flatnonzero((graded >= 0) & ~np.isin(graded, levels))
    if off_scale.size:
        i = int(off_scale[0])
        raise ValueError(
            f"the machine graded document {rk.docnos[ids[i]].decode()} of topic {rk.topics[topic[i]]} "
            f"{int(graded[i])}, which is not a grade of the scale ({', '.join(map(str, levels))})"
        )
    labels = machine_strata(levels)
    n_strata = len(labels)
    # stratum code: the grade's place from the top, the ungraded last
    desc = np.array(sorted(levels, reverse=True), dtype=np.int64)
    stratum = np.full(len(ids), n_strata - 1, dtype=np.int64)
    has = graded >= 0
    stratum[has] = np.searchsorted(-desc, -graded[has])
    return _sampled_pool(
        "machine",
        rk,
        (ids, best, votes),
        stratum,
        labels,
        {"depth": depth, "strata": labels},
        _Design(rates, budget, total_budget, weights, seed),
        by_stratum=True,
    )


def _sampled_pool(
    strategy: str,
    rk: Rankings,
    candidates: tuple[np.ndarray, np.ndarray, np.ndarray],
    stratum: np.ndarray,
    labels: list[str],
    params: dict[str, Any],
    design: _Design,
    *,
    by_stratum: bool,
) -> PoolSelection:
    """The pool of a stratified design: ``candidates`` (ids, best ranks, votes) in strata
    ``stratum`` (codes into ``labels``), drawn by :func:`_draw`. Judging order: the sample
    first (by stratum when ``by_stratum``, then best rank, votes, docno), then the rest."""
    ids, best, votes = candidates
    topic = rk.doc_topic[ids]
    try:
        sampled, iprob = _draw(topic, stratum, len(rk.topics), len(labels), design)
    except ValueError as exc:
        raise ValueError(f"{exc} (strata: {', '.join(labels)})") from exc
    order = [stratum, best, -votes, ids] if by_stratum else [best, -votes, ids]
    kept = take_in_order(topic, (~sampled).astype(np.int64), order)
    return pool_from_candidates(
        strategy,
        rk,
        ids[kept],
        params | design.params(),
        sampled=sampled[kept],
        strata=np.array([x.encode() for x in labels], dtype="S")[stratum[kept]],
        iprobs=iprob[kept],
    )
