"""The compiled kernels (``trec/_kernels.c``) and the numpy arrays they fill, or None without them.

The extension is built when the project is installed (``pip install -e .``; pyproject.toml's
``ext-modules``, marked optional: without a C compiler the install still succeeds). Every
kernel has a reference implementation in numpy that it must equal, bit for bit:

* :func:`read_plain_run` = pyarrow's reader (:mod:`trec.arrow_runs`) + :func:`trec.runs.run_from_arrays`;
* :class:`HashJoin` = :class:`engine.evaluate.JoinIndex`;
* :func:`hash_strings` = :func:`trec.order.hash_strings`;
* :func:`rel_sums` = the numpy kernels of map, bpref, infAP, ndcg, P, Rprec, recip_rank and
  num_rel_ret (:mod:`engine.measures.trec_eval`), through :attr:`engine.measures.base.Context.sums`.

``WORKBENCH_KERNELS=0`` in the environment turns them off (the numpy paths run instead); the
tests run both ways (tests/trec/test_kernels.py).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

_lib: Any
try:
    from trec import _kernels as _lib
except ImportError:  # pragma: no cover - built at install; absent only without a C compiler
    _lib = None


def enabled() -> bool:
    """Whether the compiled kernels are built and not turned off by ``WORKBENCH_KERNELS=0``."""
    return _lib is not None and os.environ.get("WORKBENCH_KERNELS", "1") != "0"


class PlainRun:
    """A run file's lines in canonical order, as :func:`read_plain_run` returns them."""

    __slots__ = ("docnos", "hashes", "offsets", "runid", "scores", "tag", "topics")

    def __init__(
        self,
        topics: list[str],
        offsets: np.ndarray,
        docnos: np.ndarray,
        scores: np.ndarray,
        hashes: np.ndarray,
        tag: str,
        runid: str,
    ) -> None:
        self.topics = topics
        self.offsets = offsets
        self.docnos = docnos
        self.scores = scores
        self.hashes = hashes
        self.tag = tag
        self.runid = runid


def read_plain_run(raw: bytes) -> PlainRun | None:
    """The run in ``raw`` when it is plainly laid out (six fields joined by single spaces a line,
    no comment, every score a finite decimal, no docno twice in a topic), else None: the strict
    tokenizer then reads it and words any error. The kernels must be :func:`enabled`."""
    got = _lib.read_plain_run(raw)
    if got is None:
        return None
    topics, offsets, width, docnos, scores, hashes, tag, runid = got
    return PlainRun(
        [t.decode("utf-8", errors="replace") for t in topics],
        np.frombuffer(offsets, dtype=np.int64).copy(),
        np.frombuffer(docnos, dtype=f"S{width}"),
        np.frombuffer(scores, dtype=np.float64),
        np.frombuffer(hashes, dtype=np.uint64),
        tag.decode(errors="replace"),
        runid.decode(errors="replace"),
    )


def read_plain_judgments(raw: bytes, names: list[str]) -> dict[str, np.ndarray] | None:
    """A qrels or prel file's columns when every line is ``len(names)`` non-empty fields joined by
    single spaces (no comment, no blank line) and the ``rel`` field is a grade of at most 18
    digits; None otherwise (the strict tokenizer then reads it). String fields come as
    fixed-width bytes, ``rel`` as int64, ``line`` the 1-based line numbers: what
    :func:`trec.arrow_runs.parse_judgments` returns."""
    got = _lib.read_plain_judgments(raw, len(names), names.index("rel"))
    if got is None:
        return None
    rows, columns = got
    out: dict[str, np.ndarray] = {}
    for name, column in zip(names, columns, strict=True):
        if name == "rel":
            out[name] = np.frombuffer(column, dtype=np.int64)
        else:
            width, data = column
            out[name] = np.frombuffer(data, dtype=f"S{width}")
    out["line"] = np.arange(1, rows + 1, dtype=np.int64)  # no blank or comment line: line i is row i
    return out


def hash_strings(values: np.ndarray) -> np.ndarray:
    """:func:`trec.order.hash_strings` of a fixed-width bytes array, compiled."""
    values = np.ascontiguousarray(values)
    out = np.empty(len(values), dtype=np.uint64)
    if len(values):
        _lib.hash_strings(values, values.dtype.itemsize, out)
    return out


