"""NIST sample_eval.pl's estimators over a stratified sample: xinfAP, xinfNDCG, iP_k, inum_rel(_ret), iprec.

Source: Yilmaz, Kanoulas & Aslam, "A Simple and Efficient Sampling Method for Estimating AP and NDCG",
SIGIR 2008, as implemented by NIST's ``sample_eval.pl``. Two versions are reproduced, quirks included
(``EvalOptions.sample_variant``):

* ``trec2011`` (default; the 10 Oct 2011 script): ideal DCG from per-grade estimates rounded with
  ``int(x + 0.5)``; prints iP10, iP50, iP1000.
* ``trecvid2012``: no rounding (the ideal's ranks become fractional), xinfAP rescaled by R̂/1000 when
  R̂ > 1000; the reference outputs of this version print iP5, 10, 15, 20, 30, 100, 200, 500, 1000.

What both scripts do and we replicate: the run is walked in the canonical order (score desc, docno
desc) for at most ``max_result_size`` (1000) ranks; documents outside the prel's universe only
advance the rank; the per-stratum counters are updated after a document is scored; strata are
visited in byte order of their labels and grades in reverse string order ("2" before "10").
One deliberate difference: the TREC 2011 script strips leading zeros from the run's topic ids (not
the prel's), so a topic "051" never matches; here topic ids are matched as strings, as everywhere.

The measure group ``sample_eval`` expands, through ``parse_measures(..., sample_variant=...)``, to
``sample_eval_trec2011`` or ``sample_eval_trecvid2012``: the measures and iP cutoffs that version prints,
in its order. ``iP`` alone gives the TREC 2011 cutoffs; ``iP.5,15`` any others.

Relevant means ``rel >= level`` (sample_eval's ``rel > 0`` at the default level 1) for the binary
estimates; xinfNDCG's gains are the grades (> 0) whatever the level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.measures.base import Context, Family, register, total
from trec.order import docno_keys

EPSILON = 0.00001
# sample_eval's literal 0.00003 (3 * 0.00001 is one ulp above it); trec_eval's 2ε for the 1/2 prior.
PRIOR_DENOMINATOR = {"third": 0.00003, "half": 0.00002}
# sample_eval.pl's own estimate of relevant retrieved always uses its 1/3 prior.
EST_DENOMINATOR = 0.00003
TREC2011_CUTOFFS = (10, 50, 1000)
TRECVID2012_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
VARIANTS = ("trec2011", "trecvid2012")
# the script's @cutoff_array ("0", ".1", ..., "1") as doubles
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


# ---------------------------------------------------------------- per-judgments tables (cached)


@dataclass(frozen=True)
class _Strata:
    """Each prel line's stratum as a local index (its label's rank in byte order within the topic)."""

    code: np.ndarray  # per prel line
    width: int  # most strata of any topic
    listed: np.ndarray  # (topics, width): |S_s|, every line of the stratum
    sampled: np.ndarray  # (topics, width): n_s, lines with rel >= 0


@dataclass(frozen=True)
class _Estimates:
    """Per prel topic: sampled relevant per stratum, R̂_s = r_s·|S_s|/n_s and R̂ = Σ_s R̂_s."""

    relevant: np.ndarray  # (topics, width) r_s
    rhat_s: np.ndarray  # (topics, width)
    rhat: np.ndarray  # (topics,)


def _prel(judgments: Any) -> Any:
    if judgments.prel is None:
        raise ValueError("the sample_eval measures need judgments read from a sample_eval prel (--prel)")
    return judgments.prel


def _labels_and_codes(strata: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(strata, return_inverse=True)``: labels in byte order and each row's index.

    Labels of up to 8 bytes (the usual "1", "2", ...) are compared as big-endian integers of
    their NUL-padded bytes, which is byte order and sorts 1.3M rows in a tenth of the time of
    a string sort; longer labels are sorted as strings.
    """
    arr = np.asarray(strata)
    if arr.dtype.kind != "S" or arr.dtype.itemsize > 8 or len(arr) == 0:
        labels, codes = np.unique(arr, return_inverse=True)
        return labels, codes.reshape(-1)
    keys = docno_keys(arr, width=8)[0]
    unique_keys, codes = np.unique(keys, return_inverse=True)
    labels = unique_keys.astype(">u8").view("S8").astype(arr.dtype)
    return labels, codes.reshape(-1)


