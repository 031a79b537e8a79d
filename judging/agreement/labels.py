"""Assessors' labels as (topic, docno, grade) rows, and their alignment on shared (topic, docno) items."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from trec.qrels import Qrels, qrels_from_arrays

NEGATIVE = ("missing", "category")


@dataclass(frozen=True, eq=False)
class Labels:
    """One assessor's graded labels, one row per (topic, docno); each pair at most once."""

    topics: np.ndarray  # str
    docnos: np.ndarray  # bytes
    grades: np.ndarray  # int64

    def __len__(self) -> int:
        return len(self.grades)


LabelSource = Labels | Qrels | Mapping[str, Mapping[str, int]] | Iterable[tuple[str, str, int]]


def _labels(topics: np.ndarray, docnos: np.ndarray, grades: np.ndarray) -> Labels:
    t = np.asarray(topics, dtype=str)
    d = np.asarray(docnos)
    if d.dtype.kind != "S":
        d = np.char.encode(d.astype(str), "utf-8") if d.size else np.asarray([], dtype="S1")
    g = np.asarray(grades, dtype=np.int64)
    if not len(t) == len(d) == len(g):
        raise ValueError("topics, docnos and grades must have the same length")
    return Labels(t, d, g)


def labels_from_qrels(qrels: Qrels) -> Labels:
    """Every row of a qrels file, negative grades included (:func:`align` decides what they mean)."""
    topics = np.repeat(np.asarray(qrels.topics, dtype=str), np.diff(qrels.offsets))
    return _labels(topics, qrels.docnos, qrels.rels)


def labels_from_mapping(judgments: Mapping[str, Mapping[str, int]]) -> Labels:
    """``{topic: {docno: grade}}``."""
    rows = [(t, d, g) for t, docs in judgments.items() for d, g in docs.items()]
    return labels_from_triples(rows)


def labels_from_triples(rows: Iterable[tuple[str, str, int]]) -> Labels:
    """``[(topic, docno, grade), ...]``; a (topic, docno) twice is an error (see :func:`align`)."""
    listed = list(rows)
    if not listed:
        return _labels(np.asarray([], dtype=str), np.asarray([], dtype="S1"), np.asarray([], dtype=np.int64))
    topics, docnos, grades = zip(*listed, strict=True)
    return _labels(np.asarray(topics, dtype=str), np.asarray(docnos, dtype=str), np.asarray(grades))


def as_labels(source: LabelSource) -> Labels:
    """Labels from a :class:`Labels`, a :class:`~trec.qrels.Qrels`, a nested mapping or triples."""
    if isinstance(source, Labels):
        return source
    if isinstance(source, Qrels):
        return labels_from_qrels(source)
    if isinstance(source, Mapping):
        return labels_from_mapping(source)
    return labels_from_triples(source)


def labels_to_qrels(labels: Labels, *, path: str = "") -> Qrels:
    """The labels as qrels for evaluation (negative grades keep their qrels meaning: unjudged)."""
    return qrels_from_arrays(np.char.encode(labels.topics, "utf-8"), labels.docnos, labels.grades, path=path)


def _graded_only(labels: Labels) -> Labels:
    keep = labels.grades >= 0
    return Labels(labels.topics[keep], labels.docnos[keep], labels.grades[keep])


@dataclass(frozen=True, eq=False)
class Ratings:
    """Labels of several assessors aligned on items: ``grades[i, k]`` is assessor k's grade of item i.

    Items are the (topic, docno) pairs judged by at least one assessor; ``judged[i, k]`` says
    whether assessor k judged item i (``grades`` is 0 where not). ``item_topic`` indexes ``topics``.
    """

    assessors: tuple[str, ...]
    topics: tuple[str, ...]
    item_topic: np.ndarray
    grades: np.ndarray
    judged: np.ndarray

    def index(self, assessor: str) -> int:
        try:
            return self.assessors.index(assessor)
        except ValueError:
            raise ValueError(f"no assessor named '{assessor}'") from None


def align(label_sets: Mapping[str, LabelSource], *, negative: str = "missing") -> Ratings:
    """Align assessors' labels on (topic, docno) items.

    ``negative="missing"`` (default): a negative grade means "in the pool, not judged"
    (docs/formats.md#file-formats), so that assessor did not judge the item. ``"category"``: negative grades
    are ordinary labels (e.g. ClueWeb's -2 = junk), ordered below 0.
    """
    if negative not in NEGATIVE:
        raise ValueError(f"negative must be one of {', '.join(NEGATIVE)}, not '{negative}'")
    names = tuple(label_sets)
    sets = [as_labels(s) for s in label_sets.values()]
    if negative == "missing":
        sets = [_graded_only(s) for s in sets]
    sizes = [len(s) for s in sets]
    all_topics = np.concatenate([s.topics for s in sets]) if sets else np.asarray([], dtype=str)
    all_docnos = np.concatenate([s.docnos for s in sets]) if sets else np.asarray([], dtype="S1")
    topics, topic_code = np.unique(all_topics, return_inverse=True)
    docnos, doc_code = np.unique(all_docnos, return_inverse=True)
    keys = topic_code.astype(np.int64) * max(len(docnos), 1) + doc_code
    items, item_code = np.unique(keys, return_inverse=True)
    grades = np.zeros((len(items), len(sets)), dtype=np.int64)
    judged = np.zeros((len(items), len(sets)), dtype=bool)
    start = 0
    for k, (name, size) in enumerate(zip(names, sizes, strict=True)):
        rows = item_code[start : start + size]
        counts = np.bincount(rows, minlength=len(items))
        if np.any(counts > 1):
            dup = int(np.argmax(counts > 1))
            topic, doc = topics[items[dup] // max(len(docnos), 1)], docnos[items[dup] % max(len(docnos), 1)]
            raise ValueError(
                f"assessor '{name}' labels topic {topic} document {doc.decode(errors='replace')} twice"
            )
        grades[rows, k] = sets[k].grades
        judged[rows, k] = True
        start += size
    return Ratings(
        assessors=names,
        topics=tuple(str(t) for t in topics.tolist()),
        item_topic=(items // max(len(docnos), 1)).astype(np.int64),
        grades=grades,
        judged=judged,
    )
