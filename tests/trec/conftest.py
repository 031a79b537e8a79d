"""Fixtures for the format tests: write a small file (gzip when the name ends in .gz)."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import pytest

WriteFile = Callable[[str, str | bytes], Path]


@pytest.fixture
def write_file(tmp_path: Path) -> WriteFile:
    def write(name: str, content: str | bytes) -> Path:
        data = content.encode("utf-8") if isinstance(content, str) else content
        if name.endswith(".gz"):
            data = gzip.compress(data, mtime=0)
        path = tmp_path / name
        path.write_bytes(data)
        return path

    return write