def _strata(judgments: Any) -> _Strata:
    key = ("sample_eval", "strata")
    if key not in judgments.cache:
        prel = _prel(judgments)
        q = prel.qrels
        ntopics = len(q.topics)
        seg = np.repeat(np.arange(ntopics, dtype=np.int64), np.diff(q.offsets))
        labels, gcode = _labels_and_codes(prel.strata)  # byte order, Perl's `sort keys`
        pair = seg * max(len(labels), 1) + gcode.astype(np.int64)
        # np.unique(pair, return_inverse=True) by counting: pair codes are below topics x labels
        present = np.flatnonzero(np.bincount(pair, minlength=ntopics * max(len(labels), 1)))
        lookup = np.zeros(ntopics * max(len(labels), 1), dtype=np.int64)
        lookup[present] = np.arange(len(present))
        pairs, inverse = present, lookup[pair]
        pair_topic = pairs // max(len(labels), 1)
        first = np.searchsorted(pair_topic, pair_topic, side="left")
        local = (np.arange(len(pairs)) - first)[inverse].astype(np.int64)
        width = int(local.max()) + 1 if len(local) else 1
        flat = seg * width + local
        size = ntopics * width
        listed = np.bincount(flat, minlength=size)[:size].reshape(ntopics, width)
        sampled = np.bincount(flat[q.rels >= 0], minlength=size)[:size].reshape(ntopics, width)
        judgments.cache[key] = _Strata(code=local, width=width, listed=listed, sampled=sampled)
    strata: _Strata = judgments.cache[key]
    return strata


def _estimates(judgments: Any, level: int) -> _Estimates:
    key = ("sample_eval", "estimates", level)
    if key not in judgments.cache:
        st = _strata(judgments)
        q = judgments.prel.qrels
        ntopics = len(q.topics)
        seg = np.repeat(np.arange(ntopics, dtype=np.int64), np.diff(q.offsets))
        size = ntopics * st.width
        flat = (seg * st.width + st.code)[q.rels >= level]
        relevant = np.bincount(flat, minlength=size)[:size].reshape(ntopics, st.width)
        with np.errstate(divide="ignore", invalid="ignore"):
            # the script's operation order: (r * |S|) / n
            rhat_s = np.where(st.sampled > 0, (relevant * st.listed) / st.sampled, 0.0)
        rhat = np.zeros(ntopics)
        for s in range(st.width):  # strata in label order, as the script adds them
            rhat = rhat + rhat_s[:, s]
        judgments.cache[key] = _Estimates(relevant=relevant, rhat_s=rhat_s, rhat=rhat)
    est: _Estimates = judgments.cache[key]
    return est


def ideal_dcg_estimate(grade_counts: list[tuple[int, float]], *, rounded: bool, max_rank: int) -> float:
    """sample_eval's ideal DCG from estimated counts per grade, filled from the highest grade down.

    ``grade_counts`` lists (grade, R̂_g) in the script's order: grades in reverse *string* order.
    TREC 2011 rounds each R̂_g with int(x + 0.5); TRECVID 2012 uses it as is, so the ranks become
    fractional (r = start+1, start+2, ... while r <= start + R̂_g). In both, a grade's loop stops after
    the term with r >= max_rank, and the next grade still adds its first term beyond it.
    """
    idcg = 0.0
    start: float = 0
    for grade, estimate in grade_counts:
        count: float = int(estimate + 0.5) if rounded else estimate
        r = start + 1
        while r <= start + count:
            idcg += grade / (math.log(r + 1) / math.log(2))
            if r >= max_rank:
                break
            r += 1
        start += count
    return idcg


