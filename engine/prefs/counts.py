"""Preference counting: trec_eval 10.0's ``form_prefs_counts.c``, vectorized per judgment group.

For one topic, every judged document (any docno of the topic's prefs lines) gets a *docid rank*:
the judged documents the run retrieved (after ``-M``) take 0..NJR-1 in ranking order, the others
NJR..NJ-1 in docno byte order. The run's ranking here orders by score descending and breaks ties
by docno *ascending* -- ``form_prefs_counts.c``'s ``comp_sim_docno``, the reverse of the tie order
of every other trec_eval measure.

Each judgment group (JG) yields preferences "x preferred to y":

* one sub-group (JSG): *equivalence classes* of equal ``rel_level``, every line of a higher class
  preferred to every line of each lower one (a docno listed twice at one level counts twice; a
  docno at two levels is an error);
* several JSGs: a preference array -- within each JSG, higher level preferred to lower -- closed
  under transitivity. A cycle is an error (trec_eval aborts), as is a docno judged 0 in one JSG
  and > 0 in another.

A preference x > y with docid ranks rx, ry falls in one class: fulfilled and retrieved
(rx < ry < NJR), fulfilled implied (rx < NJR <= ry), not fulfilled retrieved (ry < rx < NJR),
not fulfilled implied (ry < NJR <= rx), or not occurring (both >= NJR). ``possible_ret`` and
``possible_imp`` include the fulfilled ones, as in trec_eval.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from trec.errors import FormatError
from trec.prefs_files import PrefLines


@dataclass
class Group:
    """One judgment group of one topic, in run-independent form."""

    name: bytes
    ec_mode: bool
    # EC mode: the group's lines sorted by level descending (stable); doc = topic-local doc index
    doc: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    ec: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # class index, 0 = highest
    ec_start: np.ndarray = field(
        default_factory=lambda: np.zeros(1, dtype=np.int64)
    )  # class c: [s[c], s[c+1])
    ec_rel: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # class level > 0
    # preference pairs (topic-local doc indices), with multiplicity in EC mode
    px: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    py: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # PA mode: per topic doc, the rel_level trec_eval's rel_array ends with (-1.0 if not in the group)
    rel_array: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float64))

    @property
    def has_duplicates(self) -> bool:
        return self.ec_mode and len(np.unique(self.doc)) < len(self.doc)


@dataclass
class Topic:
    """A topic's judged documents (sorted unique docnos) and its judgment groups in jg byte order."""

    qid: str
    docnos: np.ndarray
    groups: list[Group]


@dataclass
class GroupCounts:
    """trec_eval's JG counters for one run."""

    ful_ret: int
    poss_ret: int
    ful_imp: int
    poss_imp: int
    notoccur: int
    num_rel: int
    num_rel_ret: int
    num_nonrel: int
    num_nonrel_ret: int


# ------------------------------------------------------------------ run-independent preparation


def topic_rows(prefs: PrefLines) -> dict[str, np.ndarray]:
    """Row indices of each topic's lines, topics in byte order (trec_eval sorts qids with strcmp)."""
    order = np.argsort(prefs.qid, kind="stable")
    q = prefs.qid[order]
    heads = np.flatnonzero(np.r_[True, q[1:] != q[:-1]]) if len(q) else np.zeros(0, dtype=np.int64)
    bounds = np.r_[heads, len(q)]
    return {
        q[a].decode(errors="replace"): order[a:b]
        for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)
    }


def build_topic(prefs: PrefLines, qid: str, rows: np.ndarray) -> Topic:
    """Group one topic's lines into judgment groups and precompute their preference pairs."""
    docnos, doc = np.unique(prefs.docno[rows], return_inverse=True)
    jg = prefs.jg[rows]
    groups = []
    for name in np.unique(jg).tolist():
        sel = np.flatnonzero(jg == name)
        jsg = prefs.jsg[rows[sel]]
        if len(np.unique(jsg)) == 1:
            groups.append(_ec_group(prefs, name, rows[sel], doc[sel]))
        else:
            groups.append(_pa_group(prefs, name, rows[sel], doc[sel], len(docnos)))
    return Topic(qid, docnos, groups)


