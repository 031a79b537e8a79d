"""Property tests: the vectorized readers agree with a line-by-line reference on random well-formed files,
and a single corrupted line is reported at exactly its line number.

The reference is deliberately naive: ``bytes.split()``, Python ``float()``/``int()``, and ``sorted`` with
the canonical key (score descending, docno descending in strcmp byte order).
"""

from __future__ import annotations

import contextlib
import gzip
import math
import struct
import tempfile
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trec.io
from trec import FormatError, read_qrels, read_run

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# topic ids keep their leading zeros: "051" and "51" are two topics
QIDS = st.sampled_from(["1", "01", "51", "051"]) | st.from_regex(r"0{0,2}[1-9][0-9]{0,2}", fullmatch=True)
DOCNOS = st.one_of(
    # a small alphabet, so that ties meet docnos that are prefixes of each other or differ only in case
    st.text("dD1é", min_size=1, max_size=3),
    # any character whose UTF-8 bytes are all above space: ASCII punctuation, accents, CJK, emoji
    st.text(st.characters(min_codepoint=33, exclude_categories=["Cs"]), min_size=1, max_size=40),
)
SCORES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),  # 17 significant digits, e+300, 5e-324
    st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: f"{x:.6f}"),
    st.integers(-(10**20), 10**20).map(str),  # past 18 digits the fast path hands over to float()
    # equal doubles spelled differently, so ties are frequent and cross spellings
    st.sampled_from(["0", "-0", "0.0", "1", "1.0", "1e0", "+1", "1.", "0.5", ".5", "5e-1", "-2.5", "-25E-1"]),
    st.from_regex(r"-?[0-9]{1,20}\.[0-9]{1,25}", fullmatch=True),
    st.from_regex(r"[+-]?([0-9]{1,6}\.?[0-9]{0,6}|\.[0-9]{1,6})[eE][+-]?[0-9]{1,2}", fullmatch=True),
)
GRADES = st.one_of(
    st.integers(-3, 4).map(str), st.integers(-(10**17), 10**17).map(str), st.sampled_from(["+2", "-0", "007"])
)
SEPARATORS = st.sampled_from([" ", "\t", "  ", " \t "])
BLOCK_SIZES = st.sampled_from([None, 17, 64, 600])
# not a plain decimal number (Python's float() takes "1_0", C's strtod "0x1p3"), or not finite
BAD_SCORES = ["abc", "1_0", "nan", "-inf", "Infinity", "1e999", "1e", "--1", "1.2.3", "0x1p3"]
BAD_SCORES += ["1,5", "½", "١"]
BAD_GRADES = ["1.5", "x", "1.", "1e2", "--1", "1_0", "nan", "٣", "+"]


def bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


def strcmp_descending(docno: bytes) -> tuple[int, ...]:
    """A key that sorts bytes in reverse strcmp order: invert each byte, end with a terminator above them
    all (so that the longer of two strings sharing a prefix comes first, as it is the larger)."""
    return (*(255 - b for b in docno), 256)


def data_rows(data: bytes) -> Iterator[list[bytes]]:
    for line in data.split(b"\n"):
        fields = line.split()
        if fields and not fields[0].startswith(b"#"):
            yield fields


def reference_run(data: bytes) -> dict[bytes, list[tuple[bytes, float]]]:
    topics: dict[bytes, list[tuple[bytes, float]]] = {}
    for qid, _q0, docno, _rank, score, _tag in data_rows(data):
        topics.setdefault(qid, []).append((docno, float(score)))
    return {
        qid: sorted(rows, key=lambda r: (-r[1], strcmp_descending(r[0])))
        for qid, rows in sorted(topics.items())
    }


def reference_qrels(data: bytes) -> dict[bytes, list[tuple[bytes, int]]]:
    topics: dict[bytes, list[tuple[bytes, int]]] = {}
    for qid, _iter, docno, rel in data_rows(data):
        topics.setdefault(qid, []).append((docno, int(rel)))
    return {qid: sorted(rows) for qid, rows in sorted(topics.items())}


@st.composite
def layouts(draw: st.DrawFn, rows: list[list[str]]) -> tuple[list[str], list[int]]:
    """Physical lines for ``rows`` with random separators, blank and comment lines; also the line number
    (1-based) of each row."""
    crlf = draw(st.booleans())
    lines: list[str] = []
    numbers: list[int] = []
    for row in rows:
        for _ in range(draw(st.integers(0, 1) | st.just(0))):
            lines.append(draw(st.sampled_from(["", "   ", "# a comment", "  #indented", "\t"])))
        sep = draw(SEPARATORS)
        lead = draw(st.sampled_from(["", "", " ", "\t"]))
        lines.append(lead + sep.join(row) + draw(st.sampled_from(["", "", " ", "\t"])))
        numbers.append(len(lines))
    if crlf:
        lines = [line + "\r" for line in lines]
    return lines, numbers


