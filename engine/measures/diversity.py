"""Diversity measures over subtopic qrels, as ndeval (TREC Web track 2009-2014) computes them.

ir_measures exposes them through its ``pyndeval`` provider (pyndeval 0.0.8 wraps ``ndeval.c``
version 4.5): ``alpha_nDCG``, ``alpha_DCG``, ``ERR_IA``, ``nERR_IA``, ``NRBP``, ``nNRBP``,
``AP_IA`` (ndeval's MAP-IA), ``P_IA`` and ``StRecall`` (ndeval's strec). Everything here was written
from reading ``ndeval.c``, pyndeval's ``__init__.py`` and ir_measures'
``providers/pyndeval_provider.py``; docs/diversity.md has the full derivation.

Subtopic qrels are ``topic subtopic docno rel`` with a line per (document, subtopic) judged; the
qrels reader keeps every line (:class:`trec.qrels.SubtopicLines`). What ndeval does, and we do:

- a line is *relevant* when ``rel >= level`` (ir_measures' ``rel=``, default 1, or ``-l``); a
  document's grades collapse to one bit per subtopic, so gains never depend on the grade;
- a topic's subtopics ``S`` are those with at least one relevant line (``actualSubtopics``); a topic
  with none scores 0 everywhere, except nNRBP, which is 0/0 = NaN (ndeval and pyndeval both);
- a document relevant to subtopic j for the c-th time (c = 0, 1, ...) down the ranking gains
  ``(1 - alpha)^c`` for j; its score is the sum over its relevant subtopics;
- the run is ranked by score descending, ties by docno *ascending* (pyndeval's sort; trec_eval
  and the rest of this engine break ties by docno descending);
- the ideal ranking is ndeval's greedy one: repeatedly take the unplaced document with the highest
  current score, ties to the greatest docno (byte order), then discount its subtopics' gains.

Divergences, each documented in docs/diversity.md: cutoffs above 20 are computed (ndeval stops at
20, pyndeval refuses them); ``alpha`` and ``beta`` outside [0, 1] are refused (ndeval's command
line refuses them, pyndeval computes nonsense); ``judged_only=True`` keeps the documents found in
the qrels (ir_measures' pyndeval provider raises TypeError for it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from engine.measures.aliases import (
    IR_ALIASES,
    JUDGED_ONLY,
    REL,
    IrAlias,
    IrCall,
    Param,
    make_measure,
    positive_int,
    unit_interval,
)
from engine.measures.base import Context, Family, Measure, register
from engine.name_parts import MeasureError

NDEVAL_ALPHA = 0.5  # ndeval.c's ALPHA, and ir_measures' default for alpha_nDCG, NRBP...
NDEVAL_BETA = 0.5  # ndeval.c's BETA
NDEVAL_CUTOFFS = (5, 10, 20)  # the cutoffs ndeval prints


class DiversityParam(NamedTuple):
    """A diversity measure's parameters (rel travels as :attr:`Measure.level`)."""

    cutoff: int | None = None
    alpha: float = NDEVAL_ALPHA
    beta: float = NDEVAL_BETA
    judged_only: bool = False


def _param(param: Any) -> DiversityParam:
    """Read a kernel parameter: a DiversityParam, a bare cutoff (``-m ndeval_P_IA.5``) or None."""
    if isinstance(param, DiversityParam):
        return param
    if param is None:
        return DiversityParam()
    k = int(param)
    if k != param or k <= 0:
        raise MeasureError(f"a cutoff must be a positive integer, got {param!r}")
    return DiversityParam(cutoff=k)


# -------------------------------------------------------------------------------- the judgments


