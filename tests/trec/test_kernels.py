"""The compiled kernels (trec/_kernels.c) equal their numpy reference implementations, bit for bit.

* ``read_plain_run`` = the strict tokenizer + :func:`trec.runs.run_from_arrays` on every file it
  accepts, and it hands over (None) every file it must not read: the strict path then words the
  error with its line;
* ``HashJoin`` = :class:`engine.evaluate.JoinIndex` (rows and grades), even when every hash
  collides;
* ``hash_strings`` = :func:`trec.order.hash_strings`;
* whole evaluations are identical with the kernels on and off (``WORKBENCH_KERNELS=0``).
"""

from __future__ import annotations

import random
import struct
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trec.runs
from engine.evaluate import Judgments, evaluate_run
from engine.measures.base import NONPOOL, UNJUDGED, EvalOptions
from engine.names import parse_measures
from tests.conftest import kernels_or_skip
from trec import FormatError, kernels, read_run
from trec.order import hash_strings
from trec.qrels import qrels_from_arrays
from trec.runs import RankedRun


@pytest.fixture(autouse=True)
def _kernels_built() -> None:
    kernels_or_skip()  # a skip on a machine without a compiler; under CI a failure


def strict(path: Path) -> RankedRun:
    with mock.patch.object(trec.runs, "read_run_fast", return_value=None):
        return read_run(path, "r")


def kernel(path: Path) -> RankedRun | None:
    return trec.runs._read_run_kernel(path, "r")


def assert_same(a: RankedRun, b: RankedRun) -> None:
    assert a.topics == b.topics
    assert a.offsets.tolist() == b.offsets.tolist()
    assert a.docnos.dtype == b.docnos.dtype
    assert a.docnos.tolist() == b.docnos.tolist()
    assert a.scores.tobytes() == b.scores.tobytes()  # bit for bit, -0.0 included
    assert a.docno_hashes is not None and b.docno_hashes is not None
    assert a.docno_hashes.tolist() == b.docno_hashes.tolist()
    assert (a.tag, a.runid, a.name) == (b.tag, b.runid, b.name)


def check(path: Path, *, must_take: bool = True) -> RankedRun | None:
    """The kernel's run equals the strict path's; ``must_take``: the kernel must answer."""
    got = kernel(path)
    if must_take:
        assert got is not None, path.read_bytes()[:200]
    if got is not None:
        assert_same(got, strict(path))
    return got


# ------------------------------------------------------------------------------ scores


EXACT = ["1", "0", "-0", "-0.0", "+1.5", ".5", "5.", "007", "108.024753", "-3.25", "1234567.1234567"]
GENERAL = [
    "1e5",
    "1E-3",
    "-2.5e+10",
    "12345678",
    "12345678.5",
    "0.123456789",
    "9007199254740993",
    "123456789012345678901234567890",
    "0.000000000000000000000000000001",
    "4.9e-324",
    "1.7976931348623157e308",
    "00000000000000000000000001.5",
    "3.141592653589793238462643383279",
]
REFUSED = ["nan", "inf", "-inf", "0x10", "1e999", "1.5.5", "--1", "+", ".", "e5", "1e", "1e+", "1,5", "½"]


@pytest.mark.parametrize("score", EXACT + GENERAL)
def test_every_score_the_strict_path_reads_is_read_to_the_same_double(tmp_path: Path, score: str) -> None:
    path = tmp_path / "r.run"
    # the score once far from the end of the buffer and once as its last field
    path.write_text(
        f"1 Q0 a 1 {score} t\n" + "".join(f"1 Q0 d{i} 2 0 t\n" for i in range(5)) + f"2 Q0 z 1 {score} t\n"
    )
    run = check(path)
    assert run is not None and run.scores[run.topic_slice("2")][0] == float(score)