def encode(lines: list[str], trailing_newline: bool) -> bytes:
    text = "\n".join(lines) + ("\n" if trailing_newline else "")
    return text.encode("utf-8")


@contextlib.contextmanager
def written(data: bytes, gz: bool, block_size: int | None) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("f.gz" if gz else "f.txt")
        path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
        with mock.patch.object(trec.io, "BLOCK_SIZE", block_size or trec.io.BLOCK_SIZE):
            yield path


def topics_of_one_file(draw: st.DrawFn) -> st.SearchStrategy[str]:
    """Mostly a few topics per file, so that each topic gets many docs."""
    return st.sampled_from(draw(st.lists(QIDS, min_size=1, max_size=4))) | QIDS


@st.composite
def run_rows(draw: st.DrawFn) -> list[list[str]]:
    keys = draw(st.lists(st.tuples(topics_of_one_file(draw), DOCNOS), min_size=1, max_size=60, unique=True))
    # scores shared by many rows make ties common; two adjacent doubles (equal as float32) must not tie
    base = draw(st.floats(-1e3, 1e3, allow_nan=False))
    pool = [repr(base), repr(math.nextafter(base, math.inf)), *draw(st.lists(SCORES, max_size=2))]
    shared = st.sampled_from(pool)
    rows = [
        [qid, "Q0", docno, draw(st.integers(0, 2000).map(str) | st.just("x")), draw(shared | SCORES), "tag"]
        for qid, docno in keys
    ]
    if draw(st.booleans()):
        # written in canonical order, as most runs are: the readers' fast path
        ref = reference_run(b"\n".join(" ".join(r).encode() for r in rows))
        position = {(q, d): i for i, (q, d) in enumerate((q, d) for q, ds in ref.items() for d, _ in ds)}
        rows.sort(key=lambda r: position[(r[0].encode(), r[2].encode())])
    return rows


@st.composite
def qrels_rows(draw: st.DrawFn) -> list[list[str]]:
    keys = draw(st.lists(st.tuples(topics_of_one_file(draw), DOCNOS), min_size=1, max_size=60, unique=True))
    return [[qid, draw(st.sampled_from(["0", "Q0", "1"])), docno, draw(GRADES)] for qid, docno in keys]


@SETTINGS
@given(data=st.data(), gz=st.booleans(), trailing_newline=st.booleans(), block_size=BLOCK_SIZES)
def test_read_run_matches_the_reference(
    data: st.DataObject, gz: bool, trailing_newline: bool, block_size: int | None
) -> None:
    rows = data.draw(run_rows())
    lines, _ = data.draw(layouts(rows))
    raw = encode(lines, trailing_newline)
    expected = reference_run(raw)
    with written(raw, gz, block_size) as path:
        run = read_run(path)
    assert run.topics == tuple(q.decode() for q in expected)
    assert run.offsets.tolist()[-1] == len(run)
    for (topic, docnos, scores), ranked in zip(run.items(), expected.values(), strict=True):
        assert docnos.tolist() == [d for d, _ in ranked], topic
        assert [bits(s) for s in scores.tolist()] == [bits(s) for _, s in ranked], topic


@SETTINGS
@given(data=st.data(), gz=st.booleans(), trailing_newline=st.booleans(), block_size=BLOCK_SIZES)
def test_read_qrels_matches_the_reference(
    data: st.DataObject, gz: bool, trailing_newline: bool, block_size: int | None
) -> None:
    rows = data.draw(qrels_rows())
    lines, _ = data.draw(layouts(rows))
    raw = encode(lines, trailing_newline)
    expected = reference_qrels(raw)
    with written(raw, gz, block_size) as path:
        qrels = read_qrels(path)
    assert qrels.topics == tuple(q.decode() for q in expected)
    for i, judged in enumerate(expected.values()):
        docnos, rels = qrels.segment(i)
        assert list(zip(docnos.tolist(), rels.tolist(), strict=True)) == judged


def corrupt(
    data: st.DataObject, row: list[str], value_col: int, bad_values: list[str], *, extra_ok: bool = False
) -> tuple[list[str], str]:
    """One row made invalid in one way; also a phrase the error message must contain.

    ``extra_ok``: the format accepts extra fields (runs, as trec_eval does), so none are added.
    """
    kind = data.draw(st.sampled_from(["drop", "value"] if extra_ok else ["drop", "add", "value"]))
    if kind == "drop":
        i = data.draw(st.integers(1, len(row) - 1))  # not the first column: that could make a comment
        return row[:i] + row[i + 1 :], f"found {len(row) - 1}"
    if kind == "add":
        i = data.draw(st.integers(1, len(row)))
        return [*row[:i], "extra", *row[i:]], f"found {len(row) + 1}"
    bad = data.draw(st.sampled_from(bad_values))
    return [*row[:value_col], bad, *row[value_col + 1 :]], f"'{bad}'"


