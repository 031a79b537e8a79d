"""The fast path for run files: pyarrow's CSV reader, then the same canonical run as the strict path.

Runs are almost always written one space between fields, six fields a line. For such a file
pyarrow's C++ reader splits and converts the columns in about half the time of the numpy
tokenizer of :mod:`trec.columns` (and releases the GIL while it does). It is only a fast path:
whenever a file is not plainly in that layout (tabs, several spaces, control bytes, comment
lines, extra or missing fields, a score pyarrow reads differently or not at all, a duplicate
docno), this returns None and :func:`trec.runs.read_run` reads the file with the strict
tokenizer, which accepts exactly what trec_eval accepts and names the file and line of any
error. The run built here is identical to the one the strict path builds
(tests/trec/test_arrow_runs.py checks both ways). Importing pyarrow costs about 0.1 s, so the
fast path is taken once a caller that reads several runs has called :func:`preload`
(``evaluate_files``, ``build_pool``); one run on its own is read by the strict path.
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

import numpy as np

from trec.io import PathLike, iter_blocks

_NAMES = ["qid", "Q0", "docno", "rank", "score", "tag"]

_OPTIONS: tuple[Any, Any, Any] | None = None
_SCRATCH = threading.local()
SLICE = 1 << 18  # bytes checked at a time by the layout check
_MISSING = False


def _options() -> tuple[Any, Any, Any] | None:
    """pyarrow's read, parse and convert options, or None when pyarrow is not installed."""
    global _OPTIONS, _MISSING
    if _OPTIONS is None and not _MISSING:
        try:
            import pyarrow as pa
            import pyarrow.csv as pcsv
        except ImportError:  # pragma: no cover - pyarrow is a dependency; kept for minimal installs
            _MISSING = True
            return None
        binary = pa.binary()
        _OPTIONS = (
            # one block per file and no threads: the callers read one run per core
            pcsv.ReadOptions(column_names=_NAMES, use_threads=False, block_size=1 << 30),
            pcsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False),
            pcsv.ConvertOptions(
                # Q0, rank and tag are only split, never converted: the separator check below
                # proves them non-empty, and the tags come from the first and last lines
                column_types={"qid": binary, "docno": binary, "score": pa.float64()},
                include_columns=["qid", "docno", "score"],
                strings_can_be_null=False,
                null_values=[],  # pyarrow reads "nan", "NA", "null"... as null by default
            ),
        )
    return _OPTIONS


_THREADED: tuple[Any, Any, Any] | None = None


