"""Forked worker processes and the per-topic join give exactly the numbers of one plain loop.

``manage.py evaluate`` evaluates runs in one forked worker per core; the judgments are joined
through a per-topic hash index (:class:`engine.evaluate.JoinIndex`). Both are speed devices only:
these tests hold them to the serial, exact-search results, bit for bit and in input order.
"""

from __future__ import annotations

import io
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest

import engine.evaluate as ev
from engine.evaluate import Judgments, evaluate_files, evaluate_run
from engine.measures.base import EvalOptions
from engine.names import parse_measures
from tests.conftest import kernels_or_skip
from trec import FormatError, read_qrels, read_run
from trec import parallel as tp

MEASURES = parse_measures(["map", "bpref", "infAP", "ndcg", "P.10", "num_rel_ret", "recip_rank"])


def make_workload(folder: Path, runs: int = 6, topics: int = 5, depth: int = 60) -> tuple[Path, list[Path]]:
    rng = np.random.default_rng(3)
    qrels = []
    for t in range(topics):
        for d in rng.choice(200, size=80, replace=False).tolist():
            qrels.append(f"{t + 1} 0 doc{d} {int(rng.integers(-1, 3))}\n")
    (folder / "qrels").write_text("".join(qrels))
    paths = []
    for r in range(runs):
        lines = []
        for t in range(topics):
            docs = rng.choice(200, size=depth, replace=False)
            scores = np.round(rng.normal(size=depth), 2)  # rounded: ties for the canonical order
            lines += [
                f"{t + 1} Q0 doc{d} {i} {s} run{r}\n"
                for i, (d, s) in enumerate(zip(docs, scores, strict=True))
            ]
        path = folder / f"run{r}.txt"
        path.write_text("".join(lines))
        paths.append(path)
    return folder / "qrels", paths


def same_results(a: list[ev.RunResult], b: list[ev.RunResult]) -> None:
    assert [r.run for r in a] == [r.run for r in b]
    for x, y in zip(a, b, strict=True):
        assert x.topics == y.topics and x.names == y.names
        for name in x.names:
            assert x.per_topic[name].tobytes() == y.per_topic[name].tobytes(), name
            assert x.summary[name] == y.summary[name] or (
                np.isnan(x.summary[name]) and np.isnan(y.summary[name])
            )


ROOT = Path(__file__).resolve().parents[2]


