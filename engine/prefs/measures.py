"""The preference measures of trec_eval 10.0 (``m_prefs_*.c``), from one topic's judgment-group counts.

Notation, per judgment group g (see :mod:`engine.prefs.counts`): F_ret, F_imp fulfilled
preferences with both / only the preferred document retrieved; P_ret, P_imp the same classes
fulfilled or not; P_not preferences between two unretrieved documents. Sums over groups drop g.

* prefs_num_prefs_poss = P_ret + P_imp + P_not; prefs_num_prefs_ful = F_ret + F_imp;
  prefs_num_prefs_ful_ret = F_ret (the 'all' value of these three is the sum over topics).
* prefs_simp = (F_ret + F_imp) / (P_ret + P_imp + P_not); _ret: F_ret / P_ret;
  _imp: (F_ret + F_imp) / (P_ret + P_imp). 0 when the denominator is 0.
* prefs_avgjg = (1/|G|) Σ_g ratio_g over the groups with a non-zero denominator (the same three
  variants); trec_eval reports 0 unless the sum is > 0.
* prefs_pair: for each unordered document pair {a, b} some group has a preference on, with a
  ranked above b, c(a>b) / (c(a>b) + c(b>a)), c counting the groups (lines, for repeated lines)
  preferring one to the other; averaged over pairs. Pairs with both documents unretrieved count
  in the denominator with value 0; _imp leaves them out, _ret keeps only pairs of retrieved docs.
* prefs_avgjg_Rnonrel[_ret]: prefs_avgjg[_ret] after setting each group's number of
  non-relevant documents N to its number of relevant ones R (both counted among retrieved
  documents for _ret): if R >= N, R - N fulfilled preferences are added for each relevant
  retrieved document (num_rel_ret·(R-N) fulfilled, num_rel·(R-N) possible); otherwise the
  counts are recomputed keeping only R non-relevant documents (``recalculate()``). A group with
  0 possible preferences makes the sum NaN, and the topic then scores 0, as in trec_eval.
"""

from __future__ import annotations

import numpy as np

from engine.prefs.counts import GroupCounts, Topic, rnonrel_recalc

AVGJG = {"prefs_avgjg": "all", "prefs_avgjg_ret": "ret", "prefs_avgjg_imp": "imp"}
PAIR = {"prefs_pair": "all", "prefs_pair_ret": "ret", "prefs_pair_imp": "imp"}


def _ful_poss(c: GroupCounts, variant: str) -> tuple[int, int]:
    if variant == "ret":
        return c.ful_ret, c.poss_ret
    if variant == "imp":
        return c.ful_ret + c.ful_imp, c.poss_ret + c.poss_imp
    return c.ful_ret + c.ful_imp, c.poss_ret + c.poss_imp + c.notoccur


def _ratio(ful: int, poss: int) -> float:
    return ful / poss if poss else 0.0


def _avgjg(counts: list[GroupCounts], variant: str) -> float:
    """``m_prefs_avgjg*.c``: mean over groups of fulfilled/possible (groups with possible = 0 add 0)."""
    total = 0.0
    for c in counts:
        ful, poss = _ful_poss(c, variant)
        if poss:
            total += ful / poss
    return total / len(counts) if total > 0.0 else 0.0


def _rnonrel(
    topic: Topic,
    counts: list[GroupCounts],
    rank: np.ndarray,
    njr: int,
    pool: tuple[np.ndarray, list[int]],
    ret_only: bool,
) -> float:
    """``m_prefs_avgjg_Rnonrel.c`` / ``m_prefs_avgjg_Rnonrel_ret.c``; ``pool`` is the rank pool
    buffer and each group's offset of its last class in it (:func:`engine.prefs.counts.ec_rank_pool`)."""
    total = 0.0
    for g, c in zip(topic.groups, counts, strict=True):
        big_r, big_n = (c.num_rel_ret, c.num_nonrel_ret) if ret_only else (c.num_rel, c.num_nonrel)
        if big_r >= big_n:
            ful, poss = _ful_poss(c, "ret" if ret_only else "all")
            ful += c.num_rel_ret * (big_r - big_n)
            poss += c.num_rel * (big_r - big_n)
        else:
            ful, poss = rnonrel_recalc(g, rank, njr, c, pool[0], pool[1][topic.groups.index(g)], ret_only)
        total += ful / poss if poss else float("nan")
    return total / len(counts) if total > 0.0 else 0.0