@pytest.mark.parametrize("score", REFUSED)
def test_a_score_the_strict_path_refuses_is_handed_over_and_worded_there(tmp_path: Path, score: str) -> None:
    path = tmp_path / "r.run"
    path.write_text(f"1 Q0 a 1 1.0 t\n1 Q0 b 2 {score} t\n")
    assert kernel(path) is None
    with pytest.raises(FormatError) as err:
        read_run(path)
    assert err.value.line == 2


DECIMALS = st.builds(
    lambda sign, whole, frac, exp: f"{sign}{whole}{frac}{exp}",
    st.sampled_from(["", "-", "+"]),
    st.text("0123456789", min_size=0, max_size=12),
    st.one_of(st.just(""), st.text("0123456789", min_size=0, max_size=12).map(lambda f: "." + f)),
    st.one_of(st.just(""), st.integers(-330, 330).map(lambda e: f"e{e}")),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(score=DECIMALS)
def test_decimals_read_as_float_reads_them_or_go_to_the_strict_path(tmp_path: Path, score: str) -> None:
    path = tmp_path / "r.run"
    path.write_text(f"7 Q0 doc 1 {score} tag\n" * 1 + "7 Q0 other 2 0 tag\n")
    try:
        value = float(score)
        ok = value == value and abs(value) != float("inf")
    except ValueError:
        ok = False
    got = kernel(path)
    if not ok:
        assert got is None
        return
    assert got is not None
    i = got.docnos.tolist().index(b"doc")
    assert struct.pack("<d", got.scores[i]) == struct.pack("<d", value)


# ------------------------------------------------------------------------------ layouts


def random_run(rng: random.Random, topics: int, per_topic: int, *, ties: bool, shuffle: bool) -> str:
    lines = []
    for t in range(topics):
        qid = str(rng.choice([1, 51, 401, 1000, 7, 12]) * 1000 + t)
        docs = rng.sample(range(10**6), per_topic)
        for r, d in enumerate(docs):
            score = rng.choice([1.0, 2.0, 0.5]) if ties else rng.uniform(-100, 100)
            width = rng.choice([1, 3, 8, 12, 17, 30])
            lines.append(f"{qid} Q0 D{d:0{width}d} {r + 1} {score!r} tag{t % 3}\n")
    if shuffle:
        rng.shuffle(lines)
    return "".join(lines)


@pytest.mark.parametrize(
    ("topics", "per_topic", "ties", "shuffle"),
    [
        (1, 1, False, False),
        (3, 5, True, False),
        (50, 40, False, False),
        (200, 3, False, True),  # many topics, interleaved: the topic table grows
        (2, 3000, True, True),  # long topics sorted by the merge sort, ties by docno descending
        (20, 700, False, True),
    ],
)
def test_random_runs_read_the_same_as_the_strict_path(
    tmp_path: Path, topics: int, per_topic: int, ties: bool, shuffle: bool
) -> None:
    rng = random.Random(topics * 7919 + per_topic)
    path = tmp_path / "r.run"
    path.write_text(random_run(rng, topics, per_topic, ties=ties, shuffle=shuffle))
    check(path)


@pytest.mark.parametrize("shift", range(0, 70, 3))
def test_separators_on_every_side_of_the_64_byte_blocks(tmp_path: Path, shift: int) -> None:
    """The kernel finds separators 64 bytes at a time: fields, empty fields and line ends
    falling on each side of a block boundary are all seen."""
    pad = "x" * shift
    good = f"1 Q0 {pad}a 1 1.5 t\n" * 1 + "".join(f"1 Q0 {pad}b{i} 2 1.25 t\n" for i in range(4))
    path = tmp_path / "r.run"
    path.write_text(good)
    check(path)
    # an empty field in place of the rank: still six separators on the line
    for bad in (good.replace(" 2 1.25 ", "  1.25 ", 1 + shift % 3), good.replace(" Q0 ", "  ", 1)):
        path.write_text(bad)
        assert kernel(path) is None


@pytest.mark.parametrize(
    "text",
    [
        "1 Q0 a 1 1.0 t",  # no newline at the end
        "1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0\n",  # five fields
        "1 Q0  a 1.0 t\n",  # an empty docno: six separators, six fields, one empty
        "1 Q0 a 1 1.0 t extra\n",  # seven fields (the strict path reads them; the kernel hands over)
        "1 Q0 a 1 1.0 t\n\n",  # blank line
        "1\tQ0 a 1 1.0 t\n",  # tab
        "1 Q0 a 1 1.0 t\r\n",  # carriage return
        " 1 Q0 a 1 1.0 t\n",  # leading space
        "# comment\n1 Q0 a 1 1.0 t\n",
        "1 Q0 a#b 1 1.0 t\n",
        "1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5 t\n1 Q0 a 3 0.2 t\n",  # a duplicate docno
        "",
    ],
)
def test_anything_else_is_handed_over(tmp_path: Path, text: str) -> None:
    path = tmp_path / "r.run"
    path.write_text(text)
    assert kernel(path) is None


def test_a_duplicate_far_apart_is_reported_by_the_strict_path_with_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "dup.run"
    body = "".join(f"5 Q0 d{i} {i + 1} {100 - i} t\n" for i in range(50))
    path.write_text(body + "6 Q0 d1 1 1 t\n" + "5 Q0 d7 51 0.5 t\n")
    assert kernel(path) is None
    with pytest.raises(
        FormatError, match=r"dup.run:52: duplicate docno 'd7' in topic '5' \(first on line 8\)"
    ):
        read_run(path)


def test_non_ascii_docnos_and_topics(tmp_path: Path) -> None:
    path = tmp_path / "r.run"
    path.write_text("ä Q0 dé 1 2 t\nä Q0 d€ 2 2 t\nb Q0 ß 1 1 u\n", encoding="utf-8")
    run = check(path)
    assert run is not None and run.topics == ("b", "ä")


def test_the_kernel_is_switched_off_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_KERNELS", "0")
    assert not kernels.enabled()
    monkeypatch.setenv("WORKBENCH_KERNELS", "1")
    assert kernels.enabled()


# ------------------------------------------------------------------------------ hashes and joins


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(st.binary(min_size=1, max_size=40).filter(lambda b: not b.endswith(b"\0")), max_size=30)
)
def test_hash_strings_equals_numpys(values: list[bytes]) -> None:
    arr = np.array(values, dtype="S") if values else np.zeros(0, dtype="S1")
    assert kernels.hash_strings(arr).tolist() == hash_strings(arr).tolist()


