"""Reading and writing files with transparent gzip, and reading in newline-aligned blocks."""

from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from trec.errors import FormatError

PathLike = str | os.PathLike[str]

GZIP_MAGIC = b"\x1f\x8b"
# Blocks keep peak memory bounded on huge files while staying large enough for numpy to pay off.
BLOCK_SIZE = 16 * 1024 * 1024


def open_binary(path: PathLike) -> IO[bytes]:
    """Open ``path`` for reading bytes, decompressing gzip when the file starts with the gzip magic.

    ``-`` is standard input (trec_eval reads its results file from stdin when it is ``-``),
    read whole into memory: a pipe cannot be peeked at or sized.
    """
    if str(path) == "-":
        data = sys.stdin.buffer.read()
        if data[:2] == GZIP_MAGIC:
            return gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb")  # type: ignore[return-value]
        return io.BytesIO(data)
    try:
        raw = open(path, "rb")  # noqa: SIM115 - handed to the caller, who closes it
    except OSError as exc:
        raise FormatError(str(path), 0, f"cannot open file: {exc.strerror or exc}") from exc
    head = raw.peek(2)[:2] if isinstance(raw, io.BufferedReader) else b""
    if head == GZIP_MAGIC:
        # GzipFile(fileobj=...) never closes the file it was given: let it own its own handle
        raw.close()
        return gzip.GzipFile(path, mode="rb")  # type: ignore[return-value]
    return raw


# a damaged gzip stream raises BadGzipFile (an OSError), EOFError when truncated, zlib.error on bad data
READ_ERRORS = (OSError, EOFError, zlib.error)


def iter_blocks(path: PathLike, block_size: int | None = None) -> Iterator[tuple[bytes, int]]:
    """Yield ``(block, first_line_number)``; every block ends at a line boundary (or at end of file)."""
    # BLOCK_SIZE is looked up per call (not bound as a default) so tests can shrink it
    block_size = block_size or BLOCK_SIZE
    line_no = 1
    carry = b""
    with open_binary(path) as fh:
        size = os.fstat(fh.fileno()).st_size if isinstance(fh, io.BufferedReader) else -1
        if 0 <= size <= block_size:
            # the common case: a plain file that fits one block, read at its exact size (a
            # sized read fills one buffer; read() with no size grows one: 10x slower on 2 MB)
            data = fh.read(size)
            more = fh.read()  # a file that grew since fstat
            if more:
                data += more
            if data:
                yield data, 1
            return
        while True:
            try:
                chunk = fh.read(block_size)
            except READ_ERRORS as exc:
                raise FormatError(str(path), 0, f"cannot read file: {exc}") from exc
            if not chunk:
                break
            if carry:
                chunk = carry + chunk
            if len(chunk) < block_size and chunk.endswith(b"\n") and not carry:
                # the common small-file case: one whole block, no copy
                yield chunk, line_no
                line_no += chunk.count(b"\n")
                continue
            cut = chunk.rfind(b"\n")
            if cut < 0:
                carry = chunk
                continue
            block, carry = chunk[: cut + 1], chunk[cut + 1 :]
            yield block, line_no
            line_no += block.count(b"\n")
    if carry:
        yield carry, line_no


CHECK_CHUNK = 1024 * 1024


def expanded_size(path: PathLike, limit: int | None = None) -> int:
    """The size of ``path``'s content as the readers see it (decompressed, for gzip).

    A gzip stream is decompressed in :data:`CHECK_CHUNK` pieces and dropped, so memory stays
    bounded whatever it expands to; past ``limit`` bytes it stops and raises :class:`FormatError`
    (a small gzip can expand to gigabytes: check before parsing).
    """
    with open_binary(path) as fh:
        if isinstance(fh, io.BufferedReader):
            size = os.fstat(fh.fileno()).st_size
        else:
            size = 0
            while True:
                try:
                    piece = fh.read(CHECK_CHUNK)
                except READ_ERRORS as exc:
                    raise FormatError(str(path), 0, f"cannot read file: {exc}") from exc
                if not piece:
                    break
                size += len(piece)
                if limit is not None and size > limit:
                    break
    if limit is not None and size > limit:
        raise FormatError(str(path), 0, f"is larger than {limit} bytes decompressed")
    return size


def open_text_out(path: PathLike) -> IO[str]:
    """Open ``path`` for writing text; a ``.gz`` suffix writes gzip."""
    if Path(path).suffix == ".gz":
        return gzip.open(path, "wt", encoding="utf-8", newline="\n")
    return open(path, "w", encoding="utf-8", newline="\n")
