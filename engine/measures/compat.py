"""Compat (Clarke et al.'s compatibility with an ideal ranking) and Accuracy, as ir_measures defines them.

Both come from ir_measures' own Python providers (``ir_measures/providers/compat_provider.py`` and
``accuracy_provider.py``, terrierteam/ir_measures); neither is in trec_eval. The kernels are
vectorised over topics; each docstring gives the formula and every difference from the provider.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.measures.aliases import CUTOFF, IR_ALIASES, REL, IrAlias, Param, persistence
from engine.measures.base import NONPOOL, Context, Family, register
from engine.measures.cwl import format_named

# families with topics that have no value (NaN): ir_measures yields no metric for those topics and
# does not fill them with the measure's DEFAULT (AccuracyEvaluator overrides iter_calc)
OPTIONAL_VALUE_FAMILIES = frozenset({"accuracy"})
DEFAULT_P = 0.95  # ir_measures' Compat default persistence
DEFAULT_NORMALIZE = True


# -------------------------------------------------------------------------------- helpers


def _options(param: Any) -> tuple[int | None, dict[str, Any]]:
    """(cutoff, named options) from ``k``, ``pairs``, ``(k, pairs)`` or None."""
    if param is None:
        return None, {}
    if isinstance(param, tuple):
        if len(param) == 2 and not isinstance(param[0], tuple):
            return _cutoff(param[0]), dict(param[1])
        return None, dict(param)
    return _cutoff(param), {}


def _cutoff(value: Any) -> int | None:
    if value is None:
        return None
    k = int(value)
    if k != value or k <= 0:
        raise ValueError(f"the cutoff must be a positive integer, got {value!r}")
    return k


def _segments(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, segment id of each element) of consecutive segments of the given lengths."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets, np.repeat(np.arange(len(lengths)), lengths)


def _position_in_segment(order_segment: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """1-based position of each element of a segment-sorted array within its segment."""
    return np.arange(len(order_segment), dtype=np.int64) - offsets[order_segment] + 1


# -------------------------------------------------------------------------------- Compat


def _compat_ranks(ctx: Context) -> np.ndarray:
    """Each ranked document's rank in Compat's order: score descending, then docno ascending.

    ir_measures sorts the run's documents by docno, then (stably) by score descending; the engine's
    canonical order breaks ties by docno descending, so ties are re-ranked here.
    """
    al = ctx.extra["aligned"]
    order = np.lexsort((al.docnos, -al.scores, ctx.segment))
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = _position_in_segment(ctx.segment[order], ctx.offsets)
    return ranks


def _ideal(ctx: Context) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ideal ranking of every evaluated topic: (its size per topic, qrels rows, 1-based positions).

    The qrels documents with grade > 0, by grade descending, then by the run's score descending
    (0.0 for a document the run does not rank), then in qrels order, which here is docno ascending
    (the engine keeps the qrels sorted; ir_measures keeps the order the qrels were given in).
    """
    al = ctx.extra["aligned"]
    q = ctx.extra["judgments"].qrels
    starts, ends = q.offsets[al.qrels_index], q.offsets[al.qrels_index + 1]
    counts = (ends - starts).astype(np.int64)
    offsets, topic = _segments(counts)
    rows = np.arange(int(offsets[-1]), dtype=np.int64) - offsets[topic] + starts[topic]
    score = np.zeros(len(q.rels), dtype=np.float64)
    ranked = al.qrels_rows >= 0
    score[al.qrels_rows[ranked]] = al.scores[ranked]
    positive = q.rels[rows] > 0
    rows, topic = rows[positive], topic[positive]
    order = np.lexsort((rows, -score[rows], -q.rels[rows], topic))
    rows, topic = rows[order], topic[order]
    size = np.bincount(topic, minlength=ctx.ntopics)[: ctx.ntopics].astype(np.int64)
    ideal_offsets, _ = _segments(size)
    return size, rows, _position_in_segment(topic, ideal_offsets)


def _rbo_sums(overlap: np.ndarray, flat_rank: np.ndarray, seg: np.ndarray, n: int, p: float) -> np.ndarray:
    """Per segment, Σ_i p^(i−1) · overlap(i) / i over the segment's depth."""
    weights = np.power(p, (flat_rank - 1).astype(np.float64))
    return np.bincount(seg, weights=weights * overlap / flat_rank, minlength=n)[:n]


