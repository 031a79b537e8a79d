"""Time the Python API (``rw.evaluate``) against ``manage.py evaluate`` on the same files.

The workload is bench_evaluate.py's (default 100 runs x 50 topics x 1000 docs, its measures).
Each contender is its own process, import and parsing included; they alternate (API, command,
API, command, ...) so that machine noise hits both alike, and the medians are compared. The
issue's target: the API within 10% of the command's time.

    python benchmarks/bench_api.py                      # default workload, 5 rounds
    python benchmarks/bench_api.py --runs 20 --rounds 3 # smaller
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_evaluate import MEASURES, ROOT, generate_in_child
from harness import workload_parser

API_SCRIPT = textwrap.dedent(
    """
    import sys
    import relevance_workbench as rw
    qrels, measures, runs = sys.argv[1], sys.argv[2].split(";"), sys.argv[3:]
    results = rw.evaluate(qrels, runs, measures)
    values = results.aggregates()
    print(len(values), "runs")
    """
)


def once(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = workload_parser(__doc__)
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (each times both)")
    parser.add_argument("--in-process", action="store_true", help="also time both inside this process")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="wb-bench-api-"))
    runs = [str(p) for p in generate_in_child(workdir, args.runs, args.topics, args.depth, args.seed)]
    qrels = str(workdir / "qrels.txt")
    py = sys.executable
    command = [
        py,
        "manage.py",
        "evaluate",
        "--digits",
        "17",
        *(a for m in MEASURES for a in ("-m", m)),
        qrels,
        *runs,
    ]
    api = [py, "-c", API_SCRIPT, qrels, ";".join(MEASURES), *runs]
    once(command), once(api)  # warm the page cache and the bytecode
    times: dict[str, list[float]] = {"manage.py evaluate": [], "rw.evaluate (API)": []}
    for _ in range(max(1, args.rounds)):
        times["rw.evaluate (API)"].append(once(api))
        times["manage.py evaluate"].append(once(command))
    base = statistics.median(times["manage.py evaluate"])
    best = min(times["manage.py evaluate"])
    print(
        f"workload: {len(runs)} runs x {args.topics} topics x {args.depth} docs; "
        f"measures {' '.join(MEASURES)}"
    )
    print(f"{args.rounds} alternating rounds, each a separate process (import and parsing included)")
    print(f"{'contender':24s} {'median s':>9s} {'ratio':>7s} {'best s':>7s} {'ratio':>7s}   all rounds (s)")
    for name, values in times.items():
        median, low = statistics.median(values), min(values)
        print(
            f"{name:24s} {median:9.3f} {median / base:6.3f}x {low:7.3f} {low / best:6.3f}x   "
            + " ".join(f"{v:.3f}" for v in values)
        )
    ratio = statistics.median(times["rw.evaluate (API)"]) / base
    print(
        f"API / command (medians) = {ratio:.3f}: {'within' if ratio <= 1.10 else 'NOT within'} the 10% target"
    )
    if args.in_process:
        in_process(qrels, runs, args.rounds)


def in_process(qrels: str, runs: list[str], rounds: int) -> None:
    """Both in this process, alternating: no interpreter start-up or import in the timings."""
    import io

    sys.path.insert(0, str(ROOT))
    import relevance_workbench as rw
    from engine.cli import main as evaluate_main

    argv = ["--digits", "17", *(a for m in MEASURES for a in ("-m", m)), qrels, *runs]
    times: dict[str, list[float]] = {"engine.cli.main": [], "rw.evaluate": []}
    for _ in range(max(1, rounds)):
        start = time.perf_counter()
        rw.evaluate(qrels, runs, MEASURES).aggregates()
        times["rw.evaluate"].append(time.perf_counter() - start)
        start = time.perf_counter()
        evaluate_main(argv, io.StringIO(), io.StringIO())
        times["engine.cli.main"].append(time.perf_counter() - start)
    base = statistics.median(times["engine.cli.main"])
    print("in one process (no start-up, no import):")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:24s} {median:9.3f} {median / base:6.3f}x   " + " ".join(f"{v:.3f}" for v in values))


if __name__ == "__main__":
    main()
