"""Reading and writing files with transparent gzip, and reading in newline-aligned blocks."""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from trec.errors import FormatError

PathLike = str | os.PathLike[str]

GZIP_MAGIC = b"\x1f\x8b"
# Blocks keep peak memory bounded on huge files while staying large enough for numpy to pay off.
BLOCK_SIZE = 16 * 1024 * 1024


def open_binary(path: PathLike) -> IO[bytes]:
    """Open ``path`` for reading bytes, decompressing gzip when the file starts with the gzip magic."""
    try:
        raw = open(path, "rb")  # noqa: SIM115 - returned to the caller
    except OSError as exc:
        raise FormatError(str(path), 0, f"cannot open file: {exc.strerror or exc}") from exc
    head = raw.peek(2)[:2] if isinstance(raw, io.BufferedReader) else b""
    if head == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    return raw


def iter_blocks(path: PathLike, block_size: int = BLOCK_SIZE) -> Iterator[tuple[bytes, int]]:
    """Yield ``(block, first_line_number)``; every block ends at a line boundary (or at end of file)."""
    line_no = 1
    carry = b""
    with open_binary(path) as fh:
        while True:
            try:
                chunk = fh.read(block_size)
            except (OSError, EOFError, gzip.BadGzipFile) as exc:
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


def open_text_out(path: PathLike) -> IO[str]:
    """Open ``path`` for writing text; a ``.gz`` suffix writes gzip."""
    if Path(path).suffix == ".gz":
        return gzip.open(path, "wt", encoding="utf-8", newline="\n")
    return open(path, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
