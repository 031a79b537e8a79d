"""The core trec_eval 10.0 measures, each matching trec_eval's own C source to the last bit we can.

Names, parameters and aggregation follow ``trec_eval -m all_trec``. Each kernel's docstring gives
its formula, source and exact variant. Relevant means ``rel >= level`` (``-l``, default 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.measures.base import CUTOFFS, INFAP_EPSILON, NONPOOL, Context, Family, register, total

__all__ = ["CUTOFFS", "ideal_dcg"]


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(len(num), dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _num_q(ctx: Context, _: Any) -> np.ndarray:
    """num_q: the number of topics evaluated (printed only as the 'all' value)."""
    return np.ones(ctx.ntopics)


def _num_ret(ctx: Context, _: Any) -> np.ndarray:
    """num_ret: documents retrieved for the topic (after -M and -J); 'all' is the sum."""
    return ctx.lengths.astype(np.float64)


def _num_rel(ctx: Context, _: Any) -> np.ndarray:
    """num_rel: judged documents with rel >= level in the qrels; 'all' is the sum."""
    return ctx.num_rel()


def _num_rel_ret(ctx: Context, _: Any) -> np.ndarray:
    """num_rel_ret: retrieved documents with rel >= level; 'all' is the sum."""
    sums = ctx.sums
    return sums.rel_ret if sums is not None else ctx.seg_count(ctx.is_rel)


def _map(ctx: Context, _: Any) -> np.ndarray:
    """map (AP): (1/R) Σ over relevant retrieved docs at rank k of (relevant in top k)/k.

    trec_eval ``m_map.c``; R counts every judged relevant doc, so unretrieved ones add 0.
    A topic with R = 0 scores 0.
    """
    sums = ctx.sums  # the same sum, compiled (Context.sums)
    if sums is not None:
        return _safe_div(sums.ap, ctx.num_rel())
    prec = ctx.rel_ordinal / ctx.rel_rank  # relevant in the top k / k, at each relevant rank k
    return _safe_div(ctx.rel_sum(prec), ctx.num_rel())


def _precision(ctx: Context, k: int) -> np.ndarray:
    """P_k: relevant in the top k divided by k; missing ranks count as non-relevant (``m_P.c``)."""
    counted = ctx.sums.rel_at(int(k)) if ctx.sums is not None else None
    if counted is not None:
        return counted / float(k)
    top = ctx.rel_segment[ctx.rel_rank <= int(k)]
    return np.bincount(top, minlength=ctx.ntopics)[: ctx.ntopics].astype(np.float64) / float(k)


def _rprec(ctx: Context, _: Any) -> np.ndarray:
    """Rprec: precision at rank R (R = number of relevant); 0 when R = 0 (``m_Rprec.c``)."""
    R = ctx.stats.num_rel.astype(np.int64)
    if ctx.sums is not None:
        return _safe_div(ctx.sums.rel_at_R, R.astype(np.float64))
    idx = np.minimum(ctx.offsets[:-1] + R, ctx.offsets[1:]) - 1
    got = np.zeros(ctx.ntopics)
    ok = (ctx.lengths > 0) & (R > 0)
    got[ok] = ctx.cum_rel[idx[ok]]
    return _safe_div(got, R.astype(np.float64))


def _recip_rank(ctx: Context, _: Any) -> np.ndarray:
    """recip_rank: 1 / rank of the first relevant document, 0 if none (``m_recip_rank.c``)."""
    first = ctx.sums.first if ctx.sums is not None else ctx.first(ctx.is_rel)
    return _safe_div(np.ones(ctx.ntopics), first)


def _dcg(ctx: Context, k: int | None) -> np.ndarray:
    """Per topic, Σ grade / log2(rank + 1) over the documents with a grade > 0 (ranks <= k)."""
    sums = ctx.sums
    if sums is not None:
        got = sums.dcg if k is None else sums.dcg_at(k)
        if got is not None:
            return got
    if ctx.level == 1 and ctx.rel.dtype.kind in "iu":  # integers: rel > 0 is rel >= 1, cached
        pos, seg, rank = ctx.rel_positions, ctx.rel_segment, ctx.rel_rank
    else:
        pos = np.flatnonzero(ctx.rel > 0)
        seg = np.searchsorted(ctx.offsets, pos, side="right") - 1
        rank = pos - ctx.offsets[seg] + 1
    if k is not None:
        keep = rank <= k
        pos, seg, rank = pos[keep], seg[keep], rank[keep]
    terms = ctx.rel[pos].astype(np.float64) / np.log2(rank + 1.0)
    return np.bincount(seg, weights=terms, minlength=ctx.ntopics)[: ctx.ntopics]


def ideal_dcg(gains_desc: np.ndarray, k: int | None = None) -> float:
    """Σ g_i / log2(i + 1) over the ideal ranking (grades descending), optionally cut at rank k."""
    g = gains_desc if k is None else gains_desc[:k]
    if len(g) == 0:
        return 0.0
    return float(np.sum(g / np.log2(np.arange(2, len(g) + 2, dtype=np.float64))))


def _ideal(ctx: Context, k: int | None) -> np.ndarray:
    """Per evaluated topic, the ideal DCG (cut at k); computed once per judgments, not per run."""
    judgments, aligned = ctx.extra.get("judgments"), ctx.extra.get("aligned")
    if judgments is None or aligned is None:
        return np.array([ideal_dcg(g, k) for g in ctx.stats.ideal_gains], dtype=np.float64)
    key = ("trec_eval.ideal_dcg", k)
    if key not in judgments.cache:
        # ideal gains are judged grades > 0 whatever the level, so any level's stats will do
        gains = judgments.stats(ctx.level).ideal_gains
        judgments.cache[key] = np.array([ideal_dcg(g, k) for g in gains], dtype=np.float64)
    ideal: np.ndarray = judgments.cache[key][aligned.qrels_index]
    return ideal


def _ndcg(ctx: Context, _: Any) -> np.ndarray:
    """ndcg: DCG / ideal DCG, gain = the raw grade (linear), discount log2(rank + 1).

    trec_eval ``m_ndcg.c`` (Järvelin & Kekäläinen 2002): the ideal ranking holds every judged
    document of the topic (not truncated at the run's length); ``-l`` is ignored.
    """
    return _safe_div(_dcg(ctx, None), _ideal(ctx, None))


def _ndcg_cut(ctx: Context, k: int) -> np.ndarray:
    """ndcg_cut_k: DCG of the top k over the ideal DCG of the top k (``m_ndcg_cut.c``)."""
    return _safe_div(_dcg(ctx, int(k)), _ideal(ctx, int(k)))


def _bpref(ctx: Context, _: Any) -> np.ndarray:
    """bpref (Buckley & Voorhees 2004, trec_eval >= 8.0 ``m_bpref.c``).

    (1/R) Σ over retrieved relevant r of [1 − min(n_r, R)/min(N, R)], n_r = judged non-relevant
    docs ranked above r; a term with n_r = 0 is 1 (so N = 0 gives 1). Unjudged and unpooled
    docs are skipped; unretrieved relevant docs add 0.
    """
    if ctx.sums is not None:
        return _safe_div(ctx.sums.bpref, ctx.num_rel())
    nonrel_above = ctx.nonrel_above
    R = ctx.stats.num_rel[ctx.rel_segment].astype(np.float64)
    N = ctx.stats.num_nonrel[ctx.rel_segment].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(nonrel_above > 0, 1.0 - np.minimum(nonrel_above, R) / np.minimum(N, R), 1.0)
    return _safe_div(ctx.rel_sum(term), ctx.num_rel())


def _infap(ctx: Context, _: Any) -> np.ndarray:
    """infAP (Yilmaz & Aslam 2006) exactly as trec_eval ``m_infap.c`` (ε = 0.00001, prior 1/2).

    For a relevant doc at 0-based position j: j = 0 gives 1; otherwise
    1/(j+1) + (j/(j+1)) · (pooled_above/j) · (rel_above + ε)/(rel_above + nonrel_above + 2ε),
    pooled_above counting judged and pooled-unjudged docs above. infAP = Σ / R.
    """
    if ctx.sums is not None:
        return _safe_div(ctx.sums.infap, ctx.num_rel())
    rel_above = ctx.rel_ordinal - 1
    nonrel_above = ctx.nonrel_above
    pooled_above = ctx.before_rel(ctx.rel != NONPOOL)
    fj = (ctx.rel_rank - 1).astype(np.float64)
    ra = rel_above.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (pooled_above / fj) * (
            (ra + INFAP_EPSILON) / (ra + nonrel_above + 2 * INFAP_EPSILON)
        )
    term = np.where(fj == 0, 1.0, term)
    return _safe_div(ctx.rel_sum(term), ctx.num_rel())


register(Family("runid", _num_q, "the run's name (printed as the 'all' value only)", per_topic=False))
register(Family("num_q", _num_q, _num_q.__doc__ or "", aggregate=total, integer=True, per_topic=False))
register(Family("num_ret", _num_ret, _num_ret.__doc__ or "", aggregate=total, integer=True))
register(Family("num_rel", _num_rel, _num_rel.__doc__ or "", aggregate=total, integer=True))
register(Family("num_rel_ret", _num_rel_ret, _num_rel_ret.__doc__ or "", aggregate=total, integer=True))
register(Family("map", _map, _map.__doc__ or ""))
register(Family("Rprec", _rprec, _rprec.__doc__ or ""))
register(Family("bpref", _bpref, _bpref.__doc__ or ""))
register(Family("recip_rank", _recip_rank, _recip_rank.__doc__ or ""))
register(Family("P", _precision, _precision.__doc__ or "", params=CUTOFFS, param_kind="long_cutoffs"))
register(Family("infAP", _infap, _infap.__doc__ or ""))
register(Family("ndcg", _ndcg, _ndcg.__doc__ or ""))
register(Family("ndcg_cut", _ndcg_cut, _ndcg_cut.__doc__ or "", params=CUTOFFS, param_kind="long_cutoffs"))
