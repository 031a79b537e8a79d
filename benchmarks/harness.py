"""Side-by-side timing shared by the benchmark scripts: alternating rounds, medians, ratios, load.

Every contender is a whole command run as its own process (parsing and start-up included). The
contenders are run in rounds, each round running every contender once, the order rotated from
round to round, so that a slow spell of the shared machine falls on all of them alike. Reported:
the median wall time, the peak RSS (``wait4``'s rusage of the child alone) and each contender's
ratio to the workbench (its median / the workbench's median: above 1 the workbench is faster).

``--load busy`` keeps one core busy with a spinning process for the whole measurement (the
"other core busy" condition); ``--load both`` measures idle, then busy, and prints both tables.

    from harness import Contender, add_load_argument, measure_under_loads
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOADS = ("idle", "busy")
PACKAGES = (
    "workbench",
    "relevance_workbench",
    "trec",
    "engine",
    "jobs",
    "campaigns",
    "pooling",
    "judging",
    "metrics",
)


def compile_project() -> None:
    """Byte-compile the project first, as an installed package is: the timed commands then load it
    from .pyc files like a peer loads its installed code, even where PYTHONDONTWRITEBYTECODE is set."""
    import compileall

    for package in PACKAGES:
        compileall.compile_dir(str(ROOT / package), quiet=1)
    compileall.compile_file(str(ROOT / "manage.py"), quiet=1)


@dataclass
class Contender:
    """One command to time; ``prepare`` runs before every timed run, untimed (a fresh database...)."""

    name: str
    cmd: list[str]
    stdout: Path | None = None  # where its output goes (kept for checks); None: discarded
    env: dict[str, str] | None = None
    prepare: Callable[[], None] | None = None
    check: Callable[[], str] | None = None  # after the last run: a note (values equal, rows stored...)


@dataclass
class Result:
    name: str
    seconds: list[float] = field(default_factory=list)
    max_rss_mb: float = 0.0
    ok: bool = True
    note: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.seconds) if self.seconds else float("nan")


def run_once(c: Contender) -> tuple[float, float, int, str]:
    """Wall seconds, peak RSS (MB), exit code and the tail of stderr of one run of ``c``."""
    if c.prepare is not None:
        c.prepare()
    out = open(c.stdout, "wb") if c.stdout is not None else subprocess.DEVNULL  # noqa: SIM115
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(c.cmd, stdout=out, stderr=subprocess.PIPE, cwd=ROOT, env=c.env)
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
    finally:
        if out is not subprocess.DEVNULL:
            out.close()  # type: ignore[union-attr]
    tail = err.decode(errors="replace")[-400:]
    return seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), tail


def alternate(contenders: Sequence[Contender], rounds: int, *, progress: bool = True) -> list[Result]:
    """Run every contender ``rounds`` times, interleaved and rotated; a failed contender drops out."""
    compile_project()
    results = {c.name: Result(c.name) for c in contenders}
    for r in range(rounds):
        k = r % len(contenders)
        for c in [*contenders[k:], *contenders[:k]]:
            res = results[c.name]
            if not res.ok:
                continue
            seconds, rss, code, err = run_once(c)
            if code != 0:
                res.ok, res.note = False, f"exit {code}: {err.strip()}"
                continue
            res.seconds.append(seconds)
            res.max_rss_mb = max(res.max_rss_mb, rss)
        if progress:
            done = ", ".join(f"{n} {v.median:.2f}s" for n, v in results.items() if v.ok)
            print(f"  round {r + 1}/{rounds}: {done}", file=sys.stderr, flush=True)
    for c in contenders:
        if c.check is not None and results[c.name].ok:
            results[c.name].note = c.check()
    return [results[c.name] for c in contenders]


@contextlib.contextmanager
def load(kind: str) -> Iterator[None]:
    """``busy``: one process spinning on the CPU for the duration (the other core busy); ``idle``: none."""
    if kind not in LOADS:
        raise ValueError(f"load must be one of {LOADS}")
    if kind == "idle":
        yield
        return
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.2)
        yield
    finally:
        spinner.kill()
        spinner.wait()


def workload_parser(doc: str | None) -> argparse.ArgumentParser:
    """An argument parser with the generated workload's size (bench_evaluate.py's generator):
    ``--runs --topics --depth --seed --workdir``, defaults the campaign workload."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--workdir", type=Path, default=None, help="keep (and reuse) the generated files here"
    )
    return parser


def add_load_argument(parser: argparse.ArgumentParser) -> None:
    """The options every benchmark script shares: ``--load``, ``--rounds`` (``--repeat``, its old
    name) and ``--summary-json`` (the criteria rows benchmarks/speed.py collects)."""
    parser.add_argument(
        "--load",
        choices=[*LOADS, "both"],
        default="both",
        help="measure with the other core idle, busy (a spinning process), or both (default)",
    )
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds; medians are reported")
    parser.add_argument("--repeat", dest="rounds", type=int, help=argparse.SUPPRESS)  # the old name
    parser.add_argument("--summary-json", type=Path, default=None, help="write the criteria rows here")


def loads_of(args: argparse.Namespace) -> list[str]:
    return list(LOADS) if args.load == "both" else [args.load]


def table(results: Sequence[Result], ours: str, title: str) -> str:
    """A markdown table: median seconds, peak RSS and the ratio to ``ours`` (above 1: ours is faster)."""
    base = next((r for r in results if r.name == ours), None)
    lines = [
        f"{title}",
        "",
        "| tool | median s | peak MB | ratio to workbench | runs (s) |",
        "|---|---:|---:|---:|---|",
    ]
    for r in results:
        if not r.ok:
            lines.append(f"| {r.name} | failed | | | {r.note} |")
            continue
        ratio = r.median / base.median if base is not None and base.ok and base.seconds else float("nan")
        runs = " ".join(f"{s:.2f}" for s in r.seconds)
        lines.append(f"| {r.name} | {r.median:.2f} | {r.max_rss_mb:.0f} | {ratio:.2f}x | {runs} |")
    notes = [f"- {r.name}: {r.note}" for r in results if r.ok and r.note]
    if notes:
        lines += ["", *notes]
    return "\n".join(lines)


def measure_under_loads(
    contenders: Sequence[Contender], args: argparse.Namespace, ours: str, title: str
) -> dict[str, list[Result]]:
    """Time ``contenders`` under each requested load and print one table per load."""
    out: dict[str, list[Result]] = {}
    for kind in loads_of(args):
        with load(kind):
            results = alternate(contenders, max(1, args.rounds))
        out[kind] = results
        cores = os.cpu_count() or 1
        print(table(results, ours, f"**{title}**, other core {kind} ({cores} cores, {args.rounds} rounds)"))
        print(flush=True)
    return out


def ratio(results: Sequence[Result], name: str, ours: str) -> float:
    """``name``'s median / ``ours``'s median (NaN when either failed)."""
    by = {r.name: r for r in results}
    a, b = by.get(name), by.get(ours)
    if a is None or b is None or not a.ok or not b.ok:
        return float("nan")
    return a.median / b.median


def command_line() -> str:
    """The command that made a table, as a reader would type it from the project's root."""
    script = Path(sys.argv[0]).resolve()
    shown = script.relative_to(ROOT) if script.is_relative_to(ROOT) else script
    return " ".join(["python", str(shown), *sys.argv[1:]])
