"""Pool diagnostics: pool sizes, unique contributions, judged@k, cutoff ties and leave-out reusability.

Pure: takes runs (:class:`trec.runs.RankedRun`, canonical order), judgments (:class:`trec.qrels.Qrels`) and
a pool, returns dataclasses and NamedTuples; no Django (docs/pooling.md#overview). A pool is either a Qrels
(every line is pooled; rel -1 = pooled but unjudged) or a mapping ``{topic: docnos}``. Every score
comes from :func:`engine.evaluate.evaluate_run`; τ-b and τ_AP from :mod:`engine.significance`.

"Contributed" has one meaning throughout: a run contributes the documents of its top ``depth``
(its whole ranking when ``depth`` is None; an int, or a per-run mapping where an absent run is not
pooled), kept only if they are in ``pool`` when a pool is given. A document is contributed
*uniquely* by a unit (a run, or a group of runs) when no other unit contributes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from engine.evaluate import Judgments, evaluate_run
from engine.measures import EvalOptions, Measure
from engine.measures.base import NONPOOL
from engine.names import parse_measures
from engine.significance import DECIMALS, kendall_tau_b, tau_ap
from trec.order import sort_by_topic_docno
from trec.qrels import Qrels
from trec.runs import RankedRun

PoolLike = Qrels | Mapping[str, Iterable[str | bytes]]
Depth = int | Mapping[str, int] | None

# Reusability measures: the ones the pooling-bias literature reports (Zobel 1998; Buckley & Voorhees
# 2004; Yilmaz & Aslam 2006), bpref and infAP being the ones built to survive missing judgments.
DEFAULT_MEASURES = ("map", "bpref", "infAP", "ndcg_cut.10", "P.10")


# --------------------------------------------------------------------------- shared helpers


def _as_judgments(qrels: Qrels | Judgments) -> Judgments:
    return qrels if isinstance(qrels, Judgments) else Judgments(qrels)


def _topic_order(topics: Iterable[str]) -> tuple[str, ...]:
    """Topics sorted by byte order, as the format layer sorts them (``"10" < "9"``)."""
    return tuple(sorted(set(topics), key=lambda t: t.encode()))


def pool_qrels(pool: PoolLike) -> Qrels:
    """The pool as qrels: a Qrels as is; a mapping as rel -1 lines, duplicates merged, empty topics kept."""
    if isinstance(pool, Qrels):
        return pool
    topics = _topic_order(pool)
    parts = [
        np.unique(np.array([d.encode() if isinstance(d, str) else d for d in pool[t]], dtype="S"))
        for t in topics
    ]
    sizes = np.array([len(p) for p in parts], dtype=np.int64)
    docnos = np.concatenate(parts) if sizes.sum() else np.zeros(0, dtype="S1")
    return Qrels(
        topics=topics,
        offsets=np.r_[0, np.cumsum(sizes)].astype(np.int64),
        docnos=docnos,
        rels=np.full(len(docnos), -1, dtype=np.int64),
    )


def _grades(judgments: Judgments, topics: Sequence[str], codes: np.ndarray, docnos: np.ndarray) -> np.ndarray:
    """Judgment of each (index into ``topics``, docno): its grade, -1 pooled-unjudged, NONPOOL if absent."""
    index = judgments.topic_index
    to_q = np.array([index.get(t, -1) for t in topics], dtype=np.int64)
    q = to_q[codes] if len(codes) else np.zeros(0, dtype=np.int64)
    out = np.full(len(docnos), NONPOOL, dtype=np.int64)
    known = q >= 0
    out[known] = judgments.lookup(q[known], docnos[known])
    return out


def _run_depth(depth: Depth, name: str) -> int | None:
    if depth is None or isinstance(depth, int):
        return depth
    return depth.get(name, 0)


def _ranks(scores: np.ndarray) -> np.ndarray:
    """Competition rank (1 = best; tied runs share the best rank), on scores rounded to DECIMALS."""
    r = np.round(scores, DECIMALS)
    return 1 + np.count_nonzero(r[None, :] > r[:, None], axis=1)


# --------------------------------------------------------------------------- pool size


@dataclass(frozen=True)
class PoolSizes:
    """Per topic: documents in the pool, and of those the judged (rel >= 0) and relevant ones.

    ``judged``/``relevant`` are None when no grades are known (a docno mapping without qrels).
    """

    topics: tuple[str, ...]
    pooled: np.ndarray
    judged: np.ndarray | None
    relevant: np.ndarray | None

    @property
    def total(self) -> int:
        return int(self.pooled.sum())


def pool_sizes(pool: PoolLike, *, qrels: Qrels | Judgments | None = None, level: int = 1) -> PoolSizes:
    """Pool size per topic; grades come from ``qrels``, else from the pool itself when it is a Qrels."""
    pq = pool_qrels(pool)
    pooled = np.diff(pq.offsets).astype(np.int64)
    if qrels is not None:
        codes = np.repeat(np.arange(len(pq.topics)), pooled)
        grades = _grades(_as_judgments(qrels), pq.topics, codes, pq.docnos)
    elif isinstance(pool, Qrels):
        grades = pq.rels
    else:
        return PoolSizes(pq.topics, pooled, None, None)
    seg = np.repeat(np.arange(len(pq.topics)), pooled)
    n = len(pq.topics)

    def count(mask: np.ndarray) -> np.ndarray:
        return np.bincount(seg[mask], minlength=n).astype(np.int64)

    return PoolSizes(pq.topics, pooled, count(grades >= 0), count(grades >= level))


# --------------------------------------------------------------------------- contributions


def _units(runs: Sequence[RankedRun], groups: Mapping[str, str] | None) -> tuple[tuple[str, ...], np.ndarray]:
    """Unit names (runs, or groups in order of first appearance) and the unit index of each run."""
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise ValueError("two runs share a name; diagnostics tell runs apart by name")
    if groups is None:
        return tuple(names), np.arange(len(runs), dtype=np.int64)
    missing = [n for n in names if n not in groups]
    if missing:
        raise ValueError(f"no group given for run(s): {', '.join(missing)}")
    units = tuple(dict.fromkeys(groups[n] for n in names))
    index = {u: i for i, u in enumerate(units)}
    return units, np.array([index[groups[n]] for n in names], dtype=np.int64)


@dataclass(frozen=True)
class _Table:
    """Distinct contributed (topic, docno) pairs, sorted by topic then docno, with who contributed them."""

    topics: tuple[str, ...]
    doc_topic: np.ndarray  # index into topics
    docnos: np.ndarray
    owner: np.ndarray  # the one contributing unit, -1 when several units contribute the doc
    contributed: np.ndarray  # (units, topics): distinct docs each unit contributes


def _contributions(
    runs: Sequence[RankedRun], unit_of_run: np.ndarray, n_units: int, depth: Depth, pool: Qrels | None
) -> _Table:
    topics = pool.topics if pool is not None else _topic_order(t for r in runs for t in r.topics)
    tindex = {t: i for i, t in enumerate(topics)}
    codes_parts: list[np.ndarray] = []
    doc_parts: list[np.ndarray] = []
    unit_parts: list[np.ndarray] = []
    for i, run in enumerate(runs):
        d = _run_depth(depth, run.name)
        lengths = np.diff(run.offsets)
        tmap = np.array([tindex.get(t, -1) for t in run.topics], dtype=np.int64)
        row_topic = np.repeat(tmap, lengths)
        keep = row_topic >= 0
        if d is not None:
            keep &= np.arange(len(run)) - np.repeat(run.offsets[:-1], lengths) < d
        codes_parts.append(row_topic[keep])
        doc_parts.append(run.docnos[keep])
        unit_parts.append(np.full(int(keep.sum()), unit_of_run[i], dtype=np.int64))
    codes = np.concatenate(codes_parts) if codes_parts else np.zeros(0, dtype=np.int64)
    docnos = np.concatenate(doc_parts) if doc_parts else np.zeros(0, dtype="S1")
    units = np.concatenate(unit_parts) if unit_parts else np.zeros(0, dtype=np.int64)
    if pool is not None and len(codes):
        # topics are the pool's, so the codes are already its topic indices
        inside = Judgments(pool).lookup_rows(codes, docnos) >= 0
        codes, docnos, units = codes[inside], docnos[inside], units[inside]
    ntopics = len(topics)
    if len(codes) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return _Table(topics, empty, docnos, empty, np.zeros((n_units, ntopics), dtype=np.int64))
    order = sort_by_topic_docno(codes, docnos)
    c, d_sorted, u = codes[order], docnos[order], units[order]
    new_doc = np.r_[True, (c[1:] != c[:-1]) | (d_sorted[1:] != d_sorted[:-1])]
    doc_id = np.cumsum(new_doc) - 1
    # a run lists a doc at most once per topic, but a group's runs may share it: count units, not runs
    pairs = np.unique(doc_id * n_units + u)
    pair_doc, pair_unit = pairs // n_units, pairs % n_units
    ndocs = int(new_doc.sum())
    single = np.bincount(pair_doc, minlength=ndocs)[pair_doc] == 1
    owner = np.full(ndocs, -1, dtype=np.int64)
    owner[pair_doc[single]] = pair_unit[single]
    doc_topic = c[new_doc]
    cells = pair_unit * ntopics + doc_topic[pair_doc]
    contributed = np.bincount(cells, minlength=n_units * ntopics).reshape(n_units, ntopics)
    return _Table(topics, doc_topic, d_sorted[new_doc], owner, contributed.astype(np.int64))


class UnitContribution(NamedTuple):
    """One unit's totals over topics; ``unique_judged``/``unique_relevant`` are None without grades."""

    unit: str
    contributed: int
    unique: int
    unique_judged: int | None
    unique_relevant: int | None


