"""A pooling strategy with its parameters, as the command line, the pages and the API state it (pure).

One description serves three callers: ``build_pool``/``simulate_pool`` fill it from their options,
the organizer pages and the REST API from a validated form, and a stored pool keeps it (``as_dict``)
so the pool can be rebuilt and its queue resumed. Invalid combinations raise ``ValueError`` with a
sentence the caller shows as it is.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from pooling.strategies import (
    ADAPTIVE,
    FUSIONS,
    STRATEGIES,
    JudgingQueue,
    PoolSelection,
    Rankings,
    depth_pool,
    fusion_pool,
    machine_sample,
    make_queue,
    select_runs,
    stratified_sample,
    take_pool,
    uniform_sample,
)
from trec import RankedRun
from trec.qrels import Qrels

DEFAULT_DEPTH = 100
RunsLike = Sequence[RankedRun] | Rankings


@dataclass(frozen=True)
class PoolSpec:
    """Which strategy, on which runs, with which parameters. Unused parameters keep their defaults.

    ``depth``: depth-k of depth/uniform and the candidates of adaptive queues (default 100); for
    take and the fusions, the deepest rank considered (None: whole runs). ``budget``: judgments per
    topic; ``total_budget``: one budget split over all topics. ``runs_per_group``: pool only each
    group's N runs of best priority. ``machine`` (strategy ``machine``): whose grades stratify
    the pool (the machine assessor's name, or the qrels file of the command line), kept as the
    pool's provenance; ``grades``: the scale's grades, one stratum each (default: the grades the
    machine gave).
    """

    strategy: str
    depth: int | None = None
    run_depths: Mapping[str, int] = field(default_factory=dict)
    runs_per_group: int | None = None
    order: str = "rank"
    budget: int | None = None
    total_budget: int | None = None
    rrf_k: float = 60.0
    rbp_p: float = 0.8
    strata: tuple[int, ...] = (10, 30, 100)
    rates: tuple[float, ...] | None = None
    weights: tuple[float, ...] | None = None
    rate: float | None = None
    warmup: int = 0
    beta: float = 0.1
    level: int = 1
    seed: int = 0
    machine: str | None = None
    grades: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown pooling strategy '{self.strategy}' (one of {', '.join(STRATEGIES)})")
        if self.depth is not None and self.depth < 0:
            raise ValueError(f"the depth is 0 or more, found {self.depth}")
        if self.run_depths and self.strategy != "depth":
            raise ValueError("per-run depths apply to the depth strategy only")
        if any(k < 0 for k in self.run_depths.values()):
            raise ValueError("a run's depth is 0 or more")
        if self.runs_per_group is not None and self.runs_per_group < 1:
            raise ValueError("runs per group is 1 or more")
        for name in ("budget", "total_budget"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"the {name.replace('_', ' ')} is 0 or more, found {value}")

    @property
    def adaptive(self) -> bool:
        return self.strategy in ADAPTIVE

    @property
    def pool_depth(self) -> int:
        """Depth-k of depth/uniform pools and of the adaptive queues' candidates."""
        return DEFAULT_DEPTH if self.depth is None else self.depth

    def deepest(self) -> int | None:
        """The deepest rank the strategy looks at (None: whole runs), so runs can be cut when read."""
        if self.strategy == "depth":
            return max([self.pool_depth, *self.run_depths.values()])
        if self.strategy == "stratified":
            return max(self.strata, default=0)
        if self.strategy in ("uniform", "machine") or self.adaptive:
            return self.pool_depth
        return self.depth

    def included(
        self, names: Sequence[str], groups: Mapping[str, str], priorities: Mapping[str, int]
    ) -> list[str] | None:
        """The runs to pool: all (None), or each group's ``runs_per_group`` best-priority runs."""
        if self.runs_per_group is None:
            return None
        return select_runs(names, groups=groups, priorities=priorities, per_group=self.runs_per_group)

    def build(
        self,
        runs: RunsLike,
        include: Collection[str] | None = None,
        budget: int | None = None,
        *,
        machine_grades: Qrels | None = None,
    ) -> PoolSelection:
        """The pool of a static strategy (``budget`` overrides the spec's per-topic budget).

        ``machine_grades``: the machine assessor's grades, which the ``machine`` strategy needs.
        """
        budget = self.budget if budget is None else budget
        name, total = self.strategy, self.total_budget
        if name == "depth":
            order = self.order
            if order not in ("rank", "docno"):
                raise ValueError(f"unknown judging order '{order}' (rank or docno)")
            return depth_pool(
                runs,
                self.pool_depth,
                run_depths=dict(self.run_depths),
                include=include,
                order="rank" if order == "rank" else "docno",
            )
        if name == "take":
            return take_pool(runs, budget=budget, total_budget=total, depth=self.depth, include=include)
        if name in FUSIONS:
            return fusion_pool(
                runs,
                name,
                budget=budget,
                total_budget=total,
                depth=self.depth,
                include=include,
                rrf_k=self.rrf_k,
                rbp_p=self.rbp_p,
            )
        sampled_budget = budget if (self.rates is None and self.rate is None) else None
        if name == "uniform":
            return uniform_sample(
                runs,
                self.pool_depth,
                rate=self.rate,
                budget=sampled_budget,
                total_budget=total,
                include=include,
                seed=self.seed,
            )
        sampling: dict[str, Any] = {
            "rates": None if self.rates is None else list(self.rates),
            "budget": sampled_budget,
            "total_budget": total,
            "weights": None if self.weights is None else list(self.weights),
            "include": include,
            "seed": self.seed,
        }
        if name == "stratified":
            return stratified_sample(runs, list(self.strata), **sampling)
        if name == "machine":
            if machine_grades is None:
                raise ValueError(
                    "the machine strategy samples by a machine assessor's grades: build it from the "
                    "machine assessor's page (People), or give build_pool --machine-qrels"
                )
            grades = None if self.grades is None else list(self.grades)
            return machine_sample(runs, machine_grades, self.pool_depth, grades=grades, **sampling)
        raise ValueError(f"'{name}' is adaptive: it is a judging queue, not a static pool")

    def queue(self, runs: RunsLike, include: Collection[str] | None = None) -> JudgingQueue:
        """The judging queue of an adaptive strategy (no budget: the pool's owner decides when to stop)."""
        params: dict[str, Any] = {
            "depth": self.pool_depth,
            "warmup": self.warmup,
            "level": self.level,
            "seed": self.seed,
            "include": include,
        }
        if self.strategy == "hedge":
            params["beta"] = self.beta
        return make_queue(self.strategy, runs, **params)

    def as_dict(self) -> dict[str, Any]:
        """JSON-able, without the parameters left at their defaults (``from_dict`` restores them)."""
        default = PoolSpec(self.strategy)
        out: dict[str, Any] = {"strategy": self.strategy}
        for key, value in asdict(self).items():
            if key != "strategy" and value != getattr(default, key):
                out[key] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PoolSpec:
        known = cls.__dataclass_fields__
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError(f"unknown pooling parameter(s): {', '.join(unknown)}")
        values = dict(data)
        for key in ("strata", "rates", "weights", "grades"):
            if values.get(key) is not None:
                values[key] = tuple(values[key])
        return cls(**values)
