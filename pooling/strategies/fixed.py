"""Non-adaptive pools: depth-k, Take@N and the fusion pools (RRF, CombSUM, CombMNZ, Borda, RBP method A).

Every function takes the runs (or prebuilt :class:`Rankings`) and returns a :class:`PoolSelection` whose
per-topic order is the strategy's priority. Budgets are per topic (``budget``) or global
(``total_budget``); see :func:`take_in_order` for how a global budget is split over topics.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from pooling.strategies.pool import PoolSelection
from pooling.strategies.rankings import NO_RANK, Rankings
from trec.runs import RankedRun

RunsLike = Sequence[RankedRun] | Rankings
FUSIONS = ("rrf", "combsum", "combmnz", "borda", "borda-longest", "rbp")


def as_rankings(
    runs: RunsLike,
    *,
    depth: int | None = None,
    run_depths: Mapping[str, int] | None = None,
    include: Collection[str] | None = None,
) -> Rankings:
    """Rankings of the chosen runs cut at their depth (``run_depths`` overrides ``depth`` per run)."""
    if isinstance(runs, Rankings):
        return runs.restrict(runs=include, depth=depth, run_depths=run_depths)
    if include is not None:
        unknown = (set(include) | set(run_depths or {})) - {r.name for r in runs}
        if unknown:
            raise ValueError(f"unknown run(s): {', '.join(sorted(unknown))}")
        runs = [r for r in runs if r.name in include]
        if run_depths:
            run_depths = {k: v for k, v in run_depths.items() if k in include}
    return Rankings.from_runs(runs, depth, run_depths=run_depths)


def select_runs(
    names: Sequence[str],
    *,
    groups: Mapping[str, str] | None = None,
    priorities: Mapping[str, int] | None = None,
    per_group: int = 1,
) -> list[str]:
    """The ``per_group`` top-priority runs of each group, in the order of ``names``.

    TREC asks each group to rank its runs for judging: priority 1 is judged first. A run with no
    group is its own group; a run with no priority comes after those with one; ties go by name.
    """
    if per_group < 1:
        raise ValueError("runs per group must be at least 1")
    groups = groups or {}
    priorities = priorities or {}
    by_group: dict[str, list[str]] = {}
    for name in names:
        by_group.setdefault(groups.get(name, f"\x00{name}"), []).append(name)
    chosen: set[str] = set()
    for members in by_group.values():
        ranked = sorted(members, key=lambda n: (n not in priorities, priorities.get(n, 0), n))
        chosen.update(ranked[:per_group])
    return [n for n in names if n in chosen]


def take_in_order(
    topic: np.ndarray,
    level: np.ndarray,
    tiebreak: Sequence[np.ndarray],
    *,
    budget: int | None = None,
    total_budget: int | None = None,
) -> np.ndarray:
    """Indices of the candidates kept, sorted by (topic, level, *tiebreak).

    Within a topic, candidates are taken by ``level`` (a best rank, or a fused position), ties by
    ``tiebreak``. ``budget`` keeps each topic's first N. ``total_budget`` is split over topics
    level by level: every topic's level-1 candidates come before any level-2 one, and inside one
    level the topics take turns (round robin in byte order of topic id). So a global budget
    equal to the summed sizes of a depth-k pool gives exactly that pool, a topic that runs out
    of candidates leaves its share to the others, and fused pools (one candidate per level)
    get equal shares, the first topics taking the remainder.
    """
    for value in (budget, total_budget):
        if value is not None and value < 0:
            raise ValueError("a budget must be 0 or more")
    order = np.lexsort([*list(tiebreak)[::-1], level, topic])
    t, lv = topic[order], level[order]
    n = len(order)
    idx = np.arange(n)
    new_topic = np.r_[True, t[1:] != t[:-1]] if n else np.zeros(0, dtype=bool)
    pos_in_topic = idx - np.maximum.accumulate(np.where(new_topic, idx, 0)) if n else idx
    keep = np.ones(n, dtype=bool)
    if budget is not None:
        keep &= pos_in_topic < budget
    if total_budget is not None:
        sub = np.flatnonzero(keep)
        st, sl = t[sub], lv[sub]
        j = np.arange(len(sub))
        new_group = np.r_[True, (st[1:] != st[:-1]) | (sl[1:] != sl[:-1])] if len(sub) else j > 0
        within = j - np.maximum.accumulate(np.where(new_group, j, 0)) if len(sub) else j
        turn = np.lexsort([st, within, sl])
        keep[:] = False
        keep[sub[turn[:total_budget]]] = True
    return order[keep]


def pool_from_candidates(
    strategy: str,
    rk: Rankings,
    ids: np.ndarray,
    params: Mapping[str, Any],
    *,
    sampled: np.ndarray | None = None,
    strata: np.ndarray | None = None,
    iprobs: np.ndarray | None = None,
) -> PoolSelection:
    """A PoolSelection of candidate ``ids`` given in judging order within each topic (topics in any order)."""
    by_topic = np.argsort(rk.doc_topic[ids], kind="stable")
    ids = ids[by_topic]
    return PoolSelection(
        strategy=strategy,
        topics=rk.topics,
        offsets=np.searchsorted(rk.doc_topic[ids], np.arange(len(rk.topics) + 1)).astype(np.int64),
        docnos=rk.docnos[ids],
        sampled=np.ones(len(ids), dtype=bool) if sampled is None else sampled[by_topic],
        strata=None if strata is None else strata[by_topic],
        iprobs=None if iprobs is None else iprobs[by_topic],
        params=dict(params),
    )


def rank_priority(rk: Rankings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Candidates present in ``rk`` with their best rank and the votes at that rank."""
    best = rk.best_rank()
    ids = np.flatnonzero(best != NO_RANK)
    return ids, best[ids], rk.votes_at_best(best)[ids]