def in_fresh_process(test: str, tmp_path: Path) -> None:
    """Run ``test`` of this module in a new interpreter: forking needs a process with no other
    thread, which the command line is and a test session that has run threads is not."""
    code = (
        "import tests.engine.test_parallel_evaluation as t; from pathlib import Path; "
        f"t.{test}(Path({str(tmp_path)!r}))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]


def test_forked_workers_equal_the_serial_loop_in_input_order(tmp_path: Path) -> None:
    in_fresh_process("forked_workers_equal_the_serial_loop", tmp_path)


def test_a_bad_file_fails_in_its_turn_with_its_line_after_the_runs_before_it(tmp_path: Path) -> None:
    in_fresh_process("a_bad_file_fails_in_its_turn", tmp_path)


def test_at_most_two_runs_per_worker_are_in_flight(tmp_path: Path) -> None:
    """Memory stays bounded: the parent submits a run only when fewer than 2 x workers are pending."""
    in_fresh_process("at_most_two_runs_per_worker_in_flight", tmp_path)


def forked_workers_equal_the_serial_loop(tmp_path: Path) -> None:
    qrels, paths = make_workload(tmp_path)
    judgments = Judgments(read_qrels(qrels))
    names = [p.name for p in paths]
    serial = list(evaluate_files(judgments, [str(p) for p in paths], MEASURES, names=names, workers=1))
    assert tp.can_fork()
    with mock.patch.object(tp, "_forked", wraps=tp._forked) as forked:
        parallel = list(
            evaluate_files(
                Judgments(read_qrels(qrels)),
                [str(p) for p in paths],
                MEASURES,
                names=names,
                workers=2,
                processes=True,
            )
        )
    assert forked.called
    same_results(serial, parallel)
    threads = list(evaluate_files(judgments, [str(p) for p in paths], MEASURES, names=names, workers=3))
    same_results(serial, threads)


def a_bad_file_fails_in_its_turn(tmp_path: Path) -> None:
    assert tp.can_fork()
    qrels, paths = make_workload(tmp_path, runs=5)
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 doc1 1 2.0 x\n1 Q0 doc2 2 oops x\n")
    order = [str(paths[0]), str(paths[1]), str(bad), str(paths[2]), str(paths[3])]
    got = []
    with pytest.raises(FormatError) as err:
        for result in evaluate_files(
            Judgments(read_qrels(qrels)), order, MEASURES, workers=2, processes=True
        ):
            got.append(result.run)
    assert got == ["run0", "run1"]
    assert err.value.path == str(bad) and err.value.line == 2 and "expected a score" in err.value.message


def test_format_errors_survive_pickling_whole() -> None:
    e = pickle.loads(pickle.dumps(FormatError("runs/a.txt", 7, "expected 6 columns")))
    assert (e.path, e.line, e.message, str(e)) == (
        "runs/a.txt",
        7,
        "expected 6 columns",
        "runs/a.txt:7: expected 6 columns",
    )


def test_the_per_topic_index_matches_an_exact_search(tmp_path: Path) -> None:
    qrels, paths = make_workload(tmp_path, runs=2)
    judgments = Judgments(read_qrels(qrels))
    assert judgments._join_index is not None
    for path in paths:
        run = read_run(path)
        fast = evaluate_run(judgments, run, MEASURES)
        exact = Judgments(read_qrels(qrels))
        exact.__dict__["_join_index"] = None  # as when two judged docnos share a 64-bit hash
        slow = evaluate_run(exact, run, MEASURES)
        same_results([fast], [slow])


def test_colliding_hashes_fall_back_to_the_exact_search(tmp_path: Path) -> None:
    qrels, paths = make_workload(tmp_path, runs=1)
    real = ev.hash_strings
    # every docno hashes to one of two values: collisions everywhere, inside the qrels too
    with mock.patch.object(ev, "hash_strings", side_effect=lambda d: real(d) & np.uint64(1)):
        judgments = Judgments(read_qrels(qrels))
        assert judgments._join_index is None
        result = evaluate_run(judgments, read_run(paths[0]), MEASURES)
    same_results([result], [evaluate_run(Judgments(read_qrels(qrels)), read_run(paths[0]), MEASURES)])


def test_judgments_without_rows_join_like_judgments_read_without_them(tmp_path: Path) -> None:
    qrels, paths = make_workload(tmp_path, runs=2)
    full = Judgments(read_qrels(qrels))
    _ = full._join_index
    drop = np.arange(0, len(full.qrels), 3)
    reduced = full.without(drop)
    keep = np.ones(len(full.qrels), dtype=bool)
    keep[drop] = False
    fresh = Judgments(full.qrels.keep_rows(keep))
    run = read_run(paths[1])
    codes = np.repeat(np.array([full.topic_index.get(t, -1) for t in run.topics]), np.diff(run.offsets))
    rows_a, grades_a = reduced.lookup_rows_and_grades(codes, run.docnos)
    rows_b, grades_b = fresh.lookup_rows_and_grades(codes, run.docnos)
    assert rows_a.tolist() == rows_b.tolist() and grades_a.tolist() == grades_b.tolist()
    same_results(
        [evaluate_run(reduced, run, MEASURES, EvalOptions())],
        [evaluate_run(fresh, run, MEASURES, EvalOptions())],
    )


def test_the_command_uses_workers_and_prints_what_one_thread_prints(tmp_path: Path) -> None:
    from engine.cli import main

    qrels, paths = make_workload(tmp_path, runs=4)
    outputs = []
    for extra in ([], ["--threads", "1"]):
        out = tmp_path / "out.txt"
        with open(out, "w") as fh:
            assert main([*extra, "-q", str(qrels), *map(str, paths)], fh, fh) == 0
        outputs.append(out.read_text())
    assert outputs[0] == outputs[1] and outputs[0].count("\n") > 100


def at_most_two_runs_per_worker_in_flight(tmp_path: Path) -> None:
    import multiprocessing.pool

    assert tp.can_fork()
    qrels, paths = make_workload(tmp_path, runs=9, topics=2, depth=10)
    submitted = []
    real = multiprocessing.pool.Pool.apply_async

    def counting(self: multiprocessing.pool.Pool, *args: object, **kwargs: object) -> object:
        submitted.append(1)
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    consumed = 0
    with mock.patch.object(multiprocessing.pool.Pool, "apply_async", counting):
        for _ in evaluate_files(
            Judgments(read_qrels(qrels)), [str(p) for p in paths], MEASURES, workers=2, processes=True
        ):
            # the first run is evaluated in the parent (warming the caches the workers inherit)
            assert len(submitted) - max(consumed - 1, 0) <= 4
            consumed += 1
    assert consumed == 9 and len(submitted) == 8


@pytest.mark.parametrize("kernels_on", [True, False])
def test_the_command_uses_threads_where_the_kernels_release_the_gil(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernels_on: bool
) -> None:
    """With the compiled reader and join (which release the GIL), ``manage.py evaluate`` runs
    threads of its own process, as fast as forked workers without forking; without them, workers."""

    if kernels_on:
        kernels_or_skip()
    monkeypatch.setenv("WORKBENCH_KERNELS", "1" if kernels_on else "0")
    qrels, paths = make_workload(tmp_path, runs=4)
    seen: list[bool] = []
    real = ev.ordered_map

    def spy(job: Any, count: int, *, workers: int | None = None, processes: bool = False) -> Any:
        seen.append(processes)
        return real(job, count, workers=workers, processes=False)  # the test session may not fork

    monkeypatch.setattr(ev, "ordered_map", spy)
    from engine.cli import main

    out = io.StringIO()
    assert main(["-m", "map", str(qrels), *map(str, paths)], out, io.StringIO()) == 0
    assert seen == [not kernels_on]
    assert sum("\tall\t" in line for line in out.getvalue().splitlines()) == 4  # each run's mean