def _ec_group(prefs: PrefLines, name: bytes, rows: np.ndarray, doc: np.ndarray) -> Group:
    levels = prefs.rel[rows]
    order = np.argsort(-levels, kind="stable")
    levels, doc, rows = levels[order], doc[order], rows[order]
    change = np.r_[True, levels[1:] != levels[:-1]]
    ec = np.cumsum(change) - 1
    starts = np.r_[np.flatnonzero(change), len(levels)].astype(np.int64)
    # a docno in two classes of one group: trec_eval's "occurs with different rel_level in same jsg"
    pair_doc_ec = np.unique(np.stack([doc, ec]), axis=1)
    docs_seen, counts = np.unique(pair_doc_ec[0], return_counts=True)
    if (counts > 1).any():
        bad = int(docs_seen[np.flatnonzero(counts > 1)[0]])
        line = int(prefs.line[rows[np.flatnonzero(doc == bad)[-1]]])
        raise FormatError(
            prefs.path,
            line,
            f"docno '{prefs.docno[rows[doc == bad][0]].decode(errors='replace')}' has two relevance levels "
            f"in one judgment group (topic '{prefs.qid[rows[0]].decode(errors='replace')}', "
            f"group '{name.decode(errors='replace')}')",
        )
    group = Group(
        name=name,
        ec_mode=True,
        doc=doc.astype(np.int64),
        ec=ec.astype(np.int64),
        ec_start=starts,
        ec_rel=levels[starts[:-1]] > 0.0,
    )
    # every line of a class against every line of each lower class
    xi, yi = _entry_pairs(group)
    group.px, group.py = group.doc[xi], group.doc[yi]
    return group


def _pa_group(prefs: PrefLines, name: bytes, rows: np.ndarray, doc: np.ndarray, ndocs: int) -> Group:
    jsg = prefs.jsg[rows]
    levels = prefs.rel[rows]
    # trec_eval walks the lines sorted by (jsg, level descending); rank order within a level does
    # not change any document's final rel_array value, so this is run-independent
    order = np.lexsort((-levels, jsg))
    rows, doc, jsg, levels = rows[order], doc[order], jsg[order], levels[order]
    rel_array = np.full(ndocs, -1.0)
    for i, (d, v) in enumerate(zip(doc.tolist(), levels.tolist(), strict=True)):
        cur = rel_array[d]
        if (cur > 0.0 and v == 0.0) or (cur == 0.0 and v > 0.0):
            raise FormatError(
                prefs.path,
                int(prefs.line[rows[i]]),
                f"docno '{prefs.docno[rows[i]].decode(errors='replace')}' is judged both 0 and non-0 in "
                f"judgment group '{name.decode(errors='replace')}' of topic "
                f"'{prefs.qid[rows[0]].decode(errors='replace')}'",
            )
        rel_array[d] = v
    members = np.unique(doc)
    local = np.searchsorted(members, doc)
    n = len(members)
    adj = np.zeros((n, n), dtype=bool)
    for sub in np.unique(jsg).tolist():
        s = np.flatnonzero(jsg == sub)
        higher = levels[s][:, None] > levels[s][None, :]
        xi, yi = np.nonzero(higher)
        adj[local[s][xi], local[s][yi]] = True
    closure = _transitive_closure(adj)
    np.fill_diagonal(closure, False)
    conflict = closure & closure.T
    if conflict.any():
        a, b = (int(v) for v in np.argwhere(conflict)[0])
        da, db = (prefs.docno[rows[np.flatnonzero(local == k)[0]]].decode(errors="replace") for k in (a, b))
        raise FormatError(
            prefs.path,
            int(prefs.line[rows[np.flatnonzero(local == a)[0]]]),
            f"inconsistent preferences in judgment group '{name.decode(errors='replace')}' of topic "
            f"'{prefs.qid[rows[0]].decode(errors='replace')}': '{da}' and '{db}' are each preferred "
            "to the other (directly or through other documents)",
        )
    xi, yi = np.nonzero(closure)
    return Group(
        name=name,
        ec_mode=False,
        px=members[xi].astype(np.int64),
        py=members[yi].astype(np.int64),
        rel_array=rel_array,
    )


def _transitive_closure(adj: np.ndarray) -> np.ndarray:
    """Reflexive-transitive closure by repeated squaring (trec_eval multiplies until nothing changes;
    both reach the same fixed point)."""
    n = adj.shape[0]
    reach = adj | np.eye(n, dtype=bool)
    while True:
        r = reach.astype(np.float32)
        nxt = (r @ r) > 0
        if np.array_equal(nxt, reach):
            return reach
        reach = nxt


# ------------------------------------------------------------------ per run


