"""Qrels: ``qid iter docno rel``. rel >= 0 is a judged grade; a negative rel means pooled but unjudged."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from trec.columns import Columns, concat, read_columns
from trec.errors import FormatError
from trec.grouping import duplicate_error, duplicate_rows, offsets_from_sorted_codes, topic_codes
from trec.io import PathLike, iter_blocks, open_text_out
from trec.order import sort_by_topic_docno

QRELS_COLUMNS = ("qid", "iter", "docno", "rel")


@dataclass(frozen=True)
class Qrels:
    """Judgments column-wise, sorted by (topic, docno) so that lookups are binary searches."""

    topics: tuple[str, ...]
    offsets: np.ndarray
    docnos: np.ndarray
    rels: np.ndarray
    path: str = ""

    def __len__(self) -> int:
        return len(self.docnos)

    def topic_index(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.topics)}

    def segment(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        return self.docnos[a:b], self.rels[a:b]

    def lookup(self, topic_index: int, docnos: np.ndarray, missing: int) -> np.ndarray:
        """Grades of ``docnos`` in topic ``topic_index``; ``missing`` where the doc is not in the qrels."""
        qd, qr = self.segment(topic_index)
        out = np.full(len(docnos), missing, dtype=np.int64)
        if len(qd) == 0 or len(docnos) == 0:
            return out
        pos = np.searchsorted(qd, docnos)
        np.minimum(pos, len(qd) - 1, out=pos)
        hit = qd[pos] == docnos
        out[hit] = qr[pos[hit]]
        return out

    def as_dict(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for i, t in enumerate(self.topics):
            d, r = self.segment(i)
            out[t] = {x.decode(): int(y) for x, y in zip(d.tolist(), r.tolist(), strict=False)}
        return out


def qrels_from_arrays(
    qids: np.ndarray,
    docnos: np.ndarray,
    rels: np.ndarray,
    *,
    path: str = "",
    lines: np.ndarray | None = None,
) -> Qrels:
    """Build :class:`Qrels` from parallel arrays; a docno twice in one topic is an error."""
    qids = np.asarray(qids)
    if qids.dtype.kind != "S":
        qids = qids.astype("S")
    docnos = np.asarray(docnos)
    if docnos.dtype.kind != "S":
        docnos = docnos.astype("S")
    topics, codes = topic_codes(qids)
    order = sort_by_topic_docno(codes, docnos)
    dups = duplicate_rows(codes[order], docnos[order])
    if dups.size:
        raise duplicate_error(
            path or "qrels", topics, codes, docnos, lines, int(order[dups[0] - 1]), int(order[dups[0]])
        )
    sorted_codes = codes[order]
    return Qrels(
        topics=tuple(topics),
        offsets=offsets_from_sorted_codes(sorted_codes, len(topics)),
        docnos=docnos[order],
        rels=np.asarray(rels, dtype=np.int64)[order],
        path=path,
    )


def qrels_from_dict(judgments: dict[str, dict[str, int]]) -> Qrels:
    """Build :class:`Qrels` from ``{topic: {docno: rel}}`` (tests, services)."""
    qids = [t.encode() for t, docs in judgments.items() for _ in docs]
    docnos = [d.encode() for docs in judgments.values() for d in docs]
    rels = [r for docs in judgments.values() for r in docs.values()]
    return qrels_from_arrays(
        np.array(qids, dtype="S"), np.array(docnos, dtype="S"), np.array(rels, dtype=np.int64)
    )


def _convert(cols: Columns) -> dict[str, np.ndarray]:
    return {
        "qid": cols.strings(0),
        "docno": cols.strings(2),
        "rel": cols.integers(3, "a relevance grade"),
        "line": cols.line_numbers,
    }


def read_qrels(path: PathLike) -> Qrels:
    """Read a qrels file (gzip transparently), strictly."""
    parts, total = read_columns(str(path), QRELS_COLUMNS, _convert)
    if total == 0:
        raise FormatError(str(path), 0, "the qrels file has no judgments (expected 'qid iter docno rel')")
    return qrels_from_arrays(
        concat(parts["qid"]),
        concat(parts["docno"]),
        concat(parts["rel"], np.int64),
        path=str(path),
        lines=concat(parts["line"], np.int64),
    )


def topic_first_lines(path: PathLike, topics: Collection[str]) -> dict[str, int]:
    """The line where each of ``topics`` first appears in a qrels (or run) file, read in blocks;
    for error messages, so it reads the file again rather than keep every line number."""
    wanted = {t.encode() for t in topics}
    found: dict[str, int] = {}
    for block, first in iter_blocks(path):
        for offset, line in enumerate(block.split(b"\n")):
            qid = line.split(None, 1)[0] if line.strip() else b""
            if qid in wanted and qid.decode() not in found:
                found[qid.decode()] = first + offset
        if len(found) == len(wanted):
            break
    return found


def write_qrels(qrels: Qrels, path: PathLike) -> None:
    with open_text_out(path) as fh:
        for i, topic in enumerate(qrels.topics):
            d, r = qrels.segment(i)
            for docno, rel in zip(d.tolist(), r.tolist(), strict=False):
                fh.write(f"{topic} 0 {docno.decode()} {rel}\n")