@dataclass(frozen=True)
class UniqueContributions:
    """Documents contributed, and contributed uniquely, per unit (run or group) and topic.

    Matrices are (units × topics). The per-document table lists every distinct contributed
    (topic, docno) with its owner (the only unit contributing it, -1 if shared) and its grade
    (-1 pooled-unjudged, NONPOOL absent from the qrels; None when no grades are known).
    """

    by: str  # "run" or "group"
    units: tuple[str, ...]
    topics: tuple[str, ...]
    contributed: np.ndarray
    unique: np.ndarray
    unique_judged: np.ndarray | None
    unique_relevant: np.ndarray | None
    doc_topic: np.ndarray
    docnos: np.ndarray
    owner: np.ndarray
    grades: np.ndarray | None

    def totals(self) -> list[UnitContribution]:
        judged = self.unique_judged.sum(axis=1).tolist() if self.unique_judged is not None else None
        rel = self.unique_relevant.sum(axis=1).tolist() if self.unique_relevant is not None else None
        return [
            UnitContribution(
                unit,
                int(self.contributed[i].sum()),
                int(self.unique[i].sum()),
                None if judged is None else int(judged[i]),
                None if rel is None else int(rel[i]),
            )
            for i, unit in enumerate(self.units)
        ]

    def unique_docnos(self, unit: str, topic: str) -> list[str]:
        """The docs ``unit`` alone contributes to ``topic``, in docno byte order."""
        mask = (self.owner == self.units.index(unit)) & (self.doc_topic == self.topics.index(topic))
        return [d.decode() for d in self.docnos[mask].tolist()]