def _threaded_options(options: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
    global _THREADED
    if _THREADED is None:
        import pyarrow.csv as pcsv

        read = pcsv.ReadOptions(column_names=_NAMES, use_threads=True, block_size=1 << 20)
        _THREADED = (read, options[1], options[2])
    return _THREADED


def available() -> bool:
    """Whether pyarrow can be imported (and now is): the fast path can be taken."""
    return _options() is not None


def preload() -> None:
    """Import pyarrow now, for the many runs to come (and before forking workers, so that each
    does not import it again)."""
    _options()


def _plain_separators(buf: np.ndarray, rows: int, fields: int = 6) -> bool:
    """Every line is ``fields`` non-empty fields joined by single spaces and ended by a newline.

    pyarrow has split each of ``rows`` lines into ``fields`` fields on spaces (blank lines it
    skips): the bytes up to space must then be exactly the spaces and one newline a line (no tab, other
    control byte or blank line: the strict tokenizer splits on every byte up to space), with no
    two of them adjacent (no empty field) and none first.
    """
    n = len(buf)
    if n == 0 or buf[n - 1] != 10 or buf[0] <= 32:
        return False
    # in slices of a quarter megabyte, through two masks that stay in the CPU's cache and are
    # kept for the next file (fresh masks the size of the file cost a page fault per 4 KB)
    separators, pairs = _scratch()
    count = 0
    previous_last = False  # whether the byte before this slice is a separator
    for start in range(0, n, SLICE):
        part = buf[start : start + SLICE]
        m = len(part)
        mask = np.less_equal(part, 32, out=separators[:m])
        count += int(np.count_nonzero(mask))
        if (previous_last and mask[0]) or np.logical_and(mask[1:], mask[:-1], out=pairs[: m - 1]).any():
            return False
        previous_last = bool(mask[m - 1])
    return count == fields * rows


def _scratch() -> tuple[np.ndarray, np.ndarray]:
    """This thread's two masks of :data:`SLICE` bytes."""
    held = getattr(_SCRATCH, "masks", None)
    if held is None:
        held = (np.empty(SLICE, dtype=bool), np.empty(SLICE, dtype=bool))
        _SCRATCH.masks = held
    return held


def _offsets(column: Any) -> np.ndarray:
    """The value offsets of a pyarrow binary array (pyarrow's own to_numpy copies through objects)."""
    return np.frombuffer(column.buffers()[1], dtype=np.int32, count=len(column) + 1, offset=column.offset * 4)


def fixed_width(column: Any) -> np.ndarray:
    """A pyarrow binary array as numpy fixed-width bytes (NUL-padded, as numpy's ``S`` dtype is)."""
    n = len(column)
    offsets = _offsets(column)
    data = np.frombuffer(column.buffers()[2], dtype=np.uint8)
    lengths = np.diff(offsets)
    width = max(int(lengths.max()) if n else 1, 1)
    base = int(offsets[0])
    if n and bool((lengths == width).all()):  # every value the same length: one slice
        return data[base : base + width * n].view(f"S{width}").copy()
    padded = np.concatenate([data, np.zeros(width, dtype=np.uint8)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, width)
    chars = windows[offsets[:-1]]
    chars *= np.tri(width + 1, width, -1, dtype=np.uint8)[lengths]
    return chars.view(f"S{width}").ravel()


class RunColumns(NamedTuple):
    """A run file's lines, in file order: what :func:`trec.runs.run_from_arrays` takes."""

    qids: np.ndarray
    docnos: np.ndarray
    scores: np.ndarray
    tag: str  # the first line's
    runid: str  # the last line's tag: trec_eval's runid


def parse_run_arrow(path: PathLike) -> RunColumns | None:
    """The run's columns read by pyarrow, or None when the strict path must read it (see the
    module's doc); trec.runs puts them in canonical order and checks duplicates."""
    if str(path) == "-" or _MISSING:
        return None
    if _OPTIONS is None:
        # importing pyarrow costs about 0.1 s, which one file does not win back (a 2 MB run
        # parses 8 ms faster): callers reading many runs call preload() first
        return None
    blocks = iter_blocks(path)
    try:
        first = next(blocks, None)
        if first is None or next(blocks, None) is not None:
            return None  # empty (the strict path says so) or above one block (read in blocks there)
    finally:
        blocks.close()  # type: ignore[attr-defined]
    return parse_plain(first[0])


def _plain_table(raw: bytes, options: tuple[Any, Any, Any], fields: int) -> Any:
    """pyarrow's table of ``raw`` read with ``options`` when every line is ``fields`` non-empty
    fields joined by single spaces (no comment, no tab, no carriage return, no blank line);
    None otherwise (the strict tokenizer then reads the file)."""
    if not raw or b"#" in raw or b"\r" in raw:
        return None
    import pyarrow as pa
    import pyarrow.csv as pcsv

    try:
        table = pcsv.read_csv(pa.py_buffer(raw), *options)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None  # a line with another number of fields, or a value of the wrong type
    rows = table.num_rows
    if rows == 0 or not _plain_separators(np.frombuffer(raw, dtype=np.uint8), rows, fields):
        return None
    return table.combine_chunks()


def parse_plain(raw: bytes, *, threads: bool = False) -> RunColumns | None:
    """The columns of a run file's bytes when they are plainly laid out, else None.

    ``threads``: pyarrow parses the file's megabyte blocks on its own threads (for a caller
    reading files on threads of one process, as build_pool does; forked workers, one file
    each, parse on one thread)."""
    options = _options()
    if options is not None and threads:
        options = _threaded_options(options)
    table = _plain_table(raw, options, len(_NAMES)) if options is not None else None
    if table is None:
        return None
    rows = table.num_rows
    score = table.column("score").chunk(0)
    if score.null_count:
        return None
    scores = np.frombuffer(score.buffers()[1], dtype=np.float64, count=rows, offset=score.offset * 8)
    if not bool(np.isfinite(scores).all()):
        return None
    first = raw[: raw.find(b"\n")]
    last = raw[raw.rfind(b"\n", 0, len(raw) - 1) + 1 : len(raw) - 1]
    return RunColumns(
        fixed_width(table.column("qid").chunk(0)),
        fixed_width(table.column("docno").chunk(0)),
        scores.copy(),
        _last_field(first),
        _last_field(last),
    )


def _last_field(line: bytes) -> str:
    return line.rsplit(b" ", 1)[-1].decode(errors="replace")


# ------------------------------------------------------------------------------ judgments files

# qrels "qid iter docno rel" and sample_eval prels "qid iter docno stratum rel": every field read
# as bytes but the grade, which pyarrow reads as an int64 (a sign and digits, nothing else)
_JUDGMENT_LAYOUTS = {
    "qrels": ["qid", "iter", "docno", "rel"],
    "prel": ["qid", "iter", "docno", "stratum", "rel"],
}
_JUDGMENT_OPTIONS: dict[str, tuple[Any, Any, Any]] = {}
JUDGMENTS_MAX_BYTES = 256 << 20  # a larger judgments file is read by the strict path, in blocks
MAX_GRADE_DIGITS = 18  # the strict tokenizer's limit: a longer grade is its error to word


def _judgment_options(kind: str) -> tuple[Any, Any, Any]:
    if kind not in _JUDGMENT_OPTIONS:
        import pyarrow as pa
        import pyarrow.csv as pcsv

        names = _JUDGMENT_LAYOUTS[kind]
        types = {n: pa.binary() for n in names}
        types["rel"] = pa.int64()
        _JUDGMENT_OPTIONS[kind] = (
            # judgments are one large file: pyarrow's threads parse its blocks on every core
            pcsv.ReadOptions(column_names=names, use_threads=True, block_size=1 << 22),
            pcsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False),
            pcsv.ConvertOptions(column_types=types, strings_can_be_null=False, null_values=[]),
        )
    return _JUDGMENT_OPTIONS[kind]


def parse_judgments(path: PathLike, kind: str) -> dict[str, np.ndarray] | None:
    """A qrels (``kind`` "qrels") or sample_eval prel ("prel") file's columns read by pyarrow:
    the string fields as fixed-width bytes, ``rel`` as int64 and ``line`` (1-based); None when
    the strict tokenizer must read it (the same conditions as runs, or a grade of more digits
    than it takes). With the compiled kernels (:mod:`trec.kernels`) they read the file;
    otherwise pyarrow does, once :func:`preload` has been called, as for runs."""
    from trec import kernels

    if str(path) == "-" or (_OPTIONS is None and not kernels.enabled()):
        return None
    blocks = iter_blocks(path, JUDGMENTS_MAX_BYTES)
    try:
        first = next(blocks, None)
        if first is None or next(blocks, None) is not None:
            return None  # empty (the strict path says so), or larger: read in blocks there
    finally:
        blocks.close()  # type: ignore[attr-defined]
    return parse_judgments_bytes(first[0], kind)


def parse_judgments_bytes(raw: bytes, kind: str) -> dict[str, np.ndarray] | None:
    """:func:`parse_judgments` of a whole file's bytes (uncompressed) held in memory."""
    from trec import kernels

    names = _JUDGMENT_LAYOUTS[kind]
    if not raw or len(raw) > JUDGMENTS_MAX_BYTES:
        return None
    if kernels.enabled():  # the compiled reader (trec/kernels.py), which needs no pyarrow
        return kernels.read_plain_judgments(raw, names)
    if _OPTIONS is None:
        return None
    table = _plain_table(raw, _judgment_options(kind), len(names))
    if table is None:
        return None
    rel = table.column("rel").chunk(0)
    if rel.null_count:
        return None
    rels = np.frombuffer(rel.buffers()[1], dtype=np.int64, count=len(rel), offset=rel.offset * 8).copy()
    limit = 10**MAX_GRADE_DIGITS
    if bool(((rels >= limit) | (rels <= -limit)).any()):
        return None
    out = {n: fixed_width(table.column(n).chunk(0)) for n in names if n != "rel"}
    out["rel"] = rels
    out["line"] = np.arange(1, len(rels) + 1, dtype=np.int64)  # no blank or comment line: line i is row i
    return out