def depth_pool(
    runs: RunsLike,
    depth: int = 100,
    *,
    run_depths: Mapping[str, int] | None = None,
    include: Collection[str] | None = None,
    order: Literal["rank", "docno"] = "rank",
) -> PoolSelection:
    """Depth-k: the union of each pooled run's top ``depth`` (``run_depths`` per run; ``include`` runs only).

    Judging order ``rank``: by best rank over the pooled runs, then by how many runs put the
    document at that rank (more first), then docno; ``docno``: byte order of docno, TREC's
    practice of hiding the ranks from assessors.
    """
    rk = as_rankings(runs, depth=depth, run_depths=run_depths, include=include)
    ids, best, votes = rank_priority(rk)
    topic = rk.doc_topic[ids]
    if order == "docno":
        kept = take_in_order(topic, np.zeros(len(ids), dtype=np.int64), [ids])
    elif order == "rank":
        kept = take_in_order(topic, best, [-votes, ids])
    else:
        raise ValueError(f"unknown judging order '{order}' (rank or docno)")
    params: dict[str, Any] = {"depth": depth, "order": order, "runs": list(_pooled_names(rk))}
    if run_depths:
        params["run_depths"] = dict(run_depths)
    return pool_from_candidates("depth", rk, ids[kept], params)


def take_pool(
    runs: RunsLike,
    *,
    budget: int | None = None,
    total_budget: int | None = None,
    depth: int | None = None,
    include: Collection[str] | None = None,
) -> PoolSelection:
    """Take@N: documents by best rank over the runs (votes, then docno, break ties) until the budget.

    ``total_budget`` is one budget for the whole campaign, split by :func:`take_in_order`: the
    pool deepens uniformly over all topics, so Take@(size of the depth-k pool) is depth-k.
    """
    if budget is None and total_budget is None:
        raise ValueError("Take@N needs a budget (per topic) or a total budget")
    rk = as_rankings(runs, depth=depth, include=include)
    ids, best, votes = rank_priority(rk)
    kept = take_in_order(rk.doc_topic[ids], best, [-votes, ids], budget=budget, total_budget=total_budget)
    params = {"budget": budget, "total_budget": total_budget, "depth": depth}
    return pool_from_candidates("take", rk, ids[kept], params)


def fused_scores(rk: Rankings, method: str, *, rrf_k: float = 60.0, rbp_p: float = 0.8) -> np.ndarray:
    """Per candidate, its fused score over the entries of ``rk`` (0 for candidates no entry has).

    * ``rrf``: sum of 1 / (k + rank) (Cormack, Clarke & Büttcher 2009; k = 60).
    * ``combsum``: sum of the run's scores min-max normalized per run and topic over the
      considered depth (Fox & Shaw 1994, Lee 1997); a ranking whose scores are all equal gives 1.
    * ``combmnz``: CombSUM times the number of runs retrieving the document.
    * ``borda``: Borda-fuse (Aslam & Montague 2001, "Models for metasearch", SIGIR §3.1; as
      ranx's ``bordafuse``). With n the number of candidates of the topic (the documents any
      considered run retrieved for it within the depth), a run gives its document at rank r
      n - r + 1 points and shares the points left, (n - L) + ... + 1, equally among the n - L
      candidates it did not retrieve (L its length): (n - L + 1) / 2 each. A run with no list
      for the topic gives every candidate (n + 1) / 2, which changes no order.
    * ``borda-longest``: the plain Borda count this workbench used before Borda-fuse: n is the
      longest considered ranking of the topic, so every run's first document is worth the same,
      and a run not retrieving a document gives it 0 (it favours documents many runs retrieve).
    * ``rbp``: sum of RBP weights (1 - p) p^(rank - 1): Moffat, Webber & Zobel (2007), method A.
    """
    rank = rk.rank.astype(np.float64)
    if method == "rrf":
        contrib = 1.0 / (rrf_k + rank)
    elif method == "rbp":
        if not 0 < rbp_p < 1:
            raise ValueError("RBP's persistence p must be in (0, 1)")
        contrib = (1.0 - rbp_p) * rbp_p ** (rank - 1.0)
    elif method == "borda":
        return _borda_fuse(rk)
    elif method == "borda-longest":
        longest = np.zeros(len(rk.topics), dtype=np.int64)
        np.maximum.at(longest, rk.topic, rk.rank)
        contrib = (longest[rk.topic] - rk.rank + 1).astype(np.float64)
    elif method in ("combsum", "combmnz"):
        contrib = _minmax(rk)
    else:
        raise ValueError(f"unknown fusion '{method}' (one of {', '.join(FUSIONS)})")
    fused = np.bincount(rk.doc, weights=contrib, minlength=rk.n_docs)
    if method == "combmnz":
        fused *= rk.retrieved_by()
    return fused


