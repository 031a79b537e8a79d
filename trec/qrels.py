"""Qrels: ``qid iter docno rel``. rel >= 0 is a judged grade; a negative rel means pooled but unjudged.

Diversity qrels (TREC Web track, ndeval) reuse the second column for a subtopic number and list a
document once per subtopic it was judged for (``topic subtopic docno rel``). The reader keeps every
line's second column in :attr:`Qrels.subtopics` and accepts a docno twice in one topic only when the
second columns differ; the same (topic, docno, second column) twice is an error naming the line.
The ordinary arrays (:attr:`Qrels.docnos`, :attr:`Qrels.rels`) hold one judgment per (topic, docno):
for a docno listed several times, its *last* line's grade in file order, as ir_measures' and
pytrec_eval's dict-of-dict conversion keeps it (``result[qid][did] = rel``). A file with one line per
docno gives exactly the arrays it gave before subtopics were kept.
"""

from __future__ import annotations

import gzip
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
class SubtopicLines:
    """Every qrels line's second column (a subtopic in diversity qrels), aligned with :class:`Qrels`.

    Lines are sorted like the qrels rows (topic, docno), file order within one docno. Line ``i``
    belongs to qrels row ``line_rows[i]``; ``line_rows`` is None when every row has exactly one line
    (then line i is row i, and ``rels`` is the very array :attr:`Qrels.rels`). ``codes[i]`` numbers the
    line's second column by order of first appearance in the file (pyndeval numbers subtopics so);
    ``names[c]`` is code c's text.
    """

    codes: np.ndarray  # int64 per line
    rels: np.ndarray  # int64 per line
    names: tuple[str, ...]
    line_rows: np.ndarray | None = None  # int64 per line, non-decreasing; None: one line per row

    def __len__(self) -> int:
        return len(self.codes)

    def rows(self) -> np.ndarray:
        """The qrels row of every line."""
        return np.arange(len(self.codes), dtype=np.int64) if self.line_rows is None else self.line_rows

    def row_offsets(self, nrows: int) -> np.ndarray:
        """Offsets (length nrows + 1): the lines of qrels row r are ``offsets[r]:offsets[r + 1]``."""
        if self.line_rows is None:
            return np.arange(nrows + 1, dtype=np.int64)
        return np.searchsorted(self.line_rows, np.arange(nrows + 1), side="left").astype(np.int64)


