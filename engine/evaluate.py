"""Evaluate runs against judgments: align each run with the qrels, build contexts, run the kernels.

Pure: takes the format layer's RankedRun/Qrels/prels and returns plain results; no Django.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from engine.measures import REGISTRY, Measure
from engine.measures.base import NONPOOL, UNJUDGED, Context, EvalOptions, TopicStats
from engine.zscores import ZScores
from trec.order import docno_keys, hash_strings
from trec.parallel import ordered_map
from trec.prels import MQPrel, StratifiedPrel
from trec.qrels import Qrels
from trec.runs import RankedRun


@dataclass(frozen=True)
class JoinIndex:
    """The qrels sorted by docno hash within each topic's segment: hash, docno, grade and row.

    A lookup binary-searches only its topic's segment (a few thousand hashes that stay in the
    CPU's cache) rather than every judgment of the collection, and reads the docno and grade
    it needs from that same segment, so a run's join costs the same per line whatever the
    size of the qrels.
    """

    offsets: np.ndarray  # topic t's entries are [offsets[t], offsets[t + 1])
    hashes: np.ndarray  # uint64, ascending within each topic
    docnos: np.ndarray  # the docno of each entry, to confirm a hash match exactly
    rels: np.ndarray  # the judgment of each entry, as the qrels give it
    rows: np.ndarray  # the qrels row of each entry

    def subset(self, keep: np.ndarray, ntopics: int, new_row: np.ndarray) -> JoinIndex:
        """The index of the qrels with only the rows where ``keep`` holds (renumbered by ``new_row``)."""
        kept = keep[self.rows]
        codes = np.repeat(np.arange(ntopics), np.diff(self.offsets))
        offsets = np.zeros(ntopics + 1, dtype=np.int64)
        np.cumsum(np.bincount(codes[kept], minlength=ntopics), out=offsets[1:])
        return JoinIndex(
            offsets, self.hashes[kept], self.docnos[kept], self.rels[kept], new_row[self.rows[kept]]
        )

    def find(self, topic_index: np.ndarray, docnos: np.ndarray, hashes: np.ndarray) -> np.ndarray:
        """Entry whose topic and docno equal each query's, -1 where none does.

        Queries come grouped by topic (a run's lines are): one search per group of equal topics.
        """
        n = len(topic_index)
        pos = np.full(n, -1, dtype=np.int64)
        if n == 0 or len(self.hashes) == 0:
            return pos
        heads = np.flatnonzero(np.r_[True, topic_index[1:] != topic_index[:-1]])
        ends = np.r_[heads[1:], n]
        offsets = self.offsets
        for head, end, t in zip(heads.tolist(), ends.tolist(), topic_index[heads].tolist(), strict=True):
            if t < 0:
                continue
            a, b = int(offsets[t]), int(offsets[t + 1])
            if a < b:
                found = np.searchsorted(self.hashes[a:b], hashes[head:end])
                np.minimum(found, b - a - 1, out=found)
                pos[head:end] = found + a
        valid = np.flatnonzero(pos >= 0)
        at = pos[valid]
        # a hash match is a candidate; confirm it is really the same docno (hashes can collide),
        # 8 bytes at a time: numpy compares whole uint64 columns far faster than strings
        match = self.hashes[at] == hashes[valid]
        hit, at = valid[match], at[match]
        chunks = self.docno_chunks
        width = 8 * len(chunks)
        theirs = np.ascontiguousarray(docnos[hit])
        same = np.ones(len(hit), dtype=bool)
        if theirs.dtype.itemsize > width:  # bytes past the longest judged docno must be padding
            tail = theirs.view(np.uint8).reshape(len(theirs), -1)[:, width:]
            same &= ~tail.any(axis=1)
            theirs = theirs.astype(f"S{width}")
        for mine, other in zip(chunks, docno_keys(theirs, width=width), strict=True):
            same &= mine[at] == other
        pos[valid[~match]] = -1
        pos[hit[~same]] = -1
        return pos

    @cached_property
    def docno_chunks(self) -> list[np.ndarray]:
        """The docnos as big-endian 8-byte columns (trec.order.docno_keys), to confirm matches."""
        return docno_keys(self.docnos) if len(self.docnos) else []

    def grades(self, pos: np.ndarray) -> np.ndarray:
        """Judgment of each found entry: its grade, UNJUDGED if rel < 0, NONPOOL if absent (-1)."""
        rel = self.rels[np.maximum(pos, 0)] if len(self.rels) else np.zeros(len(pos), dtype=np.int64)
        return np.where(pos < 0, NONPOOL, np.where(rel < 0, UNJUDGED, rel))

    def row_of(self, pos: np.ndarray) -> np.ndarray:
        return np.where(pos < 0, -1, self.rows[np.maximum(pos, 0)]) if len(self.rows) else pos


class Judgments:
    """Qrels prepared for evaluation, with per-level statistics cached across runs.

    ``prel`` (sample_eval strata) or ``mq`` (inclusion probabilities) ride along when the
    judgments came from such a file; their measures read them through ``Context.extra``.
    """

    def __init__(self, qrels: Qrels, *, prel: StratifiedPrel | None = None, mq: MQPrel | None = None) -> None:
        self.qrels = qrels
        self.prel = prel
        self.mq = mq
        self._stats: dict[int, TopicStats] = {}
        self.cache: dict[Any, Any] = {}  # measure-specific, per-judgments precomputations

    @classmethod
    def from_prel(cls, prel: StratifiedPrel) -> Judgments:
        return cls(prel.qrels, prel=prel)

    @classmethod
    def from_mq(cls, mq: MQPrel) -> Judgments:
        return cls(mq.qrels, mq=mq)

    @cached_property
    def topic_index(self) -> dict[str, int]:
        return self.qrels.topic_index()

    @cached_property
    def _join_index(self) -> JoinIndex | None:
        """The per-topic hash index of the qrels (:class:`JoinIndex`); None if two hashes collide."""
        q = self.qrels
        codes = np.repeat(np.arange(len(q.topics)), np.diff(q.offsets))
        hashes = hash_strings(q.docnos)
        # sort by (topic, hash): one sort of a combined key (the topic in the top bits), checked
        # and redone with two keys in the unlikely case that the hashes' low bits decided a tie.
        # Not a stable sort (five times faster): rows with equal keys share a hash, which the
        # checks below catch whatever their order.
        bits = max(1, len(q.topics).bit_length())
        combined = (codes.astype(np.uint64) << np.uint64(64 - bits)) | (hashes >> np.uint64(bits))
        order = np.argsort(combined)
        sorted_hashes = hashes[order]
        if len(order) > 1 and not bool(
            np.all((np.diff(codes[order]) > 0) | (sorted_hashes[1:] >= sorted_hashes[:-1]))
        ):
            order = np.lexsort((hashes, codes))  # topic segments stay where the qrels have them
            sorted_hashes = hashes[order]
        if len(order) > 1 and bool(np.any((sorted_hashes[1:] == sorted_hashes[:-1]) & (np.diff(codes) == 0))):
            return None
        return JoinIndex(
            q.offsets.astype(np.int64), sorted_hashes, q.docnos[order], q.rels[order], order.astype(np.int64)
        )

    @cached_property
    def _qrels_hashes(self) -> np.ndarray:
        """:func:`trec.order.hash_strings` of every qrels docno, in qrels order."""
        from trec import kernels

        docnos = self.qrels.docnos
        return kernels.hash_strings(docnos) if kernels.enabled() else hash_strings(docnos)

    @cached_property
    def _hash_join(self) -> Any:
        """The compiled join (:class:`trec.kernels.HashJoin`) of these qrels."""
        from trec.kernels import HashJoin

        q = self.qrels
        return HashJoin(q.offsets, self._qrels_hashes, q.docnos, q.rels)

    def stats(self, level: int) -> TopicStats:
        if level not in self._stats:
            q = self.qrels
            n = len(q.topics)
            seg = np.repeat(np.arange(n), np.diff(q.offsets))
            rels = q.rels
            judged = rels >= 0

            def count(mask: np.ndarray) -> np.ndarray:
                return np.bincount(seg[mask], minlength=n)[:n].astype(np.int64)

            ideal = []
            grade_counts = []
            for i in range(n):
                r = rels[q.offsets[i] : q.offsets[i + 1]]
                pos = r[r > 0]
                ideal.append(np.sort(pos)[::-1].astype(np.float64))
                g, c = np.unique(r[r >= 0], return_counts=True)
                grade_counts.append(dict(zip(g.tolist(), c.tolist(), strict=False)))
            self._stats[level] = TopicStats(
                num_rel=count(rels >= level),
                num_nonrel=count(judged & (rels < level)),
                num_judged=count(judged),
                num_pooled=np.diff(q.offsets).astype(np.int64),
                ideal_gains=ideal,
                grade_counts=grade_counts,
            )
        return self._stats[level]

    def without(self, rows: np.ndarray) -> Judgments:
        """These judgments with the qrels lines ``rows`` deleted; every topic stays, even one left empty.

        Deleting lines keeps the (topic, docno) order and every line's topic code, so this
        index stays sorted once the deleted lines are dropped: it is filtered, not rebuilt, which
        matters to leave-one-run-out diagnostics that do this once per run.
        """
        q = self.qrels
        keep = np.ones(len(q), dtype=bool)
        keep[rows] = False
        reduced = Judgments(q.keep_rows(keep))  # subtopic lines follow their rows
        if "_qrels_hashes" in self.__dict__:
            reduced.__dict__["_qrels_hashes"] = self._qrels_hashes[keep]
        from trec import kernels

        if kernels.enabled():
            return reduced  # the reduced judgments build their own table when first joined
        index = self._join_index
        if index is not None:
            reduced.__dict__["_join_index"] = index.subset(keep, len(q.topics), np.cumsum(keep) - 1)
        return reduced

    def lookup_rows(
        self, topic_index: np.ndarray, docnos: np.ndarray, hashes: np.ndarray | None = None
    ) -> np.ndarray:
        """Row of each (qrels topic index, docno) in the qrels arrays, -1 where it is absent."""
        return self.lookup_rows_and_grades(topic_index, docnos, hashes)[0]

    def lookup_rows_and_grades(
        self, topic_index: np.ndarray, docnos: np.ndarray, hashes: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Row of each (qrels topic index, docno) (-1 where absent) and its :meth:`relevance`."""
        q = self.qrels
        if len(docnos) == 0 or len(q) == 0:
            rows = np.full(len(docnos), -1, dtype=np.int64)
            return rows, self.relevance(rows)
        from trec import kernels

        if kernels.enabled():
            if hashes is None:
                hashes = kernels.hash_strings(np.asarray(docnos, dtype="S"))
            return self._hash_join.find(topic_index, docnos, hashes, NONPOOL, UNJUDGED)
        index = self._join_index
        if index is None:
            rows = self._search_rows(topic_index, docnos)
            return rows, self.relevance(rows)
        hashes = hash_strings(docnos) if hashes is None else hashes
        pos = index.find(topic_index, docnos, hashes)
        return index.row_of(pos), index.grades(pos)

    def _search_rows(self, topic_index: np.ndarray, docnos: np.ndarray) -> np.ndarray:
        """The lookup by exact binary search of the docnos per topic (two qrels docnos share a hash)."""
        q = self.qrels
        out = np.full(len(docnos), -1, dtype=np.int64)
        if len(docnos) == 0 or len(q) == 0:
            return out
        for t in np.unique(topic_index).tolist():
            if t < 0:
                continue
            rows = np.flatnonzero(topic_index == t)
            a, b = int(q.offsets[t]), int(q.offsets[t + 1])
            if a == b:
                continue
            pos = np.minimum(np.searchsorted(q.docnos[a:b], docnos[rows]), b - a - 1)
            hit = q.docnos[a + pos] == docnos[rows]
            out[rows[hit]] = a + pos[hit]
        return out

    def relevance(self, rows: np.ndarray) -> np.ndarray:
        """Judgment of each looked-up row: its grade, UNJUDGED if rel < 0, NONPOOL if absent (-1)."""
        out = np.full(len(rows), NONPOOL, dtype=np.int64)
        found = rows >= 0
        rel = self.qrels.rels[rows[found]]
        out[found] = np.where(rel < 0, UNJUDGED, rel)
        return out

    def lookup(
        self, topic_index: np.ndarray, docnos: np.ndarray, hashes: np.ndarray | None = None
    ) -> np.ndarray:
        """Judgment of each (qrels topic index, docno): grade, UNJUDGED or NONPOOL."""
        return self.lookup_rows_and_grades(topic_index, docnos, hashes)[1]


@dataclass
class RunResult:
    """Per-topic values (aligned with ``topics``) and the 'all' summary of one run."""

    run: str
    topics: list[str]
    per_topic: dict[str, np.ndarray]
    summary: dict[str, float]
    names: list[str]  # output order
    integer: set[str] = field(default_factory=set)
    summary_only: set[str] = field(default_factory=set)
    missing_topics: list[str] = field(default_factory=list)  # qrels topics the run has no results for
    runid: str = ""  # what trec_eval prints as runid: the run's tag (its last line's tag field)
    text: dict[str, list[str]] = field(default_factory=dict)  # per-topic strings (relstring), no 'all'
    zscore: bool = False  # values are z-scores (trec_eval -Z): printed with a 'Z' before the name
    unmatched_topics: list[str] = field(default_factory=list)  # run topics the judgments do not have


def _subset_stats(stats: TopicStats, idx: np.ndarray) -> TopicStats:
    il = idx.tolist()
    return TopicStats(
        num_rel=stats.num_rel[idx],
        num_nonrel=stats.num_nonrel[idx],
        num_judged=stats.num_judged[idx],
        num_pooled=stats.num_pooled[idx],
        ideal_gains=[stats.ideal_gains[i] for i in il],
        grade_counts=[stats.grade_counts[i] for i in il],
    )


@dataclass
class Aligned:
    """A run's ranked lists for the evaluated topics, joined with the judgments."""

    topics: tuple[str, ...]
    qrels_index: np.ndarray  # index of each evaluated topic in the qrels
    offsets: np.ndarray
    rel: np.ndarray
    docnos: np.ndarray
    scores: np.ndarray
    full_lengths: np.ndarray  # documents per topic before -M / -J
    missing: list[str]
    qrels_rows: np.ndarray | None = None  # each ranked doc's row in the judgments' qrels arrays, -1 if absent


def align(judgments: Judgments, run: RankedRun, options: EvalOptions) -> Aligned:
    """Join ``run`` with the qrels: one relevance value per ranked document, topics in qrels order.

    Vectorized over the whole run: each ranked document's (topic, docno) is looked up in the
    judgments' hash index at once (see :meth:`Judgments.lookup`).
    """
    q = judgments.qrels
    tindex = judgments.topic_index
    run_q = np.array([tindex.get(t, -1) for t in run.topics], dtype=np.int64)
    present = np.zeros(len(q.topics), dtype=bool)
    present[run_q[run_q >= 0]] = True
    missing = [t for t, p in zip(q.topics, present.tolist(), strict=False) if not p]
    run_lengths = np.diff(run.offsets)
    row_q = np.repeat(run_q, run_lengths)
    keep = row_q >= 0
    if options.max_docs is not None:
        rank0 = np.arange(len(row_q)) - np.repeat(run.offsets[:-1], run_lengths)
        keep &= rank0 < options.max_docs
    if keep.all():  # the usual case: every ranked document takes part, no copies needed
        docnos, hashes, scores = run.docnos, run.docno_hashes, run.scores
    else:
        rows = np.flatnonzero(keep)
        row_q, docnos, scores = row_q[rows], run.docnos[rows], run.scores[rows]
        hashes = run.docno_hashes[rows] if run.docno_hashes is not None else None
    qrows, rel = judgments.lookup_rows_and_grades(row_q, docnos, hashes)
    if options.judged_only:
        judged = np.flatnonzero(rel >= 0)
        row_q, docnos, scores, rel, qrows = (
            row_q[judged],
            docnos[judged],
            scores[judged],
            rel[judged],
            qrows[judged],
        )
    full = np.zeros(len(q.topics), dtype=np.int64)
    full[run_q[run_q >= 0]] = run_lengths[run_q >= 0]
    counts = np.bincount(row_q, minlength=len(q.topics))[: len(q.topics)]
    selected = np.arange(len(q.topics)) if options.complete else np.flatnonzero(present)
    offsets = np.zeros(len(selected) + 1, dtype=np.int64)
    np.cumsum(counts[selected], out=offsets[1:])
    return Aligned(
        topics=tuple(q.topics[i] for i in selected.tolist()),
        qrels_index=selected.astype(np.int64),
        offsets=offsets,
        rel=rel,
        docnos=docnos,
        scores=scores,
        full_lengths=full[selected],
        missing=missing,
        qrels_rows=qrows,
    )


def evaluate_run(
    judgments: Judgments,
    run: RankedRun,
    measures: Sequence[Measure],
    options: EvalOptions | None = None,
    *,
    zscores: ZScores | None = None,
) -> RunResult:
    """Evaluate one run; ``measures`` come from :func:`engine.names.parse_measures`.

    ``zscores`` (trec_eval ``-Z``) turns every per-topic value into a z-score before the topics
    are aggregated, exactly where trec_eval converts them (``te_convert_to_zscore``).
    """
    options = options or EvalOptions()
    al = align(judgments, run, options)
    contexts: dict[int, Context] = {}

    def context(level: int) -> Context:
        if level not in contexts:
            stats = _subset_stats(judgments.stats(level), al.qrels_index)
            contexts[level] = Context(
                al.topics,
                al.offsets,
                al.rel,
                stats,
                options,
                level=level,
                extra={
                    "judgments": judgments,
                    "aligned": al,
                    "run": run,
                },
            )
        return contexts[level]

    per_topic: dict[str, np.ndarray] = {}
    summary: dict[str, float] = {}
    names: list[str] = []
    integer: set[str] = set()
    summary_only: set[str] = set()
    text: dict[str, list[str]] = {}
    for m in measures:
        fam = REGISTRY[m.family]
        name = m.name or fam.output_name(m.param)
        if name in per_topic:
            continue
        ctx = context(options.level if m.level is None else m.level)
        if fam.text is not None:
            text[name] = fam.text(ctx, m.param)
        values = np.asarray(fam.kernel(ctx, m.param), dtype=np.float64)
        if m.missing_value is not None and options.complete and al.missing:
            values = np.where(_absent(al), m.missing_value, values)
        if zscores is not None and fam.name not in ("num_q", "runid"):
            values = zscores.convert(name, al.topics, values)
        per_topic[name] = values
        summary[name] = fam.aggregate(ctx, values)
        if options.complete and m.family == "num_rel" and not m.name:
            summary[name] = _num_rel_complete(judgments)
        names.append(name)
        if fam.integer:
            integer.add(name)
        if not fam.per_topic:
            summary_only.add(name)
    # kernels cache per-run work in ctx.extra, and some of it points back at its context: break
    # those cycles now so each run's arrays are freed at once, not at the next cyclic GC
    for ctx in contexts.values():
        ctx.extra.clear()
        ctx.__dict__.clear()
    return RunResult(
        run=run.name,
        topics=list(al.topics),
        per_topic=per_topic,
        summary=summary,
        names=names,
        integer=integer,
        summary_only=summary_only,
        missing_topics=al.missing,
        runid=run.runid or run.tag,
        text=text,
        zscore=zscores is not None,
        unmatched_topics=_unmatched_topics(judgments, run),
    )


def _absent(al: Aligned) -> np.ndarray:
    """Per evaluated topic, whether the run lacks it (only ``-c`` evaluates such topics)."""
    missing = set(al.missing)
    return np.array([t in missing for t in al.topics], dtype=bool)


def _unmatched_topics(judgments: Judgments, run: RankedRun) -> list[str]:
    """The run's topics that the judgments do not have (never evaluated; named if none matches)."""
    tindex = judgments.topic_index
    return [t for t in run.topics if t not in tindex]


def no_common_topic(result: RunResult) -> str | None:
    """The sentence refusing ``result`` when its run and the judgments share no topic, else None.

    trec_eval stops there too (``No queries with both results and relevance info``, exit 7, with or
    without -c): every value would be 0 or undefined, which a pipeline would take for a score.
    """
    missing = set(result.missing_topics)
    if any(t not in missing for t in result.topics):
        return None
    judged = _some(result.missing_topics)
    if not result.unmatched_topics:
        return f"run '{result.run}' has no results, so it shares no topic with the judgments ({judged})"
    return (
        f"run '{result.run}' and the judgments have no topic in common (run topics "
        f"{_some(result.unmatched_topics)}; judgments topics {judged}): "
        "check that both use the same topic ids"
    )


def _some(topics: Sequence[str], shown: int = 5) -> str:
    if not topics:
        return "none"
    more = f", ... ({len(topics)} in all)" if len(topics) > shown else ""
    return ", ".join(topics[:shown]) + more


def _num_rel_complete(judgments: Judgments) -> float:
    """trec_eval's num_rel 'all' under ``-c``: every qrels line with rel > 0, whatever ``-l`` says.

    ``m_num_rel.c``'s te_calc_avg_num_rel recounts the raw qrels of every topic when -c is on,
    testing ``rel > 0`` rather than the relevance level, and ignoring -J, -M and -Z.
    """
    return float(np.count_nonzero(judgments.qrels.rels > 0))


def evaluate_files(
    judgments: Judgments,
    paths: Sequence[str],
    measures: Sequence[Measure],
    options: EvalOptions | None = None,
    *,
    names: Sequence[str] | None = None,
    workers: int | None = None,
    zscores: ZScores | None = None,
    processes: bool = False,
) -> Iterator[RunResult]:
    """Read and evaluate run files, yielding results in input order.

    ``processes``: evaluate in forked worker processes, one more than cores (the command line's way:
    no lock is shared, so two cores do twice the work; the judgments are inherited, not copied,
    and each worker holds one run at a time). Otherwise threads in this process: numpy
    releases the GIL inside its kernels, so a few threads overlap one run's parsing with
    another's evaluation. Either way at most ``2 * workers`` runs are in flight, which keeps
    memory bounded however many runs there are. A bad file raises its FormatError when its
    turn comes, after the runs before it have been yielded.
    """
    from trec.runs import read_run

    names = list(names) if names is not None else [None] * len(paths)  # type: ignore[list-item]
    if len(paths) > 1:
        from trec import kernels
        from trec.arrow_runs import preload

        if not kernels.enabled():  # the compiled readers need no pyarrow
            preload()  # pyarrow pays for its import over several runs (and before forking, once)

    def job(i: int) -> RunResult:
        run = read_run(paths[i], name=names[i])
        return evaluate_run(judgments, run, measures, options, zscores=zscores)

    forking = processes and "-" not in paths and len(paths) > 2
    if forking:
        # The first run is evaluated here, before forking: every cache the measures fill on
        # first use (the join index, per-topic statistics, a prel's strata) is then inherited
        # by the workers instead of being built again in each of them.
        yield job(0)
        yield from ordered_map(lambda i: job(i + 1), len(paths) - 1, workers=workers, processes=True)
        return
    yield from ordered_map(job, len(paths), workers=workers, processes=False)