def _borda_fuse(rk: Rankings) -> np.ndarray:
    """Aslam & Montague's Borda-fuse points of every candidate (see :func:`fused_scores`).

    Summed as: each entry's n - r + 1 minus the share its run would have given the document had
    it not retrieved it, plus every run's share to every candidate of the topic.
    """
    ntopics = len(rk.topics)
    candidates = np.bincount(rk.doc_topic, minlength=ntopics).astype(np.float64)
    runs = np.unique(rk.run)
    if len(rk.doc) == 0:
        return np.zeros(rk.n_docs, dtype=np.float64)
    run_pos = np.searchsorted(runs, rk.run)
    counts = np.bincount(run_pos * ntopics + rk.topic, minlength=len(runs) * ntopics)
    lengths = counts.reshape(len(runs), ntopics).astype(np.float64)
    share = (candidates[None, :] - lengths + 1.0) / 2.0  # per (run, topic), to each unretrieved doc
    n = candidates[rk.topic]
    contrib = (n - rk.rank + 1.0) - share[run_pos, rk.topic]
    fused = np.bincount(rk.doc, weights=contrib, minlength=rk.n_docs)
    return fused + share.sum(axis=0)[rk.doc_topic]


def _minmax(rk: Rankings) -> np.ndarray:
    """Scores min-max normalized per (topic, run) segment; entries are in canonical order within one."""
    n = len(rk.doc)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    head = np.r_[True, (rk.topic[1:] != rk.topic[:-1]) | (rk.run[1:] != rk.run[:-1])]
    starts = np.flatnonzero(head)
    ends = np.r_[starts[1:], n] - 1
    seg = np.cumsum(head) - 1
    hi, lo = rk.score[starts][seg], rk.score[ends][seg]
    span = hi - lo
    safe = np.where(span > 0, span, 1.0)
    return np.where(span > 0, (rk.score - lo) / safe, 1.0)


def fusion_pool(
    runs: RunsLike,
    method: str,
    *,
    budget: int | None = None,
    total_budget: int | None = None,
    depth: int | None = None,
    include: Collection[str] | None = None,
    rrf_k: float = 60.0,
    rbp_p: float = 0.8,
) -> PoolSelection:
    """Candidates by fused score (ties: best rank, then docno), each topic's first ``budget``.

    With ``total_budget`` every topic gets an equal share, the first topics in byte order taking
    the remainder and a topic with fewer candidates leaving its share to the others.
    """
    if budget is None and total_budget is None:
        raise ValueError(f"the {method} pool needs a budget (per topic) or a total budget")
    rk = as_rankings(runs, depth=depth, include=include)
    fused = fused_scores(rk, method, rrf_k=rrf_k, rbp_p=rbp_p)
    ids, best, _ = rank_priority(rk)
    topic = rk.doc_topic[ids]
    ranked = np.lexsort([ids, best, -fused[ids], topic])
    # the level of a candidate is its fused position within its own topic
    first_of_topic = np.searchsorted(topic[ranked], topic[ranked], side="left")
    position = np.empty(len(ids), dtype=np.int64)
    position[ranked] = np.arange(len(ids)) - first_of_topic
    kept = take_in_order(topic, position, [], budget=budget, total_budget=total_budget)
    params: dict[str, Any] = {"budget": budget, "total_budget": total_budget, "depth": depth}
    if method == "rrf":
        params["k"] = rrf_k
    if method == "rbp":
        params["p"] = rbp_p
    return pool_from_candidates(method, rk, ids[kept], params)


def _pooled_names(rk: Rankings) -> list[str]:
    present = np.unique(rk.run)
    return [rk.run_names[i] for i in present.tolist()]
