"""A stored run's lines read as arrays: one row, one block, no Python object per line.

:func:`campaigns.selectors.run_ranking` builds the engine's run from them, for evaluations and
pools of stored runs alike. Every run's lines are one block of numpy arrays
(:class:`campaigns.models.RunArrays`, written by :func:`arrays_blob` at import), read in about a
millisecond.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import connection

from campaigns.models import RunArrays


@dataclass(frozen=True)
class StoredLines:
    """A stored run's lines as arrays: per topic (``topic_ids``, ``counts``), then per line."""

    topic_ids: np.ndarray  # int64, ascending
    counts: np.ndarray  # int64, lines of each topic
    docnos: np.ndarray  # fixed-width bytes ("S"), grouped by topic
    scores: np.ndarray  # float64, aligned with docnos


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
    """The run's stored array block (None for a run created without lines, which only code
    outside the import does): read on the thread that holds the database connection, decoded by
    :func:`lines_from_block` on any. :func:`run_blocks` reads many."""
    return next(run_blocks([run_pk]))


BATCH = 8  # blocks per query in run_blocks: 8 blocks of the large workload are about 25 MB


def run_blocks(run_pks: Sequence[int], *, batch: int = BATCH) -> Iterator[bytes | None]:
    """:func:`run_block` of each run, in the order given, ``batch`` runs per query (a query a run
    costs a round trip each: 100 runs of the default workload arrive from PostgreSQL in 0.06 s
    in one query, 0.085 s in 100). At most ``batch`` blocks are held.

    On PostgreSQL the blocks come in psycopg's binary format: the text format sends a bytea as
    hex, twice its size, which the client then decodes (3.8 ms a run of the default workload
    against 1.3 ms on SQLite; binary: see docs/speed.md).
    """
    for start in range(0, len(run_pks), batch):
        chunk = list(run_pks[start : start + batch])
        if connection.vendor == "postgresql":
            with _server_bound_cursor() as cursor:
                cursor.execute(
                    f'SELECT "run_id", "data" FROM "{_BLOCKS}" WHERE "run_id" = ANY(%s)', [chunk], binary=True
                )
                found = {int(pk): bytes(data) for pk, data in cursor}
        else:
            found = {
                int(pk): bytes(data)
                for pk, data in RunArrays.objects.filter(run_id__in=chunk).values_list("run_id", "data")
            }
        for pk in chunk:
            yield found.pop(pk, None)


def block_write(run_pk: int, block: bytes) -> None:
    """Store a run's block. On PostgreSQL the bytes go as a binary parameter: Django binds
    parameters client-side, which writes a bytea into the statement as hex (twice its size,
    parsed back by the server); psycopg's server-side binding sends it as it is."""
    if connection.vendor == "postgresql":
        with _server_bound_cursor() as cursor:
            cursor.execute(f'INSERT INTO "{_BLOCKS}" ("run_id", "data") VALUES (%s, %b)', [run_pk, block])
        return
    RunArrays.objects.create(run_id=run_pk, data=block)


def lines_from_block(block: bytes | None, depth: int | None = None) -> StoredLines:
    """The lines of a block read by :func:`run_block` (none for a run without one)."""
    if block is None:
        return StoredLines(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, "S1"), np.zeros(0))
    return _from_blob(block, depth)


def run_lines(run_pk: int, *, depth: int | None = None) -> StoredLines:
    """A stored run's lines (its top ``depth`` per topic when given), from its block."""
    return lines_from_block(run_block(run_pk), depth)