def unique_contributions(
    runs: Sequence[RankedRun],
    *,
    depth: Depth = None,
    pool: PoolLike | None = None,
    groups: Mapping[str, str] | None = None,
    qrels: Qrels | Judgments | None = None,
    level: int = 1,
) -> UniqueContributions:
    """Documents and relevant documents each run (or each group, given ``groups``: run -> group)
    contributes uniquely, at pool depth ``depth`` and/or within ``pool`` (see the module docstring).

    Relevant means grade >= ``level`` in ``qrels``, or in the pool itself when it is a Qrels and no
    qrels are given. Topics are the pool's when a pool is given, else every run topic.
    """
    units, unit_of_run = _units(runs, groups)
    pq = pool_qrels(pool) if pool is not None else None
    table = _contributions(runs, unit_of_run, len(units), depth, pq)
    nunits, ntopics = len(units), len(table.topics)

    def per_unit_topic(mask: np.ndarray) -> np.ndarray:
        keys = table.owner[mask] * ntopics + table.doc_topic[mask]
        return np.bincount(keys, minlength=nunits * ntopics).reshape(nunits, ntopics).astype(np.int64)

    owned = table.owner >= 0
    grades: np.ndarray | None = None
    if qrels is not None:
        grades = _grades(_as_judgments(qrels), table.topics, table.doc_topic, table.docnos)
    elif isinstance(pool, Qrels):
        grades = _grades(Judgments(pool), table.topics, table.doc_topic, table.docnos)
    return UniqueContributions(
        by="run" if groups is None else "group",
        units=units,
        topics=table.topics,
        contributed=table.contributed,
        unique=per_unit_topic(owned),
        unique_judged=None if grades is None else per_unit_topic(owned & (grades >= 0)),
        unique_relevant=None if grades is None else per_unit_topic(owned & (grades >= level)),
        doc_topic=table.doc_topic,
        docnos=table.docnos,
        owner=table.owner,
        grades=grades,
    )