class HashJoin:
    """The judgments as one open-addressing table per topic, keyed by docno hash.

    :meth:`find` gives, for each (topic code, docno) of a run, the judgment's index (-1 where
    there is none) and its grade: the same answer as :meth:`engine.evaluate.JoinIndex.find`
    and :meth:`engine.evaluate.Judgments.relevance`, with about one probe per line, in a table
    of the line's own topic (a few kilobytes that stay in the CPU's cache while the run's lines
    for that topic go by), and the docno confirmed byte for byte.
    """

    def __init__(self, offsets: np.ndarray, hashes: np.ndarray, docnos: np.ndarray, rels: np.ndarray) -> None:
        self.hashes = np.ascontiguousarray(hashes, dtype=np.uint64)
        self.docnos = np.ascontiguousarray(docnos)
        self.rels = np.ascontiguousarray(rels, dtype=np.int64)
        offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        counts = np.diff(offsets)
        # each topic's table: the smallest power of two at least twice its judgments (and 2)
        sizes = np.left_shift(1, np.ceil(np.log2(np.maximum(2 * counts, 2))).astype(np.int64))
        self.slot_offsets = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(sizes, out=self.slot_offsets[1:])
        self.slots = np.empty(int(self.slot_offsets[-1]), dtype=np.uint64)
        _lib.join_build(offsets, self.hashes, self.slot_offsets, self.slots)

    def find(
        self, topic_index: np.ndarray, docnos: np.ndarray, hashes: np.ndarray, nonpool: int, unjudged: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(judgment index or -1, grade) of each query; grade ``unjudged`` where the judgment
        is negative, ``nonpool`` where there is none."""
        rows = np.empty(len(topic_index), dtype=np.int64)
        grades = np.empty(len(topic_index), dtype=np.int64)
        if len(rows) == 0:
            return rows, grades
        docnos = np.ascontiguousarray(docnos if docnos.dtype.kind == "S" else docnos.astype("S"))
        _lib.join(
            self.slot_offsets,
            self.slots,
            self.hashes,
            self.docnos,
            max(self.docnos.dtype.itemsize, 1),
            self.rels,
            np.ascontiguousarray(topic_index, dtype=np.int64),
            np.ascontiguousarray(hashes, dtype=np.uint64),
            docnos,
            docnos.dtype.itemsize,
            nonpool,
            unjudged,
            rows,
            grades,
        )
        return rows, grades


def rel_sums(
    rel: np.ndarray,
    offsets: np.ndarray,
    level: int,
    nonpool: int,
    num_rel: np.ndarray,
    num_nonrel: np.ndarray,
    discounts: np.ndarray,
    cutoffs: np.ndarray,
    infap_epsilon: float,
) -> np.ndarray:
    """The standard measures' per-topic sums of one run, in one compiled pass: a float64 array
    of ``7 + 2 * len(cutoffs)`` rows by topic (``trec/_kernels.c`` names each row).

    ``rel`` is the run's int64 grades topic after topic (``offsets``, starting at 0), ``nonpool``
    the grade of a document absent from the qrels, ``num_rel``
    and ``num_nonrel`` each topic's judged relevant and non-relevant counts, ``discounts[r]``
    numpy's ``log2(r + 1)`` for every rank r of the longest topic, ``cutoffs`` ascending ranks,
    ``infap_epsilon`` infAP's ε (the kernel holds no constant of a measure: the caller's are used)."""
    out = np.empty((7 + 2 * len(cutoffs), len(offsets) - 1), dtype=np.float64)
    _lib.rel_sums(
        np.ascontiguousarray(rel, dtype=np.int64),
        np.ascontiguousarray(offsets, dtype=np.int64),
        int(level),
        int(nonpool),
        np.ascontiguousarray(num_rel, dtype=np.int64),
        np.ascontiguousarray(num_nonrel, dtype=np.int64),
        np.ascontiguousarray(discounts, dtype=np.float64),
        np.ascontiguousarray(cutoffs, dtype=np.int64),
        float(infap_epsilon),
        out,
    )
    return out
