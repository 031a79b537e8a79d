"""``manage.py build_pool`` and ``simulate_pool``: files in, files and curves out, no database."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from pooling.cli import main
from trec import read_mq_prel, read_prel, read_qrels

# Topic 1: A = a b c d, B = b e a f; topic 2: A = x y, B = y z (scores by rank)
RUN_A = "1 Q0 a 1 4 A\n1 Q0 b 2 3 A\n1 Q0 c 3 2 A\n1 Q0 d 4 1 A\n2 Q0 x 1 2 A\n2 Q0 y 2 1 A\n"
RUN_B = "1 Q0 b 1 4 B\n1 Q0 e 2 3 B\n1 Q0 a 3 2 B\n1 Q0 f 4 1 B\n2 Q0 y 1 2 B\n2 Q0 z 2 1 B\n"
QRELS = "1 0 a 1\n1 0 b 0\n1 0 e 1\n1 0 f 2\n2 0 x 0\n2 0 y 1\n2 0 z 1\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {"a": tmp_path / "A.run", "b": tmp_path / "B.run", "qrels": tmp_path / "qrels.txt"}
    paths["a"].write_text(RUN_A)
    paths["b"].write_text(RUN_B)
    paths["qrels"].write_text(QRELS)
    return paths


def call(command: str, *args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(command, *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_build_pool_depth_writes_qrels_with_rel_minus_one(files: dict[str, Path], tmp_path: Path) -> None:
    output = tmp_path / "pool.qrels"
    out, _ = call(
        "build_pool",
        "--strategy",
        "depth",
        "--depth",
        "2",
        "--output",
        str(output),
        str(files["a"]),
        str(files["b"]),
    )
    # top 2: A {a, b}, B {b, e} -> {a, b, e}; topic 2: {x, y} and {y, z}
    assert read_qrels(output).as_dict() == {
        "1": {"a": -1, "b": -1, "e": -1},
        "2": {"x": -1, "y": -1, "z": -1},
    }
    assert "6 documents to judge over 2 topics" in out


def test_build_pool_take_a_total_budget(files: dict[str, Path], tmp_path: Path) -> None:
    output = tmp_path / "take.qrels"
    call(
        "build_pool",
        "--strategy",
        "take",
        "--total-budget",
        "3",
        "--output",
        str(output),
        str(files["a"]),
        str(files["b"]),
    )
    # level 1 (best rank 1): topic 1 a, b; topic 2 x, y -> round robin a, x, b
    assert read_qrels(output).as_dict() == {"1": {"a": -1, "b": -1}, "2": {"x": -1}}


def test_build_pool_stratified_prel_and_mq_prel(files: dict[str, Path], tmp_path: Path) -> None:
    prel_path, mq_path = tmp_path / "pool.prel", tmp_path / "pool.mq"
    common = ["--strategy", "stratified", "--strata", "1,4", "--rates", "1,0.5", "--seed", "3"]
    runs = [str(files["a"]), str(files["b"])]
    call(
        "build_pool",
        *common,
        "--format",
        "prel",
        "--output",
        str(prel_path),
        "--judgments",
        str(files["qrels"]),
        *runs,
    )
    call("build_pool", *common, "--format", "mq", "--output", str(mq_path), *runs)
    prel = read_prel(prel_path)
    # stratum 1 = best rank 1: a, b (topic 1), x, y (topic 2) all judged; stratum 2 = ranks 2-4:
    # c, d, e, f (topic 1) half sampled, z (topic 2) sampled as the one document of its stratum
    strata = dict(zip(prel.qrels.docnos.tolist(), prel.strata.tolist(), strict=True))
    assert {d for d, s in strata.items() if s == b"1"} == {b"a", b"b", b"x", b"y"}
    grades = prel.qrels.as_dict()
    assert grades["1"]["a"] == 1 and grades["1"]["b"] == 0  # sampled: grades from --judgments
    assert sum(grades["1"][d] == -1 for d in "cdef") == 2  # two of four unsampled
    mq = read_mq_prel(mq_path)
    probs = dict(zip(mq.qrels.docnos.tolist(), mq.iprobs.tolist(), strict=True))
    assert probs[b"a"] == 1.0 and probs[b"z"] == 1.0
    assert sorted(p for d, p in probs.items() if d in (b"c", b"d", b"e", b"f")) == [0.5, 0.5]


def drawn_in_prel(path: Path) -> set[tuple[str, str]]:
    """(topic, docno) of the lines whose iter column marks them drawn for judging."""
    rows = [line.split() for line in path.read_text().splitlines()]
    assert {r[1] for r in rows} <= {"0", "1"}
    return {(r[0], r[2]) for r in rows if r[1] == "1"}


def test_a_stratified_prel_written_before_judging_carries_the_draw(
    files: dict[str, Path], tmp_path: Path
) -> None:
    runs = [str(files["a"]), str(files["b"])]
    common = ["--strategy", "stratified", "--strata", "1,4", "--rates", "1,0.5"]
    draws = {}
    for seed in ("1", "2", "3", "4"):
        prel_path, qrels_path = tmp_path / f"{seed}.prel", tmp_path / f"{seed}.qrels"
        out, _ = call(
            "build_pool", *common, "--seed", seed, "--format", "prel", "--output", str(prel_path), *runs
        )
        call("build_pool", *common, "--seed", seed, "--output", str(qrels_path), *runs)
        # every document of the strata is listed, unjudged; the sample is the iter column's 1s
        prel = read_prel(prel_path)
        assert len(prel.qrels) == 9 and set(prel.qrels.rels.tolist()) == {-1}
        drawn = drawn_in_prel(prel_path)
        sample = read_qrels(qrels_path).as_dict()
        assert drawn == {(t, d) for t, docs in sample.items() for d in docs}  # the same draw
        assert "drawn for judging have 1 in its second (iter) column" in out
        draws[seed] = frozenset(drawn)
    # stratum 2 of topic 1 (c, d, e, f at rate 0.5) is a different pair for some seeds: so are the files
    assert len(set(draws.values())) > 1
    assert len({(tmp_path / f"{s}.prel").read_bytes() for s in draws}) == len(set(draws.values()))


def test_the_prel_built_from_judgments_evaluates_with_xinfap(files: dict[str, Path], tmp_path: Path) -> None:
    prel = tmp_path / "pool.prel"
    call(
        "build_pool",
        "--strategy",
        "uniform",
        "--depth",
        "4",
        "--rate",
        "1",
        "--format",
        "prel",
        "--judgments",
        str(files["qrels"]),
        "--output",
        str(prel),
        str(files["a"]),
        str(files["b"]),
    )
    out, _ = call("evaluate", "--prel", "-m", "xinfAP", str(prel), str(files["a"]))
    assert out.startswith("xinfAP")


def test_build_pool_adaptive_needs_judgments(files: dict[str, Path], tmp_path: Path) -> None:
    output = tmp_path / "mm.qrels"
    runs = [str(files["a"]), str(files["b"])]
    with pytest.raises(CommandError, match="--judgments") as info:
        call("build_pool", "--strategy", "maxmean", "--output", str(output), *runs)
    assert info.value.returncode == 2
    call(
        "build_pool",
        "--strategy",
        "maxmean",
        "--budget",
        "2",
        "--judgments",
        str(files["qrels"]),
        "--output",
        str(output),
        *runs,
    )
    judged = read_qrels(output).as_dict()
    assert {t: len(d) for t, d in judged.items()} == {"1": 2, "2": 2}


def test_simulate_pool_prints_relevant_found_per_topic_and_overall(files: dict[str, Path]) -> None:
    out, _ = call(
        "simulate_pool",
        "--qrels",
        str(files["qrels"]),
        "--strategy",
        "depth",
        "--depth",
        "4",
        "--order",
        "docno",
        "--budget",
        "3",
        "--step",
        "2",
        "--format",
        "csv",
        str(files["a"]),
        str(files["b"]),
    )
    rows = [line.split(",") for line in out.splitlines()]
    assert rows[0] == ["topic", "step", "judged", "relevant"]
    # topic 1 in docno order: a (R), b (N), c (unjudged = N): 1 after 2, 1 after 3;
    # topic 2: x (N), y (R), z (R): 1 after 2, 2 after 3
    assert rows[1:] == [
        ["1", "2", "2", "1"],
        ["1", "3", "3", "1"],
        ["2", "2", "2", "1"],
        ["2", "3", "3", "2"],
        ["all", "2", "4", "2"],
        ["all", "3", "6", "3"],
    ]


def test_simulate_pool_percentage_budget_and_json(files: dict[str, Path]) -> None:
    out, _ = call(
        "simulate_pool",
        "--qrels",
        str(files["qrels"]),
        "--strategy",
        "mtf",
        "--budget",
        "50%",
        "--format",
        "json",
        str(files["a"]),
        str(files["b"]),
    )
    doc = json.loads(out)
    # depth-100 pools: topic 1 {a, b, c, d, e, f} -> 3 judgments, topic 2 {x, y, z} -> 1.5 -> 2
    assert doc["judged"] == 5
    assert doc["strategy"] == "mtf"
    assert doc["relevant_total"] == 5
    finals = {p["topic"]: p["judged"] for p in doc["curve"] if p["topic"] != "all"}
    assert finals == {"1": 3, "2": 2}


def test_simulate_pool_text_summary(files: dict[str, Path]) -> None:
    out, _ = call(
        "simulate_pool",
        "--qrels",
        str(files["qrels"]),
        "--strategy",
        "hedge",
        "--budget",
        "9",
        str(files["a"]),
        str(files["b"]),
    )
    # every candidate judged (budget above the pools): all 5 relevant among them are found
    assert out.splitlines()[-1] == "# found 5 relevant in 9 judgments (100.0% of 5 relevant in the qrels)"


def test_a_bad_run_file_exits_2_naming_file_and_line(files: dict[str, Path], tmp_path: Path) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 a 1 4 A\n1 Q0 b 2 high A\n")
    output = str(tmp_path / "p.qrels")
    with pytest.raises(CommandError, match=rf"{bad}:2: expected a score") as info:
        call("build_pool", "--strategy", "depth", "--output", output, str(bad))
    assert info.value.returncode == 2
    # the Django-free entry point manage.py uses: exit code 2 and one line, no traceback
    out, err = io.StringIO(), io.StringIO()
    code = main(["--strategy", "depth", "--output", output, str(bad)], out, err, prog="manage.py build_pool")
    assert code == 2
    assert err.getvalue() == f"CommandError: {bad}:2: expected a score (a number), found 'high'\n"
    code = main(
        ["--qrels", str(bad), "--strategy", "depth", "--budget", "2", str(files["a"])],
        out,
        err,
        prog="manage.py simulate_pool",
    )
    assert code == 2


def test_bad_options_exit_2(files: dict[str, Path], tmp_path: Path) -> None:
    runs = [str(files["a"]), str(files["b"])]
    output = str(tmp_path / "p.qrels")
    for args in (
        ["--strategy", "rrf", "--output", output],  # no budget
        ["--strategy", "stratified", "--strata", "5,2", "--rates", "1,1", "--output", output],
        ["--strategy", "depth", "--run-depth", "nosuchrun=3", "--output", output],
        ["--strategy", "depth", "--run-depth", "A", "--output", output],
    ):
        with pytest.raises(CommandError) as info:
            call("build_pool", *args, *runs)
        assert info.value.returncode == 2
    with pytest.raises(CommandError, match="--budget"):
        call("simulate_pool", "--qrels", str(files["qrels"]), "--strategy", "mtf", "--budget", "lots", *runs)


def test_runs_per_group_pools_only_each_groups_first_runs(files: dict[str, Path], tmp_path: Path) -> None:
    groups = tmp_path / "groups.tsv"
    groups.write_text("# run group priority\nA team1 2\nB team1 1\n")
    output = tmp_path / "p.qrels"
    call(
        "build_pool",
        "--strategy",
        "depth",
        "--depth",
        "1",
        "--groups",
        str(groups),
        "--runs-per-group",
        "1",
        "--output",
        str(output),
        str(files["a"]),
        str(files["b"]),
    )
    # B has priority 1: its top documents only
    assert read_qrels(output).as_dict() == {"1": {"b": -1}, "2": {"y": -1}}


def test_simulate_pool_warns_about_topics_without_judgments(files: dict[str, Path], tmp_path: Path) -> None:
    extra = tmp_path / "C.run"
    extra.write_text("3 Q0 q 1 1 C\n")
    out, err = call(
        "simulate_pool",
        "--qrels",
        str(files["qrels"]),
        "--strategy",
        "maxmean",
        "--budget",
        "1",
        "--format",
        "csv",
        str(files["a"]),
        str(extra),
    )
    assert "1 topic(s) of the runs have no judgments and were skipped: 3" in err
    assert {line.split(",")[0] for line in out.splitlines()[1:]} == {"1", "2", "all"}


def test_a_bad_groups_file_or_depth_exits_2(files: dict[str, Path], tmp_path: Path) -> None:
    groups = tmp_path / "groups.tsv"
    groups.write_text("A team1\nB team1 first\n")
    runs = [str(files["a"]), str(files["b"])]
    output = str(tmp_path / "p.qrels")
    with pytest.raises(CommandError, match=rf"{groups}:2: expected 'run group \[priority\]'") as info:
        call(
            "build_pool",
            "--strategy",
            "depth",
            "--groups",
            str(groups),
            "--runs-per-group",
            "1",
            "--output",
            output,
            *runs,
        )
    assert info.value.returncode == 2
    for args in (["--depth", "-3"], ["--run-depth", "A=-1"]):
        with pytest.raises(CommandError, match="0 or more") as info:
            call("build_pool", "--strategy", "depth", *args, "--output", output, *runs)
        assert info.value.returncode == 2


@pytest.mark.parametrize("pure", ["1", "0"])
def test_manage_py_exits_2_with_one_line_on_a_bad_file(tmp_path: Path, pure: str) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 a 1 4 A\n1 Q0 a 2 3 A\n")
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "build_pool",
            "--strategy",
            "depth",
            "--output",
            str(tmp_path / "p"),
            str(bad),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "WORKBENCH_PURE_CLI": pure},
    )
    # the fast path (pure = 1) and Django's own command runner (0) behave the same
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"CommandError: {bad}:2: duplicate docno 'a' in topic '1' (first on line 1): "
        "a document may appear once per topic"
    ]