def _ideal(judgments: Any, variant: str, max_rank: int) -> np.ndarray:
    key = ("sample_eval", "ideal", variant, max_rank)
    if key not in judgments.cache:
        st = _strata(judgments)
        q = judgments.prel.qrels
        ntopics = len(q.topics)
        seg = np.repeat(np.arange(ntopics, dtype=np.int64), np.diff(q.offsets))
        pos = q.rels > 0
        t, c, g = seg[pos], st.code[pos], q.rels[pos]
        order = np.lexsort((g, c, t))
        t, c, g = t[order], c[order], g[order]
        new_group = np.ones(len(t), dtype=bool)
        new_group[1:] = (t[1:] != t[:-1]) | (c[1:] != c[:-1]) | (g[1:] != g[:-1])
        heads = np.flatnonzero(new_group)
        counts = np.diff(np.r_[heads, len(t)])
        per_topic: list[dict[int, float]] = [{} for _ in range(ntopics)]
        # (topic, stratum, grade) ascending: each grade's estimate adds up strata in label order
        groups = zip(t[heads].tolist(), c[heads].tolist(), g[heads].tolist(), counts.tolist(), strict=True)
        for ti, ci, gi, n in groups:
            add = (n * int(st.listed[ti, ci])) / int(st.sampled[ti, ci])
            per_topic[ti][gi] = per_topic[ti].get(gi, 0) + add
        rounded = variant == "trec2011"
        ordered = [[(gr, est[gr]) for gr in sorted(est, key=str, reverse=True)] for est in per_topic]
        judgments.cache[key] = np.array(
            [ideal_dcg_estimate(e, rounded=rounded, max_rank=max_rank) for e in ordered], dtype=np.float64
        )
    ideal: np.ndarray = judgments.cache[key]
    return ideal


# ---------------------------------------------------------------- the walk over one run (cached per context)


@dataclass(frozen=True)
class _Walk:
    """A run's top ``max_result_size`` ranks joined with the prel, with per-stratum running counts."""

    ctx: Context  # the capped view: offsets, rank, segment helpers
    topics: np.ndarray  # prel topic index of each evaluated topic
    code: np.ndarray  # local stratum of each position, -1 outside the universe
    grade: np.ndarray  # prel rel of each position (-1 unsampled or outside)
    relevant: np.ndarray  # in the sample and rel >= level
    # inclusive running counts per stratum (list index = local stratum): listed, sampled, relevant
    docs: list[np.ndarray]
    sampled: list[np.ndarray]
    rels: list[np.ndarray]
    depth: np.ndarray  # universe documents at or above each position (the script's $num_depth100)

    def estimate(self) -> np.ndarray:
        """The script's estimated relevant at or above each position (1/3 prior, strata in label order)."""
        est = np.zeros(len(self.code))
        for m, n, r in zip(self.docs, self.sampled, self.rels, strict=True):
            est = est + (m * (r + EPSILON)) / (n + EST_DENOMINATOR)
        return est

    def final(self, per_position: np.ndarray) -> np.ndarray:
        """Per topic, the value at the last walked rank (0 for a topic with no documents)."""
        return self.ctx.at_cutoff(per_position, int(self.ctx.lengths.max(initial=0)))


def _walk(ctx: Context) -> _Walk:
    key = f"sample_eval.walk.{ctx.level}"
    cached = ctx.extra.get(key)
    if cached is not None:
        walk: _Walk = cached
        return walk
    judgments = ctx.extra["judgments"]
    aligned = ctx.extra["aligned"]
    prel = _prel(judgments)
    st = _strata(judgments)
    cap = ctx.options.max_result_size
    if int(ctx.lengths.max(initial=0)) > cap:
        keep = ctx.rank <= cap
        lengths = np.minimum(ctx.lengths, cap)
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        capped = Context(ctx.topics, offsets, ctx.rel[keep], ctx.stats, ctx.options, level=ctx.level)
        docnos = aligned.docnos[keep]
    else:
        capped, docnos = ctx, aligned.docnos
    q = prel.qrels
    if aligned.qrels_rows is not None and judgments.qrels is q:
        # the evaluator already joined the run with these very judgments
        index = aligned.qrels_rows if capped is ctx else aligned.qrels_rows[keep]
    else:
        # judgments whose prel is not their qrels: join with the prel the same way
        prel_judgments = judgments.cache.setdefault(("sample_eval", "prel"), type(judgments)(q))
        index = prel_judgments.lookup_rows(np.repeat(aligned.qrels_index, capped.lengths), docnos)
    inside = index >= 0
    code = np.full(len(index), -1, dtype=np.int64)
    code[inside] = st.code[index[inside]]
    grade = np.full(len(index), -1, dtype=np.int64)
    grade[inside] = q.rels[index[inside]]
    relevant = inside & (grade >= ctx.level)
    sampled = inside & (grade >= 0)
    docs, samp, rels = [], [], []
    for s in range(st.width):
        in_s = code == s
        docs.append(capped.seg_cumsum(in_s))
        samp.append(capped.seg_cumsum(in_s & sampled))
        rels.append(capped.seg_cumsum(in_s & relevant))
    walk = _Walk(
        ctx=capped,
        topics=aligned.qrels_index,
        code=code,
        grade=grade,
        relevant=relevant,
        docs=docs,
        sampled=samp,
        rels=rels,
        depth=capped.seg_cumsum(inside),
    )
    ctx.extra[key] = walk
    return walk


