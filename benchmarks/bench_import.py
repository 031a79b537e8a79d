"""Time ``manage.py import_runs`` on the campaign workload, on SQLite and on PostgreSQL.

Generates (or reuses) the workload of ``bench_evaluate.py`` (default 100 runs x 50 topics x 1000
docs = 5M run lines), then for each database: a fresh database, ``migrate``, ``import_topics``, and
the timed part, ``import_runs`` of every run file in one command (validation included), as its own
process. Prints wall time, the command's peak memory (max RSS; the PostgreSQL server's own memory
is not in it) and lines per second, and checks that every line was stored.

    python benchmarks/bench_import.py                                  # both databases
    python benchmarks/bench_import.py --databases sqlite --workdir /tmp/wb-bench
    python benchmarks/bench_import.py --postgres postgres://postgres@127.0.0.1:5432/postgres
    python benchmarks/bench_import.py --rounds 3 --load both --summary-json rows.json

``--load busy`` keeps the other core busy while importing (harness.py); ``--summary-json`` writes
the criteria rows benchmarks/speed.py puts in its table (at most 15 s on SQLite, 8 s on PostgreSQL
for the default 5M lines).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
# run as a script, this folder is on sys.path: share bench_evaluate's generator and timing harness
import bench_evaluate  # noqa: E402

BENCH_DB = "workbench_bench_import"


@dataclass
class Result:
    database: str
    seconds: list[float]
    max_rss_mb: float
    lines: int
    note: str = ""


def ensure_workload(workdir: Path, runs: int, topics: int, depth: int, seed: int) -> list[Path]:
    paths = bench_evaluate.generate_in_child(workdir, runs, topics, depth, seed)
    # bench_evaluate numbers its topics from 401
    (workdir / "topics.tsv").write_text("".join(f"{401 + t}\ttopic {401 + t}\n" for t in range(topics)))
    return paths


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL
    )


def fresh_sqlite(workdir: Path) -> dict[str, str]:
    path = workdir / "bench.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["WORKBENCH_SQLITE_PATH"] = str(path)
    return env


def fresh_postgres(server_url: str) -> dict[str, str]:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as con:
        con.execute(f"DROP DATABASE IF EXISTS {BENCH_DB}")
        con.execute(f"CREATE DATABASE {BENCH_DB}")
    parts = urlsplit(server_url)
    url = urlunsplit(parts._replace(path=f"/{BENCH_DB}"))
    return {**os.environ, "DATABASE_URL": url}


# every stored line, counted through the workbench's own reader of stored runs (blocks decoded)
COUNT_LINES = (
    "from campaigns.models import Run\n"
    "from campaigns.stored_runs import run_lines\n"
    "print(sum(len(run_lines(pk).scores) for pk in Run.objects.values_list('pk', flat=True)))"
)


def stored_lines(env: dict[str, str]) -> int:
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", COUNT_LINES],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return int(out.stdout.split()[-1])


def drop_postgres(server_url: str) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as con:
        con.execute(f"DROP DATABASE IF EXISTS {BENCH_DB}")


def timed_child(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int, bytes]:
    """Wall time, peak RSS in MB (wait4's rusage of the child alone), exit code and stderr of ``cmd``."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), err


def bench(database: str, runs: list[Path], workdir: Path, repeat: int, server_url: str) -> Result:
    times, peak, lines, note = [], 0.0, 0, ""
    for _ in range(repeat):
        env = fresh_sqlite(workdir) if database == "sqlite" else fresh_postgres(server_url)
        manage(env, "migrate", "-v0")
        manage(env, "import_topics", "bench", str(workdir / "topics.tsv"), "--create")
        cmd = [sys.executable, "manage.py", "import_runs", "bench", *map(str, runs), "--progress", "off"]
        seconds, rss, code, err = timed_child(cmd, env)
        if code != 0:
            return Result(database, [seconds], rss, 0, f"exit {code}: {err.decode(errors='replace')[-300:]}")
        times.append(seconds)
        peak = max(peak, rss)
        lines = stored_lines(env)
    if database == "postgres":
        drop_postgres(server_url)
    return Result(database, sorted(times), peak, lines, note)


TARGETS = {"sqlite": ("SQLite", 15.0), "postgres": ("PostgreSQL", 8.0)}  # seconds, for 5M lines


def summary_row(result: Result, load: str, expected: int) -> dict[str, object]:
    """One criteria row (benchmarks/speed.py's table): the median import time against its limit."""
    name, limit = TARGETS.get(result.database, (result.database, None))
    median = sorted(result.seconds)[len(result.seconds) // 2] if result.seconds else None
    default = expected == 5_000_000
    ok = not result.note and result.lines == expected
    return {
        "what": f"import {expected / 1e6:g}M run lines | {name}",
        "load": load,
        "ours": "manage.py import_runs",
        "ours_s": median,
        "peer": None,
        "peer_s": None,
        "ratio": None,
        "target": f"<= {limit:g} s" if default and limit else "information",
        "met": (ok and median is not None and median <= limit) if default and limit else None,
        "peak_mb": round(result.max_rss_mb),
        "note": None if ok else (result.note or f"{result.lines:,} of {expected:,} lines stored"),
    }


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    parser = bench_evaluate.harness.workload_parser(__doc__)
    bench_evaluate.harness.add_load_argument(parser)
    parser.add_argument("--databases", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("WORKBENCH_BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres"),
        help=f"a PostgreSQL server URL allowed to create and drop the database {BENCH_DB}",
    )
    args = parser.parse_args(argv)
    rounds = max(1, args.rounds)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="wb-bench-import-"))
    workdir.mkdir(parents=True, exist_ok=True)
    runs = ensure_workload(workdir, args.runs, args.topics, args.depth, args.seed)
    expected = args.runs * args.topics * args.depth
    size = sum(p.stat().st_size for p in runs) / 1e6
    print(f"{len(runs)} run files, {expected:,} lines, {size:.0f} MB; median of {rounds}\n", flush=True)
    print(f"{'database':<12}{'load':<6}{'median s':>9}{'peak MB':>9}{'lines/s':>12}  stored")
    rows: list[dict[str, object]] = []
    for load in bench_evaluate.harness.loads_of(args):
        for database in args.databases.split(","):
            t0 = time.perf_counter()
            with bench_evaluate.harness.load(load):
                result = bench(database.strip(), runs, workdir, rounds, args.postgres)
            rows.append(summary_row(result, load, expected))
            if result.note:
                print(f"{result.database:<12}{load:<6} failed: {result.note}")
                continue
            median = float(rows[-1]["ours_s"])  # type: ignore[arg-type]
            ok = "all" if result.lines == expected else f"{result.lines:,} of {expected:,}!"
            each = ", ".join(f"{s:.1f}" for s in result.seconds)
            print(
                f"{result.database:<12}{load:<6}{median:>9.2f}{result.max_rss_mb:>9.0f}"
                f"{expected / median:>12,.0f}  {ok}   (all runs: {each} s;"
                f" {time.perf_counter() - t0:.0f} s with setup)",
                flush=True,
            )
    if args.summary_json:
        args.summary_json.write_text(json.dumps(rows, indent=1))
    if any(row["note"] for row in rows):
        sys.exit(1)
    return rows


if __name__ == "__main__":
    main()