@dataclass(frozen=True)
class SubtopicIndex:
    """The relevant (row, subtopic) lines of some judgments at one relevance level, by qrels row.

    ``row_offsets[r]:row_offsets[r + 1]`` are row r's relevant lines in ``codes`` (subtopic codes,
    ascending within a row: ndeval's subtopic order, which fixes the float summation order).
    ``num_subtopics[t]`` is S of qrels topic t; ``key_counts`` gives, for key ``t * ncodes + code``
    (sorted ``keys``), how many documents are relevant to that subtopic (ndeval's ``nrelSub``).
    """

    row_offsets: np.ndarray
    codes: np.ndarray
    line_topics: np.ndarray  # qrels topic of each relevant line
    line_rows: np.ndarray  # qrels row of each relevant line
    ncodes: int
    num_subtopics: np.ndarray
    keys: np.ndarray
    key_counts: np.ndarray


def subtopic_index(judgments: Any, level: int) -> SubtopicIndex:
    """The :class:`SubtopicIndex` of ``judgments`` (an engine.evaluate.Judgments), cached on it."""
    key = ("ndeval_subtopics", level)
    cached = judgments.cache.get(key)
    if cached is None:
        cached = _build_index(judgments.qrels, level)
        judgments.cache[key] = cached
    return cached


