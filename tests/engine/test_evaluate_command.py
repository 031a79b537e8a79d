"""``manage.py evaluate``: trec_eval's interface and output, with no database."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

QRELS = """\
1 0 a 1
1 0 b 0
1 0 c 2
2 0 x 1
3 0 z 1
"""
RUN_A = """\
1 Q0 a 1 3.0 tagA
1 Q0 b 2 2.0 tagA
1 Q0 c 3 1.0 tagA
2 Q0 y 1 1.0 tagA
2 Q0 x 2 0.5 tagA
"""


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "runs").mkdir()
    paths = {
        "qrels": tmp_path / "qrels.txt",
        "a": tmp_path / "runs" / "sysA.run",
        "b": tmp_path / "runs" / "sysB.run",
    }
    paths["qrels"].write_text(QRELS)
    paths["a"].write_text(RUN_A)
    paths["b"].write_text(
        RUN_A.replace("3.0", "0.1").replace("tagA", "tagA")
    )  # same tag: names come from files
    return paths


def _values(out: str) -> dict[str, str]:
    """measure -> value of 'measure<TAB>topic<TAB>value' lines."""
    return {name: value for name, _, value in (line.split("\t") for line in out.splitlines())}


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("evaluate", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_single_run_prints_measure_topic_value_lines(files: dict[str, Path]) -> None:
    out, err = run("-q", "-m", "map", "-m", "P.2", str(files["qrels"]), str(files["a"]))
    lines = [line.split("\t") for line in out.splitlines()]
    # topic 1: rel at ranks 1 and 3 (R=2): AP = (1/1 + 2/3)/2; topic 2: rel at rank 2 (R=1): AP = 1/2
    assert ["map", "1", f"{(1 + 2 / 3) / 2:.4f}"] in lines
    assert ["map", "2", "0.5000"] in lines
    assert ["map", "all", f"{((1 + 2 / 3) / 2 + 0.5) / 2:.4f}"] in lines
    assert ["P_2", "1", "0.5000"] in lines
    # topic 3 has no results: skipped with a warning on stderr (trec_eval 9 behaviour)
    assert not any(line[1] == "3" for line in lines)
    assert "no results for 1 qrels topic(s): 3" in err


def test_complete_flag_counts_missing_topics_as_zero(files: dict[str, Path]) -> None:
    out, _ = run("-c", "-m", "map", "-m", "num_q", str(files["qrels"]), str(files["a"]))
    values = _values(out)
    assert values["num_q"] == "3"
    assert values["map"] == f"{((1 + 2 / 3) / 2 + 0.5 + 0) / 3:.4f}"


def test_several_runs_get_a_run_column_named_after_the_file(files: dict[str, Path]) -> None:
    out, _ = run("-m", "map", str(files["qrels"]), str(files["a"]), str(files["b"]))
    first_cols = [line.split("\t")[0] for line in out.splitlines()]
    assert first_cols == ["sysA", "sysB"]


def test_num_measures_sum_and_print_as_integers(files: dict[str, Path]) -> None:
    out, _ = run("-m", "num_ret", "-m", "num_rel", "-m", "num_rel_ret", str(files["qrels"]), str(files["a"]))
    values = _values(out)
    assert values == {"num_ret": "5", "num_rel": str(2 + 1), "num_rel_ret": "3"}


def test_json_and_csv_formats(files: dict[str, Path]) -> None:
    out, _ = run("--format", "json", "-q", "-m", "map", str(files["qrels"]), str(files["a"]))
    doc = json.loads(out)
    assert doc["runs"][0]["run"] == "sysA"
    assert doc["runs"][0]["per_topic"]["2"]["map"] == pytest.approx(0.5)
    assert doc["runs"][0]["missing_topics"] == ["3"]
    out, _ = run("--format", "csv", "-m", "P.1", str(files["qrels"]), str(files["a"]))
    assert out.splitlines() == ["run,measure,topic,value", "sysA,P_1,all,0.5000"]


def test_digits_and_trec_eval_layout(files: dict[str, Path]) -> None:
    out, _ = run("--digits", "6", "--trec-eval-layout", "-m", "map", str(files["qrels"]), str(files["a"]))
    assert out == f"{'map':<22}\tall\t{((1 + 2 / 3) / 2 + 0.5) / 2:.6f}\n"


def test_ir_measures_names(files: dict[str, Path]) -> None:
    out, _ = run("-m", "P(rel=2)@3", "-m", "AP", str(files["qrels"]), str(files["a"]))
    values = _values(out)
    # rel=2: only 'c' (rank 3) in topic 1 counts -> 1/3; topic 2 has none -> 0
    assert values["P(rel=2)@3"] == f"{(1 / 3 + 0) / 2:.4f}"
    assert values["AP"] == f"{((1 + 2 / 3) / 2 + 0.5) / 2:.4f}"


def test_bad_run_file_exits_2_naming_file_and_line(files: dict[str, Path]) -> None:
    files["a"].write_text(RUN_A + "2 Q0 w 3 high tagA\n")
    with pytest.raises(CommandError) as info:
        run("-m", "map", str(files["qrels"]), str(files["a"]))
    assert info.value.returncode == 2
    assert str(info.value).startswith(f"{files['a']}:6: ")
    assert "'high'" in str(info.value)


def test_unknown_measure_exits_2(files: dict[str, Path]) -> None:
    with pytest.raises(CommandError) as info:
        run("-m", "mapp", str(files["qrels"]), str(files["a"]))
    assert info.value.returncode == 2
    assert "unknown measure 'mapp'" in str(info.value)


def test_missing_file_exits_2(tmp_path: Path, files: dict[str, Path]) -> None:
    with pytest.raises(CommandError) as info:
        run(str(tmp_path / "nope.qrels"), str(files["a"]))
    assert info.value.returncode == 2
    assert "nope.qrels" in str(info.value)


def test_command_line_entry_point_prints_no_traceback(files: dict[str, Path]) -> None:
    import subprocess
    import sys

    files["a"].write_text("1 Q0 a 1\n")
    proc = subprocess.run(
        [sys.executable, "manage.py", "evaluate", str(files["qrels"]), str(files["a"])],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        env={"PATH": "/usr/bin:/bin", "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"},
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert f"{files['a']}:1: expected 6 columns" in proc.stderr


def test_fast_path_and_django_path_print_the_same(files: dict[str, Path]) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    outputs = []
    for pure in ("1", "0"):
        proc = subprocess.run(
            [
                sys.executable,
                "manage.py",
                "evaluate",
                "-q",
                "-m",
                "all_trec",
                str(files["qrels"]),
                str(files["a"]),
            ],
            capture_output=True,
            text=True,
            cwd=root,
            env={"PATH": "/usr/bin:/bin", "WORKBENCH_PURE_CLI": pure},
        )
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]
    assert "map\tall\t" in outputs[0]


def test_runs_with_the_same_file_name_are_told_apart_by_folder(
    files: dict[str, Path], tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "sysA.run").write_text(RUN_A)
    out, _ = run("-m", "map", str(files["qrels"]), str(files["a"]), str(other / "sysA.run"))
    assert [line.split("\t")[0] for line in out.splitlines()] == ["runs/sysA", "other/sysA"]


OTHER_TOPICS_RUN = """\
401 Q0 a 1 3.0 tagX
402 Q0 x 1 1.0 tagX
"""


@pytest.mark.parametrize("flags", [(), ("-c",)])
def test_run_sharing_no_topic_with_the_qrels_exits_2_naming_both_sides(
    files: dict[str, Path], flags: tuple[str, ...]
) -> None:
    # trec_eval: "No queries with both results and relevance info", exit 7 (with -c too)
    files["a"].write_text(OTHER_TOPICS_RUN)
    with pytest.raises(CommandError) as info:
        run(*flags, "-m", "map", str(files["qrels"]), str(files["a"]))
    assert info.value.returncode == 2
    message = str(info.value)
    assert "no topic in common" in message
    assert "run topics 401, 402" in message
    assert "judgments topics 1, 2, 3" in message
    assert "\n" not in message


def test_command_line_refuses_a_run_with_no_common_topic(files: dict[str, Path]) -> None:
    import subprocess
    import sys

    files["a"].write_text(OTHER_TOPICS_RUN)
    proc = subprocess.run(
        [sys.executable, "manage.py", "evaluate", "-m", "map", str(files["qrels"]), str(files["a"])],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        env={"PATH": "/usr/bin:/bin", "WORKBENCH_PURE_CLI": "1"},
    )
    assert proc.returncode == 2
    assert "map\tall" not in proc.stdout
    assert "no topic in common" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_run_sharing_one_topic_still_evaluates(files: dict[str, Path]) -> None:
    files["a"].write_text(OTHER_TOPICS_RUN + "2 Q0 x 1 1.0 tagX\n")
    out, err = run("-m", "map", str(files["qrels"]), str(files["a"]))
    assert _values(out)["map"] == "1.0000"  # topic 2 alone: its one relevant document at rank 1
    assert "no results for 2 qrels topic(s): 1, 3" in err


@pytest.mark.parametrize(
    ("negative_first", "grades"), [(False, (-1, -1)), (True, (-1, -1)), (False, (-2, -5)), (True, (-3, -1))]
)
def test_a_topic_whose_grades_are_all_negative_is_a_topic_with_nothing_judged(
    tmp_path: Path, negative_first: bool, grades: tuple[int, int]
) -> None:
    # trec_eval evaluates such a topic only when it is not the first one and its highest grade is
    # -1 (tests/data/trec_eval/extra/out.all_negative); first it exits 4, below -1 it crashes.
    # Here every variant gives what trec_eval prints in the case it survives.
    judged = "0 0 a 1\n0 0 b 0\n"
    negative = f"1 0 a {grades[0]}\n1 0 b {grades[1]}\n"
    qrels = tmp_path / "qrels"
    qrels.write_text(negative + judged if negative_first else judged + negative)
    run_file = tmp_path / "r.run"
    run_file.write_text("0 Q0 a 1 3 t\n1 Q0 a 1 3 t\n1 Q0 c 2 2 t\n")
    measures = ["num_q", "num_rel", "map", "bpref", "relstring", "unj.5"]
    out, _ = run("-q", *(a for m in measures for a in ("-m", m)), str(qrels), str(run_file))
    lines = {(name, topic): value for name, topic, value in (line.split("\t") for line in out.splitlines())}
    assert lines[("num_q", "all")] == "2"  # counted, and in every mean
    assert lines[("num_rel", "1")] == "0" and lines[("map", "1")] == lines[("bpref", "1")] == "0.0000"
    assert lines[("relstring", "1")] == "'.-'"  # a pooled-unjudged, c unpooled
    assert lines[("unj_5", "1")] == "0.4000"
    assert lines[("map", "all")] == "0.5000"


@pytest.mark.parametrize(
    ("options", "qrels", "run_text", "where"),
    [
        # trec_eval checks a run's repeats among the top -M only: this one has a copy at rank 3
        (["-M2"], QRELS, "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n", "run.txt:3: duplicate docno 'a'"),
        # ... and only in topics it evaluates: 9 is not in the qrels
        ([], QRELS, "1 Q0 a 1 3 t\n9 Q0 z 1 3 t\n9 Q0 z 2 3 t\n", "run.txt:3: duplicate docno 'z'"),
        # trec_eval 9.0.8 never looks at a qrels topic the run lacks (3 here); -m num_q checks nothing
        (["-m", "num_q"], QRELS + "3 0 z 0\n", "1 Q0 a 1 3 t\n", "qrels.txt:6: duplicate docno 'z'"),
    ],
    ids=["below -M", "unjudged topic", "qrels topic the run lacks"],
)
def test_a_docno_twice_in_a_topic_is_refused_wherever_trec_eval_would_accept_it(
    tmp_path: Path, options: list[str], qrels: str, run_text: str, where: str
) -> None:
    (tmp_path / "qrels.txt").write_text(qrels)
    (tmp_path / "run.txt").write_text(run_text)
    with pytest.raises(CommandError) as info:
        run(*options, str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"))
    assert info.value.returncode == 2
    assert where in str(info.value)