def docid_ranks(
    topic: Topic, docnos: np.ndarray, scores: np.ndarray, max_docs: int | None
) -> tuple[np.ndarray, int]:
    """Docid rank of each of the topic's judged documents, and NJR (judged documents retrieved).

    The ranking sorts by score descending, ties by docno ascending (``form_prefs_counts.c``), then
    keeps the top ``max_docs`` (-M) before looking at judgments.
    """
    order = np.lexsort((docnos, -scores))
    if max_docs is not None:
        order = order[:max_docs]
    ranked = docnos[order]
    nj = len(topic.docnos)
    pos = np.minimum(np.searchsorted(topic.docnos, ranked), max(nj - 1, 0))
    hit = topic.docnos[pos] == ranked if nj else np.zeros(len(ranked), dtype=bool)
    retrieved = pos[hit]
    njr = len(retrieved)
    rank = np.full(nj, -1, dtype=np.int64)
    rank[retrieved] = np.arange(njr, dtype=np.int64)
    rest = np.flatnonzero(rank < 0)
    rank[rest] = njr + np.arange(len(rest), dtype=np.int64)
    return rank, njr


def group_counts(group: Group, rank: np.ndarray, njr: int) -> GroupCounts:
    """trec_eval's per-JG counters (``add_ec_pref_to_jg`` / ``add_pa_pref_to_jg``)."""
    rx, ry = rank[group.px], rank[group.py]
    ful = rx < ry
    ret_x, ret_y = rx < njr, ry < njr
    ful_ret = int(np.count_nonzero(ful & ret_y))
    ful_imp = int(np.count_nonzero(ful & ret_x & ~ret_y))
    unf_ret = int(np.count_nonzero(~ful & ret_x))
    unf_imp = int(np.count_nonzero(~ful & ~ret_x & ret_y))
    notoccur = int(np.count_nonzero(~ret_x & ~ret_y))
    if group.ec_mode:
        is_rel = group.ec_rel[group.ec]
        ret = rank[group.doc] < njr
        num_rel = int(np.count_nonzero(is_rel))
        num_rel_ret = int(np.count_nonzero(is_rel & ret))
        num_nonrel = len(group.doc) - num_rel
        num_nonrel_ret = int(np.count_nonzero(ret)) - num_rel_ret
    else:
        ret_doc = rank < njr
        rel, nonrel = group.rel_array > 0.0, group.rel_array == 0.0
        num_rel = int(np.count_nonzero(rel))
        num_rel_ret = int(np.count_nonzero(rel & ret_doc))
        num_nonrel = int(np.count_nonzero(nonrel))
        num_nonrel_ret = int(np.count_nonzero(nonrel & ret_doc))
    return GroupCounts(
        ful_ret=ful_ret,
        poss_ret=unf_ret + ful_ret,
        ful_imp=ful_imp,
        poss_imp=unf_imp + ful_imp,
        notoccur=notoccur,
        num_rel=num_rel,
        num_rel_ret=num_rel_ret,
        num_nonrel=num_nonrel,
        num_nonrel_ret=num_nonrel_ret,
    )


