"""The benchmark harness measures what it says: alternating rounds, medians, ratios, a busy core.

Speed itself is never asserted here (the machine is shared): these tests check the harness's
bookkeeping on commands whose behaviour is known, and that bench_evaluate's summary rows compare
the right medians.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import bench_evaluate  # noqa: E402
import harness  # noqa: E402


def test_rounds_alternate_and_rotate_and_medians_are_reported(tmp_path: Path) -> None:
    log = tmp_path / "order.txt"
    contenders = [
        harness.Contender(name, [sys.executable, "-c", f"open({str(log)!r}, 'a').write('{name}')"])
        for name in ("a", "b", "c")
    ]
    results = harness.alternate(contenders, 3, progress=False)
    assert log.read_text() == "abc" + "bca" + "cab"  # every round runs each once, rotated
    assert [r.name for r in results] == ["a", "b", "c"]
    assert all(r.ok and len(r.seconds) == 3 for r in results)
    assert results[0].median == sorted(results[0].seconds)[1]


def test_a_failing_contender_is_reported_and_drops_out(tmp_path: Path) -> None:
    bad = harness.Contender(
        "bad", [sys.executable, "-c", "import sys; sys.stderr.write('boom'); sys.exit(3)"]
    )
    good = harness.Contender("good", [sys.executable, "-c", "pass"])
    results = harness.alternate([good, bad], 2, progress=False)
    assert results[1].ok is False and "exit 3" in results[1].note and "boom" in results[1].note
    assert len(results[0].seconds) == 2
    table = harness.table(results, "good", "t")
    assert "| bad | failed |" in table and "| good |" in table


def test_peak_memory_is_the_childs_own() -> None:
    # measured from a small fresh interpreter: a child's peak RSS starts at its parent's size when
    # it is forked, and the test session's own process is large by the time this runs
    code = (
        f"import sys; sys.path.insert(0, {str(BENCH)!r}); import harness; "
        "big = harness.Contender('big', [sys.executable, '-c', "
        "\"x = bytearray(300 * 1024 * 1024); x[::4096] = b'1' * len(x[::4096])\"]); "
        "small = harness.Contender('small', [sys.executable, '-c', 'pass']); "
        "r = harness.alternate([big, small], 1, progress=False); "
        "print(r[0].max_rss_mb, r[1].max_rss_mb)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    big, small = map(float, done.stdout.split())
    assert big > 290 > small


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="a busy core needs a second one")
def test_the_busy_load_keeps_a_process_spinning() -> None:
    def cpu_seconds_of_children() -> float:
        usage = os.times()
        return usage.children_user + usage.children_system

    before = cpu_seconds_of_children()
    with harness.load("busy"):
        time.sleep(0.6)
    # the spinner was killed and reaped when the block ended: its CPU time is now accounted
    assert cpu_seconds_of_children() - before > 0.3
    before = cpu_seconds_of_children()
    with harness.load("idle"):
        time.sleep(0.3)
    assert cpu_seconds_of_children() - before < 0.05


def test_summary_rows_divide_the_peers_median_by_ours() -> None:
    ours = harness.Result(bench_evaluate.OURS, [2.0, 1.0, 3.0], 80)
    peer = harness.Result("pytrec_eval", [9.0, 10.0, 11.0], 60)
    rows = bench_evaluate.summary_rows("w", {"idle": [ours, peer]}, "pytrec_eval", ">= 5x", 5.0)
    assert rows == [
        {
            "what": "w",
            "load": "idle",
            "ours": bench_evaluate.OURS,
            "ours_s": 2.0,
            "peer": "pytrec_eval",
            "peer_s": 10.0,
            "ratio": 5.0,
            "target": ">= 5x",
            "met": True,
            "peak_mb": 80,
        }
    ]
    assert bench_evaluate.summary_rows("w", {"busy": [ours, peer]}, "trec_eval", ">= 2x", 2.0) == []


def test_the_generator_writes_runs_qrels_and_a_prel(tmp_path: Path) -> None:
    wl = bench_evaluate.generate(tmp_path, n_runs=3, n_topics=2, depth=120, seed=1)
    assert len(wl.runs) == 3
    lines = wl.runs[0].read_text().splitlines()
    assert len(lines) == 2 * 120 and lines[0].split()[1] == "Q0"
    prel = wl.prel.read_text().splitlines()
    assert len(prel) == len(wl.qrels.read_text().splitlines()) and len(prel[0].split()) == 5
