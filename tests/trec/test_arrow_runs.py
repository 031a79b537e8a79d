"""The fast paths (the compiled kernel, and pyarrow without it) read exactly what the strict
tokenizer reads, and hand over everything else.

Every file is read twice, by :func:`trec.runs.read_run_fast` and by the strict path
(:func:`trec.runs.read_run` with the fast path switched off); whenever the fast path answers, the
two runs must be identical field by field, and on plainly laid-out files it must answer (or the
speed it exists for is lost without any test noticing). Every test runs once with each fast path.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trec.arrow_runs
import trec.kernels
import trec.runs
from trec import FormatError, read_run
from trec.runs import RankedRun, read_run_fast

pytest.importorskip("pyarrow")
trec.arrow_runs.preload()


pytestmark = pytest.mark.usefixtures("fast_path")


SETTINGS = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def strict(path: Path) -> RankedRun:
    with mock.patch.object(trec.runs, "read_run_fast", return_value=None):
        return read_run(path, "r")


def assert_same(a: RankedRun, b: RankedRun) -> None:
    assert a.topics == b.topics
    assert a.offsets.tolist() == b.offsets.tolist()
    assert a.docnos.tolist() == b.docnos.tolist()
    assert a.scores.tobytes() == b.scores.tobytes()  # bit for bit, -0.0 included
    assert a.docno_hashes is not None and b.docno_hashes is not None
    assert a.docno_hashes.tolist() == b.docno_hashes.tolist()
    assert (a.tag, a.runid, a.name) == (b.tag, b.runid, b.name)


QIDS = st.sampled_from(["1", "01", "51", "051", "401", "abc"])
DOCNOS = st.text(
    st.characters(min_codepoint=33, max_codepoint=0x2FFF, exclude_categories=["Cs"]), min_size=1, max_size=30
)
SCORES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: f"{x:.6f}"),
    st.integers(-(10**20), 10**20).map(str),
    st.sampled_from(["1e5", "+1.5", ".5", "5.", "-0", "-0.0", "1E-3", "007"]),
)


@st.composite
def run_lines(draw: st.DrawFn) -> list[tuple[str, str, str, str]]:
    n = draw(st.integers(1, 40))
    lines = []
    seen = set()
    for i in range(n):
        q, d = draw(QIDS), draw(DOCNOS)
        if "#" in d or (q, d) in seen:
            continue
        seen.add((q, d))
        lines.append((q, d, draw(SCORES), draw(st.sampled_from(["tagA", "tagB"])) if i == n - 1 else "tagA"))
    return lines or [("1", "d", "1.0", "t")]


def write(path: Path, lines: list[tuple[str, str, str, str]], sep: str = " ", end: str = "\n") -> Path:
    path.write_text(
        "".join(
            f"{q}{sep}Q0{sep}{d}{sep}{i + 1}{sep}{s}{sep}{t}{end}" for i, (q, d, s, t) in enumerate(lines)
        )
    )
    return path


@SETTINGS
@given(lines=run_lines())
def test_plain_files_take_the_fast_path_and_read_the_same(tmp_path: Path, lines: list) -> None:
    path = write(tmp_path / "r.run", lines)
    fast = read_run_fast(path, "r")
    assert fast is not None
    assert_same(fast, strict(path))
    assert_same(read_run(path, "r"), fast)


@SETTINGS
@given(
    lines=run_lines(),
    layout=st.sampled_from(
        ["tabs", "two spaces", "crlf", "leading", "trailing", "comment", "extra", "blank", "vt"]
    ),
)
def test_other_layouts_either_match_or_hand_over(tmp_path: Path, lines: list, layout: str) -> None:
    sep, end = " ", "\n"
    if layout == "tabs":
        sep = "\t"
    elif layout == "two spaces":
        sep = "  "
    elif layout == "crlf":
        end = "\r\n"
    path = write(tmp_path / "r.run", lines, sep, end)
    text = path.read_text()
    if layout == "leading":
        text = " " + text
    elif layout == "trailing":
        text = text.replace("\n", " \n")
    elif layout == "comment":
        text = "# a comment line with six fields x y\n" + text
    elif layout == "extra":
        text = text.replace("\n", " extra fields\n")
    elif layout == "blank":
        text = text.replace("\n", "\n\n", 1)
    elif layout == "vt":
        text = text.replace(" Q0 ", "\x0bQ0 ", 1)
    path.write_text(text)
    expected = strict(path)
    fast = read_run_fast(path, "r")
    if fast is not None:
        assert_same(fast, expected)
    assert_same(read_run(path, "r"), expected)


def test_a_duplicate_docno_is_reported_by_the_strict_path_with_its_lines(tmp_path: Path) -> None:
    path = tmp_path / "dup.run"
    path.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.5 t\n1 Q0 a 3 1.0 t\n")
    assert read_run_fast(path, "dup") is None
    with pytest.raises(FormatError, match=r"dup.run:3: duplicate docno 'a' in topic '1' \(first on line 1\)"):
        read_run(path)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("1 Q0 a 1 nan t\n", "not finite"),
        ("1 Q0 a 1 inf t\n", "not finite"),
        ("1 Q0 a 1 0x10 t\n", "expected a score"),
        ("1 Q0 a 1 high t\n", "expected a score"),
        ("1 Q0 a 1 2.0\n", "expected 6 columns"),
    ],
)
def test_bad_lines_get_the_strict_paths_message(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.run"
    path.write_text("1 Q0 z 1 3.0 t\n" + line)
    assert read_run_fast(path, "bad") is None
    with pytest.raises(FormatError, match=message) as err:
        read_run(path)
    assert err.value.line == 2


def test_gzip_files_and_unequal_docno_widths(tmp_path: Path) -> None:
    path = tmp_path / "r.run.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("2 Q0 longer-docno 1 1.0 t\n2 Q0 d 2 1.0 t\n1 Q0 x 1 0.5 u\n")
    fast = read_run_fast(path, "r")
    assert fast is not None
    assert fast.topics == ("1", "2")
    # ties by docno descending: "longer-docno" > "d"
    assert fast.docnos.tolist() == [b"x", b"longer-docno", b"d"]
    assert (fast.tag, fast.runid) == ("t", "u")
    assert_same(fast, strict(path))


def test_standard_input_is_left_to_the_strict_path(tmp_path: Path) -> None:
    assert read_run_fast("-", "stdin") is None


def test_without_pyarrow_every_file_takes_the_strict_path(tmp_path: Path, fast_path: str) -> None:
    if fast_path == "kernel":
        pytest.skip("the compiled kernel does not use pyarrow")
    path = write(tmp_path / "r.run", [("1", "a", "1.0", "t")])
    with (
        mock.patch.object(trec.arrow_runs, "_OPTIONS", None),
        mock.patch.object(trec.arrow_runs, "_MISSING", True),
    ):
        assert read_run_fast(path, "r") is None
        run = read_run(path)
    assert run.docnos.tolist() == [b"a"] and np.array_equal(run.scores, [1.0])


@pytest.mark.parametrize("offset", [-2, -1, 0, 1])
def test_the_layout_check_sees_two_separators_across_its_slices(offset: int, fast_path: str) -> None:
    """The check reads a file in slices: an empty field straddling two of them is still found."""
    if fast_path == "kernel":
        pytest.skip("pyarrow's layout check; the kernel's blocks are tested in test_kernels.py")
    from trec.arrow_runs import SLICE, _plain_separators

    def check(text: bytes) -> bool:
        return _plain_separators(np.frombuffer(text, dtype=np.uint8), text.count(b"\n"))

    # six fields, the second empty: its two spaces at SLICE - 1 and SLICE when offset is 0
    first = b"A" * (SLICE - 1 + offset)
    assert not check(first + b"  b c d e\n")
    assert check(first + b" x b c d e\n")  # the same line with the field filled passes