def _build_index(qrels: Any, level: int) -> SubtopicIndex:
    nrows, ntopics = len(qrels), len(qrels.topics)
    sub = qrels.subtopics
    if sub is None:  # dict-built qrels: one line per document, every one subtopic '0' (ir_measures' default)
        rows, codes, rels, ncodes = np.arange(nrows, dtype=np.int64), np.zeros(nrows, np.int64), qrels.rels, 1
    else:
        rows, codes, rels, ncodes = sub.rows(), sub.codes, sub.rels, max(len(sub.names), 1)
    relevant = rels >= level
    rows, codes = rows[relevant], codes[relevant]
    order = np.lexsort((codes, rows))
    rows, codes = rows[order], codes[order].astype(np.int64)
    row_topic = np.repeat(np.arange(ntopics, dtype=np.int64), np.diff(qrels.offsets))
    topics = row_topic[rows]
    keys, counts = np.unique(topics * ncodes + codes, return_counts=True)
    return SubtopicIndex(
        row_offsets=np.searchsorted(rows, np.arange(nrows + 1), side="left").astype(np.int64),
        codes=codes,
        line_topics=topics,
        line_rows=rows,
        ncodes=ncodes,
        num_subtopics=np.bincount(keys // ncodes, minlength=ntopics)[:ntopics].astype(np.int64),
        keys=keys,
        key_counts=counts.astype(np.float64),
    )


def _greedy_ideal(member: np.ndarray, alpha: float) -> np.ndarray:
    """Scores down ndeval's greedy ideal ranking of one topic (``idealResult``), zeros left out.

    ``member`` is (documents x subtopics) bool, documents in ascending docno order, subtopics in
    code order. Each step scores every unplaced document as the sum, in subtopic order, of its
    subtopics' current gains (a sequential sum, as ndeval's loop adds, so equal scores compare equal
    exactly as they do in C), takes the maximum (ties: the greatest docno, ndeval's strcmp rule), and
    multiplies the gains of its subtopics by 1 - alpha. Stops once no document has a positive score:
    the rest of ndeval's ideal ranking adds nothing.
    """
    ndocs, nsub = member.shape
    weights = member.astype(np.float64)
    gains = np.ones(nsub, dtype=np.float64)
    placed = np.zeros(ndocs, dtype=bool)
    out = np.zeros(ndocs, dtype=np.float64)
    for step in range(ndocs):
        scores = np.add.accumulate(weights * gains, axis=1)[:, -1]
        scores[placed] = -1.0
        best = scores.max()
        if best <= 0.0:
            return out[:step]
        where = int(np.flatnonzero(scores == best)[-1])
        out[step] = best
        placed[where] = True
        gains[member[where]] *= 1.0 - alpha
    return out


@dataclass(frozen=True)
class IdealLists:
    """Every qrels topic's greedy ideal scores, concatenated: topic t owns ``offsets[t]:offsets[t+1]``."""

    offsets: np.ndarray
    scores: np.ndarray


def ideal_lists(judgments: Any, level: int, alpha: float) -> IdealLists:
    """ndeval's ideal rankings (by greedy selection) at ``level`` and ``alpha``, cached on the judgments."""
    key = ("ndeval_ideal", level, alpha)
    cached = judgments.cache.get(key)
    if cached is None:
        cached = _build_ideal(subtopic_index(judgments, level), len(judgments.qrels.topics), alpha)
        judgments.cache[key] = cached
    return cached


def _build_ideal(index: SubtopicIndex, ntopics: int, alpha: float) -> IdealLists:
    bounds = np.searchsorted(index.line_topics, np.arange(ntopics + 1), side="left")
    parts: list[np.ndarray] = []
    for t in range(ntopics):
        a, b = int(bounds[t]), int(bounds[t + 1])
        if a == b:
            parts.append(np.zeros(0, dtype=np.float64))
            continue
        doc_rows, doc_of_line = np.unique(index.line_rows[a:b], return_inverse=True)
        subs, sub_of_line = np.unique(index.codes[a:b], return_inverse=True)
        member = np.zeros((len(doc_rows), len(subs)), dtype=bool)
        member[doc_of_line.ravel(), sub_of_line.ravel()] = True
        parts.append(_greedy_ideal(member, alpha))
    offsets = np.zeros(ntopics + 1, dtype=np.int64)
    np.cumsum([len(p) for p in parts], out=offsets[1:])
    scores = np.concatenate(parts) if parts else np.zeros(0, dtype=np.float64)
    return IdealLists(offsets, scores)


# -------------------------------------------------------------------------------- the run


@dataclass(frozen=True)
class RankedPairs:
    """A run re-ranked as pyndeval ranks it, with one entry per (ranked document, relevant subtopic).

    ``offsets``/``rank0`` describe the ranked lists (0-based rank of each document); ``pair_doc``,
    ``pair_key`` (``topic * ncodes + code``) and ``pair_occ`` (how many documents above it in the
    same topic are relevant to the same subtopic) describe the pairs, in ranking order.
    """

    offsets: np.ndarray
    rank0: np.ndarray
    doc_topic: np.ndarray  # evaluated-topic index of each ranked document
    pair_doc: np.ndarray
    pair_key: np.ndarray
    pair_occ: np.ndarray


def _pyndeval_order(offsets: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Permutation turning the engine's order (score desc, docno desc) into pyndeval's (docno asc).

    Within each run of equal scores in one topic the engine lists docnos descending; reversing every
    such run lists them ascending, as pyndeval's ``sorted(key=(-score, docno))`` does.
    """
    n = len(scores)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    topic_start = np.zeros(n, dtype=bool)
    topic_start[offsets[:-1][offsets[:-1] < n]] = True
    new = topic_start
    new[1:] |= scores[1:] != scores[:-1]
    group = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    ends = np.r_[starts[1:], n]
    return (starts[group] + ends[group] - 1 - np.arange(n)).astype(np.int64)


def ranked_pairs(ctx: Context, judged_only: bool) -> RankedPairs:
    """The run of ``ctx`` as pyndeval sees it, joined with the relevant subtopic lines (cached on ctx)."""
    key = f"ndeval_pairs_{judged_only}"
    cached = ctx.extra.get(key)
    if isinstance(cached, RankedPairs):
        return cached
    aligned = ctx.extra.get("aligned")
    judgments = ctx.extra.get("judgments")
    if aligned is None or judgments is None or aligned.qrels_rows is None:
        raise ValueError("diversity measures need the run aligned with its judgments (engine.evaluate)")
    index = subtopic_index(judgments, ctx.level)
    offsets, rows, scores = ctx.offsets, aligned.qrels_rows, aligned.scores
    if judged_only:  # ir_measures' intent: keep the documents found in the qrels, then rank
        keep = rows >= 0
        counts = ctx.seg_count(keep).astype(np.int64)
        offsets = np.zeros(ctx.ntopics + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        rows, scores = rows[keep], scores[keep]
    perm = _pyndeval_order(offsets, scores)
    rows = rows[perm]
    lengths = np.diff(offsets)
    doc_topic = np.repeat(np.arange(ctx.ntopics, dtype=np.int64), lengths)
    rank0 = np.arange(len(rows), dtype=np.int64) - np.repeat(offsets[:-1], lengths)
    found = rows >= 0
    safe = np.where(found, rows, 0)
    starts = index.row_offsets[safe]
    counts = np.where(found, index.row_offsets[safe + 1] - starts, 0)
    pair_doc = np.repeat(np.arange(len(rows), dtype=np.int64), counts)
    first = np.cumsum(counts) - counts
    lines = np.repeat(starts, counts) + np.arange(len(pair_doc), dtype=np.int64) - np.repeat(first, counts)
    qrels_topic = np.asarray(aligned.qrels_index, dtype=np.int64)[doc_topic[pair_doc]]
    pair_key = qrels_topic * index.ncodes + index.codes[lines]
    pair_occ = _occurrences(pair_key)
    result = RankedPairs(offsets, rank0, doc_topic, pair_doc, pair_key, pair_occ)
    ctx.extra[key] = result
    return result


def _occurrences(keys: np.ndarray) -> np.ndarray:
    """For each entry, how many earlier entries share its key (entries are in ranking order)."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    head = np.r_[True, sk[1:] != sk[:-1]]
    head_at = np.maximum.accumulate(np.where(head, np.arange(len(sk)), 0))
    occ = np.empty(len(keys), dtype=np.int64)
    occ[order] = np.arange(len(sk)) - head_at
    return occ


# -------------------------------------------------------------------------------- shared arithmetic


def _powers(base: float, n: int) -> np.ndarray:
    """1, base, base², ... (n values) by repeated multiplication, as ndeval updates its gains."""
    return np.cumprod(np.r_[1.0, np.full(max(n - 1, 0), base)])[:n]


def _discount(rank0: np.ndarray) -> np.ndarray:
    """ndeval's ``discount``: log(2) / log(rank0 + 2), i.e. 1 / log2(rank + 1) for 1-based rank."""
    return np.log(2.0) / np.log(rank0 + 2.0)


def _doc_gains(pairs: RankedPairs, alpha: float) -> np.ndarray:
    """Each ranked document's novelty score Σ_j (1 - alpha)^c_j over its relevant subtopics j."""
    gains = _powers(1.0 - alpha, int(pairs.pair_occ.max()) + 1 if len(pairs.pair_occ) else 1)
    return np.bincount(pairs.pair_doc, weights=gains[pairs.pair_occ], minlength=len(pairs.rank0))


def _seg_sum(values: np.ndarray, seg: np.ndarray, nseg: int) -> np.ndarray:
    return np.bincount(seg, weights=values, minlength=nseg)[:nseg]


def _cumulative(offsets: np.ndarray, scores: np.ndarray, k: int, weight: Any) -> np.ndarray:
    """Per list, Σ over ranks i < k of scores[i] * weight(i) (weight of 0-based ranks)."""
    lengths = np.diff(offsets)
    nseg = len(lengths)
    seg = np.repeat(np.arange(nseg), lengths)
    rank0 = np.arange(len(scores)) - np.repeat(offsets[:-1], lengths)
    top = rank0 < k
    return _seg_sum(scores[top] * weight(rank0[top]), seg[top], nseg)


def _reciprocal(rank0: np.ndarray) -> np.ndarray:
    return 1.0 / (rank0 + 1.0)


def _ideal_ideal(num_subtopics: np.ndarray, k: int, alpha: float, weight: Any) -> np.ndarray:
    """ndeval's "ideal ideal" normaliser: S Σ_{i<k} (1 - alpha)^i weight(i), one document covering
    every subtopic at every rank."""
    steps = np.arange(k)
    return num_subtopics * float(np.sum(_powers(1.0 - alpha, k) * weight(steps)))


def _topic_subtopics(ctx: Context) -> np.ndarray:
    judgments = ctx.extra["judgments"]
    index = subtopic_index(judgments, ctx.level)
    return index.num_subtopics[np.asarray(ctx.extra["aligned"].qrels_index, dtype=np.int64)].astype(
        np.float64
    )


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(len(num), dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _cutoff(p: DiversityParam, name: str) -> int:
    if p.cutoff is None:
        raise MeasureError(f"{name} needs a cutoff, e.g. {name}@10")
    return p.cutoff


# -------------------------------------------------------------------------------- alpha-DCG, ERR-IA


def _gain_at(ctx: Context, p: DiversityParam, k: int, weight: Any) -> np.ndarray:
    pairs = ranked_pairs(ctx, p.judged_only)
    return _cumulative(pairs.offsets, _doc_gains(pairs, p.alpha), k, weight)


def _normalised_by_ideal_ideal(ctx: Context, p: DiversityParam, name: str, weight: Any) -> np.ndarray:
    """Σ_{i<k} score_i w(i) over the ideal ideal; at k = 1 ndeval leaves it unnormalised (its loop
    dividing by the ideal ideal starts at rank 2), so ERR-IA@1 and alpha-DCG@1 can exceed 1."""
    k = _cutoff(p, name)
    raw = _gain_at(ctx, p, k, weight)
    if k == 1:
        return raw
    return _ratio(raw, _ideal_ideal(_topic_subtopics(ctx), k, p.alpha, weight))


def _normalised_by_ideal(ctx: Context, p: DiversityParam, name: str, weight: Any) -> np.ndarray:
    """Σ_{i<k} score_i w(i) over the same sum down ndeval's greedy ideal ranking (0 when the run's is 0)."""
    k = _cutoff(p, name)
    raw = _gain_at(ctx, p, k, weight)
    ideal = ideal_lists(ctx.extra["judgments"], ctx.level, p.alpha)
    topics = np.asarray(ctx.extra["aligned"].qrels_index, dtype=np.int64)
    best = _cumulative(ideal.offsets, ideal.scores, k, weight)[topics] if len(topics) else np.zeros(0)
    return _ratio(raw, np.where(raw != 0, best, 0.0))


def _alpha_dcg(ctx: Context, param: Any) -> np.ndarray:
    """alpha-DCG@k (Clarke et al., SIGIR 2008), ndeval's collection-independent normalisation.

    α-DCG@k = Σ_{i<k} g_i / log2(i + 2) ÷ S Σ_{i<k} (1 - α)^i / log2(i + 2), with
    g_i = Σ_{j: doc i relevant to j} (1 - α)^{c_ij} (0-based ranks; c_ij documents above i relevant
    to j; S the topic's subtopics). The denominator is ndeval's "ideal ideal" (one document covering
    every subtopic at every rank). k = 1 is not normalised (ndeval.c ``computeDCG``).
    """
    return _normalised_by_ideal_ideal(ctx, _param(param), "alpha_DCG", _discount)


def _alpha_ndcg(ctx: Context, param: Any) -> np.ndarray:
    """alpha-nDCG@k (Clarke et al., SIGIR 2008), ndeval's collection-dependent normalisation.

    α-nDCG@k = Σ_{i<k} g_i / log2(i + 2) ÷ the same sum down the greedy ideal ranking (ndeval.c
    ``idealResult``: repeatedly the document with the largest g, ties to the greatest docno).
    0 when the run's sum is 0 (ndeval.c ``renormalize``).
    """
    return _normalised_by_ideal(ctx, _param(param), "alpha_nDCG", _discount)


def _err_ia(ctx: Context, param: Any) -> np.ndarray:
    """ERR-IA@k (Chapelle et al., CIKM 2009) as ndeval computes it (collection-independent).

    ERR-IA@k = Σ_{i<k} g_i / (i + 1) ÷ S Σ_{i<k} (1 - α)^i / (i + 1), α = 0.5 (ndeval's default;
    ir_measures' ERR_IA has no alpha), g_i as for alpha-DCG. With binary subtopic judgments each
    subtopic's stopping probability is 1/2, so g_i / 2 is Chapelle's intent-aware ERR increment;
    the ideal-ideal ratio cancels the 1/2. k = 1 is not normalised (ndeval.c ``computeERR``).
    """
    p = _param(param)._replace(alpha=NDEVAL_ALPHA)
    return _normalised_by_ideal_ideal(ctx, p, "ERR_IA", _reciprocal)


def _nerr_ia(ctx: Context, param: Any) -> np.ndarray:
    """nERR-IA@k: ERR-IA normalised by the greedy ideal ranking's (ndeval, α = 0.5; 0 if the run's is 0)."""
    p = _param(param)._replace(alpha=NDEVAL_ALPHA)
    return _normalised_by_ideal(ctx, p, "nERR_IA", _reciprocal)


# -------------------------------------------------------------------------------- NRBP


def _nrbp_sum(offsets: np.ndarray, scores: np.ndarray, beta: float) -> np.ndarray:
    lengths = np.diff(offsets)
    rank0 = np.arange(len(scores)) - np.repeat(offsets[:-1], lengths)
    decay = _powers(beta, int(lengths.max()) if len(lengths) else 0)
    seg = np.repeat(np.arange(len(lengths)), lengths)
    return _seg_sum(scores * decay[rank0], seg, len(lengths))


def _nrbp_parts(ctx: Context, param: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """(Σ_i g_i β^i over the whole run, S, (1 - (1 - α)β)): NRBP = the product over S."""
    p = _param(param)
    pairs = ranked_pairs(ctx, False)
    run = _nrbp_sum(pairs.offsets, _doc_gains(pairs, p.alpha), p.beta)
    return run, _topic_subtopics(ctx), 1.0 - (1.0 - p.alpha) * p.beta


def _nrbp(ctx: Context, param: Any) -> np.ndarray:
    """NRBP (Clarke, Kolla & Vechtomova, ICTIR 2009), collection-independent normalisation.

    NRBP = (1 - (1 - α)β) / S · Σ_i g_i β^i over every ranked document (no cutoff), g_i as for
    alpha-DCG (ndeval.c ``computeNRBP``). 0 for a topic without subtopics.
    """
    run, subtopics, factor = _nrbp_parts(ctx, param)
    return _ratio(run * factor, subtopics)


def _nnrbp(ctx: Context, param: Any) -> np.ndarray:
    """nNRBP: NRBP normalised by the greedy ideal ranking's NRBP (ndeval.c ``renormalize``).

    A topic without subtopics (no relevant line) is 0/0 = NaN, as in ndeval and pyndeval; so is
    every topic when (1 - α)β = 1 (α = 0, β = 1). A qrels topic the run lacks, counted under
    ``-c``, is 0 (ndeval's ``-c``, ir_measures' default for a missing topic).
    """
    p = _param(param)
    run, subtopics, factor = _nrbp_parts(ctx, p)
    ideal = ideal_lists(ctx.extra["judgments"], ctx.level, p.alpha)
    topics = np.asarray(ctx.extra["aligned"].qrels_index, dtype=np.int64)
    best = _nrbp_sum(ideal.offsets, ideal.scores, p.beta)[topics] if len(topics) else np.zeros(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        num = np.where(subtopics > 0, run * factor / np.maximum(subtopics, 1), 0.0)
        den = np.where(subtopics > 0, best * factor / np.maximum(subtopics, 1), 0.0)
        out = num / den
    absent = np.asarray(ctx.extra["aligned"].full_lengths) == 0
    out[absent] = 0.0
    return np.asarray(out, dtype=np.float64)


# -------------------------------------------------------------------------------- MAP-IA, P-IA, strec


def _ap_ia(ctx: Context, param: Any) -> np.ndarray:
    """AP-IA (ndeval's MAP-IA): the mean over the topic's S subtopics of each subtopic's AP.

    AP_j = (1 / R_j) Σ over ranked documents relevant to j of (c_ij + 1) / rank_i, R_j the
    documents relevant to j in the qrels; whole ranking, no cutoff (ndeval.c ``computeMAP``).
    """
    p = _param(param)
    pairs = ranked_pairs(ctx, p.judged_only)
    index = subtopic_index(ctx.extra["judgments"], ctx.level)
    relevant = (
        index.key_counts[np.searchsorted(index.keys, pairs.pair_key)] if len(pairs.pair_key) else np.zeros(0)
    )
    terms = (pairs.pair_occ + 1.0) / (pairs.rank0[pairs.pair_doc] + 1.0) / relevant
    total = _seg_sum(terms, pairs.doc_topic[pairs.pair_doc], ctx.ntopics)
    return _ratio(total, _topic_subtopics(ctx))


def _pairs_in_top(ctx: Context, p: DiversityParam, name: str, first_only: bool) -> tuple[np.ndarray, int]:
    k = _cutoff(p, name)
    pairs = ranked_pairs(ctx, p.judged_only)
    top = pairs.rank0[pairs.pair_doc] < k
    if first_only:
        top &= pairs.pair_occ == 0
    return np.bincount(pairs.doc_topic[pairs.pair_doc][top], minlength=ctx.ntopics)[: ctx.ntopics], k


def _p_ia(ctx: Context, param: Any) -> np.ndarray:
    """P-IA@k: (1 / S) Σ_j P_j@k = (relevant (document, subtopic) pairs in the top k) / (k S).

    Documents past the end of a short ranking count as non-relevant (ndeval.c ``computePrecision``).
    """
    count, k = _pairs_in_top(ctx, _param(param), "P_IA", first_only=False)
    return _ratio(count.astype(np.float64), k * _topic_subtopics(ctx))


def _st_recall(ctx: Context, param: Any) -> np.ndarray:
    """StRecall@k (ndeval's strec@k, Zhai et al. 2003): subtopics covered by the top k, over S."""
    count, _ = _pairs_in_top(ctx, _param(param), "StRecall", first_only=True)
    return _ratio(count.astype(np.float64), _topic_subtopics(ctx))


# -------------------------------------------------------------------------------- registration

# family -> (kernel, ndeval's column name, takes a cutoff)
_FAMILIES: dict[str, tuple[Any, str, bool]] = {
    "ndeval_ERR_IA": (_err_ia, "ERR-IA", True),
    "ndeval_nERR_IA": (_nerr_ia, "nERR-IA", True),
    "ndeval_alpha_DCG": (_alpha_dcg, "alpha-DCG", True),
    "ndeval_alpha_nDCG": (_alpha_ndcg, "alpha-nDCG", True),
    "ndeval_NRBP": (_nrbp, "NRBP", False),
    "ndeval_nNRBP": (_nnrbp, "nNRBP", False),
    "ndeval_MAP_IA": (_ap_ia, "MAP-IA", False),
    "ndeval_P_IA": (_p_ia, "P-IA", True),
    "ndeval_strec": (_st_recall, "strec", True),
}


def _column_namer(column: str) -> Any:
    """ndeval's column name (``alpha-nDCG@20``, ``NRBP``), with non-default alpha/beta appended."""

    def name(_: str, param: Any) -> str:
        p = _param(param)
        out = column if p.cutoff is None else f"{column}@{p.cutoff}"
        extras = [
            f"{k}={v:g}"
            for k, v, d in (("alpha", p.alpha, NDEVAL_ALPHA), ("beta", p.beta, NDEVAL_BETA))
            if v != d
        ]
        return out + (f"({','.join(extras)})" if extras else "")

    return name


for _name, (_kernel, _column, _cut) in _FAMILIES.items():
    register(
        Family(
            _name,
            _kernel,
            _kernel.__doc__ or "",
            params=NDEVAL_CUTOFFS if _cut else (),
            in_all_trec=False,
            format_name=_column_namer(_column),
            param_kind="long_cutoffs" if _cut else "",
        )
    )


# -------------------------------------------------------------------------------- ir_measures names

_CUTOFF = Param(
    int,
    required=True,
    check=positive_int,
    doc="ranking cutoff threshold (ndeval computes 1-20; deeper cutoffs extend its formula)",
)
_ALPHA = Param(float, default=NDEVAL_ALPHA, check=unit_interval, doc="redundancy intolerance, in [0, 1]")
_BETA = Param(float, default=NDEVAL_BETA, check=unit_interval, doc="patience, in [0, 1]")


def _build(call: IrCall) -> list[Measure]:
    """One diversity measure: every argument but rel goes into a :class:`DiversityParam`."""
    family = call.alias.cutoff or call.alias.plain
    assert family is not None
    args = call.args
    param = DiversityParam(
        cutoff=args.get("cutoff"),
        alpha=float(args.get("alpha", NDEVAL_ALPHA)),
        beta=float(args.get("beta", NDEVAL_BETA)),
        judged_only=bool(args.get("judged_only", False)),
    )
    return [make_measure(call, family, param, level=args.get("rel"))]


def _alias(family: str, params: dict[str, Param], doc: str) -> IrAlias:
    cut = "cutoff" in params
    return IrAlias(None if cut else family, family if cut else None, params, build=_build, doc=doc)


_IA = {"cutoff": _CUTOFF, "rel": REL, "judged_only": JUDGED_ONLY}
_ALPHA_IA = {"cutoff": _CUTOFF, "rel": REL, "alpha": _ALPHA, "judged_only": JUDGED_ONLY}
_NRBP_PARAMS = {"rel": REL, "alpha": _ALPHA, "beta": _BETA}

IR_ALIASES.update(
    {
        "ERR_IA": _alias("ndeval_ERR_IA", _IA, "Intent-aware ERR (ndeval ERR-IA@k)"),
        "nERR_IA": _alias(
            "ndeval_nERR_IA", _IA, "ERR_IA normalised by the greedy ideal ranking (ndeval nERR-IA@k)"
        ),
        "alpha_DCG": _alias(
            "ndeval_alpha_DCG",
            _ALPHA_IA,
            "alpha-DCG, collection-independent normalisation (ndeval alpha-DCG@k)",
        ),
        "alpha_nDCG": _alias("ndeval_alpha_nDCG", _ALPHA_IA, "alpha-nDCG (ndeval alpha-nDCG@k)"),
        "NRBP": _alias("ndeval_NRBP", _NRBP_PARAMS, "Novelty- and rank-biased precision (ndeval NRBP)"),
        "nNRBP": _alias(
            "ndeval_nNRBP", _NRBP_PARAMS, "NRBP normalised by the greedy ideal ranking (ndeval nNRBP)"
        ),
        "AP_IA": _alias(
            "ndeval_MAP_IA", {"rel": REL, "judged_only": JUDGED_ONLY}, "Intent-aware AP (ndeval MAP-IA)"
        ),
        "P_IA": _alias("ndeval_P_IA", _IA, "Intent-aware precision at k (ndeval P-IA@k)"),
        "StRecall": _alias(
            "ndeval_strec", {"cutoff": _CUTOFF, "rel": REL}, "Subtopic recall at k (ndeval strec@k)"
        ),
    }
)
IR_ALIASES["α_DCG"] = IR_ALIASES["alpha_DCG"]
IR_ALIASES["α_nDCG"] = IR_ALIASES["alpha_nDCG"]
IR_ALIASES["MAP_IA"] = IR_ALIASES["AP_IA"]
