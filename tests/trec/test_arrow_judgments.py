"""The fast reading of qrels and prels (the compiled kernel, or pyarrow without it) gives exactly
what the strict tokenizer gives, or hands over.

Every file is read twice, by the fast path (which may answer) and with it switched off (the
strict tokenizer always reads): the judgments must be equal array by array, errors included.
Every test runs once with each fast path.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trec.arrow_runs
import trec.kernels
from trec import FormatError, read_qrels
from trec.arrow_runs import parse_judgments
from trec.prels import read_prel
from trec.qrels import read_qrels_bytes

pytest.importorskip("pyarrow")
trec.arrow_runs.preload()


pytestmark = pytest.mark.usefixtures("fast_path")


SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
QIDS = st.sampled_from(["1", "01", "51", "401", "abc"])
DOCNOS = st.text(
    st.characters(min_codepoint=33, max_codepoint=0x2FFF, exclude_categories=["Cs"]), min_size=1, max_size=20
).filter(lambda d: "#" not in d)
GRADES = st.one_of(
    st.integers(-3, 4).map(str),
    st.sampled_from(
        ["+1", "007", "-0", "1.", "1.5", "x", "-", "9" * 19, "-" + "9" * 18, "99999999999999999"]
    ),
)


def strict(read, path: Path):
    with (
        mock.patch.object(trec.arrow_runs, "_OPTIONS", None),
        mock.patch.dict(os.environ, {"WORKBENCH_KERNELS": "0"}),
    ):
        return read(path)


def outcome(read, path: Path):
    try:
        return read(path), None
    except FormatError as exc:
        return None, (exc.path, exc.line, exc.message)


def same_qrels(a, b) -> None:
    assert a.topics == b.topics
    for field in ("offsets", "docnos", "rels"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field


@st.composite
def lines(draw: st.DrawFn, fields: int) -> list[str]:
    out = []
    for _ in range(draw(st.integers(1, 25))):
        q, d, g = draw(QIDS), draw(DOCNOS), draw(GRADES)
        out.append(f"{q} 0 {d} {g}" if fields == 4 else f"{q} 0 {d} s{draw(st.integers(1, 3))} {g}")
    return out


@SETTINGS
@given(rows=lines(4), layout=st.sampled_from(["plain", "tabs", "blank", "two spaces", "crlf"]))
def test_qrels_read_the_same_either_way(tmp_path: Path, rows: list[str], layout: str) -> None:
    text = "\n".join(rows) + "\n"
    text = {
        "tabs": text.replace(" ", "\t"),
        "blank": text.replace("\n", "\n\n", 1),
        "two spaces": text.replace(" ", "  ", 1),
        "crlf": text.replace("\n", "\r\n"),
    }.get(layout, text)
    path = tmp_path / "q.txt"
    path.write_bytes(text.encode())
    fast, fast_error = outcome(read_qrels, path)
    slow, slow_error = outcome(lambda p: strict(read_qrels, p), path)
    assert fast_error == slow_error
    if slow is not None:
        same_qrels(fast, slow)
    if layout != "plain":
        assert parse_judgments(path, "qrels") is None
    # the same bytes held in memory (a stored qrels set), plain and gzipped: the same judgments,
    # or the same error, or None exactly where the file's fast path hands over too
    for data in (text.encode(), gzip.compress(text.encode())):
        try:
            held = read_qrels_bytes(data, str(path))
        except FormatError as exc:
            assert (exc.path, exc.line, exc.message) == slow_error
            continue
        if held is None:
            assert parse_judgments(path, "qrels") is None
        else:
            assert slow_error is None
            same_qrels(held, slow)


@SETTINGS
@given(rows=lines(5))
def test_prels_read_the_same_either_way(tmp_path: Path, rows: list[str]) -> None:
    path = tmp_path / "p.txt"
    path.write_text("\n".join(rows) + "\n")
    fast, fast_error = outcome(read_prel, path)
    slow, slow_error = outcome(lambda p: strict(read_prel, p), path)
    assert fast_error == slow_error
    if slow is not None:
        same_qrels(fast.qrels, slow.qrels)
        assert fast.strata.tolist() == slow.strata.tolist()


def test_plain_judgments_take_the_fast_path(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("401 0 doc-b 2\n401 0 doc-a 0\n402 0 doc-a -1\n")
    cols = parse_judgments(path, "qrels")
    assert cols is not None
    assert cols["docno"].tolist() == [b"doc-b", b"doc-a", b"doc-a"]
    assert cols["rel"].tolist() == [2, 0, -1] and cols["line"].tolist() == [1, 2, 3]
    # a grade the strict tokenizer refuses as out of range is left to it, to word the error
    path.write_text("401 0 doc-b 9999999999999999999\n")
    assert parse_judgments(path, "qrels") is None
    with pytest.raises(FormatError, match="out of range"):
        read_qrels(path)
