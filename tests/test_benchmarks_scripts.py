"""The benchmark scripts' plumbing: speed.py's table from summary rows, bench_evaluate's workload.

Nothing is timed or compared for speed here (the machine is shared): these tests check that the
one-table report says what the rows say, that failing or missing scripts become notes, and that
bench_evaluate's generator and value checks work on a tiny workload.
"""

from __future__ import annotations

import datetime
import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import bench_evaluate  # noqa: E402
import speed  # noqa: E402

ROWS = [
    {
        "what": "default workload: evaluate 5 measures",
        "load": "idle",
        "ours": "workbench evaluate",
        "ours_s": 1.234,
        "peer": "pytrec_eval",
        "peer_s": 8.7,
        "ratio": 7.05,
        "target": ">= 5x",
        "met": True,
        "peak_mb": 300,
        "note": "values: 10/10 means equal",
    },
    {
        "what": "default workload: evaluate 5 measures",
        "load": "busy",
        "ours": "workbench evaluate",
        "ours_s": 2.5,
        "peer": "trec_eval -O2 (one process per run)",
        "peer_s": 4.0,
        "ratio": 1.6,
        "target": ">= 2x",
        "met": False,
        "peak_mb": 310,
    },
    {
        "what": "import 5M lines | SQLite",
        "load": "idle",
        "ours": "import_runs",
        "ours_s": 12.0,
        "peer": None,
        "peer_s": None,
        "ratio": None,
        "target": "<= 15 s",
        "met": True,
        "peak_mb": None,
    },
]


def _table_rows(text: str) -> list[list[str]]:
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines]


def test_the_table_has_the_columns_and_one_line_per_row() -> None:
    rows = _table_rows(speed.table(ROWS))
    assert rows[0] == list(speed.COLUMNS)
    assert len(rows) == 1 + len(ROWS)
    first, second, third = rows[1:]
    assert first == [
        "default workload: evaluate 5 measures",
        "idle",
        "1.23 s (300 MB)",
        "pytrec_eval",
        "8.70 s",
        "7.05x",
        ">= 5x",
        "yes",
    ]
    assert second[2:] == [
        "2.50 s (310 MB)",
        "trec_eval -O2 (one process per run)",
        "4.00 s",
        "1.60x",
        ">= 2x",
        "**no**",
    ]
    # an absolute target: no peer, no ratio; a '|' in a cell is escaped, not a new column
    assert third == ["import 5M lines \\| SQLite", "idle", "12.00 s", "-", "-", "-", "<= 15 s", "yes"]


def test_the_report_is_headed_by_the_machine_date_and_command_and_lists_notes() -> None:
    when = datetime.datetime(2026, 1, 2, 3, 4, tzinfo=datetime.UTC)
    head = speed.header(["--rounds", "3", "--workdir", "/tmp/w l"], when)
    assert head.startswith(f"{os.cpu_count()} cores (")
    assert "2026-01-02 03:04 UTC" in head
    assert "`python benchmarks/speed.py --rounds 3 --workdir '/tmp/w l'`" in head
    text = speed.report(ROWS, ["stored: skipped, benchmarks/bench_stored.py is missing"], ["--quick"])
    assert text.splitlines()[0].endswith("`python benchmarks/speed.py --quick`")
    assert "- stored: skipped, benchmarks/bench_stored.py is missing" in text
    assert "- pytrec_eval: values: 10/10 means equal" in text


def test_steps_are_run_with_summary_json_and_failures_become_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = tmp_path / "bench"
    bench.mkdir()
    # a script that writes its summary rows, one without --summary-json, one that fails
    (bench / "good.py").write_text(
        "import argparse, json\n"
        "p = argparse.ArgumentParser()\n"
        "p.add_argument('--summary-json'); p.add_argument('--rounds'); p.add_argument('--workdir')\n"
        "a = p.parse_args()\n"
        f"json.dump([dict({ROWS[0]!r}, rounds=a.rounds, workdir=a.workdir)], open(a.summary_json, 'w'))\n"
    )
    (bench / "old.py").write_text("import argparse; argparse.ArgumentParser().parse_args()\n")
    (bench / "bad.py").write_text(
        "import argparse, sys\n"
        "p = argparse.ArgumentParser(); p.add_argument('--summary-json'); p.parse_args()\n"
        "sys.exit('no database')\n"
    )
    monkeypatch.setattr(speed, "BENCH", bench)
    opts = speed.parse_args(["--quick", "--workdir", str(tmp_path / "wl")])
    assert (opts.rounds, opts.load) == (1, "idle")
    env = dict(os.environ)

    rows, note = speed.run_step(speed.Step("good", "good.py", speed.on_default), opts, tmp_path, env)
    assert note == ""
    assert rows == [dict(ROWS[0], rounds="1", workdir=str(tmp_path / "wl"), step="good")]

    rows, note = speed.run_step(speed.Step("old", "old.py", speed.on_default), opts, tmp_path, env)
    assert rows == [] and "no --summary-json" in note
    rows, note = speed.run_step(speed.Step("bad", "bad.py", speed.on_default), opts, tmp_path, env)
    assert rows == [] and "failed (exit 1: no database)" in note
    rows, note = speed.run_step(speed.Step("gone", "gone.py", speed.on_default), opts, tmp_path, env)
    assert rows == [] and "gone.py is missing" in note
    # a script that measured everything but missed a target exits 1 after writing its rows: kept
    (bench / "missed.py").write_text(
        "import argparse, json, sys\n"
        "p = argparse.ArgumentParser(); p.add_argument('--summary-json'); a = p.parse_args()\n"
        f"json.dump([dict({ROWS[0]!r}, met=False)], open(a.summary_json, 'w')); sys.exit(1)\n"
    )
    rows, note = speed.run_step(speed.Step("missed", "missed.py", speed.on_default), opts, tmp_path, env)
    assert rows == [dict(ROWS[0], met=False, step="missed")] and "a target not met" in note