def ec_rank_pool(groups: list[Group], rank: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """trec_eval's per-topic ``rank_pool``: every EC group's classes, each class's docid ranks ascending.

    Returns the pool and, per group (-1 for PA groups), the pool offset of its last class.
    """
    parts: list[np.ndarray] = []
    last_start: list[int] = []
    offset = 0
    for g in groups:
        if not g.ec_mode:
            last_start.append(-1)
            continue
        r = rank[g.doc]
        sorted_r = r[np.lexsort((r, g.ec))]
        parts.append(sorted_r)
        last_start.append(offset + int(g.ec_start[-2]))
        offset += len(sorted_r)
    pool = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    return pool, last_start


class RankPool:
    """trec_eval's ``rank_pool`` buffer, which lives across one run's topics.

    ``m_prefs_avgjg_Rnonrel*.c`` may read past a group's last class (see :func:`rnonrel_recalc`),
    and past the topic's own entries it reads what earlier topics left there, or the zeros of
    fresh memory. The buffer is emulated: it grows as ``te_chk_and_malloc`` grows it (by the
    topic's line count, when that exceeds its size; new memory taken as zeros) and each topic
    overwrites its beginning. What a real heap returns for reused memory cannot be known, so
    the emulation is exact only where fresh memory is zeroed, as it was in every case tried.
    """

    def __init__(self) -> None:
        self.bound = 0
        self.buffer = np.zeros(0, dtype=np.int64)

    def fill(self, needed: int, pool: np.ndarray) -> np.ndarray:
        if needed > self.bound:
            self.bound += needed
            self.buffer = np.zeros(self.bound, dtype=np.int64)
        self.buffer[: len(pool)] = pool
        return self.buffer


def rnonrel_recalc(
    group: Group, rank: np.ndarray, njr: int, counts: GroupCounts, pool: np.ndarray, last: int, ret_only: bool
) -> tuple[int, int]:
    """``recalculate()`` of ``m_prefs_avgjg_Rnonrel[_ret].c``: (fulfilled, possible) when the group
    has more non-relevant than relevant documents, keeping only the first R non-relevant ones.

    EC groups: the new non-relevant class is the first R entries (R = num_rel, or num_rel_ret
    with ``ret_only``) of the rank pool from the group's last class on. trec_eval reads past that
    class when it is shorter (several classes at levels <= 0), into the next group's entries and
    past them into what :class:`RankPool` emulates. Every class, the last included, is paired with it.
    PA groups: non-relevant documents after the (num_rel + 1)-th one in docid rank order drop out.
    """
    if group.ec_mode:
        return _recalc_ec(group, rank, njr, counts, pool, last, ret_only)
    return _recalc_pa(group, rank, njr, counts, ret_only)


def _recalc_ec(
    group: Group, rank: np.ndarray, njr: int, counts: GroupCounts, pool: np.ndarray, last: int, ret_only: bool
) -> tuple[int, int]:
    nclasses = len(group.ec_start) - 1
    r_entry = rank[group.doc]
    size = counts.num_rel_ret if ret_only else counts.num_rel
    new = pool[last : last + size]
    if ret_only:
        stop = np.flatnonzero(new >= njr)
        new = new[: stop[0]] if stop.size else new
    # part 1: classes a < b, b not the last class
    xi, yi = _entry_pairs(group)
    keep = group.ec[yi] <= nclasses - 2
    rx, ry = r_entry[xi[keep]], r_entry[yi[keep]]
    if ret_only:
        both = (rx < njr) & (ry < njr)
        rx, ry = rx[both], ry[both]
        ful1 = int(np.count_nonzero(rx < ry))
    else:
        ful1 = int(np.count_nonzero((rx < ry) & (rx < njr)))
    poss1 = len(rx) - ful1
    # part 2: every entry (retrieved ones with ret_only) against the new non-relevant class
    xs = np.sort(r_entry[r_entry < njr] if ret_only else r_entry)
    limit = new if ret_only else np.minimum(new, njr)
    ful2 = int(np.searchsorted(xs, limit, side="left").sum())
    poss2 = len(xs) * len(new) - ful2
    ful = ful1 + ful2
    return ful, poss1 + poss2 + ful


def _entry_pairs(group: Group) -> tuple[np.ndarray, np.ndarray]:
    """Line-index pairs (x in a higher class than y) of an EC group, the same order as px/py."""
    m = len(group.doc)
    first_y = group.ec_start[group.ec + 1]
    lens = m - first_y
    xi = np.repeat(np.arange(m, dtype=np.int64), lens)
    base = np.repeat(np.cumsum(lens) - lens, lens)
    yi = np.arange(int(lens.sum()), dtype=np.int64) - base + np.repeat(first_y, lens)
    return xi, yi


def _recalc_pa(
    group: Group, rank: np.ndarray, njr: int, counts: GroupCounts, ret_only: bool
) -> tuple[int, int]:
    nj = len(rank)
    by_rank = np.empty(nj, dtype=np.float64)
    by_rank[rank] = group.rel_array  # rel_array indexed by docid rank, as trec_eval holds it
    scan = by_rank[:njr] if ret_only else by_rank
    nonrel_at = np.flatnonzero(scan == 0.0)
    cut = counts.num_rel  # trec_eval uses num_rel here in both variants
    first_discarded = int(nonrel_at[cut]) if len(nonrel_at) > cut else len(scan)
    discarded = (by_rank == 0.0) & (np.arange(nj) >= first_discarded)
    rx, ry = rank[group.px], rank[group.py]
    keep = ~discarded[rx] & ~discarded[ry]
    rx, ry = rx[keep], ry[keep]
    if ret_only:
        both = (rx < njr) & (ry < njr)
        rx, ry = rx[both], ry[both]
        ful = int(np.count_nonzero(rx < ry))
        return ful, len(rx)
    ful = int(np.count_nonzero((rx < ry) & (rx < njr)))
    return ful, len(rx)
