"""Runs: ``qid Q0 docno rank score tag``. Only qid, docno and score matter; scores are doubles.

As in trec_eval (``get_trec_results.c``), anything after the tag on a line is ignored, and the
run's id (what ``runid`` prints) is the tag of the file's last result line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from trec.columns import Columns, concat, read_columns
from trec.errors import FormatError
from trec.grouping import duplicate_error, find_duplicate, offsets_from_sorted_codes, topic_codes
from trec.io import PathLike, iter_blocks, open_text_out
from trec.order import canonical_order, hash_strings

RUN_COLUMNS = ("qid", "Q0", "docno", "rank", "score", "tag")
_RUN_SUFFIXES = {".gz", ".run", ".txt", ".trec", ".res", ".tsv", ".bz2", ".xz"}


@dataclass(frozen=True)
class RankedRun:
    """A ranked run held column-wise in canonical order, one contiguous segment per topic.

    ``topics`` are sorted by byte order; topic ``i`` spans ``offsets[i]:offsets[i+1]`` of
    ``docnos`` (fixed-width bytes) and ``scores`` (float64).
    """

    name: str
    tag: str
    topics: tuple[str, ...]
    offsets: np.ndarray
    docnos: np.ndarray
    scores: np.ndarray
    path: str = ""
    # 64-bit hashes of ``docnos`` (trec.order.hash_strings), kept for fast joins with the qrels
    docno_hashes: np.ndarray | None = None
    # trec_eval's run id: the tag of the last result line (get_trec_results.c keeps the last one read)
    runid: str = ""

    def __len__(self) -> int:
        return len(self.docnos)

    def topic_slice(self, topic: str) -> slice:
        i = self.topics.index(topic)
        return slice(int(self.offsets[i]), int(self.offsets[i + 1]))

    def ranking(self, topic: str) -> list[tuple[str, float]]:
        """One topic's ``(docno, score)`` list in canonical order."""
        sl = self.topic_slice(topic)
        return [
            (d.decode(), float(s))
            for d, s in zip(self.docnos[sl].tolist(), self.scores[sl].tolist(), strict=False)
        ]

    def items(self) -> Iterable[tuple[str, np.ndarray, np.ndarray]]:
        for i, topic in enumerate(self.topics):
            a, b = int(self.offsets[i]), int(self.offsets[i + 1])
            yield topic, self.docnos[a:b], self.scores[a:b]


def run_name_from_path(path: PathLike) -> str:
    """The run's name: its file name without directory and extensions (``runs/bm25.run.gz`` -> ``bm25``)."""
    name = Path(path).name
    while True:
        stem, dot, ext = name.rpartition(".")
        if dot and stem and f".{ext.lower()}" in _RUN_SUFFIXES:
            name = stem
        else:
            return name


def _convert(cols: Columns) -> dict[str, np.ndarray]:
    return {
        "qid": cols.strings(0),
        "docno": cols.strings(2),
        "score": cols.floats(4, "a score"),
        "line": cols.line_numbers,
        "tag": np.array([cols.token(0, 5)], dtype="S"),
        "last_tag": np.array([cols.token(len(cols) - 1, 5)], dtype="S"),
    }


def run_from_arrays(
    name: str,
    qids: np.ndarray,
    docnos: np.ndarray,
    scores: np.ndarray,
    *,
    tag: str = "",
    path: str = "",
    lines: np.ndarray | None = None,
    runid: str = "",
    unique: bool = False,
    coded: tuple[list[str], np.ndarray] | None = None,
) -> RankedRun:
    """Build a canonical :class:`RankedRun` from parallel arrays; duplicate docnos in a topic are an error.

    ``unique``: the caller vouches that no docno repeats within a topic, and the check is skipped
    (stored runs: the database's unique constraint on (run, topic, docno) holds it). ``coded``:
    the topics (in byte order) and each line's index into them, when the caller knows them
    (``qids`` is then not read).
    """
    if coded is not None:
        topics, codes = coded
    else:
        topics, codes = topic_codes(
            np.asarray(qids, dtype="S") if np.asarray(qids).dtype.kind != "S" else qids
        )
    docnos = np.asarray(docnos)
    if docnos.dtype.kind != "S":
        docnos = docnos.astype("S")
    scores = np.asarray(scores, dtype=np.float64)
    from trec import kernels

    hashes = kernels.hash_strings(docnos) if kernels.enabled() else hash_strings(docnos)
    dup = None if unique else find_duplicate(codes, docnos, hashes)
    if dup is not None:
        raise duplicate_error(path or name, topics, codes, docnos, lines, *dup)
    perm = canonical_order(codes, scores, docnos)
    if len(perm) and bool(perm[0] == 0) and bool((np.diff(perm) == 1).all()):
        sorted_codes = codes  # already in canonical order: no copies
    else:
        sorted_codes = codes[perm]
        docnos, scores, hashes = docnos[perm], scores[perm], hashes[perm]
    return RankedRun(
        name=name,
        tag=tag,
        topics=tuple(topics),
        offsets=offsets_from_sorted_codes(sorted_codes, len(topics)),
        docnos=docnos,
        scores=scores,
        path=path,
        docno_hashes=hashes,
        runid=runid or tag,
    )