# --------------------------------------------------------------------------- judged@k


class JudgedAtK(NamedTuple):
    """One run at one cutoff, under both conventions (docs/measures.md#measure-families), per topic
    and as a mean.

    ``trec_eval`` = 1 − unj_k: judged (rel >= 0) docs in the top k / k, ranks past the end of the
    run counted as judged. ``ir_measures`` = Judged@k: docs with any qrels line (rel -1 included)
    in the top k / min(k, |run|).
    """

    run: str
    k: int
    topics: tuple[str, ...]
    trec_eval: np.ndarray
    ir_measures: np.ndarray
    trec_eval_mean: float
    ir_measures_mean: float


def judged_at_k(
    runs: Sequence[RankedRun],
    qrels: Qrels | Judgments,
    *,
    ks: Sequence[int] = (10,),
    options: EvalOptions | None = None,
) -> list[JudgedAtK]:
    """judged@k of every run at every cutoff, from the ``unj`` and ``judged`` measure families."""
    judgments = _as_judgments(qrels)
    measures = parse_measures([f"unj.{k}" for k in ks] + [f"judged.{k}" for k in ks])
    out: list[JudgedAtK] = []
    for run in runs:
        result = evaluate_run(judgments, run, measures, options)
        for k in ks:
            unj = result.per_topic[Measure("unj", k).measure_name()]
            judged = result.per_topic[Measure("judged", k).measure_name()]
            trec = 1.0 - unj
            out.append(
                JudgedAtK(
                    run.name,
                    k,
                    tuple(result.topics),
                    trec,
                    judged,
                    float(trec.mean()) if len(trec) else 0.0,
                    float(judged.mean()) if len(judged) else 0.0,
                )
            )
    return out


# --------------------------------------------------------------------------- ties at the cutoff


class CutoffTie(NamedTuple):
    """Docs sharing the score of the document at rank ``depth``, on both sides of the cutoff.

    Which of them enter a depth-``depth`` pool is decided by the docno tie-break alone (docno
    descending, docs/formats.md#canonical-ranking-order): ``inside`` are the tied docs at ranks
    <= depth, ``outside`` the rest.
    """

    run: str
    topic: str
    depth: int
    score: float
    first_rank: int
    last_rank: int
    inside: tuple[str, ...]
    outside: tuple[str, ...]


def cutoff_ties(runs: Sequence[RankedRun], depth: int | Mapping[str, int]) -> list[CutoffTie]:
    """Every (run, topic) whose depth-k cutoff splits a group of equal scores, in run then topic order.

    ``depth`` is one k for every run or a per-run mapping; runs the mapping does not list are skipped.
    """
    out: list[CutoffTie] = []
    for run in runs:
        k = _run_depth(depth, run.name)
        if not k:
            continue
        starts, ends = run.offsets[:-1], run.offsets[1:]
        long_enough = np.flatnonzero(ends - starts > k)
        at_k = starts[long_enough] + k - 1
        split = long_enough[run.scores[at_k] == run.scores[at_k + 1]]
        for t in split.tolist():
            a, b = int(starts[t]), int(ends[t])
            scores = run.scores[a:b]
            s = scores[k - 1]
            # scores descend within a topic, so the tied block is one searchsorted away on -scores
            lo = int(np.searchsorted(-scores, -s, side="left"))
            hi = int(np.searchsorted(-scores, -s, side="right"))
            docs = [d.decode() for d in run.docnos[a + lo : a + hi].tolist()]
            inside, outside = tuple(docs[: k - lo]), tuple(docs[k - lo :])
            out.append(CutoffTie(run.name, run.topics[t], k, float(s), lo + 1, hi, inside, outside))
    return out


# --------------------------------------------------------------------------- leave-out reusability


class UnitRemoval(NamedTuple):
    """What leaving one unit out removes from the qrels: its uniquely contributed judgment lines."""

    unit: str
    runs: tuple[str, ...]
    removed: int  # qrels lines, pooled-unjudged (rel < 0) ones included
    removed_judged: int
    removed_relevant: int
    topics: tuple[str, ...]  # topics that lost at least one line


class HeldOutScore(NamedTuple):
    """One held-out run under one measure.

    ``reduced_rank`` is its rank when its unit's runs take their reduced scores and every other
    run keeps its full score: a new system scored against judgments it did not help build.
    ``rank_change`` = reduced_rank − full_rank (positive: it lost places).
    """

    run: str
    unit: str
    full: float
    reduced: float
    drop: float  # full − reduced
    full_rank: int
    reduced_rank: int
    rank_change: int