def _estimate(ctx: Context) -> tuple[_Walk, np.ndarray]:
    key = f"sample_eval.estimate.{ctx.level}"
    walk = _walk(ctx)
    if key not in ctx.extra:
        ctx.extra[key] = walk.estimate()
    est: np.ndarray = ctx.extra[key]
    return walk, est


# ---------------------------------------------------------------- kernels


def _xinfap(ctx: Context, _: Any) -> np.ndarray:
    """xinfAP (Yilmaz, Kanoulas & Aslam 2008), sample_eval.pl's ``infAP``.

    Per stratum s of the prel: |S_s| listed, n_s sampled (rel >= 0), r_s sampled relevant;
    R̂_s = r_s·|S_s|/n_s (0 when n_s = 0), R̂ = Σ_s R̂_s. For a sampled relevant document at rank k
    among the top 1000, with M universe documents above it, m_s of them in stratum s, samp_s sampled
    and rel_s sampled relevant:
    prec(k) = 1/k + (M/k)·Σ_{s: m_s>0} (m_s/M)·(rel_s + 0.00001)/(samp_s + 0.00003).
    xinfAP = Σ_s (R̂_s/R̂)·SAP_s/r_s, SAP_s summing prec over the retrieved relevant documents of s.
    ``sample_prior="half"`` uses trec_eval's (rel_s + ε)/(samp_s + 2ε) instead of the 1/3 prior.
    TRECVID 2012 multiplies by R̂/1000 when R̂ > 1000.
    """
    walk = _walk(ctx)
    judgments = ctx.extra["judgments"]
    est = _estimates(judgments, ctx.level)
    denominator = PRIOR_DENOMINATOR[ctx.options.sample_prior]
    cap = walk.ctx
    at = np.flatnonzero(walk.relevant)
    own = walk.code[at]
    rank = cap.rank[at].astype(np.float64)
    depth = (walk.depth[at] - 1).astype(np.float64)  # counters above: the document itself not yet added
    prec_above = np.zeros(len(at))
    with np.errstate(divide="ignore", invalid="ignore"):
        for s in range(len(walk.docs)):
            mine = own == s
            m = walk.docs[s][at] - mine
            n = walk.sampled[s][at] - mine
            r = walk.rels[s][at] - mine
            term = (m / depth) * (r + EPSILON) / (n + denominator)
            prec_above = prec_above + np.where((depth != 0) & (m != 0), term, 0.0)
    prec = 1 / rank + (depth / rank) * prec_above
    width = len(walk.docs)
    seg = cap.segment[at]
    sums = np.bincount(seg * width + own, weights=prec, minlength=cap.ntopics * width)
    sap = sums[: cap.ntopics * width].reshape(cap.ntopics, width)
    topics = walk.topics
    rhat = est.rhat[topics]
    sampled = _strata(judgments).sampled[topics]
    ap = np.zeros(cap.ntopics)
    with np.errstate(divide="ignore", invalid="ignore"):
        for s in range(width):
            r_s = est.relevant[topics, s]
            ap_s = np.where(r_s != 0, sap[:, s] / r_s, 0.0)
            use = (sampled[:, s] != 0) & (rhat != 0)
            ap = ap + np.where(use, (est.rhat_s[topics, s] / rhat) * ap_s, 0.0)
    max_size = ctx.options.max_result_size
    if ctx.options.sample_variant == "trecvid2012":
        ap = np.where(rhat > max_size, ap * rhat / max_size, ap)
    return ap


