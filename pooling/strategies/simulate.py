"""Replaying a strategy against complete judgments: relevant documents found as judging goes on.

The experiment of Losada et al. (2016/17) and Lipani et al. (2017): each topic is judged up to
its budget, adaptive queues consuming the qrels' grades as their judgments, static pools being
judged in their order. A document the qrels lack (or list as unjudged) counts as non-relevant,
as in those papers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from pooling.strategies.adaptive import JudgingQueue
from pooling.strategies.pool import PoolSelection
from pooling.strategies.rankings import Rankings
from trec.qrels import Qrels


@dataclass(frozen=True)
class TopicTrace:
    """One topic's judgments in order and whether each was relevant."""

    topic: str
    docnos: tuple[str, ...]
    relevant: np.ndarray  # bool, one per judgment
    budget: int
    relevant_total: int  # relevant documents in the qrels for the topic

    def found(self, judged: int) -> int:
        """Relevant documents found within the first ``judged`` judgments."""
        return int(self.relevant[:judged].sum())


@dataclass(frozen=True)
class CurvePoint:
    topic: str  # "all" for the sum over topics
    step: int  # judgments per topic so far (a multiple of the step, or the last)
    judged: int  # judgments made (for "all": summed over topics)
    relevant: int


@dataclass(frozen=True)
class Simulation:
    strategy: str
    traces: tuple[TopicTrace, ...]
    skipped: tuple[str, ...] = ()  # topics of the runs that the qrels do not have

    def total_found(self) -> int:
        return sum(int(t.relevant.sum()) for t in self.traces)

    def total_judged(self) -> int:
        return sum(len(t.docnos) for t in self.traces)

    def curve(self, step: int) -> list[CurvePoint]:
        """Per topic then overall, relevant found after every ``step`` judgments and at the end."""
        if step < 1:
            raise ValueError("the step must be at least 1")
        longest = max((len(t.docnos) for t in self.traces), default=0)
        marks = [*list(range(step, longest, step)), longest]
        points = []
        for t in self.traces:
            n = len(t.docnos)
            for k in [m for m in marks if m < n] + [n]:
                points.append(CurvePoint(t.topic, k, k, t.found(k)))
        for k in marks:
            judged = sum(min(k, len(t.docnos)) for t in self.traces)
            points.append(CurvePoint("all", k, judged, sum(t.found(k) for t in self.traces)))
        return points


def candidate_sizes(rk: Rankings) -> dict[str, int]:
    """Per topic, how many distinct documents the entries hold (the depth-k pool of ``rk``)."""
    present = np.zeros(rk.n_docs, dtype=bool)
    present[rk.doc] = True
    counts = np.bincount(rk.doc_topic[present], minlength=len(rk.topics))
    return {t: int(n) for t, n in zip(rk.topics, counts.tolist(), strict=True)}


def per_topic_budgets(
    sizes: Mapping[str, int], *, count: int | None = None, fraction: float | None = None
) -> dict[str, int]:
    """A budget per topic: ``count`` judgments, or ``fraction`` of the topic's candidate pool.

    A fraction is rounded half up, with at least one judgment for a non-empty pool.
    """
    if (count is None) == (fraction is None):
        raise ValueError("give a budget as a count or as a fraction, not both")
    if count is not None:
        if count < 0:
            raise ValueError("a budget must be 0 or more")
        return dict.fromkeys(sizes, count)
    assert fraction is not None
    if not 0 < fraction <= 1:
        raise ValueError("a budget fraction must be in (0, 1]")
    return {t: max(int(np.floor(fraction * n + 0.5)), 1 if n else 0) for t, n in sizes.items()}


def _grades(qrels: Qrels, topic_index: int, docnos: list[str]) -> np.ndarray:
    arr = np.array([d.encode() for d in docnos], dtype="S") if docnos else np.zeros(0, "S1")
    return np.maximum(qrels.lookup(topic_index, arr, 0), 0)


def simulate(
    source: JudgingQueue | PoolSelection,
    qrels: Qrels,
    budgets: Mapping[str, int],
    *,
    level: int = 1,
    strategy: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> Simulation:
    """Judge each topic of ``budgets`` that the qrels have, up to its budget, with the qrels' grades."""
    index = qrels.topic_index()
    traces, skipped = [], []
    for topic, budget in budgets.items():
        if topic not in index:
            skipped.append(topic)
            continue
        q = index[topic]
        _, rels = qrels.segment(q)
        total = int((rels >= level).sum())
        if isinstance(source, PoolSelection):
            docs = source.to_judge(topic)[:budget] if topic in source.topics else []
            grades = _grades(qrels, q, docs)
        else:
            docs, grade_list = [], []
            while len(docs) < budget:
                docno = source.next(topic)
                if docno is None:
                    break
                grade = int(_grades(qrels, q, [docno])[0])
                source.record(topic, docno, grade)
                docs.append(docno)
                grade_list.append(grade)
            grades = np.array(grade_list, dtype=np.int64)
        traces.append(TopicTrace(topic, tuple(docs), grades >= level, budget, total))
        if progress is not None:
            progress(topic)
    name = strategy or (source.strategy if isinstance(source, PoolSelection) else type(source).strategy)
    return Simulation(name, tuple(traces), tuple(skipped))