class UnitCorrelation(NamedTuple):
    """Full ranking (the truth in τ_AP) against the rankings after leaving one unit out.

    ``tau_b``/``tau_ap``: only the unit's runs rescored (the ranking ``rank_change`` is read from).
    ``rescored_tau_b``/``rescored_tau_ap``: every run rescored with the unit's judgments removed
    (None unless asked for with ``rescore_all``).
    """

    unit: str
    tau_b: float
    tau_ap: float
    rescored_tau_b: float | None
    rescored_tau_ap: float | None


@dataclass(frozen=True)
class MeasureReusability:
    """One measure: full and leave-out mean scores per run, their rankings and correlations.

    ``reduced[i]`` is run i scored with its own unit's unique judgments removed; ``tau_b``/``tau_ap``
    compare the full ranking with the ranking of all these leave-out scores (Büttcher, Clarke,
    Yeung & Soboroff 2007). ``max_drop`` is the largest full − reduced score over runs,
    ``max_rank_drop`` the largest rank_change.
    """

    measure: str
    runs: tuple[str, ...]
    full: np.ndarray
    reduced: np.ndarray
    held_out: tuple[HeldOutScore, ...]
    units: tuple[UnitCorrelation, ...]
    tau_b: float
    tau_ap: float
    max_drop: float
    max_drop_run: str
    max_rank_drop: int
    max_rank_drop_run: str


@dataclass(frozen=True)
class Reusability:
    """Leave-one-run-out (``by == "run"``) or leave-one-group-out (``"group"``) results."""

    by: str
    removals: tuple[UnitRemoval, ...]
    measures: dict[str, MeasureReusability]


def _correlation(truth: np.ndarray, other: np.ndarray) -> tuple[float, float]:
    x, y = np.round(truth, DECIMALS), np.round(other, DECIMALS)
    return kendall_tau_b(x, y), tau_ap(x, y)


def _unique_rows(
    judgments: Judgments,
    runs: Sequence[RankedRun],
    unit_of_run: np.ndarray,
    n_units: int,
    depth: Depth,
    pool: Qrels,
) -> list[np.ndarray]:
    """Per unit, the sorted qrels rows of the documents it alone contributes."""
    table = _contributions(runs, unit_of_run, n_units, depth, pool)
    owned = np.flatnonzero(table.owner >= 0)
    to_q = np.array([judgments.topic_index.get(t, -1) for t in table.topics], dtype=np.int64)
    q_topic = to_q[table.doc_topic[owned]] if len(owned) else np.zeros(0, dtype=np.int64)
    rows = np.full(len(owned), -1, dtype=np.int64)
    has = q_topic >= 0
    rows[has] = judgments.lookup_rows(q_topic[has], table.docnos[owned][has])
    found = rows >= 0
    rows, owner = rows[found], table.owner[owned][found]
    return [np.sort(rows[owner == u]) for u in range(n_units)]


def _measure_report(
    name: str,
    run_names: tuple[str, ...],
    units: tuple[str, ...],
    unit_of_run: np.ndarray,
    full: np.ndarray,
    reduced: np.ndarray,
    rescored: dict[int, np.ndarray] | None,
) -> MeasureReusability:
    full_rank = _ranks(full)
    held: list[HeldOutScore] = []
    correlations: list[UnitCorrelation] = []
    for u, unit in enumerate(units):
        members = np.flatnonzero(unit_of_run == u)
        mixed = full.copy()
        mixed[members] = reduced[members]
        mixed_rank = _ranks(mixed)
        for i in members.tolist():
            f, r = float(full[i]), float(reduced[i])
            rank, new_rank = int(full_rank[i]), int(mixed_rank[i])
            held.append(HeldOutScore(run_names[i], unit, f, r, f - r, rank, new_rank, new_rank - rank))
        tb, ta = _correlation(full, mixed)
        rb: float | None = None
        ra: float | None = None
        if rescored is not None:
            # a unit that removed nothing leaves every score, hence the ranking, as it was
            rb, ra = _correlation(full, rescored[u]) if u in rescored else (tb, ta)
        correlations.append(UnitCorrelation(unit, tb, ta, rb, ra))
    position = {run: i for i, run in enumerate(run_names)}
    held.sort(key=lambda h: position[h.run])
    tau_b_all, tau_ap_all = _correlation(full, reduced)
    worst = max(held, key=lambda h: h.drop)
    worst_rank = max(held, key=lambda h: h.rank_change)
    return MeasureReusability(
        measure=name,
        runs=run_names,
        full=full,
        reduced=reduced,
        held_out=tuple(held),
        units=tuple(correlations),
        tau_b=tau_b_all,
        tau_ap=tau_ap_all,
        max_drop=worst.drop,
        max_drop_run=worst.run,
        max_rank_drop=worst_rank.rank_change,
        max_rank_drop_run=worst_rank.run,
    )


