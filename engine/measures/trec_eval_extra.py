"""The rest of trec_eval 10.0's ``-m all_trec``: gm_*, iprec_at_recall, recall, Rprec_mult, utility, G, ...

Each kernel reproduces the named ``m_*.c`` file of trec_eval 10.0, quirks included (each quirk is
named in the docstring and pinned by a test). Families are registered at the place trec_eval
prints them (``measures.c``), so ``all_trec`` lists them in trec_eval's order. ``relstring`` is a
string, not a number: :func:`relstrings` computes it for the output layer, which prints it after
``P`` (see :data:`RELSTRING_AFTER`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from engine.measures.base import (
    NONPOOL,
    RECALL_LEVELS,
    UNJUDGED,
    Context,
    Family,
    geometric_mean,
    register,
    total,
)
from engine.measures.trec_eval import CUTOFFS, _bpref, _map, _ndcg, _safe_div

RPREC_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
UTILITY_COEFFICIENTS = (1.0, -1.0, 0.0, 0.0)  # m_utility.c: rel-ret, nonrel-ret, rel-unret, nonrel-unret
SUCCESS_CUTOFFS = (1, 5, 10)
UNJ_CUTOFFS = (5, 10, 20)
SET_F_BETA = 1.0
RBP_P = 0.9
RELSTRING_LENGTH = 10
RELSTRING_AFTER = "P"  # trec_eval prints relstring between P_k and recall_k

Param = Any


# ---------------------------------------------------------------- shared helpers


def _cum_at(ctx: Context, cum: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Per topic, ``cum`` at rank k[t] (its last value when the list is shorter; 0 if k or the list is 0)."""
    k = np.asarray(k, dtype=np.int64)
    idx = np.minimum(ctx.offsets[:-1] + k, ctx.offsets[1:]) - 1
    out = np.zeros(ctx.ntopics, dtype=np.float64)
    ok = (ctx.lengths > 0) & (k > 0)
    out[ok] = cum[idx[ok]]
    return out


def _count_in_top(ctx: Context, mask: np.ndarray, k: int) -> np.ndarray:
    return ctx.at_cutoff(ctx.seg_cumsum(mask), int(k))


def _num_rel_ret(ctx: Context) -> np.ndarray:
    return ctx.seg_count(ctx.is_rel)


def _not_in_run(ctx: Context) -> np.ndarray:
    """Topics the run has no line for (evaluated only under ``-c``): trec_eval zeroes some measures there."""
    aligned = ctx.extra.get("aligned")
    if aligned is None:
        return np.zeros(ctx.ntopics, dtype=bool)
    return np.asarray(aligned.full_lengths) == 0


def _lround(x: np.ndarray) -> np.ndarray:
    """C's ``lround`` for x >= 0: halves round up (Python's ``round`` would round them to even)."""
    fl = np.floor(x)
    return (fl + (x - fl >= 0.5)).astype(np.int64)


def _trunc_plus_09(x: np.ndarray) -> np.ndarray:
    """trec_eval 9's ``(long) (x + 0.9)``, still used by ``m_Rprec_mult.c`` in 10.0."""
    return np.floor(x + 0.9).astype(np.int64)


def _pairs(param: Param, measure: str) -> dict[str, float]:
    """``name=value`` parameters (trec_eval ``-m G.1=3.5,2=9``; ir_measures ``(p=0.8)``) as a dict."""
    if param is None:
        return {}
    out: dict[str, float] = {}
    for item in param:
        if not (isinstance(item, tuple) and len(item) == 2):
            raise ValueError(f"{measure}: parameters must be name=value pairs, got {item!r}")
        out[str(item[0])] = float(item[1])
    return out


def _custom_gains(param: Param, measure: str) -> dict[int, float]:
    """Gain overrides ``level=gain``; other names are ignored, as ``gain_init.c``'s ``valid_int`` does."""
    gains = {}
    for name, value in _pairs(param, measure).items():
        try:
            gains[int(name)] = value
        except ValueError:
            continue
    return gains


def _doc_gains(ctx: Context, custom: dict[int, float]) -> np.ndarray:
    """The gain of every ranked doc: its grade (or the override); unjudged and unpooled docs gain 0."""
    g = np.where(ctx.rel >= 0, ctx.rel, 0).astype(np.float64)
    for level, gain in custom.items():
        if level >= 0:
            g[ctx.rel == level] = gain
    return g


def _ideal(ctx: Context, custom: dict[int, float]) -> tuple[np.ndarray, np.ndarray]:
    """Every topic's ideal ranking (its judged docs of positive gain, best first), concatenated, with offsets.

    trec_eval (``gain_init.c`` setup_gains) lists the gain levels, sorts them by gain and walks
    them from the top, stopping at the first level of gain <= 0. Without overrides that is the
    judged docs of grade > 0, best first. With overrides the order is glibc's: see
    :func:`_trec_eval_gain_order`.
    """
    if not custom:
        parts = ctx.stats.ideal_gains
    else:
        parts = [_ideal_gains(counts, custom) for counts in ctx.stats.grade_counts]
    lengths = np.array([len(p) for p in parts], dtype=np.int64)
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat = np.concatenate(parts).astype(np.float64) if parts else np.zeros(0)
    return flat, offsets