@dataclass(frozen=True)
class Qrels:
    """Judgments column-wise, sorted by (topic, docno) so that lookups are binary searches.

    ``subtopics`` carries each line's second column when the qrels came from a file (or from arrays
    given ``iters``); None otherwise, which diversity measures read as one subtopic, '0', per line.
    """

    topics: tuple[str, ...]
    offsets: np.ndarray
    docnos: np.ndarray
    rels: np.ndarray
    path: str = ""
    subtopics: SubtopicLines | None = None

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

    @property
    def has_repeated_docnos(self) -> bool:
        """True when some docno has several lines in one topic (diversity qrels)."""
        return self.subtopics is not None and self.subtopics.line_rows is not None

    def keep_rows(self, keep: np.ndarray) -> Qrels:
        """These qrels with only the rows where ``keep`` (bool per row) holds, and their subtopic lines.

        Every topic stays, even one left empty; row order (topic, docno) is unchanged.
        """
        seg = np.repeat(np.arange(len(self.topics)), np.diff(self.offsets))
        counts = np.bincount(seg[keep], minlength=len(self.topics))[: len(self.topics)]
        offsets = np.zeros(len(self.topics) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        rels = self.rels[keep]
        sub = self.subtopics
        if sub is not None:
            if sub.line_rows is None:
                sub = SubtopicLines(sub.codes[keep], rels, sub.names)
            else:
                line_keep = keep[sub.line_rows]
                new_row = np.cumsum(keep) - 1
                rows = new_row[sub.line_rows[line_keep]].astype(np.int64)
                sub = SubtopicLines(sub.codes[line_keep], sub.rels[line_keep], sub.names, line_rows=rows)
        return Qrels(self.topics, offsets, self.docnos[keep], rels, path=self.path, subtopics=sub)

    def only_topic(self, i: int) -> Qrels:
        """The qrels of topic ``i`` alone (its subtopic lines included)."""
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        offsets = np.array([0, b - a], dtype=np.int64)
        rels = self.rels[a:b]
        sub = self.subtopics
        if sub is not None:
            if sub.line_rows is None:
                sub = SubtopicLines(sub.codes[a:b], rels, sub.names)
            else:
                la, lb = np.searchsorted(sub.line_rows, [a, b], side="left").tolist()
                sub = SubtopicLines(
                    sub.codes[la:lb], sub.rels[la:lb], sub.names, line_rows=sub.line_rows[la:lb] - a
                )
        return Qrels((self.topics[i],), offsets, self.docnos[a:b], rels, path=self.path, subtopics=sub)


def _as_bytes(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values)
    return values if values.dtype.kind == "S" else values.astype("S")


def _first_appearance_codes(iters: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    """Codes of the values numbered in order of first appearance, and each code's text."""
    if len(iters) == 0:
        return np.zeros(0, dtype=np.int64), ()
    if bool(np.all(iters == iters[0])):  # ordinary qrels: one value, '0' or 'Q0'
        return np.zeros(len(iters), dtype=np.int64), (iters[0].decode("utf-8", errors="replace"),)
    uniq, first, inverse = np.unique(iters, return_index=True, return_inverse=True)
    by_first = np.argsort(first, kind="stable")
    code_of = np.empty(len(uniq), dtype=np.int64)
    code_of[by_first] = np.arange(len(uniq))
    names = tuple(v.decode("utf-8", errors="replace") for v in uniq[by_first].tolist())
    return code_of[inverse.ravel()], names


def _same_subtopic_error(
    path: str,
    topics: list[str],
    codes: np.ndarray,
    docnos: np.ndarray,
    iters: np.ndarray,
    lines: np.ndarray | None,
    pairs: np.ndarray,
) -> FormatError:
    """The error for the first (in file order) line repeating an earlier line's topic, docno and 2nd column.

    ``pairs`` is (k, 2): input rows (earlier, later) of each such repetition.
    """
    earlier, later = (int(x) for x in pairs[int(np.argmin(pairs[:, 1]))])
    if len(np.unique(iters)) == 1:  # ordinary qrels: the message trec_eval users already know
        return duplicate_error(path, topics, codes, docnos, lines, earlier, later)
    docno = docnos[later].decode("utf-8", errors="replace")
    topic = topics[int(codes[later])]
    sub = iters[later].decode("utf-8", errors="replace")
    where = int(lines[later]) if lines is not None else 0
    seen = f" (first on line {int(lines[earlier])})" if lines is not None else ""
    return FormatError(
        path,
        where,
        f"duplicate docno '{docno}' in topic '{topic}' for subtopic '{sub}'{seen}: "
        "a document may appear once per topic and subtopic (2nd column)",
    )


def qrels_from_arrays(
    qids: np.ndarray,
    docnos: np.ndarray,
    rels: np.ndarray,
    *,
    path: str = "",
    lines: np.ndarray | None = None,
    iters: np.ndarray | None = None,
) -> Qrels:
    """Build :class:`Qrels` from parallel arrays (in file order).

    Without ``iters`` a docno twice in one topic is an error. With ``iters`` (each line's second
    column) a docno may repeat in a topic under different second columns (diversity qrels): the
    rows keep the last such line's grade, and :attr:`Qrels.subtopics` keeps every line.
    """
    return _qrels_and_order(qids, docnos, rels, path=path, lines=lines, iters=iters)[0]


def qrels_and_order(
    qids: np.ndarray, docnos: np.ndarray, rels: np.ndarray, *, path: str = "", lines: np.ndarray | None = None
) -> tuple[Qrels, np.ndarray]:
    """:func:`qrels_from_arrays` without ``iters``, and the permutation taking file order to the
    qrels' rows (``column[order]`` lines any other per-line column up with the rows)."""
    return _qrels_and_order(qids, docnos, rels, path=path, lines=lines, iters=None)


def _qrels_and_order(
    qids: np.ndarray,
    docnos: np.ndarray,
    rels: np.ndarray,
    *,
    path: str,
    lines: np.ndarray | None,
    iters: np.ndarray | None,
) -> tuple[Qrels, np.ndarray]:
    qids = _as_bytes(qids)
    docnos = _as_bytes(docnos)
    rels = np.asarray(rels, dtype=np.int64)
    topics, codes = topic_codes(qids)
    order = sort_by_topic_docno(codes, docnos)
    sorted_codes = codes[order]
    sorted_docnos = docnos[order]
    dups = duplicate_rows(sorted_codes, sorted_docnos)
    if dups.size and iters is None:
        raise duplicate_error(
            path or "qrels", topics, codes, docnos, lines, int(order[dups[0] - 1]), int(order[dups[0]])
        )
    offsets = offsets_from_sorted_codes(sorted_codes, len(topics))
    if iters is None:
        return Qrels(tuple(topics), offsets, sorted_docnos, rels[order], path=path), order
    iters = _as_bytes(iters)
    sub_codes, names = _first_appearance_codes(iters)
    sorted_rels = rels[order]
    if not dups.size:
        subtopics = SubtopicLines(sub_codes[order], sorted_rels, names)
        return Qrels(
            tuple(topics), offsets, sorted_docnos, sorted_rels, path=path, subtopics=subtopics
        ), order
    return _with_repeats(
        path, topics, codes, docnos, iters, lines, order, dups, sub_codes, names, rels
    ), order


def _with_repeats(
    path: str,
    topics: list[str],
    codes: np.ndarray,
    docnos: np.ndarray,
    iters: np.ndarray,
    lines: np.ndarray | None,
    order: np.ndarray,
    dups: np.ndarray,
    sub_codes: np.ndarray,
    names: tuple[str, ...],
    rels: np.ndarray,
) -> Qrels:
    """Qrels whose docnos repeat within a topic: one row per (topic, docno), every line kept."""
    n = len(order)
    head = np.ones(n, dtype=bool)
    head[dups] = False  # a sorted line starts a new (topic, docno) group unless it repeats the previous
    line_rows = np.cumsum(head) - 1
    # (row, subtopic) twice: sorting the lines by (row, code) stably keeps file order within ties
    line_codes = sub_codes[order]
    by_code = np.lexsort((line_codes, line_rows))
    same = (line_rows[by_code][1:] == line_rows[by_code][:-1]) & (
        line_codes[by_code][1:] == line_codes[by_code][:-1]
    )
    if same.any():
        at = np.flatnonzero(same)
        pairs = np.stack([order[by_code[at]], order[by_code[at + 1]]], axis=1)
        raise _same_subtopic_error(path or "qrels", topics, codes, docnos, iters, lines, pairs)
    last = np.r_[head[1:], True]  # the last line of each group carries the row's grade
    rows = order[last]
    sorted_codes = codes[rows]
    subtopics = SubtopicLines(line_codes, rels[order], names, line_rows=line_rows.astype(np.int64))
    return Qrels(
        tuple(topics),
        offsets_from_sorted_codes(sorted_codes, len(topics)),
        docnos[rows],
        rels[rows],
        path=path,
        subtopics=subtopics,
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
        "iter": cols.strings(1),
        "docno": cols.strings(2),
        "rel": cols.integers(3, "a relevance grade"),
        "line": cols.line_numbers,
    }


def read_qrels(path: PathLike) -> Qrels:
    """Read a qrels file (gzip transparently), strictly; diversity qrels' repeated docnos are kept."""
    from trec.arrow_runs import parse_judgments

    fast = parse_judgments(path, "qrels")  # pyarrow's reader, for plainly laid-out files
    if fast is not None:
        return _fast_qrels(fast, str(path))
    parts, total = read_columns(str(path), QRELS_COLUMNS, _convert)
    if total == 0:
        raise FormatError(str(path), 0, "the qrels file has no judgments (expected 'qid iter docno rel')")
    return qrels_from_arrays(
        concat(parts["qid"]),
        concat(parts["docno"]),
        concat(parts["rel"], np.int64),
        path=str(path),
        lines=concat(parts["line"], np.int64),
        iters=concat(parts["iter"]),
    )


def read_qrels_bytes(data: bytes, name: str) -> Qrels | None:
    """:func:`read_qrels` of a file's bytes held in memory (gzip transparently), ``name`` standing
    for the file: a stored qrels read without writing it out. None when the file is not laid out
    plainly (see :func:`trec.arrow_runs.parse_judgments`): :func:`read_qrels` of the file then
    reads it, and words any error with its line."""
    from trec.arrow_runs import parse_judgments_bytes

    raw = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    fast = parse_judgments_bytes(raw, "qrels")
    return None if fast is None else _fast_qrels(fast, name)


def _fast_qrels(fast: dict[str, np.ndarray], path: str) -> Qrels:
    """The qrels of the columns a fast reader gave (:func:`trec.arrow_runs.parse_judgments`)."""
    return qrels_from_arrays(
        fast["qid"], fast["docno"], fast["rel"], path=path, lines=fast["line"], iters=fast["iter"]
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
    """Write ``qid 0 docno rel`` per row; diversity qrels (repeated docnos) keep every line's 2nd column."""
    if qrels.has_repeated_docnos:
        _write_subtopic_lines(qrels, path)
        return
    with open_text_out(path) as fh:
        for i, topic in enumerate(qrels.topics):
            d, r = qrels.segment(i)
            for docno, rel in zip(d.tolist(), r.tolist(), strict=False):
                fh.write(f"{topic} 0 {docno.decode()} {rel}\n")


def _write_subtopic_lines(qrels: Qrels, path: PathLike) -> None:
    sub = qrels.subtopics
    assert sub is not None
    rows = sub.rows()
    row_topic = np.repeat(np.arange(len(qrels.topics)), np.diff(qrels.offsets))
    with open_text_out(path) as fh:
        for row, code, rel in zip(rows.tolist(), sub.codes.tolist(), sub.rels.tolist(), strict=True):
            topic = qrels.topics[row_topic[row]]
            fh.write(f"{topic} {sub.names[code]} {qrels.docnos[row].decode()} {rel}\n")
