"""The result of every pooling strategy: per topic, the documents to judge in order, with their design."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from trec.grouping import offsets_from_sorted_codes
from trec.prels import MQPrel, StratifiedPrel
from trec.qrels import Qrels, qrels_from_arrays

UNJUDGED = -1  # the qrels/prel convention for "pooled (or listed) but not judged"


class StratumCount(NamedTuple):
    """One stratum of a pool over all its topics: its documents, and how many are drawn to judge."""

    stratum: str
    candidates: int
    judge: int


def stratum_key(label: str) -> tuple[int, int, str]:
    """Strata in their design's order: rank strata "1", "2", "3"...; a machine's grades "g<grade>"
    highest first, its "ungraded" last; any other label after those, by name."""
    if label.isdigit():
        return (0, int(label), "")
    if label[:1] == "g" and label[1:].isdigit():
        return (0, -int(label[1:]), "")
    return (1, 0, label)


@dataclass(frozen=True, eq=False)  # numpy fields: no element-wise __eq__
class PoolSelection:
    """Per topic, the pooled documents: those to judge first, in judging order, then the unsampled.

    Topic ``i`` spans ``offsets[i]:offsets[i+1]`` of the per-document arrays. ``sampled`` is
    False only in sampling designs, for documents of the sampled universe (a stratum) that were
    not drawn: they are never judged but a sample_eval prel must list them. ``strata`` (labels)
    and ``iprobs`` (inclusion probabilities) are set by sampling designs; other pools judge every
    document for certain, i.e. one stratum "1" and probability 1.
    """

    strategy: str
    topics: tuple[str, ...]
    offsets: np.ndarray
    docnos: np.ndarray
    sampled: np.ndarray
    strata: np.ndarray | None = None
    iprobs: np.ndarray | None = None
    params: Mapping[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        """Documents to judge (sampled), over all topics."""
        return int(self.sampled.sum())

    @classmethod
    def from_lists(
        cls, strategy: str, lists: Mapping[str, Sequence[str]], params: Mapping[str, Any] | None = None
    ) -> PoolSelection:
        """A pool judging ``lists[topic]`` in that order (topics sorted in byte order)."""
        topics = sorted(lists, key=lambda t: t.encode())
        docs = [d.encode() for t in topics for d in lists[t]]
        codes = np.repeat(np.arange(len(topics)), [len(lists[t]) for t in topics])
        return cls(
            strategy=strategy,
            topics=tuple(topics),
            offsets=offsets_from_sorted_codes(codes, len(topics)),
            docnos=np.array(docs, dtype="S") if docs else np.zeros(0, dtype="S1"),
            sampled=np.ones(len(docs), dtype=bool),
            params=dict(params or {}),
        )

    def stratum_counts(self) -> list[StratumCount]:
        """Per stratum (:func:`stratum_key` order), its documents over every topic and those drawn."""
        labels = self.stratum_labels()
        names, codes = np.unique(labels, return_inverse=True)
        candidates = np.bincount(codes, minlength=len(names)).tolist()
        judge = np.bincount(codes[self.sampled], minlength=len(names)).tolist()
        counts = [
            StratumCount(name.decode(), int(n), int(k))
            for name, n, k in zip(names.tolist(), candidates, judge, strict=True)
        ]
        return sorted(counts, key=lambda c: stratum_key(c.stratum))

    def topic_index(self, topic: str) -> int:
        try:
            return self.topics.index(topic)
        except ValueError:
            raise KeyError(f"topic '{topic}' is not in the pool") from None

    def to_judge(self, topic: str) -> list[str]:
        """The documents of ``topic`` to judge, in judging order."""
        i = self.topic_index(topic)
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        return [d.decode() for d in self.docnos[a:b][self.sampled[a:b]].tolist()]

    def as_lists(self) -> dict[str, list[str]]:
        return {t: self.to_judge(t) for t in self.topics}

    def sizes(self) -> dict[str, int]:
        """Documents to judge per topic."""
        counts = np.bincount(self._codes()[self.sampled], minlength=len(self.topics))
        return {t: int(n) for t, n in zip(self.topics, counts.tolist(), strict=True)}

    def stratum_labels(self) -> np.ndarray:
        return self.strata if self.strata is not None else np.full(len(self.docnos), b"1", dtype="S1")

    def inclusion_probabilities(self) -> np.ndarray:
        return self.iprobs if self.iprobs is not None else np.ones(len(self.docnos), dtype=np.float64)

    def _codes(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.topics)), np.diff(self.offsets))

    def _qids(self, rows: np.ndarray) -> np.ndarray:
        names = np.array([t.encode() for t in self.topics], dtype="S") if self.topics else np.zeros(0, "S1")
        return names[self._codes()[rows]]

    def _grades(self, rows: np.ndarray, judgments: Qrels | None) -> np.ndarray:
        """Grades of sampled ``rows`` from ``judgments``; unjudged (-1) where absent or unsampled."""
        out = np.full(len(rows), UNJUDGED, dtype=np.int64)
        if judgments is None:
            return out
        index = judgments.topic_index()
        codes = self._codes()[rows]
        for i, topic in enumerate(self.topics):
            if topic not in index:
                continue
            sel = np.flatnonzero((codes == i) & self.sampled[rows])
            out[sel] = judgments.lookup(index[topic], self.docnos[rows[sel]], UNJUDGED)
        return out

    def to_qrels(self, judgments: Qrels | None = None) -> Qrels:
        """The documents to judge as qrels: rel -1 (pooled, not judged) or their grade in ``judgments``."""
        rows = np.flatnonzero(self.sampled)
        return qrels_from_arrays(self._qids(rows), self.docnos[rows], self._grades(rows, judgments))

    def to_prel(self, judgments: Qrels | None = None) -> StratifiedPrel:
        """A sample_eval prel: every listed document with its stratum; rel -1 unless sampled and judged.

        ``drawn`` marks the documents the design drew for judging (written in the iter column),
        so the prel carries the sample before any judgment is in.
        """
        rows = np.arange(len(self.docnos))
        qrels = qrels_from_arrays(self._qids(rows), self.docnos, self._grades(rows, judgments))
        return StratifiedPrel(
            qrels=qrels,
            strata=_align(qrels, self, self.stratum_labels()),
            drawn=_align(qrels, self, self.sampled),
        )

    def to_mq_prel(self, judgments: Qrels | None = None) -> MQPrel:
        """A Million Query prel: the sampled documents with their inclusion probability."""
        rows = np.flatnonzero(self.sampled)
        qrels = qrels_from_arrays(self._qids(rows), self.docnos[rows], self._grades(rows, judgments))
        sub = PoolSelection(
            self.strategy,
            self.topics,
            offsets_from_sorted_codes(self._codes()[rows], len(self.topics)),
            self.docnos[rows],
            self.sampled[rows],
            iprobs=self.inclusion_probabilities()[rows],
        )
        method = self.strategy.encode() or b"pool"
        return MQPrel(
            qrels=qrels,
            iprobs=_align(qrels, sub, sub.inclusion_probabilities()),
            methods=np.full(len(rows), method, dtype=f"S{len(method)}"),
        )


def _align(qrels: Qrels, pool: PoolSelection, values: np.ndarray) -> np.ndarray:
    """``values`` (pool order) reordered into the qrels' (topic, docno) order."""
    out = np.empty(len(qrels), dtype=values.dtype)
    index = qrels.topic_index()
    for i, topic in enumerate(pool.topics):
        a, b = int(pool.offsets[i]), int(pool.offsets[i + 1])
        if a == b:
            continue
        q = index[topic]
        qa, qb = int(qrels.offsets[q]), int(qrels.offsets[q + 1])
        out[qa + np.searchsorted(qrels.docnos[qa:qb], pool.docnos[a:b])] = values[a:b]
    return out
