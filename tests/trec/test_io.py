"""Transparent gzip and newline-aligned blocks: results and error lines do not depend on the block size."""

from __future__ import annotations

import gc
import warnings

import pytest

import trec.io
from tests.trec.conftest import WriteFile
from trec import FormatError, read_qrels, read_run
from trec.io import iter_blocks

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
    lines[150] = lines[150].replace(" tag\n", " 0.5_1 tag\n")  # seven columns on line 151
    path = write_file(name, "".join(lines))
    monkeypatch.setattr(trec.io, "BLOCK_SIZE", block_size)
    with pytest.raises(FormatError) as info:
        read_run(path)
    assert info.value.line == 151
    assert "found 7" in info.value.message


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
