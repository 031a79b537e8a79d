"""The pooling reader (pooling.fastread) gives what the general path gives, bit for bit, through
the compiled reader and through pyarrow's.

``read_top(path, k)`` must hold exactly ``truncate(read_run(path), k)``, ties at the cut
included, and hand over (None) any file it does not read the same way; the depth-k pool built
from those tops must equal :func:`pooling.strategies.depth_pool` of the whole runs, judging order
included; and ``build_pool`` writes the same file whichever path it takes.
"""

from __future__ import annotations

import io
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pooling import cli, fastread
from pooling.strategies import depth_pool, truncate
from tests.trec.test_arrow_runs import run_lines, write
from trec import read_run
from trec.arrow_runs import preload

pytest.importorskip("pyarrow")
preload()
pytestmark = pytest.mark.usefixtures("fast_path")  # the compiled reader, then pyarrow's

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
DEPTHS = st.sampled_from([None, 0, 1, 2, 3, 10])


def assert_top_equals(top: fastread.TopRun, path: Path, depth: int | None) -> None:
    run = truncate(read_run(path, top.name), depth)
    assert top.topics == run.topics
    assert top.offsets.tolist() == run.offsets.tolist()
    assert top.docnos.tolist() == run.docnos.tolist()
    assert top.scores.tobytes() == run.scores.tobytes()
    assert (top.tag, top.runid) == (run.tag, run.runid)


@SETTINGS
@given(lines=run_lines(), depth=DEPTHS)
def test_plain_files_give_the_truncated_run(tmp_path: Path, lines: list, depth: int | None) -> None:
    path = write(tmp_path / "r.run", lines)
    top = fastread.read_top(str(path), depth, "r")
    assert top is not None  # a plain file must take the fast path, or its speed is lost unseen
    assert_top_equals(top, path, depth)


@SETTINGS
@given(
    lines=run_lines(),
    depth=DEPTHS,
    layout=st.sampled_from(["tabs", "two spaces", "crlf", "comment", "blank", "trailing"]),
)
def test_other_layouts_match_or_hand_over(
    tmp_path: Path, lines: list, depth: int | None, layout: str
) -> None:
    sep = {"tabs": "\t", "two spaces": "  "}.get(layout, " ")
    end = "\r\n" if layout == "crlf" else "\n"
    path = write(tmp_path / "r.run", lines, sep, end)
    text = path.read_bytes().decode()  # read_text() would turn the CRLFs into newlines
    if layout == "comment":
        text = "# six fields in a comment x\n" + text
    elif layout == "blank":
        text = text.replace("\n", "\n\n", 1)
    elif layout == "trailing":
        text = text.replace("\n", " \n")
    path.write_bytes(text.encode())
    # read_run reads these too (trec_eval's tokenizer), with the line of any error: they are its
    assert fastread.read_top(str(path), depth, "r") is None


def test_ties_at_the_cut_are_broken_as_the_canonical_order_breaks_them(tmp_path: Path) -> None:
    path = tmp_path / "t.run"
    # three documents tie at the cut (depth 2): canonical order puts docnos in descending byte order
    path.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n1 Q0 d 3 1.0 t\n1 Q0 c 4 1.0 t\n2 Q0 z 1 5.0 t\n")
    top = fastread.read_top(str(path), 2, "t")
    assert top is not None
    assert top.docnos.tolist() == [b"a", b"d", b"z"]
    assert_top_equals(top, path, 2)


def test_a_duplicate_or_a_bad_line_is_left_to_read_run(tmp_path: Path) -> None:
    dup = tmp_path / "dup.run"
    dup.write_text("1 Q0 a 1 2.0 t\n1 Q0 a 2 1.0 t\n")
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 high t\n")
    assert fastread.read_top(str(dup), 5, "dup") is None
    assert fastread.read_top(str(bad), 5, "bad") is None


@st.composite
def run_sets(draw: st.DrawFn) -> list[list[tuple[str, str, str, str]]]:
    docs = [f"D{i}" for i in range(12)]
    runs = []
    for _ in range(draw(st.integers(1, 5))):
        lines = []
        for q in ("1", "2", "10"):
            chosen = draw(st.lists(st.sampled_from(docs), unique=True, max_size=8))
            for d in chosen:
                lines.append((q, d, str(draw(st.integers(0, 4))), "t"))
        runs.append(lines or [("1", "D0", "1", "t")])
    return runs


@SETTINGS
@given(runs=run_sets(), depth=st.integers(0, 6), order=st.sampled_from(["rank", "docno"]))
def test_the_depth_pool_from_tops_equals_depth_pool(
    tmp_path: Path, runs: list, depth: int, order: str
) -> None:
    paths = [write(tmp_path / f"r{i}.run", lines) for i, lines in enumerate(runs)]
    tops = [fastread.read_top(str(p), depth, p.stem) for p in paths]
    assert all(t is not None for t in tops)
    built = fastread.depth_pool_from_tops(tops, depth, order=order)  # type: ignore[arg-type]
    expected = depth_pool([read_run(p, p.stem) for p in paths], depth, order=order)  # type: ignore[arg-type]
    assert built is not None
    got = built.pool
    assert got.topics == expected.topics
    assert got.offsets.tolist() == expected.offsets.tolist()
    assert got.docnos.tolist() == expected.docnos.tolist()  # judging order included
    assert got.sampled.tolist() == expected.sampled.tolist()
    for i in range(len(got.topics)):
        a, b = int(got.offsets[i]), int(got.offsets[i + 1])
        assert sorted(built.by_docno[a:b].tolist()) == built.by_docno[a:b].tolist()
        assert set(built.by_docno[a:b].tolist()) == set(got.docnos[a:b].tolist())


def test_build_pool_writes_the_same_file_on_either_path(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    paths = []
    for r in range(4):
        lines = []
        for q in ("3", "12", "7"):
            docs = rng.choice(200, size=60, replace=False)
            scores = np.sort(rng.integers(0, 30, size=60))[::-1]  # many ties
            lines += [(q, f"D{d}", f"{s / 10:.1f}", f"run{r}") for d, s in zip(docs, scores, strict=True)]
        paths.append(str(write(tmp_path / f"run{r}.txt", lines)))

    def build(out: Path) -> str:
        argv = ["--strategy", "depth", "--depth", "20", "--output", str(out), "--progress", "off", *paths]
        assert cli.main(argv, io.StringIO(), io.StringIO()) == 0
        return out.read_text()

    fast = build(tmp_path / "fast.qrels")
    with mock.patch.object(cli, "available", return_value=False):
        general = build(tmp_path / "general.qrels")
    assert fast == general
    assert fast.count("\n") > 60
