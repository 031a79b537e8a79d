"""Run every benchmark of issue 12 and print one markdown table of the speed criteria.

Each benchmark script runs as its own process with ``--summary-json`` (a list of criteria rows:
what, load, ours_s, peer, peer_s, ratio, target, met, peak_mb); this script collects the rows
and prints one table, headed by the machine (core count, CPU model), the date and the exact
command line. A script that is missing, lacks ``--summary-json`` or fails is skipped with a note.

    python benchmarks/speed.py --workdir /tmp/wl --large-workdir /tmp/wl_large
    python benchmarks/speed.py --quick           # smoke run: 1 round, the other core idle only
    python benchmarks/speed.py --only evaluate-default --rounds 3

Steps (``--only``/``--skip`` take these names):

* ``evaluate-default``: bench_evaluate.py on the default workload (pytrec_eval, trec_eval -O2,
  pyarrow parse-only);
* ``evaluate-large``: bench_evaluate.py ``--large --scaling`` (pytrec_eval, large/default time,
  peak RSS) and its xinf section (xinfAP + xinfNDCG against sample_eval.pl);
* ``pooling``: bench_pooling.py on the large workload;
* ``import``: bench_import.py on the default workload (SQLite and PostgreSQL);
* ``stored``: bench_stored.py, evaluating stored runs of the default workload.

trec_eval and sample_eval.pl are looked up on PATH (see bench_evaluate.py's docstring for the
-O2 build of trec_eval); ``--tools DIR`` puts a folder holding them first on PATH.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent

COLUMNS = ("what", "load", "workbench median", "peer", "peer median", "ratio", "target", "met")


@dataclass
class Step:
    name: str
    script: str
    args: Callable[[argparse.Namespace, str], list[str] | None]  # (options, the script's --help) -> argv


def _has(help_text: str, option: str) -> bool:
    return any(word.strip("[],") == option for word in help_text.split())


def common_args(opts: argparse.Namespace, help_text: str) -> list[str]:
    """--rounds (or the older --repeat) and --load, where the script takes them."""
    out: list[str] = []
    if _has(help_text, "--rounds"):
        out += ["--rounds", str(opts.rounds)]
    elif _has(help_text, "--repeat"):
        out += ["--repeat", str(opts.rounds)]
    if _has(help_text, "--load"):
        out += ["--load", opts.load]
    return out


def _workdir(opts: argparse.Namespace, help_text: str) -> list[str]:
    return ["--workdir", str(opts.workdir)] if opts.workdir and _has(help_text, "--workdir") else []


def _large(opts: argparse.Namespace, help_text: str) -> list[str]:
    out = ["--large"] if _has(help_text, "--large") else []
    if opts.large_workdir:
        if _has(help_text, "--large-workdir"):
            out += ["--large-workdir", str(opts.large_workdir)]
        elif _has(help_text, "--workdir"):
            out += ["--workdir", str(opts.large_workdir)]
    return out


def evaluate_default(opts: argparse.Namespace, help_text: str) -> list[str]:
    return [*_workdir(opts, help_text), "--no-xinf", *common_args(opts, help_text)]


def large_args(opts: argparse.Namespace, help_text: str) -> list[str]:
    """common_args with --large-rounds: a large run takes minutes per contender."""
    return common_args(argparse.Namespace(**{**vars(opts), "rounds": opts.large_rounds}), help_text)


def evaluate_large(opts: argparse.Namespace, help_text: str) -> list[str]:
    out = [*_large(opts, help_text), *_workdir(opts, help_text), "--scaling"]
    if opts.xinf_runs is not None:
        out += ["--xinf-runs", str(opts.xinf_runs)]
    return [*out, *large_args(opts, help_text)]


def on_default(opts: argparse.Namespace, help_text: str) -> list[str]:
    return [*_workdir(opts, help_text), *common_args(opts, help_text)]


def on_large(opts: argparse.Namespace, help_text: str) -> list[str]:
    return [*_large(opts, help_text), *large_args(opts, help_text)]


def on_databases(opts: argparse.Namespace, help_text: str) -> list[str]:
    both = ["--databases", "sqlite,postgres"] if _has(help_text, "--databases") else []
    return [*on_default(opts, help_text), *both]


STEPS = (
    Step("evaluate-default", "bench_evaluate.py", evaluate_default),
    Step("evaluate-large", "bench_evaluate.py", evaluate_large),
    Step("pooling", "bench_pooling.py", on_large),
    Step("import", "bench_import.py", on_databases),
    Step("stored", "bench_stored.py", on_databases),
)


# ---------------------------------------------------------------- the table


def _seconds(value: object) -> str:
    return "-" if value is None else f"{float(value):.2f} s"  # type: ignore[arg-type]


def _ratio(value: object) -> str:
    return "-" if value is None else f"{float(value):.2f}x"  # type: ignore[arg-type]


def _met(value: object) -> str:
    return "-" if value is None else "yes" if value else "**no**"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(rows: Sequence[dict[str, object]]) -> str:
    """The criteria rows as one markdown table (``ratio``: the peer's median / ours, as the rows say)."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|---|---|---:|---|---:|---:|---|---|"]
    for row in rows:
        ours = _seconds(row.get("ours_s"))
        if row.get("peak_mb") is not None:
            ours += f" ({row['peak_mb']} MB)"
        cells = [
            row.get("what", ""),
            row.get("load", ""),
            ours,
            row.get("peer") or "-",
            _seconds(row.get("peer_s")),
            _ratio(row.get("ratio")),
            row.get("target", ""),
            _met(row.get("met")),
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def header(argv: Sequence[str], when: datetime.datetime | None = None) -> str:
    when = when or datetime.datetime.now(datetime.UTC)
    command = " ".join(["python", "benchmarks/speed.py", *map(shlex.quote, argv)])
    return (
        f"{os.cpu_count()} cores ({cpu_model()}), {when:%Y-%m-%d %H:%M} UTC, "
        f"Python {platform.python_version()}; made by `{command}`"
    )


def report(rows: Sequence[dict[str, object]], notes: Sequence[str], argv: Sequence[str]) -> str:
    """The whole markdown: header line, the table, then the notes (skipped steps, value checks)."""
    parts = [header(argv), "", table(rows)]
    checks = sorted({f"{row['peer']}: {row['note']}" for row in rows if row.get("note")})
    extra = [*notes, *checks]
    if extra:
        parts += ["", *[f"- {n}" for n in extra]]
    return "\n".join(parts)


# ---------------------------------------------------------------- running the steps


def run_step(
    step: Step, opts: argparse.Namespace, out_dir: Path, env: dict[str, str]
) -> tuple[list[dict[str, object]], str]:
    """The rows of one script, and a note when it was skipped or failed."""
    script = BENCH / step.script
    if not script.is_file():
        return [], f"{step.name}: skipped, benchmarks/{step.script} is missing"
    helped = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, cwd=ROOT, env=env
    )
    if helped.returncode != 0 or not _has(helped.stdout, "--summary-json"):
        return [], f"{step.name}: skipped, benchmarks/{step.script} has no --summary-json option"
    summary = out_dir / f"{step.name}.json"
    summary.unlink(missing_ok=True)
    argv = [*(step.args(opts, helped.stdout) or []), "--summary-json", str(summary)]
    shown = " ".join(["python", f"benchmarks/{step.script}", *map(shlex.quote, argv)])
    print(f"\n== {step.name}: {shown}", file=sys.stderr, flush=True)
    log = out_dir / f"{step.name}.log"
    with open(log, "w") as out:
        done = subprocess.run(
            [sys.executable, str(script), *argv], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    sys.stderr.write(log.read_text())
    try:
        rows = json.loads(summary.read_text())
    except (OSError, ValueError) as exc:
        if done.returncode != 0:
            tail = log.read_text().strip().splitlines()[-1:] or [""]
            return [], f"{step.name}: failed (exit {done.returncode}: {tail[0][:200]}); log {log}"
        return [], f"{step.name}: no summary rows ({exc}); log {log}"
    # a script that measured everything but missed a target exits 1 after writing its rows:
    # they are the result (their "met" column says which target), not a failure to hide
    missed = f"{step.name}: exit {done.returncode}, a target not met (its rows are in the table)"
    note = "" if done.returncode == 0 else missed
    return [dict(row, step=step.name) for row in rows], note


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="alternating rounds in every script (default 3)"
    )
    parser.add_argument(
        "--large-rounds", type=int, default=1, help="rounds of the large-workload steps (default 1)"
    )
    parser.add_argument("--load", choices=["idle", "busy", "both"], default="both")
    parser.add_argument("--workdir", type=Path, default=None, help="the default workload's folder")
    parser.add_argument("--large-workdir", type=Path, default=None, help="the large workload's folder")
    parser.add_argument("--xinf-runs", type=int, default=None, help="xinf: both tools on the first N runs")
    parser.add_argument("--quick", action="store_true", help="smoke run: 1 round, other core idle only")
    names = [s.name for s in STEPS]
    parser.add_argument("--only", nargs="+", choices=names, default=None, help="run these steps only")
    parser.add_argument("--skip", nargs="+", choices=names, default=[], help="leave these steps out")
    parser.add_argument("--tools", type=Path, default=None, help="a folder put first on PATH (trec_eval...)")
    parser.add_argument("--out-dir", type=Path, default=None, help="summaries and logs (default: a temp dir)")
    parser.add_argument("--output", type=Path, default=None, help="also write the markdown here")
    opts = parser.parse_args(argv)
    if opts.quick:
        opts.rounds, opts.large_rounds, opts.load = 1, 1, "idle"
    return opts


def main(argv: Sequence[str] | None = None) -> str:
    argv = list(sys.argv[1:] if argv is None else argv)
    opts = parse_args(argv)
    out_dir = opts.out_dir or Path(tempfile.mkdtemp(prefix="wb-speed-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    if opts.tools:
        env["PATH"] = f"{opts.tools.resolve()}{os.pathsep}{env.get('PATH', '')}"
    rows: list[dict[str, object]] = []
    notes: list[str] = []
    for step in STEPS:
        if (opts.only and step.name not in opts.only) or step.name in opts.skip:
            continue
        got, note = run_step(step, opts, out_dir, env)
        rows += got
        if note:
            notes.append(note)
    text = report(rows, notes, argv)
    print(text)
    if opts.output:
        opts.output.write_text(text + "\n")
    (out_dir / "speed.md").write_text(text + "\n")
    return text


if __name__ == "__main__":
    main()
