"""Evaluate runs against judgments: align each run with the qrels, build contexts, run the kernels.

Pure: takes the format layer's Run/Qrels/prels and returns plain results; no Django.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from metrics.measures import REGISTRY, Measure
from metrics.measures.base import NONPOOL, UNJUDGED, Context, EvalOptions, TopicStats
from trec.prels import MQPrel, StratifiedPrel
from trec.qrels import Qrels
from trec.runs import Run


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
                grade_counts.append(dict(zip(g.tolist(), c.tolist())))
            self._stats[level] = TopicStats(
                num_rel=count(rels >= level),
                num_nonrel=count(judged & (rels < level)),
                num_judged=count(judged),
                num_pooled=np.diff(q.offsets).astype(np.int64),
                ideal_gains=ideal,
                grade_counts=grade_counts,
            )
        return self._stats[level]


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


def align(judgments: Judgments, run: Run, options: EvalOptions) -> Aligned:
    """Join ``run`` with the qrels: one relevance value per ranked document, topics in qrels order."""
    q = judgments.qrels
    tindex = judgments.topic_index
    run_pos = {t: i for i, t in enumerate(run.topics)}
    missing = [t for t in q.topics if t not in run_pos]
    topics = q.topics if options.complete else tuple(t for t in q.topics if t in run_pos)
    qidx = np.array([tindex[t] for t in topics], dtype=np.int64)
    rel_parts, doc_parts, score_parts, lengths, full = [], [], [], [], []
    for t, qi in zip(topics, qidx.tolist()):
        ri = run_pos.get(t)
        if ri is None:
            lengths.append(0)
            full.append(0)
            continue
        a, b = int(run.offsets[ri]), int(run.offsets[ri + 1])
        full.append(b - a)
        if options.max_docs is not None:
            b = min(b, a + options.max_docs)
        docs = run.docnos[a:b]
        rel = q.lookup(qi, docs, NONPOOL)
        rel[(rel < 0) & (rel != NONPOOL)] = UNJUDGED
        sc = run.scores[a:b]
        if options.judged_only:
            keep = rel >= 0
            rel, docs, sc = rel[keep], docs[keep], sc[keep]
        rel_parts.append(rel)
        doc_parts.append(docs)
        score_parts.append(sc)
        lengths.append(len(rel))
    offsets = np.zeros(len(topics) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return Aligned(
        topics=tuple(topics),
        qrels_index=qidx,
        offsets=offsets,
        rel=np.concatenate(rel_parts) if rel_parts else np.zeros(0, dtype=np.int64),
        docnos=np.concatenate(doc_parts) if doc_parts else np.zeros(0, dtype="S1"),
        scores=np.concatenate(score_parts) if score_parts else np.zeros(0),
        full_lengths=np.array(full, dtype=np.int64),
        missing=missing,
    )


def evaluate_run(
    judgments: Judgments, run: Run, measures: Sequence[Measure], options: EvalOptions | None = None
) -> RunResult:
    """Evaluate one run; ``measures`` come from :func:`metrics.names.parse_measures`."""
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
    for m in measures:
        fam = REGISTRY[m.family]
        name = m.name or fam.output_name(m.param)
        if name in per_topic:
            continue
        ctx = context(options.level if m.level is None else m.level)
        values = np.asarray(fam.kernel(ctx, m.param), dtype=np.float64)
        per_topic[name] = values
        summary[name] = fam.aggregate(ctx, values)
        names.append(name)
        if fam.integer:
            integer.add(name)
        if not fam.per_topic:
            summary_only.add(name)
    return RunResult(
        run=run.name,
        topics=list(al.topics),
        per_topic=per_topic,
        summary=summary,
        names=names,
        integer=integer,
        summary_only=summary_only,
        missing_topics=al.missing,
    )


def evaluate_runs(
    judgments: Judgments,
    runs: Iterable[Run],
    measures: Sequence[Measure],
    options: EvalOptions | None = None,
) -> list[RunResult]:
    return [evaluate_run(judgments, run, measures, options) for run in runs]
