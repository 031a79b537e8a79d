"""A stored pool's diagnostics as plain JSON, for its page and the API (reads only).

Runs and judgments come out of the database through the selectors; every number comes from
:mod:`pooling.diagnostics` (pure). "Judgments" are an imported qrels set, or none: then only what
needs no grades is reported (sizes, contributions, ties).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from campaigns.errors import CampaignDataError
from campaigns.models import QrelsSet
from campaigns.selectors import campaign_rankings, campaign_runs, qrels_set_load
from pooling.diagnostics import (
    DEFAULT_MEASURES,
    Reusability,
    cutoff_ties,
    judged_at_k,
    leave_out_reusability,
    pool_sizes,
    unique_contributions,
)
from pooling.models import Pool
from pooling.selectors import pool_as_core
from pooling.spec import PoolSpec
from trec import Qrels, RankedRun

TIES_SHOWN = 100


def _num(x: float | None) -> float | None:
    """JSON has no NaN: an undefined value is null."""
    return None if x is None or math.isnan(x) else round(float(x), 6)


def _ints(a: np.ndarray | None) -> list[int] | None:
    return None if a is None else [int(v) for v in a.tolist()]


def diagnostics_report(
    *,
    pool: Pool,
    qrels_set: QrelsSet | None = None,
    measures: Sequence[str] | None = None,
    ks: Sequence[int] = (10,),
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    spec = PoolSpec.from_dict(pool.spec)
    core = pool_as_core(pool=pool)
    pooled = {t: core.to_judge(t) for t in core.topics}
    stored_runs = list(campaign_runs(campaign=pool.campaign))
    runs = campaign_rankings(runs=stored_runs, depth=None, progress=progress)
    groups = {r.tag: r.group.name for r in stored_runs if r.group is not None}
    qrels: Qrels | None = qrels_set_load(qrels_set=qrels_set) if qrels_set is not None else None
    level = spec.level

    out: dict[str, Any] = {
        "pool": {"id": pool.pk, "name": pool.name, "strategy": pool.strategy, "spec": pool.spec},
        "judgments": None if qrels_set is None else {"id": qrels_set.pk, "name": qrels_set.name},
    }
    sizes = pool_sizes(pooled, qrels=qrels, level=level)
    out["sizes"] = {
        "topics": list(sizes.topics),
        "pooled": _ints(sizes.pooled),
        "judged": _ints(sizes.judged),
        "relevant": _ints(sizes.relevant),
        "total": sizes.total,
    }
    # a run contributes what it ranks within the depth the strategy read, if the pool kept it
    depth = spec.deepest()
    pooled_runs = [r for r in runs if r.name in set(pool.runs)]
    out["contributions"] = {"run": _contributions(pooled_runs, depth, pooled, None, qrels, level)}
    if groups:
        out["contributions"]["group"] = _contributions(pooled_runs, depth, pooled, groups, qrels, level)
    if spec.strategy == "depth":
        ties = cutoff_ties(
            pooled_runs, {r.name: spec.run_depths.get(r.name, spec.pool_depth) for r in pooled_runs}
        )
        per_run: dict[str, int] = {}
        for tie in ties:
            per_run[tie.run] = per_run.get(tie.run, 0) + 1
        out["ties"] = {
            "count": len(ties),
            "per_run": per_run,
            "shown": [
                {
                    "run": t.run,
                    "topic": t.topic,
                    "depth": t.depth,
                    "score": t.score,
                    "ranks": [t.first_rank, t.last_rank],
                    "inside": list(t.inside),
                    "outside": list(t.outside),
                }
                for t in ties[:TIES_SHOWN]
            ],
        }
    if qrels is None:
        return out
    if progress is not None:
        progress("judged@k", 0, 1)
    judged = judged_at_k(runs, qrels, ks=list(ks))
    out["judged_at_k"] = [
        {
            "run": j.run,
            "k": j.k,
            "trec_eval": _num(j.trec_eval_mean),
            "ir_measures": _num(j.ir_measures_mean),
        }
        for j in judged
    ]
    # a run's unique documents are the ones it alone ranks within the depth the pool read of it:
    # over whole runs, a document another run ranks at 900 would hide every unique contribution
    depths = pool_run_depths(pool=pool, spec=spec)
    try:
        chosen = list(measures or DEFAULT_MEASURES)
        if progress is not None:
            progress("leave-one-run-out", 0, 1)
        by_run = leave_out_reusability(runs, qrels, measures=chosen, depth=depths)
        out["reusability"] = {"run": reusability_json(by_run)}
        if groups:
            if progress is not None:
                progress("leave-one-group-out", 0, 1)
            by_group = leave_out_reusability(
                runs, qrels, measures=chosen, depth=depths, groups=all_grouped(runs, groups)
            )
            out["reusability"]["group"] = reusability_json(by_group)
    except ValueError as exc:
        raise CampaignDataError(str(exc)) from exc
    return out


def pool_run_depths(*, pool: Pool, spec: PoolSpec) -> dict[str, int]:
    """How deep the pool read each pooled run (a run it did not pool contributes nothing): a
    depth pool's per-run depths, else the deepest any part of the strategy read (the campaign's
    limit of documents per topic when it reads whole runs)."""
    if spec.strategy == "depth":
        return {tag: spec.run_depths.get(tag, spec.pool_depth) for tag in pool.runs}
    deepest = spec.deepest() or pool.campaign.max_docs_per_topic
    return {tag: deepest for tag in pool.runs}


def all_grouped(runs: Sequence[RankedRun], groups: dict[str, str]) -> dict[str, str]:
    """Every run in a group: a run without one is its own group."""
    return {r.name: groups.get(r.name, r.name) for r in runs}


def _contributions(
    runs: Sequence[RankedRun],
    depth: int | None,
    pooled: dict[str, list[str]],
    groups: dict[str, str] | None,
    qrels: Qrels | None,
    level: int,
) -> list[dict[str, Any]]:
    if not runs:
        return []
    table = unique_contributions(
        runs,
        depth=depth,
        pool=pooled,
        groups=None if groups is None else all_grouped(runs, groups),
        qrels=qrels,
        level=level,
    )
    return [t._asdict() for t in table.totals()]


def reusability_json(rep: Reusability) -> dict[str, Any]:
    return {
        "removals": [
            {
                "unit": r.unit,
                "runs": list(r.runs),
                "removed": r.removed,
                "removed_judged": r.removed_judged,
                "removed_relevant": r.removed_relevant,
            }
            for r in rep.removals
        ],
        "measures": [
            {
                "measure": name,
                "tau_b": _num(m.tau_b),
                "tau_ap": _num(m.tau_ap),
                "max_drop": _num(m.max_drop),
                "max_drop_run": m.max_drop_run,
                "max_rank_drop": m.max_rank_drop,
                "max_rank_drop_run": m.max_rank_drop_run,
                "runs": [
                    {
                        "run": h.run,
                        "unit": h.unit,
                        "full": _num(h.full),
                        "reduced": _num(h.reduced),
                        "drop": _num(h.drop),
                        "full_rank": h.full_rank,
                        "reduced_rank": h.reduced_rank,
                        "rank_change": h.rank_change,
                    }
                    for h in m.held_out
                ],
            }
            for name, m in rep.measures.items()
        ],
    }
