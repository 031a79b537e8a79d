"""Pooling strategies, pure and seeded: static pools, sampled pools, adaptive judging queues (no Django)."""

from pooling.strategies.adaptive import (
    ADAPTIVE,
    Hedge,
    JudgingQueue,
    MaxMean,
    MoveToFront,
    Thompson,
    make_queue,
)
from pooling.strategies.fixed import (
    FUSIONS,
    as_rankings,
    depth_pool,
    fused_scores,
    fusion_pool,
    select_runs,
    take_pool,
)
from pooling.strategies.pool import PoolSelection, StratumCount, stratum_key
from pooling.strategies.rankings import Rankings, truncate
from pooling.strategies.registry import STATIC, STRATEGIES, make_pool
from pooling.strategies.sampling import (
    UNGRADED,
    allocate,
    machine_sample,
    machine_strata,
    sizes_from_rates,
    stratified_sample,
    uniform_sample,
)
from pooling.strategies.simulate import Simulation, candidate_sizes, per_topic_budgets, simulate

__all__ = [
    "ADAPTIVE",
    "FUSIONS",
    "STATIC",
    "STRATEGIES",
    "UNGRADED",
    "Hedge",
    "JudgingQueue",
    "MaxMean",
    "MoveToFront",
    "PoolSelection",
    "Rankings",
    "Simulation",
    "StratumCount",
    "Thompson",
    "allocate",
    "as_rankings",
    "candidate_sizes",
    "depth_pool",
    "fused_scores",
    "fusion_pool",
    "machine_sample",
    "machine_strata",
    "make_pool",
    "make_queue",
    "per_topic_budgets",
    "select_runs",
    "simulate",
    "sizes_from_rates",
    "stratified_sample",
    "stratum_key",
    "take_pool",
    "truncate",
    "uniform_sample",
]
