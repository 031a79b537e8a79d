"""Measures trec_eval does not print: statAP (and its variance), bpref-10, Judged@k, ERR, RR@k, RBP(p).

None is in ``all_trec``. Each docstring gives the formula, the source and the exact variant; where a
reference implementation exists (ir_measures, gdeval.pl) the docstring says where we agree with it
and where we deliberately do not.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from engine.measures.base import NONPOOL, RECALL_LEVELS, REGISTRY, Context, Family, register, total

# gdeval.pl's $MAX_JUDGMENT (TREC 2010 Web track): ERR divides by 2^4 whatever grades the qrels hold.
ERR_MAX_GRADE = 4
JUDGED_CUTOFFS = (5, 10, 20, 100, 1000)
ERR_CUTOFFS = (5, 10, 20)
RR_CUTOFFS = (5, 10, 20, 100, 1000)
BPREF_EXTRA_NONREL = 10
RBP_DEFAULT_P = 0.8  # ir_measures' default persistence


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(len(num), dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _cutoff(param: Any) -> int | None:
    """A cutoff parameter: None (the whole ranking) or a positive integer."""
    if param is None:
        return None
    k = int(param)
    if k != param or k <= 0:
        raise ValueError(f"cutoff must be a positive integer, got {param!r}")
    return k


# -------------------------------------------------------------------------------- bpref-10


def _bpref_10(ctx: Context, _: Any) -> np.ndarray:
    """bpref_10 (Buckley & Voorhees 2004, "bpref-10"; trec_eval 8's ``bpref_10``).

    (1/R) Σ over retrieved relevant r of [1 − min(n_r, R+10) / min(N, R+10)], n_r = judged
    non-relevant docs ranked above r, N = judged non-relevant docs in the qrels. Only the two min()s
    take R+10; the outer normaliser stays R. As in trec_eval's bpref, a term with n_r = 0 is 1
    (so N = 0 gives 1), unjudged and unpooled docs are skipped, unretrieved relevant docs add 0.
    The paper divides by 10+R; that equals min(N, R+10) whenever N >= R+10, and the min() keeps a
    topic with few judged non-relevant docs from being scored as if it had R+10 of them.
    """
    nonrel_above = ctx.seg_cumsum(ctx.is_nonrel) - ctx.is_nonrel
    R = np.repeat(ctx.stats.num_rel, ctx.lengths).astype(np.float64)
    N = np.repeat(ctx.stats.num_nonrel, ctx.lengths).astype(np.float64)
    cap = R + BPREF_EXTRA_NONREL
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(nonrel_above > 0, 1.0 - np.minimum(nonrel_above, cap) / np.minimum(N, cap), 1.0)
    return _safe_div(ctx.seg_sum(np.where(ctx.is_rel, term, 0.0)), ctx.num_rel())


# -------------------------------------------------------------------------------- Judged@k


def _judged(ctx: Context, param: Any) -> np.ndarray:
    """judged_k (ir_measures ``Judged@k``): docs present in the qrels in the top k / min(k, |run|).

    "Present" means any qrels line, whatever its rel, negative included (ir_measures'
    ``JudgedProvider`` tests ``did in qrels``); without a cutoff k is the run's length. |run| is the
    topic's list after -M / -J; an empty list scores 0. Ranks follow the canonical order (score
    desc, docno desc); ir_measures' provider breaks score ties by docno *ascending*, so the two can
    differ when a tie straddles rank k. trec_eval's ``unj_k`` is another convention (unjudged in
    top k / k, missing ranks counted as judged).
    """
    k = _cutoff(param)
    in_qrels = ctx.rel != NONPOOL
    lengths = ctx.lengths.astype(np.float64)
    if k is None:
        return _safe_div(ctx.seg_count(in_qrels), lengths)
    return _safe_div(ctx.at_cutoff(ctx.seg_cumsum(in_qrels), k), np.minimum(lengths, float(k)))


# -------------------------------------------------------------------------------- ERR


def _err(ctx: Context, param: Any) -> np.ndarray:
    """err_k (ir_measures ``ERR@k``): Expected Reciprocal Rank (Chapelle, Metzler, Zhang & Grinspan 2009).

    ERR = Σ_{i<=k} (R_i / i) Π_{j<i} (1 − R_j) with R_i = (2^g_i − 1) / 2^gmax, g_i the grade at
    rank i (negative, unjudged and unpooled count 0). gmax = 4 for every topic and collection,
    as in gdeval.pl (TREC 2010 Web track, ir_measures' only ERR provider), so the values match
    ir_measures' ``ERR@k``; a grade above 4 is refused, as gdeval refuses it. Without a cutoff the
    whole ranking counts. ``-l`` does not apply. Unlike gdeval, a topic with no relevant document
    is evaluated and scores 0 (gdeval drops it from its output, so its mean can differ).
    """
    k = _cutoff(param)
    grades = np.where(ctx.rel > 0, ctx.rel, 0)
    if grades.size and int(grades.max()) > ERR_MAX_GRADE:
        raise ValueError(
            f"ERR maps grades by (2^g - 1)/2^{ERR_MAX_GRADE} (gdeval.pl); found grade {int(grades.max())}"
        )
    stop = (np.exp2(grades.astype(np.float64)) - 1.0) / 2.0**ERR_MAX_GRADE
    # stop <= 15/16, so log1p(-stop) is finite; the log-sum keeps long lists from underflowing.
    log_cont = np.log1p(-stop)
    reach = np.exp(ctx.seg_cumsum(log_cont) - log_cont)
    terms = stop * reach / ctx.rank
    if k is not None:
        terms = np.where(ctx.rank <= k, terms, 0.0)
    return ctx.seg_sum(terms)


# -------------------------------------------------------------------------------- RR@k


def _recip_rank_cut(ctx: Context, param: Any) -> np.ndarray:
    """recip_rank_cut_k (ir_measures ``RR@k``): 1 / rank of the first relevant doc within the top k, else 0.

    Relevant means rel >= level (``-l`` or ``RR(rel=2)@10``); trec_eval's ``recip_rank`` is the
    same without the cutoff. ir_measures computes ``RR@k`` with MS MARCO's script, which breaks
    score ties by docno ascending: with score ties in the top k the two can differ.
    """
    k = _cutoff(param)
    mask = ctx.is_rel if k is None else ctx.is_rel & (ctx.rank <= k)
    return _safe_div(np.ones(ctx.ntopics), ctx.first(mask))


# -------------------------------------------------------------------------------- RBP


def _rbp_args(param: Any) -> tuple[float, int | None]:
    """(p, cutoff) from the measure parameter.

    ``rbp_p.0.95`` gives a float p, ``RBP@10`` an int cutoff, ``RBP(p=0.95)`` name/value pairs and
    ``RBP(p=0.95)@10`` (cutoff, pairs).
    """
    p, k = RBP_DEFAULT_P, None
    if isinstance(param, tuple) and len(param) == 2 and not isinstance(param[0], tuple):
        k = _cutoff(param[0])
        param = param[1]
    if isinstance(param, tuple):
        p = float(dict(param).get("p", RBP_DEFAULT_P))
    elif isinstance(param, float):
        p = param
    elif param is not None:
        k = _cutoff(param)
    if not 0.0 < p < 1.0:
        raise ValueError(f"RBP persistence p must lie in (0, 1), got {p}")
    return p, k


def _rbp_weights(ctx: Context, param: Any) -> tuple[float, np.ndarray, np.ndarray]:
    p, k = _rbp_args(param)
    inside = np.ones(len(ctx.rel), dtype=bool) if k is None else ctx.rank <= k
    depth = ctx.lengths if k is None else np.minimum(ctx.lengths, k)
    return p, np.where(inside, (1.0 - p) * np.power(p, (ctx.rank - 1).astype(np.float64)), 0.0), depth


def _rbp_binary(ctx: Context, param: Any) -> np.ndarray:
    """rbp_p (ir_measures ``RBP(p=0.8)``, ``RBP(rel=2,p=0.95)@10``): Rank-Biased Precision, binary.

    RBP = (1 − p) Σ_{i<=d} r_i p^(i−1) (Moffat & Zobel, TOIS 2008, eq. 3), r_i = 1 if the doc at
    rank i has rel >= level (``rel=`` or ``-l``, default 1) else 0; unjudged and unpooled docs
    count 0. p defaults to 0.8 (ir_measures' default); d = the cutoff, or the whole ranking.
    Not trec_eval's ``rbp`` (p = 0.9, grades rescaled to [0, 1], ``-l`` ignored). ir_measures
    computes ``RBP(rel=N)`` with cwl_eval (the same binary sum) but ``RBP`` without ``rel=`` with
    trectools, which multiplies the weight by the raw grade and averages weights over score ties:
    the two agree with this kernel only on binary qrels without ties.
    """
    _, weights, _ = _rbp_weights(ctx, param)
    return ctx.seg_sum(np.where(ctx.is_rel, weights, 0.0))


def _rbp_binary_resid(ctx: Context, param: Any) -> np.ndarray:
    """rbp_p_resid: the residual of rbp_p (Moffat & Zobel 2008, §4), the most RBP could still rise.

    (1 − p) Σ_{i<=d, unjudged or unpooled} p^(i−1) + p^d, d = min(cutoff, ranking length): every
    unknown doc in the evaluated prefix and every rank past it taken as relevant. A fully judged
    list still leaves p^d (trec_eval's ``rbp_resid`` prints 0 there; its p is 0.9 unless ``rbp_resid.p=``).
    """
    p, weights, depth = _rbp_weights(ctx, param)
    unknown = ctx.seg_sum(np.where(ctx.rel < 0, weights, 0.0))
    return unknown + np.power(p, depth.astype(np.float64))


# -------------------------------------------------------------------------------- statAP


def _mq_topic_sums(ctx: Context) -> tuple[np.ndarray, np.ndarray]:
    """Per evaluated topic: R̂ = Σ 1/π and Q = Σ (1−π)/π² over the prel's sampled relevant docs.

    Cached on the judgments per level: they do not depend on the run.
    """
    judgments = ctx.extra["judgments"]
    mq = judgments.mq
    if mq is None:
        raise ValueError("statAP needs a Million Query prel (inclusion probabilities)")
    key = ("statAP_topic_sums", ctx.level)
    if key not in judgments.cache:
        q = mq.qrels
        n = len(q.topics)
        seg = np.repeat(np.arange(n), np.diff(q.offsets))
        rel = q.rels >= max(ctx.level, 0)
        pi = mq.iprobs
        r_hat = np.bincount(seg[rel], weights=1.0 / pi[rel], minlength=n)[:n]
        q_sum = np.bincount(seg[rel], weights=(1.0 - pi[rel]) / pi[rel] ** 2, minlength=n)[:n]
        judgments.cache[key] = (r_hat, q_sum)
    r_hat, q_sum = judgments.cache[key]
    idx = ctx.extra["aligned"].qrels_index
    return r_hat[idx], q_sum[idx]


def _ranked_iprobs(ctx: Context) -> np.ndarray:
    """The inclusion probability of every ranked document (NaN for a doc not in the prel)."""
    mq = ctx.extra["judgments"].mq
    al = ctx.extra["aligned"]
    q = mq.qrels
    out = np.full(len(ctx.rel), np.nan)
    for i, qi in enumerate(al.qrels_index.tolist()):
        a, b = int(ctx.offsets[i]), int(ctx.offsets[i + 1])
        qa, qb = int(q.offsets[qi]), int(q.offsets[qi + 1])
        if a == b or qa == qb:
            continue
        qd = q.docnos[qa:qb]
        pos = np.minimum(np.searchsorted(qd, al.docnos[a:b]), qb - qa - 1)
        hit = qd[pos] == al.docnos[a:b]
        out[a:b][hit] = mq.iprobs[qa + pos[hit]]
    return out


def _statap_parts(ctx: Context) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """statAP per topic, and per position the sampled-relevant mask, π and estimated PC(rank)."""
    sampled_rel = ctx.is_rel & ctx.is_judged
    pi = np.where(sampled_rel, _ranked_iprobs(ctx), 1.0)
    inv = np.where(sampled_rel, 1.0 / pi, 0.0)
    pc = (1.0 + ctx.seg_cumsum(inv) - inv) / ctx.rank
    r_hat, _ = _mq_topic_sums(ctx)
    value = _safe_div(ctx.seg_sum(np.where(sampled_rel, pc * inv, 0.0)), r_hat)
    return value, sampled_rel, pi, pc


def _statap(ctx: Context, _: Any) -> np.ndarray:
    """statAP (Aslam, Pavlu & Yilmaz, SIGIR 2006; the TREC Million Query tracks' statMAP per topic).

    Horvitz–Thompson estimates from a sample with inclusion probabilities π (the MQ prel's iprob):
    R̂ = Σ_{sampled relevant d} 1/π_d over the whole prel (retrieved or not); for a sampled relevant
    doc at rank r, PC(r) = (1 + Σ_{sampled relevant above r} 1/π)/r (the doc itself is known
    relevant, hence 1 rather than 1/π); statAP = (1/R̂) Σ_{sampled relevant retrieved} PC(r)/π.
    A topic with R̂ = 0 scores 0.

    Sampled means listed in the prel with rel >= 0 (the MQ tracks' prels list only judged docs);
    a negative rel (listed, not judged) is treated as unjudged and ignored, and so is a retrieved
    doc absent from the prel. Relevant means rel >= level. The method column is not used. With
    every π = 1 statAP equals trec_eval's map.
    """
    return _statap_parts(ctx)[0]


def _statap_var(ctx: Context, _: Any) -> np.ndarray:
    """statAP_var: the estimated sampling variance of statAP (Taylor linearization, Poisson sampling).

    statAP = Ŷ/R̂ with Ŷ = Σ_{d∈S} rel_d/(π_d r_d) + Σ_{e above d, both in S} rel_d rel_e/(r_d π_d π_e),
    a Horvitz–Thompson estimator of the AP numerator that is unbiased when inclusions are
    independent (π_de = π_d π_e, Poisson sampling: the assumption PC(r) already makes). Expanding
    statAP to first order in the inclusion indicators I_d around E[I_d] = π_d (the delta method
    for a ratio estimator, Särndal, Swensson & Wretman, Model Assisted Survey Sampling, 1992):

        Var ≈ (1/R²) Σ_{relevant d} (1 − π_d)/π_d · u_d²,   u_d = PC(r_d) + T(d) − AP,

    T(d) = Σ_{relevant e retrieved below d} 1/r_e (d's share in the precision of the docs below it);
    an unretrieved relevant doc has PC = T = 0, so u_d = −AP; non-relevant docs contribute nothing.
    The estimate replaces the population sum by its HT estimate over the sample and every
    unknown by its plug-in: (1/R̂²) Σ_{sampled relevant d} (1 − π_d)/π_d² · û_d², with PC as in
    statAP, T̂(d) = Σ_{sampled relevant e below d} 1/(π_e r_e) and AP = statAP; equivalently
    Σ_{d∈S} (1 − π_d)(∂statAP/∂I_d)² with the gradient taken at the observed sample.

    Approximations, whose errors go both ways: independent inclusions (the MQ tracks drew a fixed
    number of docs without replacement, whose negative joint-inclusion covariances this ignores,
    overstating), and first order only (the ratio's curvature and the pair terms' own variance
    are dropped, which understates when few docs are sampled: on the 16-sample population of
    tests/metrics/test_worked_examples.py its expectation is 0.0050 against an exact 0.0087).
    Docs with π = 1 contribute 0; with every π = 1 the variance is 0.
    """
    value, sampled_rel, pi, pc = _statap_parts(ctx)
    r_hat, q_sum = _mq_topic_sums(ctx)
    below_w = np.where(sampled_rel, 1.0 / (pi * ctx.rank), 0.0)
    below = np.repeat(ctx.seg_sum(below_w), ctx.lengths) - ctx.seg_cumsum(below_w)
    u = pc + below - np.repeat(value, ctx.lengths)
    c = np.where(sampled_rel, (1.0 - pi) / pi**2, 0.0)
    retrieved = ctx.seg_sum(c * u**2)
    # sampled relevant docs the run does not retrieve: u = −statAP each
    unretrieved = np.maximum(q_sum - ctx.seg_sum(c), 0.0) * value**2
    return _safe_div(retrieved + unretrieved, r_hat**2)


def _family(name: str, kernel: Any, **kwargs: Any) -> Family:
    return Family(name, kernel, kernel.__doc__ or "", in_all_trec=False, **kwargs)


register(_family("bpref_10", _bpref_10), after="bpref")
register(_family("recip_rank_cut", _recip_rank_cut, params=RR_CUTOFFS), after="recip_rank")
register(_family("judged", _judged, params=JUDGED_CUTOFFS))
register(_family("err", _err, params=ERR_CUTOFFS))
register(_family("rbp_p", _rbp_binary, params=(RBP_DEFAULT_P,)))
register(_family("rbp_p_resid", _rbp_binary_resid, params=(RBP_DEFAULT_P,)))
register(_family("statAP", _statap, design="mq"))
register(_family("statAP_var", _statap_var, design="mq"))


# -------------------------------------------------------------------------------- ir_measures helpers


def _num_q_per_topic(ctx: Context, _: Any) -> np.ndarray:
    """num_q_per_topic (ir_measures ``NumQ``): 1 for every evaluated topic; 'all' is the sum.

    trec_eval's ``num_q`` prints only the 'all' line; ir_measures yields NumQ = 1 per query.
    """
    return np.ones(ctx.ntopics)


def _split_ir_param(param: Any) -> tuple[int | None, dict[str, Any]]:
    """(cutoff, named options) from ``cut``, ``(cut or None, extra)`` or ``extra`` (engine/ir_names.py)."""
    if param is None:
        return None, {}
    if isinstance(param, tuple):
        if len(param) == 2 and not isinstance(param[0], tuple):
            return (None if param[0] is None else _cutoff(param[0])), dict(param[1])
        return None, dict(param)
    return _cutoff(param), {}


def _mapped_gain(grades: np.ndarray, gains: dict[int, float], dcg: str) -> np.ndarray:
    g = grades.astype(np.float64)
    for level, gain in gains.items():
        g[grades == level] = gain
    g = np.maximum(g, 0.0)
    return np.exp2(g) - 1.0 if dcg == "exp-log2" else g


def _ir_ideal(ctx: Context, k: int | None, gains: dict[int, float], dcg: str) -> np.ndarray:
    """Per topic, the ideal DCG: every judged doc's mapped gain, descending, cut at k."""
    out = np.zeros(ctx.ntopics)
    for t, counts in enumerate(ctx.stats.grade_counts):
        levels = np.array(list(counts), dtype=np.int64)
        reps = np.array([counts[level] for level in levels.tolist()], dtype=np.int64)
        g = np.sort(np.repeat(_mapped_gain(levels, gains, dcg), reps))[::-1]
        g = g[g > 0][:k] if k is not None else g[g > 0]
        out[t] = float(np.sum(g / np.log2(np.arange(2, len(g) + 2, dtype=np.float64))))
    return out


def _ndcg_ir(ctx: Context, param: Any) -> np.ndarray:
    """ndcg_ir (ir_measures ``nDCG(dcg='exp-log2')@k``, ``nDCG(gains={0:0,1:1,2:3})@k``).

        DCG = Σ_{i<=k} gain(g_i) / log2(i + 1) over the ideal DCG of the topic's judged docs.
        ``gains`` maps a judged grade to its gain (ir_measures rewrites the qrels grade by grade,
        ``gains.get(grade, grade)``, before calling pytrec_eval's ndcg); a negative gain counts 0, as
        trec_eval counts only positive gains; a doc absent from the qrels gains 0 whatever ``gains``
    maps 0 to. A qrels grade below 0 is read as unjudged, so ``gains`` cannot map it (ir_measures
    maps it before pytrec_eval sees it). ``dcg='exp-log2'`` takes 2^gain − 1 (Burges et al. 2005;
        ir_measures computes it with gdeval.pl, which prints 5 decimals, or ranx without a cutoff);
        'log2' takes the gain itself. Unjudged and unpooled docs gain 0. A topic whose ideal DCG is
        0 scores 0. gdeval.pl also refuses grades above 4; this kernel does not.
    """
    k, opts = _split_ir_param(param)
    gains = {int(a): float(b) for a, b in opts.get("gains", ())}
    dcg = str(opts.get("dcg", "log2"))
    judged = ctx.rel >= 0
    gain = np.where(judged, _mapped_gain(np.where(judged, ctx.rel, 0), gains, dcg), 0.0)
    terms = gain / np.log2(ctx.rank + 1.0)
    if k is not None:
        terms = np.where(ctx.rank <= k, terms, 0.0)
    return _safe_div(ctx.seg_sum(terms), _ir_ideal(ctx, k, gains, dcg))


def judged_only_context(ctx: Context) -> Context:
    """The context with every unjudged and unpooled document removed (trec_eval ``-J``), cached."""
    cached = ctx.extra.get("ir_judged_only_context")
    if isinstance(cached, Context):
        return cached
    keep = ctx.rel >= 0
    counts = ctx.seg_count(keep).astype(np.int64)
    offsets = np.zeros(ctx.ntopics + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    extra = {k: v for k, v in ctx.extra.items() if k != "aligned"}
    aligned = ctx.extra.get("aligned")
    if aligned is not None:
        rows = aligned.qrels_rows
        extra["aligned"] = dataclasses.replace(
            aligned,
            offsets=offsets,
            rel=aligned.rel[keep],
            docnos=aligned.docnos[keep],
            scores=aligned.scores[keep],
            qrels_rows=rows[keep] if rows is not None else None,
        )
    sub = Context(ctx.topics, offsets, ctx.rel[keep], ctx.stats, ctx.options, level=ctx.level, extra=extra)
    ctx.extra["ir_judged_only_context"] = sub
    return sub


def _judged_only(ctx: Context, param: Any) -> np.ndarray:
    """ir_judged_only (ir_measures ``judged_only=True``): the wrapped family under trec_eval's ``-J``.

    ``param`` is (family, its parameter). Unjudged and unpooled documents are removed before
    ranking, for this measure alone, as ir_measures asks pytrec_eval with
    ``judged_docs_only_flag``. Every family ir_measures accepts it for (P, AP, nDCG, RR, Rprec, R,
    Success, IPrec, SetP, SetAP, SetF) averages over topics, which this family does too.
    """
    family, inner = param
    return np.asarray(REGISTRY[family].kernel(judged_only_context(ctx), inner), dtype=np.float64)


register(_family("num_q_per_topic", _num_q_per_topic, aggregate=total, integer=True))
register(_family("ndcg_ir", _ndcg_ir))
register(_family("ir_judged_only", _judged_only))


def _iprec_at_recall_v9(ctx: Context, level: Any) -> np.ndarray:
    """iprec_at_recall_v9 (ir_measures ``IPrec@c``, pytrec_eval's ``iprec_at_recall_c``).

    Interpolated precision at recall c as trec_eval 9 computes it, which pytrec_eval bundles and
    ir_measures calls: the recall level picks the ``(long)(c·R + 0.9)``-th relevant doc, where
    trec_eval 10.0's ``iprec_at_recall`` takes ``lround(c·R)``. The two differ when c·R has a
    fractional part in [0.1, 0.5): e.g. c = 0.1, R = 13 takes the 2nd relevant doc here, the 1st
    in trec_eval 10.0. Otherwise as ``iprec_at_recall`` (engine/measures/trec_eval_extra.py).
    """
    from engine.measures.trec_eval_extra import interpolated_precision

    return interpolated_precision(ctx, (float(level),), rounding="v9")[:, 0]


register(
    _family(
        "iprec_at_recall_v9",
        _iprec_at_recall_v9,
        params=RECALL_LEVELS,
    )
)


def _eleven_pt_avg_v9(ctx: Context, levels: Any) -> np.ndarray:
    """11pt_avg_v9 (pytrec_eval's ``11pt_avg``): 11pt_avg with trec_eval 9's recall count.

    The mean interpolated precision over recall levels 0.0, 0.1, ..., 1.0 (or the levels given),
    each level c taking the ``(long)(c·R + 0.9)``-th relevant doc as trec_eval 9's ``m_11pt_avg.c``
    does (pytrec_eval bundles it), where trec_eval 10.0's ``11pt_avg`` takes ``lround(c·R)``; see
    ``iprec_at_recall_v9``. Otherwise as ``11pt_avg`` (engine/measures/trec_eval_extra.py).
    """
    from engine.measures.trec_eval_extra import eleven_pt_avg

    return eleven_pt_avg(ctx, levels, rounding="v9")


def _eleven_pt_name(name: str, levels: Any) -> str:
    """``11pt_avg_v9`` for the 11 levels, else ``11pt_avg_v9_0.25,0.5`` (as trec_eval names 11pt_avg's)."""
    if levels is None or tuple(levels) == RECALL_LEVELS:
        return name
    return f"{name}_{','.join(f'{float(v):g}' for v in levels)}"


register(_family("11pt_avg_v9", _eleven_pt_avg_v9, params=(RECALL_LEVELS,), format_name=_eleven_pt_name))
