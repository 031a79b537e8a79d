"""A stored run's lines read as arrays: one query, no Python object per line.

:func:`campaigns.selectors.run_ranking` builds the engine's run from them, for evaluations and
pools of stored runs alike. A run imported by this version has its lines as one block of numpy
arrays (:class:`campaigns.models.RunArrays`, written by :func:`arrays_blob` at import), read in
about a millisecond; an older run is read from its lines by one aggregating query.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import connection

from campaigns.models import RunArrays, RunDocument


@dataclass(frozen=True)
class StoredLines:
    """A stored run's lines as arrays: per topic (``topic_ids``, ``counts``), then per line."""

    topic_ids: np.ndarray  # int64, ascending
    counts: np.ndarray  # int64, lines of each topic
    docnos: np.ndarray  # fixed-width bytes ("S"), grouped by topic
    scores: np.ndarray  # float64, aligned with docnos


# SQLite writes a REAL as text slowly (its own printf, about 0.4 us a value) and only exactly with
# quote()'s 21 digits (twice as slow again). Scores with at most 9 decimals, the usual case
# (TREC runs print 4 to 6), travel instead as the integer round(score * 1e9), which SQLite writes
# fast; the query checks, line by line, that dividing it by 1e9 gives the score back exactly
# (the same IEEE operations numpy then does), and a run with any other score is read again with
# quote(). PostgreSQL sends the 8 bytes of every score (float8send): exact, and no text at all.
SCALE = 1_000_000_000
_SCALED = f"round(score * {SCALE}.0)"


def _lines_sql(vendor: str, depth: int | None, exact_text: bool = False) -> str:
    table = connection.ops.quote_name(str(RunDocument._meta.db_table))
    cut = "" if depth is None else " AND rank <= %s"
    if vendor == "postgresql":
        aggregates = (
            "string_agg(docno, ' ' ORDER BY rank), string_agg(float8send(score), ''::bytea ORDER BY rank), 0"
        )
    elif exact_text:
        aggregates = "group_concat(docno, ' '), group_concat(quote(score), ' '), 0"
    else:
        # both aggregates see the group's rows in the same order: the n-th docno and the n-th
        # score are one line's; the last column counts the scores the integer would not give back
        aggregates = (
            f"group_concat(docno, ' '), group_concat(CAST({_SCALED} AS INTEGER), ' '), "
            f"sum(NOT (abs(score) < {SCALE}.0 AND {_SCALED} / {SCALE}.0 = score))"
        )
    return (
        f"SELECT topic_id, count(*), {aggregates} FROM {table} "
        f"WHERE run_id = %s{cut} GROUP BY topic_id ORDER BY topic_id"
    )


# A block is the .npz bytes compressed by zstd (level 1) behind this prefix and their length:
# about a third smaller (docnos compress well), which PostgreSQL writes faster than it compresses
# itself; decompressing costs about 0.6 ms a run. An uncompressed .npz is read as well.
_ZSTD = b"ZSTD-NPZ"


def arrays_blob(topic_ids: np.ndarray, counts: np.ndarray, docnos: np.ndarray, scores: np.ndarray) -> bytes:
    """The ``RunArrays`` value of a run: lines grouped by topic, in canonical order within each."""
    out = io.BytesIO()
    np.savez(
        out,
        topic_ids=np.asarray(topic_ids, dtype=np.int64),
        counts=np.asarray(counts, dtype=np.int64),
        docnos=np.asarray(docnos),
        scores=np.asarray(scores, dtype=np.float64),
    )
    raw = out.getvalue()
    try:
        import pyarrow as pa

        packed = pa.compress(raw, codec="zstd", asbytes=True)
    except (ImportError, NotImplementedError, ValueError):  # pragma: no cover - pyarrow without zstd
        return raw
    return _ZSTD + len(raw).to_bytes(8, "little") + packed


def _npz_bytes(data: bytes) -> bytes | memoryview:
    if not data.startswith(_ZSTD):
        return data
    import pyarrow as pa

    size = int.from_bytes(data[len(_ZSTD) : len(_ZSTD) + 8], "little")
    # a pyarrow buffer, not bytes: the arrays below are views of it, never copied
    return memoryview(pa.decompress(data[len(_ZSTD) + 8 :], size, codec="zstd", asbytes=False))


_NPZ_NAMES = ("topic_ids", "counts", "docnos", "scores")
# a version 1.0 .npy header of a 1-d array of plain numbers or bytes, padded with spaces to a
# multiple of 64 and ended by a newline (numpy/lib/format.py): np.lib.format parses the same
# text with ast.literal_eval, a tenth of a millisecond each, four a run
_SIMPLE_HEADER = re.compile(
    rb"\x93NUMPY\x01\x00(..)"
    rb"\{'descr': '([<>|][fiuS]\d+)', 'fortran_order': False, 'shape': \((\d+),\), \} *\n",
    re.DOTALL,
)