def test_the_generator_writes_ranked_runs_a_pool_qrels_and_a_stratified_prel(tmp_path: Path) -> None:
    wl = bench_evaluate.generate(tmp_path, n_runs=3, n_topics=2, depth=120, seed=1)
    pooled: dict[str, set[str]] = {}
    for path in wl.runs:
        lines = [line.split() for line in path.read_text().splitlines()]
        assert len(lines) == 2 * 120
        for topic in ("401", "402"):
            mine = [fields for fields in lines if fields[0] == topic]
            assert [int(f[3]) for f in mine] == list(range(1, 121))
            scores = [float(f[4]) for f in mine]
            assert scores == sorted(scores, reverse=True)
            pooled.setdefault(topic, set()).update(f[2] for f in mine if int(f[3]) <= 100)
    qrels = [line.split() for line in wl.qrels.read_text().splitlines()]
    assert {t: {q[2] for q in qrels if q[0] == t} for t in pooled} == pooled  # the depth-100 pool
    prel = [line.split() for line in wl.prel.read_text().splitlines()]
    assert [p[2] for p in prel] == [q[2] for q in qrels]
    assert {p[3] for p in prel} <= {"1", "2", "3"}
    # stratum 1 (the top 10 of some run) is judged in full; the others sampled
    assert all(p[4] == q[3] for p, q in zip(prel, qrels, strict=True) if p[3] == "1")
    assert all(p[4] in ("-1", q[3]) for p, q in zip(prel, qrels, strict=True))


def test_float_ties_finds_scores_that_only_differ_beyond_float_precision(tmp_path: Path) -> None:
    run = tmp_path / "r.run"
    run.write_text(
        "1 Q0 a 1 1.00000001 x\n1 Q0 b 2 1.0 x\n"  # equal as C floats
        "2 Q0 a 1 2.5 x\n2 Q0 b 2 2.25 x\n"
    )
    assert bench_evaluate.float_ties(run) == {"1"}


@pytest.mark.skipif(importlib.util.find_spec("pytrec_eval") is None, reason="pytrec_eval not installed")
def test_bench_evaluate_runs_end_to_end_on_a_tiny_workload(tmp_path: Path) -> None:
    summary = tmp_path / "rows.json"
    argv = ["--workdir", str(tmp_path / "wl"), "--runs", "3", "--topics", "2", "--depth", "120"]
    argv += ["--rounds", "1", "--load", "idle", "--no-xinf", "--summary-json", str(summary)]
    rows = bench_evaluate.main(argv)
    assert json.loads(summary.read_text()) == rows
    by_peer = {row["peer"]: row for row in rows}
    assert {bench_evaluate.PYTREC, bench_evaluate.PYARROW} <= set(by_peer)
    pytrec = by_peer[bench_evaluate.PYTREC]
    assert pytrec["load"] == "idle" and pytrec["met"] is None  # a custom size: information only
    # the ratio is the peer's median over ours (not the inverse), from unrounded medians: the
    # rounded seconds of the row give it back only to a few percent on this tiny workload
    assert float(str(pytrec["ratio"])) == pytest.approx(
        float(str(pytrec["peer_s"])) / float(str(pytrec["ours_s"])), rel=0.05, abs=0.01
    )
    # the value check ran on the same files (differences only where pytrec_eval's floats tie)
    assert "means equal to pytrec_eval's" in str(pytrec["note"])
    assert "UNEXPLAINED" not in str(pytrec["note"])
    assert (tmp_path / "wl" / "pa.txt").read_text().strip() == str(3 * 2 * 120)