@SETTINGS
@given(data=st.data(), gz=st.booleans(), trailing_newline=st.booleans(), block_size=BLOCK_SIZES)
def test_a_corrupted_run_line_is_reported_at_its_line(
    data: st.DataObject, gz: bool, trailing_newline: bool, block_size: int | None
) -> None:
    rows = data.draw(run_rows())
    k = data.draw(st.integers(0, len(rows) - 1))
    rows[k], phrase = corrupt(data, rows[k], 4, BAD_SCORES, extra_ok=True)
    lines, numbers = data.draw(layouts(rows))
    with written(encode(lines, trailing_newline), gz, block_size) as path:
        try:
            read_run(path)
        except FormatError as exc:
            err = exc
        else:
            raise AssertionError("the corrupted run was accepted")
    assert (err.path, err.line) == (str(path), numbers[k])
    assert phrase in err.message


@SETTINGS
@given(data=st.data(), gz=st.booleans(), trailing_newline=st.booleans(), block_size=BLOCK_SIZES)
def test_a_corrupted_qrels_line_is_reported_at_its_line(
    data: st.DataObject, gz: bool, trailing_newline: bool, block_size: int | None
) -> None:
    rows = data.draw(qrels_rows())
    k = data.draw(st.integers(0, len(rows) - 1))
    rows[k], phrase = corrupt(data, rows[k], 3, BAD_GRADES)
    lines, numbers = data.draw(layouts(rows))
    with written(encode(lines, trailing_newline), gz, block_size) as path:
        try:
            read_qrels(path)
        except FormatError as exc:
            err = exc
        else:
            raise AssertionError("the corrupted qrels was accepted")
    assert (err.path, err.line) == (str(path), numbers[k])
    assert phrase in err.message


@SETTINGS
@given(data=st.data(), block_size=BLOCK_SIZES)
def test_a_repeated_docno_is_reported_at_its_second_line(data: st.DataObject, block_size: int | None) -> None:
    rows = data.draw(run_rows())
    first = data.draw(st.integers(0, len(rows) - 1))
    at = data.draw(st.integers(first + 1, len(rows)))
    copy = [*rows[first][:4], data.draw(SCORES), "tag"]
    rows.insert(at, copy)
    lines, numbers = data.draw(layouts(rows))
    with written(encode(lines, True), False, block_size) as path:
        try:
            read_run(path)
        except FormatError as exc:
            err = exc
        else:
            raise AssertionError("the repeated docno was accepted")
    assert err.line == numbers[at]
    assert f"(first on line {numbers[first]})" in err.message


@SETTINGS
@given(
    docnos=st.lists(st.text("dD1é", min_size=1, max_size=4), min_size=2, max_size=30, unique=True),
    spellings=st.lists(
        st.sampled_from(["1", "1.0", "1e0", "+1", "1.", "10e-1", "0.1e1", "1.000"]), min_size=1
    ),
    block_size=BLOCK_SIZES,
)
def test_tied_scores_are_ordered_by_docno_descending_in_byte_order(
    docnos: list[str], spellings: list[str], block_size: int | None
) -> None:
    text = "".join(f"7 Q0 {d} {i} {spellings[i % len(spellings)]} t\n" for i, d in enumerate(docnos))
    with written(text.encode(), False, block_size) as path:
        run = read_run(path)
    # Python compares bytes like strcmp (a proper prefix is smaller), so descending is reverse=True
    assert run.docnos.tolist() == sorted((d.encode() for d in docnos), reverse=True)


@pytest.mark.parametrize("block_size", [None, 4096])
def test_read_run_matches_the_reference_on_a_large_seeded_file(block_size: int | None) -> None:
    rng = np.random.default_rng(5150)
    n = 20000
    topics = [f"{z}{t}" for t in range(1, 16) for z in ("", "0")]  # "1" and "01" are two topics
    spellings = ["1", "1.0", "0.5", ".5", "-0", "0", "2.5e-1", "-3"]
    alphabet = list("dD19é-")
    lines: list[str] = []
    seen: set[tuple[str, str]] = set()
    while len(lines) < n:
        topic = str(rng.choice(topics))
        docno = "".join(rng.choice(alphabet, size=int(rng.integers(1, 6))))
        if (topic, docno) in seen:
            docno += f"x{len(lines)}"
        seen.add((topic, docno))
        score = str(rng.choice(spellings)) if rng.random() < 0.6 else repr(float(rng.normal(0, 10)))
        lines.append(f"{topic} Q0 {docno} {len(lines)} {score} t\n")
    raw = "".join(lines).encode()
    expected = reference_run(raw)
    with written(raw, False, block_size) as path:
        run = read_run(path)
    assert run.topics == tuple(q.decode() for q in expected)
    for (_, docnos, scores), ranked in zip(run.items(), expected.values(), strict=True):
        assert docnos.tolist() == [d for d, _ in ranked]
        assert [bits(s) for s in scores.tolist()] == [bits(s) for _, s in ranked]