def _pair_values(topic: Topic, rank: np.ndarray, njr: int, counts: list[GroupCounts]) -> dict[str, float]:
    """``m_prefs_pair*.c`` from the topic's counts array (how many groups prefer a to b)."""
    if len(topic.groups) == 1 and not topic.groups[0].has_duplicates:
        # every preferred pair is distinct and one-directional: each pair scores exactly 1 or 0,
        # so the pair measures equal the simple ratios (trec_eval's sums of 1.0s are exact too)
        c = counts[0]
        return {name: _ratio(*_ful_poss(c, variant)) for name, variant in PAIR.items()}
    nj = len(rank)
    rx = np.concatenate([rank[g.px] for g in topic.groups])
    ry = np.concatenate([rank[g.py] for g in topic.groups])
    lo, hi = np.minimum(rx, ry), np.maximum(rx, ry)
    keys, inverse = np.unique(lo * nj + hi, return_inverse=True)
    forward = np.bincount(inverse, weights=(rx < ry).astype(np.float64), minlength=len(keys))
    backward = np.bincount(inverse, weights=(rx > ry).astype(np.float64), minlength=len(keys))
    plo, phi = keys // nj, keys % nj
    value = forward / (forward + backward)
    both = phi < njr  # keys are sorted by (lo, hi): trec_eval's loop order, kept for the float sums
    one = (plo < njr) & (phi >= njr)
    none = int(np.count_nonzero(plo >= njr))
    sum_ret = _seq_sum(value[both])
    sum_imp = _seq_sum(np.concatenate([value[both], value[one]]))
    n_ret, n_one = int(np.count_nonzero(both)), int(np.count_nonzero(one))
    return {
        "prefs_pair": sum_imp / (n_ret + n_one + none) if n_ret + n_one + none else 0.0,
        "prefs_pair_ret": sum_ret / n_ret if n_ret else 0.0,
        "prefs_pair_imp": sum_imp / (n_ret + n_one) if n_ret + n_one else 0.0,
    }


def _seq_sum(values: np.ndarray) -> float:
    """Left-to-right double sum, as trec_eval's loops add (numpy's sum is pairwise)."""
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def topic_values(
    topic: Topic,
    counts: list[GroupCounts],
    rank: np.ndarray,
    njr: int,
    names: tuple[str, ...],
    pool: tuple[np.ndarray, list[int]] | None = None,
) -> dict[str, float]:
    """The requested preference measures of one topic (names from :data:`engine.prefs.names.PREFS_MEASURES`).

    ``pool`` (the rank pool buffer and last-class offsets) is needed by the two Rnonrel measures.
    """
    out: dict[str, float] = {}
    if "prefs_num_prefs_poss" in names:
        out["prefs_num_prefs_poss"] = float(sum(_ful_poss(c, "all")[1] for c in counts))
    if "prefs_num_prefs_ful" in names:
        out["prefs_num_prefs_ful"] = float(sum(_ful_poss(c, "all")[0] for c in counts))
    if "prefs_num_prefs_ful_ret" in names:
        out["prefs_num_prefs_ful_ret"] = float(sum(c.ful_ret for c in counts))
    for name, variant in (("prefs_simp", "all"), ("prefs_simp_ret", "ret"), ("prefs_simp_imp", "imp")):
        if name in names:
            pairs = [_ful_poss(c, variant) for c in counts]
            out[name] = _ratio(sum(p[0] for p in pairs), sum(p[1] for p in pairs))
    for name, variant in AVGJG.items():
        if name in names:
            out[name] = _avgjg(counts, variant)
    for name, ret_only in (("prefs_avgjg_Rnonrel", False), ("prefs_avgjg_Rnonrel_ret", True)):
        if name in names:
            if pool is None:
                raise ValueError(f"{name} needs the rank pool")
            out[name] = _rnonrel(topic, counts, rank, njr, pool, ret_only)
    if any(n in names for n in PAIR):
        pair = _pair_values(topic, rank, njr, counts)
        out.update({n: v for n, v in pair.items() if n in names})
    return out