def _npz_views(raw: bytes | memoryview) -> dict[str, np.ndarray] | None:
    """The arrays of an uncompressed ``np.savez`` archive as read-only views of ``raw``.

    ``np.load`` reads each member through ``zipfile`` (a CRC pass and two copies of 2 MB a run of
    the default workload); the members of ``np.savez`` are stored, not compressed, so each array
    is found from the central directory and its .npy header and viewed in place. None for any
    other archive (then ``np.load`` reads it).
    """
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            infos = archive.infolist()
        out: dict[str, np.ndarray] = {}
        for info in infos:
            name = info.filename.removesuffix(".npy")
            if info.compress_type != zipfile.ZIP_STORED or name not in _NPZ_NAMES:
                return None
            start = info.header_offset
            name_len, extra_len = struct.unpack_from("<HH", raw, start + 26)
            data = start + 30 + name_len + extra_len
            header = bytes(raw[data : data + min(info.file_size, 4096)])
            simple = _SIMPLE_HEADER.match(header)
            if simple is not None and len(simple[0]) == 10 + int.from_bytes(simple[1], "little"):
                # what np.savez writes for a 1-d array: read without ast
                shape: tuple[int, ...] = (int(simple[3]),)
                dtype = np.dtype(simple[2].decode())
                start_at = len(simple[0])
            else:
                head = io.BytesIO(header)
                version = np.lib.format.read_magic(head)
                if version == (1, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_1_0(head)
                elif version == (2, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_2_0(head)
                else:
                    return None
                if fortran or dtype.hasobject:
                    return None
                start_at = head.tell()
            count = int(np.prod(shape, dtype=np.int64))
            out[name] = np.frombuffer(raw, dtype=dtype, count=count, offset=data + start_at).reshape(shape)
    except (zipfile.BadZipFile, ValueError, struct.error):
        return None
    return out if len(out) == len(_NPZ_NAMES) else None


def _from_blob(data: bytes | memoryview, depth: int | None) -> StoredLines:
    raw = _npz_bytes(bytes(data))
    views = _npz_views(raw)
    if views is None:
        with np.load(io.BytesIO(raw), allow_pickle=False) as held:
            views = {name: held[name] for name in _NPZ_NAMES}
    topic_ids, counts = views["topic_ids"], views["counts"]
    docnos, scores = views["docnos"], views["scores"]
    if depth is not None:  # each topic's first ``depth`` lines are its top ranks
        starts = np.r_[0, np.cumsum(counts)[:-1]]
        kept = np.minimum(counts, depth)
        rows = np.repeat(starts, kept) + np.arange(int(kept.sum())) - np.repeat(np.cumsum(kept) - kept, kept)
        docnos, scores, counts = docnos[rows], scores[rows], kept
    return StoredLines(topic_ids, counts, docnos, scores)


_BLOCKS = RunArrays._meta.db_table


@contextmanager
def _server_bound_cursor() -> Iterator[Any]:
    """A psycopg cursor on Django's PostgreSQL connection (same transaction) that binds parameters
    on the server: Django's own cursors bind them client-side, which sends a bytea as hex in the
    statement and cannot ask for binary results."""
    import psycopg

    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        yield cursor


def run_block(run_pk: int) -> bytes | None:
    """The run's stored array block (None for a run imported before blocks existed): read on the
    thread that holds the database connection, decoded by :func:`lines_from_block` on any.

    On PostgreSQL the block comes in psycopg's binary format: the text format sends a bytea as
    hex, twice its size, which the client then decodes (3.8 ms a run of the default workload
    against 1.3 ms on SQLite; binary: see docs/speed.md).
    """
    if connection.vendor == "postgresql":
        with _server_bound_cursor() as cursor:
            cursor.execute(f'SELECT "data" FROM "{_BLOCKS}" WHERE "run_id" = %s', [run_pk], binary=True)
            row = cursor.fetchone()
        return None if row is None else bytes(row[0])
    block = RunArrays.objects.filter(run_id=run_pk).values_list("data", flat=True).first()
    return None if block is None else bytes(block)


def block_write(run_pk: int, block: bytes) -> None:
    """Store a run's block. On PostgreSQL the bytes go as a binary parameter: Django binds
    parameters client-side, which writes a bytea into the statement as hex (twice its size,
    parsed back by the server); psycopg's server-side binding sends it as it is."""
    if connection.vendor == "postgresql":
        with _server_bound_cursor() as cursor:
            cursor.execute(f'INSERT INTO "{_BLOCKS}" ("run_id", "data") VALUES (%s, %b)', [run_pk, block])
        return
    RunArrays.objects.create(run_id=run_pk, data=block)


def lines_from_block(block: bytes, depth: int | None = None) -> StoredLines:
    return _from_blob(block, depth)


def run_lines(run_pk: int, *, depth: int | None = None) -> StoredLines:
    """A stored run's lines (its top ``depth`` per topic when given), read as a few columns.

    From the run's :class:`RunArrays` block when it has one (runs imported by this version);
    otherwise as follows.

    One query returns one row per topic holding every docno of the topic as one string (docnos
    are whitespace-free tokens) and every score as one string (SQLite) or byte string
    (PostgreSQL); numpy splits them. No Python object is made per line, which makes reading
    stored lines several times faster than fetching them as rows. Scores arrive bit for bit.
    Lines come in stored order within a topic; callers that need the canonical order sort
    (``trec.runs.run_from_arrays`` does).
    """
    block = run_block(run_pk)
    if block is not None:
        return _from_blob(block, depth)
    vendor = connection.vendor
    if vendor not in ("postgresql", "sqlite"):
        return _run_lines_by_rows(run_pk, depth)
    params: list[int] = [run_pk] if depth is None else [run_pk, depth]
    with connection.cursor() as cursor:
        cursor.execute(_lines_sql(vendor, depth), params)
        rows = cursor.fetchall()
        exact_text = vendor == "sqlite" and any(r[4] for r in rows)
        if exact_text:
            cursor.execute(_lines_sql(vendor, depth, exact_text=True), params)
            rows = cursor.fetchall()
    if not rows:
        return StoredLines(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, "S1"), np.zeros(0))
    topic_ids = np.array([r[0] for r in rows], dtype=np.int64)
    counts = np.array([r[1] for r in rows], dtype=np.int64)
    total = int(counts.sum())
    docnos = _split_tokens(" ".join(r[2] for r in rows).encode(), total)
    if vendor == "postgresql":
        scores = np.frombuffer(b"".join(bytes(r[3]) for r in rows), dtype=">f8").astype(np.float64)
    elif exact_text:
        scores = np.fromstring(" ".join(r[3] for r in rows), dtype=np.float64, sep=" ")
    else:
        scaled = np.fromstring(" ".join(r[3] for r in rows), dtype=np.int64, sep=" ")
        scores = scaled.astype(np.float64) / float(SCALE)
    if docnos is None or len(scores) != total:  # a docno holding a space: not from an import
        return _run_lines_by_rows(run_pk, depth)
    return StoredLines(topic_ids, counts, docnos, scores)


def _split_tokens(text: bytes, count: int) -> np.ndarray | None:
    """``count`` tokens separated by single spaces, as a fixed-width bytes array (None: not ``count``)."""
    chars = np.frombuffer(text, dtype=np.uint8)
    seps = np.flatnonzero(chars == 0x20)
    if len(seps) != count - 1 or count == 0:
        return None
    starts = np.empty(count, dtype=np.int64)
    starts[0], starts[1:] = 0, seps + 1
    ends = np.empty(count, dtype=np.int64)
    ends[:-1], ends[-1] = seps, len(chars)
    lengths = ends - starts
    width = max(1, int(lengths.max()))
    if bool((lengths == width).all()):  # one width (generated docnos): every (width+1)-th byte is a space
        table = np.append(chars, np.uint8(0x20)).reshape(count, width + 1)[:, :width]
        return np.ascontiguousarray(table).view(f"S{width}").ravel()
    cols = np.arange(width)
    inside = cols[None, :] < lengths[:, None]
    table = np.zeros((count, width), dtype=np.uint8)
    table[inside] = chars[(starts[:, None] + cols[None, :])[inside]]
    return table.view(f"S{width}").ravel()


def _run_lines_by_rows(run_pk: int, depth: int | None) -> StoredLines:
    """The portable reading: the lines as rows (other database backends)."""
    rows = RunDocument.objects.filter(run_id=run_pk)
    if depth is not None:
        rows = rows.filter(rank__lte=depth)
    values = list(rows.order_by("topic_id", "rank").values_list("topic_id", "docno", "score"))
    if not values:
        return StoredLines(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, "S1"), np.zeros(0))
    topics, docnos, scores = zip(*values, strict=True)
    ids, counts = np.unique(np.array(topics, dtype=np.int64), return_counts=True)
    return StoredLines(
        ids,
        counts.astype(np.int64),
        np.array([d.encode() for d in docnos], dtype=bytes),
        np.array(scores, dtype=np.float64),
    )