def _compat(ctx: Context, param: Any) -> np.ndarray:
    """compat (ir_measures ``Compat(p=0.95, normalize=True)``): Clarke, Vtyurina & Smucker, TOIS 2021.

    The rank-biased overlap of the run with an ideal ranking I (the documents with grade > 0, best
    grade first; see :func:`_ideal` for ties), to depth d = max(|run|, |I|):

        RBO(R, I) = Σ_{i<=d} p^(i−1) |R_{:i} ∩ I_{:i}| / i  /  Σ_{i<=d} p^(i−1),

    R the run ranked by score descending then docno ascending (every ranked document, judged or
    not). With ``normalize`` the value is RBO(R, I) / RBO(I, I) (the best a run can do against a
    finite ideal) when RBO(I, I) > 0; a topic without any grade > 0 scores 0. ``rel`` and ``-l`` do
    not apply (the ideal uses every positive grade). p lies strictly between 0 and 1 (ir_measures
    accepts any p). A topic with no ranked document scores 0 (ir_measures never sees one).
    Source: ir_measures/providers/compat_provider.py (``rbo``, ``compatibility``).
    """
    _, opts = _options(param)
    p = float(opts.get("p", DEFAULT_P))
    if not 0.0 < p < 1.0:
        raise ValueError(f"Compat: the persistence p must lie strictly between 0 and 1, got {p:g}")
    normalize = bool(opts.get("normalize", DEFAULT_NORMALIZE))
    n = ctx.ntopics
    size, ideal_rows, ideal_pos = _ideal(ctx)
    depth = np.maximum(ctx.lengths.astype(np.int64), size)
    flat_offsets, flat_seg = _segments(depth)
    flat_rank = _position_in_segment(flat_seg, flat_offsets).astype(np.float64)

    # a document joins the overlap at max(its run rank, its ideal position)
    al = ctx.extra["aligned"]
    run_rank = _compat_ranks(ctx)
    ideal_of_row = np.zeros(len(ctx.extra["judgments"].qrels.rels), dtype=np.int64)
    ideal_of_row[ideal_rows] = ideal_pos
    rows = al.qrels_rows
    both = (rows >= 0) & (ideal_of_row[np.maximum(rows, 0)] > 0)
    joins = np.maximum(run_rank[both], ideal_of_row[rows[both]])
    hits = np.bincount(flat_offsets[ctx.segment[both]] + joins - 1, minlength=len(flat_rank))
    cum = np.cumsum(hits)
    base = np.r_[0, cum][flat_offsets[:-1]]
    overlap = (cum - np.repeat(base, depth)).astype(np.float64)

    norm = np.bincount(flat_seg, weights=np.power(p, flat_rank - 1.0), minlength=n)[:n]
    score = np.zeros(n)
    np.divide(_rbo_sums(overlap, flat_rank, flat_seg, n, p), norm, out=score, where=norm > 0)
    if normalize:
        best_overlap = np.minimum(flat_rank, np.repeat(size, depth).astype(np.float64))
        best = np.zeros(n)
        np.divide(_rbo_sums(best_overlap, flat_rank, flat_seg, n, p), norm, out=best, where=norm > 0)
        np.divide(score, best, out=score, where=best > 0)
    return score


# -------------------------------------------------------------------------------- Accuracy


def _grades(ctx: Context) -> np.ndarray:
    """Each ranked document's qrels grade as ir_measures reads it: the raw grade, 0 when absent."""
    al = ctx.extra.get("aligned")
    rows = getattr(al, "qrels_rows", None)
    if rows is None or len(rows) != len(ctx.rel):
        return np.where(ctx.rel == NONPOOL, 0, ctx.rel)
    rels = ctx.extra["judgments"].qrels.rels
    return np.where(rows >= 0, rels[np.maximum(rows, 0)], 0)


def _accuracy(ctx: Context, param: Any) -> np.ndarray:
    """accuracy (ir_measures ``Accuracy(rel=1)@k``): the share of (relevant, non-relevant) pairs in order.

    Over the top k (the whole ranking without a cutoff), with R relevant (grade >= rel) and N other
    documents there:  Accuracy = 1 − Σ_{relevant d} n_above(d) / (N · R), n_above(d) the non-relevant
    documents ranked above d. Only retrieved documents count: a document the qrels do not list has
    grade 0. A topic with R = 0 has no value (ir_measures yields none; NaN here, and the mean skips
    it); so does one with N = 0, where ir_measures raises ZeroDivisionError. The 'all' value is the
    mean over topics that have a value (NaN if none). ``rel`` defaults to 1 (or ``-l``).
    ir_measures ranks score ties in the run's input order, the engine by docno descending.
    Source: ir_measures/providers/accuracy_provider.py.
    """
    k, _ = _options(param)
    inside = np.ones(len(ctx.rel), dtype=bool) if k is None else ctx.rank <= k
    relevant = (_grades(ctx) >= ctx.level) & inside
    other = ~relevant & inside
    above = ctx.seg_cumsum(other)  # non-relevant at or above: equal to "above" at a relevant doc
    r = ctx.seg_count(relevant)
    nonrel = ctx.seg_count(other)
    pairs = r * nonrel
    out = np.full(ctx.ntopics, np.nan)
    defined = pairs > 0
    misordered = ctx.seg_sum(np.where(relevant, above, 0).astype(np.float64))
    out[defined] = 1.0 - misordered[defined] / pairs[defined]
    return out


def _mean_defined(ctx: Context, values: np.ndarray) -> float:
    """The mean over topics with a value; NaN when none has one (ir_measures' empty MeanAgg)."""
    defined = values[~np.isnan(values)]
    return float(np.mean(defined)) if len(defined) else float("nan")


# -------------------------------------------------------------------------------- registration

register(
    Family(
        "compat",
        _compat,
        _compat.__doc__ or "",
        params=((),),
        in_all_trec=False,
        format_name=format_named,
    )
)
register(
    Family(
        "accuracy",
        _accuracy,
        _accuracy.__doc__ or "",
        params=(None,),
        aggregate=_mean_defined,
        in_all_trec=False,
    )
)

IR_ALIASES.update(
    {
        "Compat": IrAlias(
            "compat",
            None,
            {
                "p": Param(float, default=DEFAULT_P, check=persistence, doc="persistence"),
                "normalize": Param(
                    bool, default=DEFAULT_NORMALIZE, doc="apply normalization for finite ideal rankings"
                ),
            },
            doc="Compatibility (Clarke et al. 2021): rank-biased overlap with the ideal ranking",
        ),
        "Accuracy": IrAlias(
            "accuracy",
            "accuracy",
            {"cutoff": CUTOFF, "rel": REL},
            doc="Share of (relevant, non-relevant) pairs ranked in order; topics without both have none",
        ),
    }
)