def random_qrels(
    rng: np.random.Generator, topics: int, per_topic: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    qids, docnos, rels = [], [], []
    for t in range(topics):
        n = int(rng.integers(0, per_topic + 1))
        for d in rng.choice(3 * per_topic + 1, size=n, replace=False).tolist():
            qids.append(f"q{t}".encode())
            docnos.append(f"doc-{d}".encode() + b"x" * (d % 9))
            rels.append(int(rng.integers(-1, 4)))
    return np.array(qids, dtype="S"), np.array(docnos, dtype="S"), np.array(rels, dtype=np.int64)


@pytest.mark.parametrize("collide", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_the_hash_join_equals_the_sorted_index(seed: int, collide: bool) -> None:
    rng = np.random.default_rng(seed)
    qids, docnos, rels = random_qrels(rng, 12, 60)
    judgments = Judgments(qrels_from_arrays(qids, docnos, rels))
    q = judgments.qrels
    # queries: judged and unjudged docnos, some wider than any judged one, topics -1 included
    n = 2000
    topic_index = rng.integers(-1, len(q.topics), size=n)
    topic_index.sort()
    qd = np.array(
        [
            f"doc-{d}".encode() + b"x" * (d % 9) + (b"yy" if d % 17 == 0 else b"")
            for d in rng.integers(0, 181, n)
        ],
        dtype="S",
    )
    qh = hash_strings(qd)
    expected_rows = np.full(n, -1, dtype=np.int64)
    index = judgments._join_index
    assert index is not None
    pos = index.find(topic_index, qd, qh)
    expected_rows = index.row_of(pos)
    expected_grades = index.grades(pos)
    hashes = judgments._qrels_hashes
    if collide:  # every judgment and every query shares one hash: the docnos alone decide
        hashes = np.full(len(hashes), 12345, dtype=np.uint64)
        qh = np.full(n, 12345, dtype=np.uint64)
    join = kernels.HashJoin(q.offsets, hashes, q.docnos, q.rels)
    rows, grades = join.find(topic_index, qd, qh, NONPOOL, UNJUDGED)
    assert rows.tolist() == expected_rows.tolist()
    assert grades.tolist() == expected_grades.tolist()
    assert (rows >= 0).any() and (rows < 0).any()


# ------------------------------------------------------------------------------ whole evaluations

MEASURES = [
    "map",
    "bpref",
    "infAP",
    "ndcg",
    "P.10",
    "recip_rank",
    "Rprec",
    "ndcg_cut.10",
    "num_rel_ret",
    "recall.100",
]


def test_evaluations_are_identical_with_the_kernels_on_and_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(5)
    paths = []
    for r in range(4):
        path = tmp_path / f"run{r}.run"
        path.write_text(random_run(rng, 8, 120, ties=r % 2 == 0, shuffle=r == 3))
        paths.append(path)
    pooled = [
        (t, d)
        for p in paths
        for (t, d) in {(ln.split()[0], ln.split()[2]) for ln in p.read_text().splitlines()}
    ]
    pooled = sorted(set(pooled))[::3]
    qids = np.array([t.encode() for t, _ in pooled], dtype="S")
    docnos = np.array([d.encode() for _, d in pooled], dtype="S")
    rels = np.array([rng.choice([-1, 0, 0, 1, 2]) for _ in pooled], dtype=np.int64)
    measures = parse_measures(MEASURES)
    results = {}
    for mode in ("1", "0"):
        monkeypatch.setenv("WORKBENCH_KERNELS", mode)
        judgments = Judgments(qrels_from_arrays(qids, docnos, rels))
        for options in (EvalOptions(), EvalOptions(max_docs=50, judged_only=True, complete=True)):
            for p in paths:
                res = evaluate_run(judgments, read_run(p), measures, options)
                results[(mode, p.name, options.max_docs)] = {
                    k: v.tobytes() for k, v in res.per_topic.items()
                } | {"all": repr(res.summary)}
            reduced = judgments.without(np.arange(0, len(pooled), 4))
            res = evaluate_run(reduced, read_run(paths[0]), measures)
            results[(mode, "reduced", None)] = {k: v.tobytes() for k, v in res.per_topic.items()}
    on = {k[1:]: v for k, v in results.items() if k[0] == "1"}
    off = {k[1:]: v for k, v in results.items() if k[0] == "0"}
    assert on == off
    assert len(on) == 9


@pytest.mark.parametrize("shift", range(0, 70, 5))
def test_judgments_on_every_side_of_the_64_byte_blocks(tmp_path: Path, shift: int) -> None:
    from trec.arrow_runs import parse_judgments

    pad = "y" * shift
    good = "".join(f"40{i % 3} 0 {pad}doc{i} {i % 4 - 1}\n" for i in range(9))
    path = tmp_path / "q.txt"
    path.write_text(good)
    cols = parse_judgments(path, "qrels")
    assert cols is not None
    assert cols["docno"].tolist() == [f"{pad}doc{i}".encode() for i in range(9)]
    assert cols["rel"].tolist() == [i % 4 - 1 for i in range(9)]
    assert cols["qid"].tolist() == [f"40{i % 3}".encode() for i in range(9)]
    for bad in (good.replace(" 0 ", "  ", 1 + shift % 4), good.replace("\n", " \n", 1), good[:-1]):
        path.write_text(bad)
        assert parse_judgments(path, "qrels") is None