def read_run_fast(path: PathLike, name: str) -> RankedRun | None:
    """The run read by the compiled kernel (:mod:`trec.kernels`) or, without it, by pyarrow
    (:mod:`trec.arrow_runs`); None when the strict path must read it."""
    from trec import kernels

    if kernels.enabled():
        return _read_run_kernel(path, name)
    from trec.arrow_runs import parse_run_arrow

    cols = parse_run_arrow(path)
    if cols is None:
        return None
    try:
        return run_from_arrays(
            name, cols.qids, cols.docnos, cols.scores, tag=cols.tag, path=str(path), runid=cols.runid
        )
    except FormatError:  # a duplicate docno: the strict path reports it with its line numbers
        return None


def _read_run_kernel(path: PathLike, name: str) -> RankedRun | None:
    """:func:`read_run_fast` by :func:`trec.kernels.read_plain_run`: one pass over a file that
    fits one block (larger files are read in blocks by the strict path, memory bounded)."""
    from trec.kernels import read_plain_run

    if str(path) == "-":
        return None
    blocks = iter_blocks(path)
    try:
        first = next(blocks, None)
        if first is None or next(blocks, None) is not None:
            return None
    finally:
        blocks.close()  # type: ignore[attr-defined]
    plain = read_plain_run(first[0])
    if plain is None:
        return None
    return RankedRun(
        name=name,
        tag=plain.tag,
        topics=tuple(plain.topics),
        offsets=plain.offsets,
        docnos=plain.docnos,
        scores=plain.scores,
        path=str(path),
        docno_hashes=plain.hashes,
        runid=plain.runid or plain.tag,
    )


def read_run(path: PathLike, name: str | None = None) -> RankedRun:
    """Read a run file (gzip transparently), strictly: bad lines raise :class:`FormatError`.

    ``-`` reads standard input, as trec_eval does. Fields after the tag are ignored (trec_eval's
    documented behaviour); a line with fewer than six fields is an error.

    A file in the usual layout (one space between fields, six fields a line) is read in one
    pass by the compiled kernel (:mod:`trec.kernels`; without it, by pyarrow's CSV reader,
    :mod:`trec.arrow_runs`); any other file, and any file the fast path refuses, by the strict
    tokenizer below, which also writes every error message.
    """
    fast = read_run_fast(path, name or run_name_from_path(path))
    if fast is not None:
        return fast
    parts, total = read_columns(str(path), RUN_COLUMNS, _convert, extra_ok=True)
    if total == 0:
        raise FormatError(
            str(path), 0, "the run has no result lines (expected 'qid Q0 docno rank score tag')"
        )
    qids = concat(parts["qid"])
    tag_arr = parts["tag"][0]
    last_tag = parts["last_tag"][-1]
    return run_from_arrays(
        name or run_name_from_path(path),
        qids,
        concat(parts["docno"]),
        concat(parts["score"], np.float64),
        tag=tag_arr[0].decode(errors="replace") if len(tag_arr) else "",
        path=str(path),
        lines=concat(parts["line"], np.int64),
        runid=last_tag[0].decode(errors="replace") if len(last_tag) else "",
    )


def write_run(run: RankedRun, path: PathLike, tag: str | None = None) -> None:
    """Write ``run`` in canonical order with ranks 1..n per topic."""
    out_tag = tag or run.tag or run.name
    with open_text_out(path) as fh:
        for topic, docnos, scores in run.items():
            for rank, (d, s) in enumerate(zip(docnos.tolist(), scores.tolist(), strict=False), start=1):
                fh.write(f"{topic} Q0 {d.decode()} {rank} {s!r} {out_tag}\n")