def _xinfndcg(ctx: Context, _: Any) -> np.ndarray:
    """xinfNDCG (Yilmaz, Kanoulas & Aslam 2008), sample_eval.pl's ``infNDCG``; it can exceed 1.

    Over the run's top 1000, gain_s = Σ grade/log2(rank+1) over sampled documents of stratum s with
    grade > 0; with m_s, samp_s and M counted over the whole walked list,
    DCĜ = M·Σ_{s: samp_s>0} (m_s/M)·gain_s/samp_s. The ideal uses R̂_g = Σ_s r_{s,g}·|S_s|/n_s per
    grade, see :func:`ideal_dcg_estimate` (TREC 2011 rounds R̂_g, TRECVID 2012 does not).
    xinfNDCG = DCĜ / IDCĜ, 0 when IDCĜ = 0. The relevance level plays no part.
    """
    walk = _walk(ctx)
    cap = walk.ctx
    width = len(walk.docs)
    gained = walk.grade > 0
    terms = walk.grade[gained] / (np.log(cap.rank[gained] + 1.0) / math.log(2))
    gain = np.bincount(
        cap.segment[gained] * width + walk.code[gained], weights=terms, minlength=cap.ntopics * width
    )[: cap.ntopics * width].reshape(cap.ntopics, width)
    depth = walk.final(walk.depth)
    dcg = np.zeros(cap.ntopics)
    with np.errstate(divide="ignore", invalid="ignore"):
        for s in range(width):
            m = walk.final(walk.docs[s])
            n = walk.final(walk.sampled[s])
            dcg = dcg + np.where((depth != 0) & (n != 0), (m / depth) * gain[:, s] / n, 0.0)
        judgments = ctx.extra["judgments"]
        ideal = _ideal(judgments, ctx.options.sample_variant, ctx.options.max_result_size)[walk.topics]
        return np.where(ideal != 0, depth * dcg / ideal, 0.0)


def _ip(ctx: Context, k: int) -> np.ndarray:
    """iP_k: the estimated relevant in the top k over k (sample_eval ``iP<k>``).

    The estimate after rank j is Σ_s m_s·(rel_s + 0.00001)/(samp_s + 0.00003), counters inclusive of
    rank j, over all strata (so unsampled strata count 1/3 per document). Beyond the walked list
    (shorter than k, or k > 1000) the script divides the final estimate (inum_rel_ret) by k.
    """
    if int(k) != k or k < 1:
        raise ValueError(f"iP takes positive integer cutoffs, got {k!r}")
    walk, est = _estimate(ctx)
    return walk.ctx.at_cutoff(est, int(k)) / float(k)


def _inum_rel_ret(ctx: Context, _: Any) -> np.ndarray:
    """inum_rel_ret: the estimate of iP_k's numerator after the last walked rank (≤ 1000); 'all' sums."""
    walk, est = _estimate(ctx)
    return walk.final(est)


def _inum_rel(ctx: Context, _: Any) -> np.ndarray:
    """inum_rel: R̂ = Σ_s r_s·|S_s|/n_s; the 'all' value sums over every prel topic, evaluated or not."""
    return _estimates(ctx.extra["judgments"], ctx.level).rhat[ctx.extra["aligned"].qrels_index]


def _inum_rel_total(ctx: Context, values: np.ndarray) -> float:
    return float(np.sum(_estimates(ctx.extra["judgments"], ctx.level).rhat))


def _num_ret(ctx: Context, _: Any) -> np.ndarray:
    """num_ret as sample_eval prints it: per topic the documents retrieved (not capped at 1000)."""
    return ctx.lengths.astype(np.float64)


def _num_ret_total(ctx: Context, values: np.ndarray) -> float:
    # the script's 'all' counts the ranks it walked: at most 1000 per topic
    return float(np.sum(np.minimum(ctx.lengths, ctx.options.max_result_size)))


