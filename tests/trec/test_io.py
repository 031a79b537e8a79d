"""Transparent gzip and newline-aligned blocks: results and error lines do not depend on the block size."""

from __future__ import annotations

import gc
import gzip
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import trec.io
from tests.trec.conftest import WriteFile
from trec import FormatError, read_qrels, read_run
from trec.io import expanded_size, iter_blocks

# 180 lines, topics out of order, scores with ties
RUN_TEXT = "".join(f"{q} Q0 doc{i:03d} {i} {i * 37 % 11}.{i % 7} tag\n" for q in (3, 1, 2) for i in range(60))


def test_blocks_end_at_line_boundaries_and_carry_their_first_line_number(write_file: WriteFile) -> None:
    text = "".join(f"line {i}\n" for i in range(1, 101))
    blocks = list(iter_blocks(write_file("f.txt", text), block_size=50))
    assert len(blocks) > 10
    assert b"".join(b for b, _ in blocks) == text.encode()
    for block, first in blocks:
        assert block.endswith(b"\n")
        assert block.startswith(f"line {first}\n".encode())


def test_a_line_longer_than_the_block_stays_whole(write_file: WriteFile) -> None:
    long_line = "x" * 500
    blocks = list(iter_blocks(write_file("f.txt", f"a\n{long_line}\nb"), block_size=64))
    assert blocks == [(b"a\n", 1), (f"{long_line}\n".encode(), 2), (b"b", 3)]


def test_small_blocks_give_the_same_run(write_file: WriteFile, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_file("r.run", RUN_TEXT)
    whole = read_run(path)
    monkeypatch.setattr(trec.io, "BLOCK_SIZE", 97)
    assert len(list(iter_blocks(path))) > 20  # the patched size is really used
    small = read_run(path)
    assert small.topics == whole.topics == ("1", "2", "3")
    assert small.offsets.tolist() == whole.offsets.tolist()
    assert small.docnos.tolist() == whole.docnos.tolist()
    assert small.scores.tolist() == whole.scores.tolist()


@pytest.mark.parametrize("name", ["r.run", "r.run.gz"])
@pytest.mark.parametrize("block_size", [31, 64, 4096])
def test_small_blocks_report_errors_at_the_right_line(
    write_file: WriteFile, monkeypatch: pytest.MonkeyPatch, name: str, block_size: int
) -> None:
    lines = RUN_TEXT.splitlines(keepends=True)
    lines[150] = lines[150].replace(" tag\n", "\n")  # five columns on line 151 (a seventh is ignored)
    path = write_file(name, "".join(lines))
    monkeypatch.setattr(trec.io, "BLOCK_SIZE", block_size)
    with pytest.raises(FormatError) as info:
        read_run(path)
    assert info.value.line == 151
    assert "found 5" in info.value.message


def test_small_blocks_report_a_bad_value_and_a_duplicate_at_the_right_line(
    write_file: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trec.io, "BLOCK_SIZE", 40)
    good = "".join(f"7 0 d{i} {i % 3}\n" for i in range(50))
    with pytest.raises(FormatError) as info:
        read_qrels(write_file("bad.qrels", good + "7 0 x 2.5\n"))
    assert info.value.line == 51
    with pytest.raises(FormatError) as info:
        read_qrels(write_file("dup.qrels", good + "# again\n7 0 d17 1\n"))
    assert (info.value.line, "first on line 18" in info.value.message) == (52, True)


def test_reading_a_gzip_file_closes_it(write_file: WriteFile) -> None:
    path = write_file("r.run.gz", RUN_TEXT)
    gc.collect()  # what earlier tests left for the collector warns now, not inside the check below
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_run(path)
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_a_missing_file_is_a_format_error_for_the_whole_file(tmp_path) -> None:
    path = tmp_path / "absent.run"
    with pytest.raises(FormatError) as info:
        read_run(path)
    assert info.value.line == 0
    assert str(info.value).startswith(f"{path}: cannot open file")


# ------------------------------------------------------------------- the size of a file's content


def test_expanded_size_is_the_content_size_of_plain_and_gzip_files(write_file: WriteFile) -> None:
    assert expanded_size(write_file("r.run", RUN_TEXT)) == len(RUN_TEXT)
    assert expanded_size(write_file("r.run.gz", RUN_TEXT)) == len(RUN_TEXT)
    assert expanded_size(write_file("r.run.gz", RUN_TEXT), limit=len(RUN_TEXT)) == len(RUN_TEXT)


@pytest.mark.parametrize("name", ["r.run", "r.run.gz"])
def test_a_file_past_the_limit_is_a_format_error_naming_it(write_file: WriteFile, name: str) -> None:
    path = write_file(name, RUN_TEXT)
    with pytest.raises(FormatError) as info:
        expanded_size(path, limit=len(RUN_TEXT) - 1)
    assert str(info.value) == f"{path}: is larger than {len(RUN_TEXT) - 1} bytes decompressed"


def test_a_gzip_bomb_is_measured_in_bounded_memory(tmp_path: Path) -> None:
    """1 GiB of run lines from a 3 MB gzip (1024 gzip members, as `cat a.gz b.gz` makes): a fresh
    interpreter reads it whole, and refuses it at a limit, without its peak RSS passing 150 MB."""
    mib = (b"401 Q0 clueweb12-0000tw-00-00001 1 12.5 bomb\n" * 23_831)[: 1024 * 1024]
    member = gzip.compress(mib, compresslevel=9, mtime=0)
    bomb = tmp_path / "bomb.run.gz"
    bomb.write_bytes(member * 1024)
    assert bomb.stat().st_size < 8 * 1024 * 1024
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent (pytest) across exec
    script = (
        "import re, sys\n"
        "from trec import FormatError\n"
        "from trec.io import expanded_size\n"
        "whole = expanded_size(sys.argv[1])\n"
        "try:\n"
        "    expanded_size(sys.argv[1], limit=512 * 1024 * 1024)\n"
        "    refused = False\n"
        "except FormatError:\n"
        "    refused = True\n"
        "peak = re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read()).group(1)\n"
        "print(whole, refused, peak)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(bomb)], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    assert out[:2] == [str(1024**3), "True"]
    assert int(out[2]) < 150 * 1024, f"peak RSS {int(out[2]) // 1024} MB"  # in KiB