def _ideal_gains(counts: dict[int, int], custom: dict[int, float]) -> np.ndarray:
    """One topic's ideal gains under ``level=gain`` overrides, as trec_eval's setup_gains + walk give them.

    Levels: the overrides in the order given, then 0..max judged grade not overridden (gain =
    level); each with its count of judged docs. Walking down from the highest-sorted level,
    levels without docs are passed over and the walk ends at the first level of gain <= 0.
    """
    top = max(counts) + 1 if counts else 0
    levels = [(level, gain, counts.get(level, 0)) for level, gain in custom.items()]
    levels += [(lv, float(lv), counts.get(lv, 0)) for lv in range(top) if lv not in custom]
    ordered = _trec_eval_gain_order(levels)
    if not ordered or ordered[-1][1] <= 0:
        return np.zeros(0)
    out: list[float] = []
    for _, gain, n in reversed(ordered):
        if n == 0:
            continue
        if gain <= 0:
            break
        out.extend([gain] * n)
    return np.array(out, dtype=np.float64)


def _trec_eval_gain_order(levels: list[tuple[int, float, int]]) -> list[tuple[int, float, int]]:
    """trec_eval's sort of gain levels: glibc 2.36's qsort (a top-down merge sort) with the comparator
    ``(int)(g1 - g2)`` of ``gain_init.c``, which calls gains less than 1 apart equal.

    Gains closer than 1 therefore keep an order that depends on their input positions (e.g. with
    ``ideal_dcg.2=0.5`` level 2 stays below level 0, so the ideal ranking stops before it). This
    reproduces trec_eval built on glibc <= 2.36; a qsort of another C library may order them otherwise.
    """
    if len(levels) <= 1:
        return list(levels)
    half = len(levels) // 2
    left = _trec_eval_gain_order(levels[:half])
    right = _trec_eval_gain_order(levels[half:])
    out: list[tuple[int, float, int]] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if int(left[i][1] - right[j][1]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def _seg_cumsum_by(x: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Cumulative sum of x restarting at every segment of ``offsets``."""
    cs = np.cumsum(x, dtype=np.float64)
    if len(cs) == 0:
        return cs
    base = np.r_[0.0, cs][offsets[:-1]]
    return cs - np.repeat(base, np.diff(offsets))


def _discount(rank: np.ndarray) -> np.ndarray:
    return np.log2(rank.astype(np.float64) + 1.0)


# ---------------------------------------------------------------- interpolated precision


def interpolated_precision(ctx: Context, levels: tuple[float, ...], rounding: str = "lround") -> np.ndarray:
    """Interpolated precision at recall ``levels``, one row per topic (``m_iprec_at_recall.c``).

    Recall level c becomes a count of relevant docs: ``lround(c·R)`` in trec_eval 10.0
    (``rounding="lround"``), ``(long)(c·R + 0.9)`` in trec_eval 9 and pytrec_eval (``rounding="v9"``).
    Its value is the highest precision at or below the rank where that many relevant docs have
    been retrieved; 0 if the run never gets there. A count of 0 takes the value of a count of 1
    (the loop's leftover maximum), or num_rel_ret/num_ret when nothing relevant is retrieved:
    0, except 0/0 = NaN (trec_eval prints -nan) for a topic whose every doc ``-J`` removed.
    A topic missing from the run (``-c``) scores 0: trec_eval evaluates it as a one-document
    ranking of an unpooled doc, so 0/1; under ``-J`` that doc is removed too, and it is NaN.
    """
    R = ctx.stats.num_rel.astype(np.float64)
    scaled = np.asarray(levels, dtype=np.float64)[None, :] * R[:, None]
    if rounding == "lround":
        cuts = _lround(scaled)
    elif rounding == "v9":
        cuts = _trunc_plus_09(scaled)
    else:
        raise ValueError(f"rounding must be 'lround' or 'v9', not {rounding!r}")
    best, rel_off = _best_precision(ctx)
    nrr = np.diff(rel_off)
    out = np.zeros(cuts.shape, dtype=np.float64)
    want = np.maximum(cuts, 1)
    ok = (want <= nrr[:, None]) & (nrr[:, None] > 0)
    t_idx, c_idx = np.nonzero(ok)
    out[t_idx, c_idx] = best[rel_off[t_idx] + want[t_idx, c_idx] - 1]
    if "aligned" in ctx.extra:
        # a topic missing from the run (-c) is trec_eval's one-document bogus ranking: 0/1 = 0,
        # unless -J removed that unjudged document too
        emptied = (ctx.lengths == 0) & (~_not_in_run(ctx) | ctx.options.judged_only)
        out[emptied[:, None] & (cuts == 0)] = np.nan
    return out


def _best_precision(ctx: Context) -> tuple[np.ndarray, np.ndarray]:
    """The highest precision at or after each relevant doc within its topic, and where each
    topic's relevant docs start in that array: computed once per run and level, for the eleven
    recall levels (and 11pt_avg) that read it."""
    key = "_trec_eval_best_precision"  # on the context itself: a derived context (-J) has its own
    if key not in ctx.__dict__:
        prec = ctx.cum_rel / ctx.rank
        rel_pos = np.flatnonzero(ctx.is_rel)
        p_rel = prec[rel_pos]
        rel_off = np.searchsorted(rel_pos, ctx.offsets)
        best = np.empty_like(p_rel)
        for a, b in zip(rel_off[:-1].tolist(), rel_off[1:].tolist(), strict=True):
            if b > a:
                best[a:b] = np.maximum.accumulate(p_rel[a:b][::-1])[::-1]
        ctx.__dict__[key] = (best, rel_off)
    cached: tuple[np.ndarray, np.ndarray] = ctx.__dict__[key]
    return cached


def _iprec_at_recall(ctx: Context, level: float) -> np.ndarray:
    """iprec_at_recall_c: interpolated precision at recall c, ``Int_Prec(rank X) = max Prec(rank Y), Y >= X``.

    trec_eval ``m_iprec_at_recall.c`` (the standard recall-precision graph). The recall level c
    picks the rank of the ``lround(c·R)``-th relevant doc; 0 if the run retrieves fewer.
    """
    return interpolated_precision(ctx, (float(level),))[:, 0]


def _eleven_pt_avg(ctx: Context, levels: Param) -> np.ndarray:
    """11pt_avg: the mean of iprec_at_recall over recall levels 0.0, 0.1, ..., 1.0 (``m_11pt_avg.c``).

    Obsolete area-under-the-curve estimate kept for old comparisons; same level rounding as
    iprec_at_recall (``lround(c·R)``). ``-m 11pt_avg.0.2,0.5,0.8`` averages other levels; levels
    given out of ascending order take trec_eval's order-dependent path (:func:`_eleven_pt_listed`).
    """
    return eleven_pt_avg(ctx, levels)


def eleven_pt_avg(ctx: Context, levels: Param, rounding: str = "lround") -> np.ndarray:
    """11pt_avg with the recall count of ``rounding`` (see :func:`interpolated_precision`)."""
    lv = tuple(float(x) for x in (levels or RECALL_LEVELS))
    if not lv:
        return np.zeros(ctx.ntopics)
    if any(a > b for a, b in itertools.pairwise(lv)):
        return _eleven_pt_listed(ctx, lv, rounding)
    return np.mean(interpolated_precision(ctx, lv, rounding), axis=1)


def _eleven_pt_listed(ctx: Context, levels: tuple[float, ...], rounding: str = "lround") -> np.ndarray:
    """11pt_avg over levels in the order given, as ``m_11pt_avg.c`` walks them.

    trec_eval assumes ascending levels: it walks the ranking from the bottom with the running
    interpolated precision and credits the level list from its end, each level when its count
    ``lround(c·R)`` of relevant docs is reached, skipping at the start every trailing level
    beyond num_rel_ret; what is left when the walk ends gets the final interpolated precision.
    With unsorted levels some are credited at the wrong rank; this reproduces that exactly.
    A topic missing from the run (``-c``) is its one-unpooled-document ranking (empty under ``-J``).
    """
    n = len(levels)
    R = ctx.stats.num_rel
    missing = _not_in_run(ctx) & (not ctx.options.judged_only)
    out = np.zeros(ctx.ntopics)
    is_rel = ctx.is_rel
    for t in range(ctx.ntopics):
        a, b = int(ctx.offsets[t]), int(ctx.offsets[t + 1])
        rel = is_rel[a:b]
        num_ret = (b - a) + int(missing[t])
        rel_ret = int(rel.sum())
        scaled = np.asarray(levels) * float(R[t])
        cuts = (_lround(scaled) if rounding == "lround" else _trunc_plus_09(scaled)).tolist()
        cur = n - 1
        while cur >= 0 and cuts[cur] > rel_ret:
            cur -= 1
        best = rel_ret / num_ret if num_ret else math.nan
        total = 0.0
        so_far = rel_ret
        for i in range(num_ret, 0, -1):
            if so_far <= 0:
                break
            best = max(best, so_far / i) if not math.isnan(best) else best
            if i <= b - a and rel[i - 1]:
                while cur >= 0 and so_far == cuts[cur]:
                    total += best
                    cur -= 1
                so_far -= 1
        total += best * (cur + 1) if cur >= 0 else 0.0
        out[t] = total / n
    return out


# ---------------------------------------------------------------- cutoff families


def _recall(ctx: Context, k: int) -> np.ndarray:
    """recall_k: relevant docs in the top k / R; 0 when R = 0 (``m_recall.c``)."""
    return _safe_div(_count_in_top(ctx, ctx.is_rel, k), ctx.num_rel())


def _rprec_mult(ctx: Context, mult: float) -> np.ndarray:
    """Rprec_mult_m: precision at rank ``(long)(m·R + 0.9)`` (``m_Rprec_mult.c``).

    Unlike iprec_at_recall, trec_eval 10.0 kept the old ``+ 0.9`` truncation here, so R = 4,
    m = 0.2 gives rank 1 and m = 1.2 gives rank 5. Ranks past the end of the run count as
    non-relevant; rank 0 (R = 0) scores 0.
    """
    R = ctx.stats.num_rel.astype(np.float64)
    k = _trunc_plus_09(np.float64(mult) * R)
    return _safe_div(_cum_at(ctx, ctx.cum_rel, k), k.astype(np.float64))


def _map_cut(ctx: Context, k: int) -> np.ndarray:
    """map_cut_k: AP with the ranking cut at k, still divided by all R relevant docs (``m_map_cut.c``)."""
    terms = np.where(ctx.is_rel & (ctx.rank <= int(k)), ctx.cum_rel / ctx.rank, 0.0)
    return _safe_div(ctx.seg_sum(terms), ctx.num_rel())


def _relative_p(ctx: Context, k: int) -> np.ndarray:
    """relative_P_k: relevant in the top k / min(k, R): P_k up to R, recall after (``m_rel_P.c``)."""
    den = np.minimum(float(k), ctx.num_rel())
    return _safe_div(_count_in_top(ctx, ctx.is_rel, k), den)


def _success(ctx: Context, k: int) -> np.ndarray:
    """success_k: 1 if a relevant doc is in the top k, else 0 (``m_success.c``, Tomlinson)."""
    return (_count_in_top(ctx, ctx.is_rel, k) > 0).astype(np.float64)


def _unj(ctx: Context, k: int) -> np.ndarray:
    """unj_k: unjudged-or-unpooled docs in the top k / k (``m_unjudged.c``, Soboroff 2023).

    Ranks past the end of the run count as judged, so a run of 15 docs with 4 unjudged has
    unj_20 = 4/20. Under ``-J`` it is always 0.
    """
    return _count_in_top(ctx, ctx.rel < 0, k) / float(k)


# ---------------------------------------------------------------- set measures


def _set_p(ctx: Context, _: Param) -> np.ndarray:
    """set_P: num_rel_ret / num_ret over the whole retrieved set; 0 for an empty run (``m_set_P.c``)."""
    return _safe_div(_num_rel_ret(ctx), ctx.lengths.astype(np.float64))


def _set_relative_p(ctx: Context, _: Param) -> np.ndarray:
    """set_relative_P: num_rel_ret / min(num_ret, R), set precision over its best (``m_set_rel_P.c``)."""
    return _safe_div(_num_rel_ret(ctx), np.minimum(ctx.lengths.astype(np.float64), ctx.num_rel()))


def _set_recall(ctx: Context, _: Param) -> np.ndarray:
    """set_recall: num_rel_ret / R (``m_set_recall.c``)."""
    return _safe_div(_num_rel_ret(ctx), ctx.num_rel())


def _set_map(ctx: Context, _: Param) -> np.ndarray:
    """set_map: num_rel_ret² / (num_ret · R), i.e. set precision × set recall (``m_set_map.c``)."""
    a = _num_rel_ret(ctx)
    return _safe_div(a * a, ctx.lengths.astype(np.float64) * ctx.num_rel())


def _beta(param: Param) -> float:
    if param is None:
        return SET_F_BETA
    if isinstance(param, tuple):  # ir_measures SetF(beta=...)
        return _pairs(param, "set_F").get("beta", SET_F_BETA)
    return float(param)


def _set_f(ctx: Context, param: Param) -> np.ndarray:
    """set_F: (x + 1)·P·R / (x·P + R) over the retrieved set, x = 1 by default (``m_set_F.c``).

    van Rijsbergen's F with trec_eval's parameter x standing where the textbook has β²
    (``set_F.0.25`` is the textbook F_0.5). 0 when nothing relevant is retrieved.
    """
    x = _beta(param)
    a = _num_rel_ret(ctx)
    P = _safe_div(a, ctx.lengths.astype(np.float64))
    Rc = _safe_div(a, ctx.num_rel())
    return _safe_div((x + 1.0) * P * Rc, x * P + Rc)


def _utility(ctx: Context, coeffs: Param) -> np.ndarray:
    """utility: p1·a + p2·b + p3·c + p4·d over the contingency table (``m_utility.c``).

    a = relevant retrieved, b = non-relevant retrieved (any doc not relevant, judged or not),
    c = relevant not retrieved, d = the rest of a collection of ``-N`` docs, which trec_eval takes
    as 0 unless given (``-N``): d = N + a - num_ret - R. Defaults (1, -1, 0, 0): a - b. Averaged over topics.
    A topic missing from the run (``-c``) scores 0 whatever the coefficients: trec_eval zeroes it.
    """
    p = tuple(float(x) for x in (coeffs or UTILITY_COEFFICIENTS))
    if len(p) != 4:
        raise ValueError(f"utility takes 4 coefficients, got {len(p)}")
    a = _num_rel_ret(ctx)
    ret = ctx.lengths.astype(np.float64)
    R = ctx.num_rel()
    num_docs_in_coll = float(ctx.options.num_docs_in_coll)
    value = p[0] * a + p[1] * (ret - a) + p[2] * (R - a) + p[3] * (num_docs_in_coll + a - ret - R)
    return np.where(_not_in_run(ctx), 0.0, value)


def _num_nonrel_judged_ret(ctx: Context, _: Param) -> np.ndarray:
    """num_nonrel_judged_ret: retrieved docs judged below the relevance level; 'all' is the sum."""
    return ctx.seg_count(ctx.is_nonrel)


# ---------------------------------------------------------------- gain-based measures


def _bin_g(ctx: Context, _: Param) -> np.ndarray:
    """binG: (1/R) Σ over relevant retrieved docs of 1 / log2(2 + docs ranked above it that are not relevant).

    trec_eval ``m_binG.c`` (Buckley, experimental 2008): the binary-gain version of G; unjudged and
    unpooled docs above count as not relevant.
    """
    not_rel_above = (ctx.rank - ctx.cum_rel).astype(np.float64)
    terms = np.where(ctx.is_rel, 1.0 / np.log2(2.0 + not_rel_above), 0.0)
    return _safe_div(ctx.seg_sum(terms), ctx.num_rel())


def _g(ctx: Context, param: Param) -> np.ndarray:
    """G: Σ_i g_i / log2(2 + cost_i − gain_i), normalized by the total judged gain (``m_G.c``).

    gain_i = Σ of the run's gains at ranks ≤ i; cost_i = Σ over ranks j ≤ i of max(ideal gain at j, 1),
    an ideal exhausted after the last positive-gain doc costing 1 per rank. Gains are the grades
    (``G.1=3.5,2=9`` overrides), unjudged docs 0; ``-l`` is ignored. Buckley's experimental 2008 measure.
    """
    custom = _custom_gains(param, "G")
    g = _doc_gains(ctx, custom)
    ideal, ioff = _ideal(ctx, custom)
    npos = np.diff(ioff)
    cost_cum = _seg_cumsum_by(np.maximum(ideal, 1.0), ioff)
    npos_d = np.repeat(npos, ctx.lengths)
    within = np.minimum(ctx.rank, npos_d)
    tail = ctx.rank - within
    cost = tail.astype(np.float64)
    has = within > 0
    cost[has] += cost_cum[(np.repeat(ioff[:-1], ctx.lengths) + within - 1)[has]]
    gained = ctx.seg_cumsum(g)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(g != 0, g / np.log2(2.0 + cost - gained), 0.0)
    sum_ideal = np.bincount(np.repeat(np.arange(ctx.ntopics), npos), weights=ideal, minlength=ctx.ntopics)
    return _safe_div(ctx.seg_sum(terms), sum_ideal)


def _dcg_parts(
    ctx: Context, param: Param, name: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(gains of ranked docs, their cumulative DCG, concatenated ideal cumulative DCG, its offsets)."""
    custom = _custom_gains(param, name)
    g = _doc_gains(ctx, custom)
    dcg = ctx.seg_cumsum(g / _discount(ctx.rank))
    ideal, ioff = _ideal(ctx, custom)
    irank = np.arange(len(ideal), dtype=np.int64) - np.repeat(ioff[:-1], np.diff(ioff)) + 1
    idcg = _seg_cumsum_by(ideal / _discount(irank), ioff)
    return g, dcg, idcg, ioff


def _ndcg_rel(ctx: Context, param: Param) -> np.ndarray:
    """ndcg_rel: nDCG averaged over the relevant docs (gain > 0) of the judgments (``m_ndcg_rel.c``).

    For a retrieved doc of positive gain at rank i: DCG(i) / IDCG(min(i, n)), n = judged docs of
    positive gain; each of those not retrieved adds DCG(end) / IDCG(n). Divided by n. Gains are the
    grades (overridable like ``G``); ``-l`` is ignored. Järvelin & Kekäläinen 2002 nDCG, Buckley's averaging.
    """
    g, dcg, idcg, ioff = _dcg_parts(ctx, param, "ndcg_rel")
    npos = np.diff(ioff)
    npos_d = np.repeat(npos, ctx.lengths)
    at = np.repeat(ioff[:-1], ctx.lengths) + np.minimum(ctx.rank, npos_d) - 1
    pos = (g > 0) & (npos_d > 0)
    terms = np.zeros(len(g))
    terms[pos] = dcg[pos] / idcg[at[pos]]
    full_idcg = np.zeros(ctx.ntopics)
    has = npos > 0
    full_idcg[has] = idcg[ioff[1:][has] - 1]
    full_dcg = _cum_at(ctx, dcg, ctx.lengths)
    missed = npos - ctx.seg_count(g > 0)
    total_sum = ctx.seg_sum(terms) + missed * _safe_div(full_dcg, full_idcg)
    return np.where(total_sum > 0, _safe_div(total_sum, npos.astype(np.float64)), 0.0)


def _rndcg(ctx: Context, param: Param) -> np.ndarray:
    """Rndcg: nDCG averaged at the ranks where the ideal gain drops (``m_Rndcg.c``).

    With n_g judged docs at each positive gain level, the points are the cumulative counts
    b (e.g. 5 docs of grade 3 and 3 of grade 2 give b = 5, 8) and the score there is
    DCG(min(b, num_ret)) / IDCG(b); one more point DCG(num_ret) / IDCG(n) is added only when
    num_ret >= n + 2 (trec_eval's loop skips it at num_ret = n + 1). 0 when R (at ``-l``) is 0.
    """
    _, dcg, idcg, ioff = _dcg_parts(ctx, param, "Rndcg")
    ideal, _ = _ideal(ctx, _custom_gains(param, "Rndcg"))
    npos = np.diff(ioff)
    # boundary b (1-based) where the ideal gain at b+1 differs from the one at b (past n it is 0)
    nxt = np.r_[ideal[1:], 0.0]
    last = np.zeros(len(ideal), dtype=bool)
    last[ioff[1:][npos > 0] - 1] = True
    nxt[last] = 0.0
    is_b = nxt != ideal
    b_topic = np.repeat(np.arange(ctx.ntopics), npos)[is_b]
    b_rank = (np.arange(len(ideal)) - np.repeat(ioff[:-1], npos) + 1)[is_b]
    run_at_b = np.minimum(b_rank, ctx.lengths[b_topic])
    dcg_b = np.zeros(len(b_rank))
    ok = run_at_b > 0
    dcg_b[ok] = dcg[ctx.offsets[b_topic[ok]] + run_at_b[ok] - 1]
    vals = dcg_b / idcg[np.flatnonzero(is_b)]
    sums = np.bincount(b_topic, weights=vals, minlength=ctx.ntopics)[: ctx.ntopics]
    counts = np.bincount(b_topic, minlength=ctx.ntopics)[: ctx.ntopics].astype(np.float64)
    tail = (ctx.lengths >= npos + 2) & (npos > 0)
    full_dcg = _cum_at(ctx, dcg, ctx.lengths)
    full_idcg = np.zeros(ctx.ntopics)
    full_idcg[npos > 0] = idcg[ioff[1:][npos > 0] - 1]
    sums = sums + np.where(tail, _safe_div(full_dcg, full_idcg), 0.0)
    counts = counts + tail
    out = _safe_div(sums, counts)
    return np.where(ctx.stats.num_rel > 0, out, 0.0)


def _rbp_p(param: Param) -> float:
    return _pairs(param, "rbp").get("p", RBP_P) if param else RBP_P


def _powers_of(p: float, longest: int) -> np.ndarray:
    """p^k for k = 0..longest as trec_eval computes them (``m_rbp.c``): 1.0 multiplied by p k times.

    ``np.power`` differs from repeated multiplication in the last bit, enough to move a mean that
    falls on a rounding boundary to the other side of it (``cumprod`` multiplies left to right).
    """
    return np.cumprod(np.concatenate(([1.0], np.full(longest, p))))


def _rbp(ctx: Context, param: Param) -> np.ndarray:
    """rbp: (1 − p) Σ_i gain_i · p^(i−1), p = 0.9 (Moffat & Zobel 2008, trec_eval ``m_rbp.c``).

    Gains are the grades (``rbp.p=0.95,2=3`` sets p and overrides), rescaled per topic to
    (g − lo)/(hi − lo) when some gain lies outside [0, 1], lo/hi being the extreme gains of the
    topic's levels 0..max judged grade. (trec_eval leaves lo/hi uninitialized; we start them at 0,
    which its outputs match.) So with grades 0-2, grade 1 gains 0.5 on a topic whose top grade is
    2 and 1 on a topic whose top grade is 1. Unjudged docs gain 0; ``-l`` is ignored.
    """
    p = _rbp_p(param)
    custom = _custom_gains(param, "rbp")
    g = _doc_gains(ctx, custom)
    lo = np.zeros(ctx.ntopics)
    hi = np.zeros(ctx.ntopics)
    for t, counts in enumerate(ctx.stats.grade_counts):
        levels = range(max(counts) + 1) if counts else range(0)
        gains = [custom.get(lv, float(lv)) for lv in levels] + list(custom.values())
        if gains:
            lo[t] = min(0.0, *gains)
            hi[t] = max(0.0, *gains)
    rescale = (lo < 0) | (hi > 1)
    span = np.where(rescale, hi - lo, 1.0)
    shift = np.where(rescale, lo, 0.0)
    gd = (g - np.repeat(shift, ctx.lengths)) / np.repeat(span, ctx.lengths)
    # a doc with no gain level (unjudged, unpooled) gets get_gain's 0 before and after rescaling
    gd = np.where(ctx.rel >= 0, gd, 0.0)
    weights = _powers_of(p, int(ctx.lengths.max(initial=0)))[ctx.rank - 1]
    # seg_sum adds in rank order, as trec_eval's loop does
    return (1.0 - p) * ctx.seg_sum(np.where(gd != 0, gd * weights, 0.0))


def _rbp_resid(ctx: Context, param: Param) -> np.ndarray:
    """rbp_resid: the RBP weight (p = 0.9 by default) of unjudged and unpooled docs and of ranks past the run.

    p^num_ret + (1 − p) Σ over unjudged docs at rank i of p^(i−1) (``m_rbp_resid.c``). Quirk: a
    topic whose retrieved docs are all judged scores 0, not p^num_ret; so under ``-J`` it is 0.
    ``rbp_resid.p=0.95`` sets p (other ``name=value`` pairs are ignored, as in trec_eval).
    """
    p = _rbp_p(param)
    unj = ctx.rel < 0
    powers = _powers_of(p, int(ctx.lengths.max(initial=0)))
    resid = powers[ctx.lengths] + (1.0 - p) * ctx.seg_sum(np.where(unj, powers[ctx.rank - 1], 0.0))
    return np.where(ctx.seg_count(unj) > 0, resid, 0.0)


def _dcg_totals(ctx: Context, param: Param, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Per topic (DCG of the whole ranking, ideal DCG of every judged doc of positive gain).

    trec_eval ``m_ndcg.c``: gain of a doc = its level's gain (the grade, or the ``level=gain``
    override), unjudged/unpooled 0; discount log2(rank + 1); the ideal ranking is not cut at the
    run's length.
    """
    _, dcg, idcg, ioff = _dcg_parts(ctx, param, name)
    npos = np.diff(ioff)
    full_idcg = np.zeros(ctx.ntopics)
    has = npos > 0
    full_idcg[has] = idcg[ioff[1:][has] - 1]
    return _cum_at(ctx, dcg, ctx.lengths), full_idcg


def _ndcg_gains(ctx: Context, param: Param) -> np.ndarray:
    """ndcg: DCG / ideal DCG (Järvelin & Kekäläinen 2002), trec_eval ``m_ndcg.c``; 0 if the ideal is 0.

    ``ndcg.1=3,2=9,4=4.5`` gives relevance levels 1, 2, 4 the gains 3, 9, 4.5 (gain_init.c; other
    levels keep gain = level; names that are not integers are ignored). Without overrides this is
    the plain-grade nDCG of :func:`engine.measures.trec_eval._ndcg`. ``-l`` is ignored.
    """
    if not _custom_gains(param, "ndcg"):
        return _ndcg(ctx, None)
    dcg, ideal = _dcg_totals(ctx, param, "ndcg")
    return _safe_div(dcg, ideal)


def _dcg(ctx: Context, param: Param) -> np.ndarray:
    """dcg: Σ gain_i / log2(i + 1) over the ranking (trec_eval ``m_ndcg.c``'s ``dcg``; gains as ``ndcg``)."""
    return _dcg_totals(ctx, param, "dcg")[0]


def _ideal_dcg(ctx: Context, param: Param) -> np.ndarray:
    """ideal_dcg: the DCG of the ideal ranking of the topic's judged docs (``m_ndcg.c``'s ``ideal_dcg``).

    Independent of the run (but evaluated only on the run's topics); gains as ``ndcg``.
    """
    return _dcg_totals(ctx, param, "ideal_dcg")[1]


def _yaap(ctx: Context, _: Param) -> np.ndarray:
    """yaap: log((1 + S) / (1 + R − S)), S = Σ over relevant retrieved docs of (relevant so far)/rank.

    Robertson's "Yet Another Average Precision" (ECIR 2012), trec_eval ``m_yaap.c``: S is AP's
    numerator, so yaap is monotonic with AP on a topic and defined (finite) at AP = 0 and 1.
    """
    s = ctx.seg_sum(np.where(ctx.is_rel, ctx.cum_rel / ctx.rank, 0.0))
    result: np.ndarray = np.log((1.0 + s) / (1.0 + ctx.num_rel() - s))
    return result


def _relstring_length(param: Param) -> int:
    if param is None:
        return RELSTRING_LENGTH
    value = param[0] if isinstance(param, tuple) else param
    return max(int(float(value)), 0)  # C's (long) truncation; a negative length prints ''


def _relstring_text(ctx: Context, param: Param) -> list[str]:
    """relstring's per-topic strings (see :func:`relstrings`); ``relstring.20`` shows 20 docs."""
    return relstrings(ctx.rel, ctx.offsets, _relstring_length(param))


def _relstring(ctx: Context, _: Param) -> np.ndarray:
    """relstring: the judgments of the first N (default 10) ranked docs as a string (``m_relstring.c``).

    '0'-'9' a grade, '>' above 9, '-' not in the pool, '.' pooled but unjudged. Printed per topic
    only, quoted; it has no numeric value (this kernel's zeros are never printed).
    """
    return np.zeros(ctx.ntopics)


# ---------------------------------------------------------------- geometric means


def _gm_map(ctx: Context, _: Param) -> np.ndarray:
    """gm_map: AP per topic, averaged as exp(mean(log(max(AP, 0.00001)))) (``m_gm_map.c``, Robertson 2006).

    Printed only as the 'all' value; with ``-c`` a missing topic counts log(0.00001).
    """
    return _map(ctx, None)


def _gm_bpref(ctx: Context, _: Param) -> np.ndarray:
    """gm_bpref: bpref per topic, averaged geometrically with trec_eval's 0.00001 floor (``m_gm_bpref.c``)."""
    return _bpref(ctx, None)


# ---------------------------------------------------------------- relstring


def relstrings(rel: np.ndarray, offsets: np.ndarray, length: int = RELSTRING_LENGTH) -> list[str]:
    """trec_eval's ``relstring``: the judgments of each topic's first ``length`` ranked docs, one char each.

    '0'-'9' a grade, '>' a grade above 9, '-' not in the pool, '.' pooled but unjudged
    (``m_relstring.c``). Takes the aligned ``rel``/``offsets`` of :func:`engine.evaluate.align`,
    so ``-M`` and ``-J`` apply; trec_eval prints it per topic only, quoted, after ``P_k``.
    """
    r = np.asarray(rel)
    chars = np.full(len(r), ord("<"), dtype=np.uint8)  # any other negative value
    chars[r > 9] = ord(">")
    grade = (r >= 0) & (r <= 9)
    chars[grade] = ord("0") + r[grade]
    chars[r == NONPOOL] = ord("-")
    chars[r == UNJUDGED] = ord(".")
    n = max(int(length), 0)
    out = []
    for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True):
        out.append(chars[a : min(b, a + n)].tobytes().decode("ascii"))
    return out


# ---------------------------------------------------------------- registration


def _bare_name(default: Any) -> Callable[[str, Any], str]:
    """Output name: the family name for the default parameter, else trec_eval's ``name_params``."""

    def fmt(name: str, param: Any) -> str:
        if param is None or param == default or param == ():
            return name
        if isinstance(param, tuple):
            items = [f"{k}={v:g}" if isinstance(k, str) else f"{v:g}" for k, v in _as_items(param)]
            return f"{name}_{','.join(items)}"
        return f"{name}_{float(param):g}"

    return fmt


def _two_decimals(name: str, param: Any) -> str:
    """trec_eval's ``append_double``: ``%s_%3.2f`` (iprec_at_recall_0.10, Rprec_mult_5.00)."""
    return f"{name}_{float(param):.2f}"


def _as_items(param: tuple[Any, ...]) -> list[tuple[Any, float]]:
    return [(item[0], float(item[1])) if isinstance(item, tuple) else (None, float(item)) for item in param]


def _doc(kernel: Any) -> str:
    return kernel.__doc__ or ""


register(Family("gm_map", _gm_map, _doc(_gm_map), aggregate=geometric_mean, per_topic=False), after="map")
register(
    Family(
        "iprec_at_recall",
        _iprec_at_recall,
        _doc(_iprec_at_recall),
        params=RECALL_LEVELS,
        param_kind="double_cutoffs",
        format_name=_two_decimals,
    ),
    after="recip_rank",
)
register(
    Family(
        "relstring",
        _relstring,
        _doc(_relstring),
        params=(None,),
        text=_relstring_text,
        param_kind="double_params",
        format_name=_bare_name(None),
    ),
    after="P",
)
register(
    Family("recall", _recall, _doc(_recall), params=CUTOFFS, param_kind="long_cutoffs"), after="relstring"
)
_after = "infAP"
for _fam in (
    Family("gm_bpref", _gm_bpref, _doc(_gm_bpref), aggregate=geometric_mean, per_topic=False),
    Family(
        "Rprec_mult",
        _rprec_mult,
        _doc(_rprec_mult),
        params=RPREC_MULTIPLES,
        param_kind="double_cutoffs",
        format_name=_two_decimals,
    ),
    Family(
        "utility",
        _utility,
        _doc(_utility),
        params=(UTILITY_COEFFICIENTS,),
        format_name=_bare_name(UTILITY_COEFFICIENTS),
        param_kind="double_params",
    ),
    Family(
        "11pt_avg",
        _eleven_pt_avg,
        _doc(_eleven_pt_avg),
        params=(RECALL_LEVELS,),
        format_name=_bare_name(RECALL_LEVELS),
        param_kind="double_params",
    ),
    Family("binG", _bin_g, _doc(_bin_g)),
    Family("G", _g, _doc(_g), params=((),), format_name=_bare_name(()), param_kind="pairs"),
    Family(
        "dcg",
        _dcg,
        _doc(_dcg),
        params=((),),
        format_name=_bare_name(()),
        param_kind="pairs",
        in_all_trec=False,
    ),
    Family(
        "ideal_dcg",
        _ideal_dcg,
        _doc(_ideal_dcg),
        params=((),),
        format_name=_bare_name(()),
        param_kind="pairs",
        in_all_trec=False,
    ),
    Family(
        "ndcg", _ndcg_gains, _doc(_ndcg_gains), params=((),), format_name=_bare_name(()), param_kind="pairs"
    ),
):
    register(_fam, after=_after)
    _after = _fam.name
_after = "ndcg"
for _fam in (
    Family(
        "ndcg_rel", _ndcg_rel, _doc(_ndcg_rel), params=((),), format_name=_bare_name(()), param_kind="pairs"
    ),
    Family("Rndcg", _rndcg, _doc(_rndcg), params=((),), format_name=_bare_name(()), param_kind="pairs"),
):
    register(_fam, after=_after)
    _after = _fam.name
_after = "ndcg_cut"
for _fam in (
    Family("map_cut", _map_cut, _doc(_map_cut), params=CUTOFFS, param_kind="long_cutoffs"),
    Family("relative_P", _relative_p, _doc(_relative_p), params=CUTOFFS, param_kind="long_cutoffs"),
    Family("success", _success, _doc(_success), params=SUCCESS_CUTOFFS, param_kind="long_cutoffs"),
    Family("set_P", _set_p, _doc(_set_p)),
    Family("set_relative_P", _set_relative_p, _doc(_set_relative_p)),
    Family("set_recall", _set_recall, _doc(_set_recall)),
    Family("set_map", _set_map, _doc(_set_map)),
    Family(
        "set_F",
        _set_f,
        _doc(_set_f),
        params=(SET_F_BETA,),
        format_name=_bare_name(SET_F_BETA),
        param_kind="double_params",
    ),
    Family(
        "num_nonrel_judged_ret",
        _num_nonrel_judged_ret,
        _doc(_num_nonrel_judged_ret),
        aggregate=total,
        integer=True,
    ),
    Family("yaap", _yaap, _doc(_yaap), in_all_trec=False),
    Family("rbp", _rbp, _doc(_rbp), params=((),), format_name=_bare_name(()), param_kind="pairs"),
    Family(
        "rbp_resid",
        _rbp_resid,
        _doc(_rbp_resid),
        params=((),),
        format_name=_bare_name(()),
        param_kind="pairs",
    ),
    Family("unj", _unj, _doc(_unj), params=UNJ_CUTOFFS, param_kind="long_cutoffs"),
):
    register(_fam, after=_after)
    _after = _fam.name