def leave_out_reusability(
    runs: Sequence[RankedRun],
    qrels: Qrels | Judgments,
    *,
    measures: Sequence[str] = DEFAULT_MEASURES,
    groups: Mapping[str, str] | None = None,
    depth: Depth = None,
    pool: PoolLike | None = None,
    options: EvalOptions | None = None,
    rescore_all: bool = False,
) -> Reusability:
    """Leave-one-run-out (or leave-one-group-out, given ``groups``) test of pool reusability.

    For each unit, the qrels lines of the documents it contributes uniquely (module docstring;
    pass the pool's ``depth`` to mirror a depth-k pool) are deleted, so those documents become
    unpooled, as if the unit had never been pooled (Zobel 1998; Voorhees 2002). Deleting, rather
    than keeping them as unjudged (rel -1), is what the pool without the unit would have been: it
    shrinks R and N, and infAP no longer counts them as pooled. Judged non-relevant and unjudged
    unique lines go too. Lines no run contributes (e.g. from runs not given) always stay.

    Every qrels topic is kept, a topic that lost all its lines included (it then scores what an
    unjudged topic scores, 0 for the default measures), so full and reduced scores average over
    the same topics; scores are evaluate_run's own summaries (the 'all' values).

    Cost: every run is evaluated once with the full qrels and once with its unit's reduced qrels;
    ``rescore_all`` adds every run on every unit's reduced qrels (units × runs evaluations).
    """
    judgments = _as_judgments(qrels)
    if judgments.prel is not None or judgments.mq is not None:
        raise ValueError("leave-out reusability works on qrels; sampled judgments (prels) are not supported")
    if not runs:
        raise ValueError("no runs to leave out")
    q = judgments.qrels
    units, unit_of_run = _units(runs, groups)
    ms = parse_measures(list(measures))
    names = list(dict.fromkeys(m.measure_name() for m in ms))
    # Without a pool, the qrels bound the contributions: that changes nobody's uniqueness and
    # drops the documents that have no line to remove.
    lost_rows = _unique_rows(
        judgments, runs, unit_of_run, len(units), depth, pool_qrels(pool) if pool is not None else q
    )
    seg = np.repeat(np.arange(len(q.topics)), np.diff(q.offsets))
    level = (options or EvalOptions()).level

    def scores(j: Judgments, indices: Iterable[int], into: dict[str, np.ndarray]) -> None:
        for i in indices:
            summary = evaluate_run(j, runs[i], ms, options).summary
            for n in names:
                into[n][i] = summary[n]

    full = {n: np.zeros(len(runs)) for n in names}
    scores(judgments, range(len(runs)), full)
    reduced = {n: full[n].copy() for n in names}
    rescored: dict[str, dict[int, np.ndarray]] = {n: {} for n in names}
    removals = []
    for u, unit in enumerate(units):
        members = np.flatnonzero(unit_of_run == u)
        lost = lost_rows[u]
        grades = q.rels[lost]
        removals.append(
            UnitRemoval(
                unit,
                tuple(runs[i].name for i in members.tolist()),
                len(lost),
                int(np.count_nonzero(grades >= 0)),
                int(np.count_nonzero(grades >= level)),
                tuple(q.topics[t] for t in np.unique(seg[lost]).tolist()),
            )
        )
        if not len(lost):
            continue  # nothing removed: every score stays as it is
        without = {n: full[n].copy() for n in names}
        scores(judgments.without(lost), range(len(runs)) if rescore_all else members.tolist(), without)
        for n in names:
            reduced[n][members] = without[n][members]
            if rescore_all:
                rescored[n][u] = without[n]
    run_names = tuple(r.name for r in runs)
    report = {
        n: _measure_report(
            n, run_names, units, unit_of_run, full[n], reduced[n], rescored[n] if rescore_all else None
        )
        for n in names
    }
    return Reusability("run" if groups is None else "group", tuple(removals), report)
