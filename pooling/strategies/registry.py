"""Strategies by name, for callers that take the name from a form, an API call or a command line."""

from __future__ import annotations

from typing import Any

from pooling.strategies.adaptive import ADAPTIVE
from pooling.strategies.fixed import FUSIONS, RunsLike, depth_pool, fusion_pool, take_pool
from pooling.strategies.pool import PoolSelection
from pooling.strategies.sampling import machine_sample, stratified_sample, uniform_sample

STATIC = ("depth", "take", *FUSIONS, "uniform", "stratified", "machine")
STRATEGIES = (*STATIC, *ADAPTIVE)


def make_pool(strategy: str, runs: RunsLike, **params: Any) -> PoolSelection:
    """The pool of a static strategy; ``params`` are that strategy function's keyword arguments.

    ``make_pool("depth", runs, depth=100)`` is ``depth_pool(runs, depth=100)``; a fusion name
    (rrf, combsum, combmnz, borda, rbp) goes to :func:`fusion_pool`. Adaptive strategies are
    queues: see :func:`pooling.strategies.adaptive.make_queue`.
    """
    if strategy == "depth":
        return depth_pool(runs, **params)
    if strategy == "take":
        return take_pool(runs, **params)
    if strategy in FUSIONS:
        return fusion_pool(runs, strategy, **params)
    if strategy == "uniform":
        return uniform_sample(runs, **params)
    if strategy == "stratified":
        return stratified_sample(runs, **params)
    if strategy == "machine":  # params: machine=<the machine's grades as Qrels>, depth, rates...
        return machine_sample(runs, **params)
    if strategy in ADAPTIVE:
        raise ValueError(f"'{strategy}' is adaptive: build a judging queue with make_queue")
    raise ValueError(f"unknown pooling strategy '{strategy}' (one of {', '.join(STRATEGIES)})")