def interpolated_precision(walk: _Walk, est: np.ndarray, rhat: np.ndarray) -> np.ndarray:
    """Per topic, the script's interpolated precision at the 11 recall levels, shape (topics, 11).

    sample_eval.pl: cut_c = level_c·R̂; start at the highest c with cut_c <= the final estimate;
    walk ranks from the last up, int_prec = max(est_j/j) over ranks >= j; at each rank, *if* (not
    while) cut_c > est_j, assign int_prec to level c and move to c−1; levels left at the end get
    the final int_prec (the maximum over all ranks).
    """
    cap = walk.ctx
    nt = cap.ntopics
    lengths = cap.lengths
    starts = cap.offsets[:-1]
    out = np.zeros((nt, len(RECALL_LEVELS)))
    if nt == 0:
        return out
    cuts = np.multiply.outer(rhat, np.array(RECALL_LEVELS))  # the script's `$_ * $num_rels`
    final = walk.final(est)
    level = np.sum(cuts <= final[:, None], axis=1) - 1  # the opening `while` (cuts are monotone)
    prec = est / cap.rank
    # suffix maxima need a sentinel so that reduceat's ranges may end at the array's end
    padded = np.r_[prec, 0.0]

    def suffix_max(topics: np.ndarray, from_rank: np.ndarray) -> np.ndarray:
        bounds = np.empty(2 * len(topics), dtype=np.int64)
        bounds[0::2] = starts[topics] + from_rank - 1
        bounds[1::2] = starts[topics] + lengths[topics]
        return np.maximum.reduceat(padded, bounds)[0::2]

    nxt = lengths.astype(np.int64).copy()  # next rank to look at, walking up
    seg = cap.segment
    rank = cap.rank
    for _ in range(len(RECALL_LEVELS)):
        active = (level >= 0) & (nxt >= 1)
        if not active.any():
            break
        target = cuts[np.arange(nt), np.maximum(level, 0)]
        cand = active[seg] & (rank <= nxt[seg]) & (target[seg] > est)
        idx = np.flatnonzero(cand)
        # the first rank met walking up is the last candidate position of each topic
        last = idx[np.r_[seg[idx][1:] != seg[idx][:-1], True]] if len(idx) else idx
        hit_topics = seg[last]
        hit_rank = rank[last]
        if len(last):
            out[hit_topics, level[hit_topics]] = suffix_max(hit_topics, hit_rank)
            level[hit_topics] -= 1
            nxt[hit_topics] = hit_rank - 1
        done = active.copy()
        done[hit_topics] = False
        nxt[done] = 0
    rest = np.flatnonzero((level >= 0) & (lengths > 0))
    top = np.zeros(nt)
    if len(rest):
        top[rest] = suffix_max(rest, np.ones(len(rest), dtype=np.int64))
    fill = np.arange(len(RECALL_LEVELS))[None, :] <= level[:, None]
    out[fill] = np.broadcast_to(top[:, None], out.shape)[fill]
    return out


def _iprec_at_recall_est(ctx: Context, recall: float) -> np.ndarray:
    """iprec@rec<r>: sample_eval's estimated interpolated precision at recall r ∈ {0, 0.1, ..., 1}.

    Precision at rank j is est_j/j (est as in iP_k), recall levels are fractions of R̂; the
    assignment walk is :func:`interpolated_precision`'s. Printed only as the mean over topics.
    """
    matches = [i for i, x in enumerate(RECALL_LEVELS) if abs(x - float(recall)) < 1e-9]
    if not matches:
        raise ValueError(f"iprec_at_recall_est is defined at recall 0, 0.1, ..., 1 only, got {recall!r}")
    key = f"sample_eval.iprec.{ctx.level}"
    if key not in ctx.extra:
        walk, est = _estimate(ctx)
        rhat = _estimates(ctx.extra["judgments"], ctx.level).rhat[walk.topics]
        ctx.extra[key] = interpolated_precision(walk, est, rhat)
    table: np.ndarray = ctx.extra[key]
    return table[:, matches[0]]


def _prel_family(name: str, kernel: Any, **kwargs: Any) -> Family:
    return register(Family(name, kernel, kernel.__doc__ or "", design="prel", in_all_trec=False, **kwargs))


_prel_family("xinfAP", _xinfap)
_prel_family("xinfNDCG", _xinfndcg)
_prel_family(
    "iprec_at_recall_est",
    _iprec_at_recall_est,
    params=RECALL_LEVELS,
    per_topic=False,
    format_name=lambda _, r: f"iprec@rec{float(r):4.2f}",
)
_prel_family("iP", _ip, params=TREC2011_CUTOFFS, format_name=lambda _, k: f"iP{k}")
_prel_family("inum_rel_ret", _inum_rel_ret, aggregate=total)
_prel_family("inum_rel", _inum_rel, aggregate=_inum_rel_total)
_prel_family(
    "sample_num_ret", _num_ret, aggregate=_num_ret_total, integer=True, format_name=lambda *_: "num_ret"
)
