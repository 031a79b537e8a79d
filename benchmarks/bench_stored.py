"""Evaluating stored runs from the database against ``manage.py evaluate`` on the same files.

Setup, untimed, once per database: a fresh database, ``migrate``, the default workload's topics
and run files imported (``import_runs``) and its qrels stored as the campaign's judgments. Then,
in alternating rounds (``benchmarks/harness.py``), each its own process:

* ``stored``: what the evaluation job does (``metrics.services.evaluation_run``): every stored
  run read from the database as arrays, scored by the engine (``evaluate_run``) against the stored
  qrels, the evaluation written back. Run by ``stored_job.py evaluate`` (Django set up as
  ``manage.py`` does; none of this script's own imports);
* ``files``: ``manage.py evaluate`` on the qrels and run files, with the evaluation's measures.

The criterion: stored time / file time at most 2. Both report the same values (checked).

    python benchmarks/bench_stored.py --workdir /tmp/wl --rounds 3
    python benchmarks/bench_stored.py --databases sqlite,postgres --load idle --summary-json out.json
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
# run as a script, this folder is on sys.path: the workload generator and the timing harness
import bench_evaluate  # noqa: E402
from harness import (  # noqa: E402
    Contender,
    add_load_argument,
    command_line,
    loads_of,
    measure_under_loads,
    ratio,
    workload_parser,
)
from stored_job import CAMPAIGN  # noqa: E402  # the campaign its child processes read

BENCH_DB = "workbench_bench_stored"
JOB = Path(__file__).resolve().with_name("stored_job.py")  # the child processes, lean on imports
TARGET = 2.0  # stored time / file time, at most


def ensure_workload(workdir: Path, runs: int, topics: int, depth: int, seed: int) -> list[Path]:
    paths = bench_evaluate.generate_in_child(workdir, runs, topics, depth, seed)
    topics_file = workdir / "topics.tsv"
    text = "".join(f"{401 + t}\ttopic {401 + t}\n" for t in range(topics))  # bench_evaluate's numbering
    if not topics_file.is_file() or topics_file.read_text() != text:
        topics_file.write_text(text)
    return paths


def database_env(database: str, workdir: Path, server_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "WORKBENCH_SQLITE_PATH")}
    if database == "sqlite":
        env["WORKBENCH_SQLITE_PATH"] = str(workdir / "bench_stored.sqlite3")
    else:
        parts = urlsplit(server_url)
        env["DATABASE_URL"] = urlunsplit(parts._replace(path=f"/{BENCH_DB}"))
    return env


def fresh_database(database: str, workdir: Path, server_url: str) -> None:
    drop_database(database, workdir, server_url)
    if database != "sqlite":
        import psycopg

        with psycopg.connect(server_url, autocommit=True) as con:
            con.execute(f"CREATE DATABASE {BENCH_DB}")


def drop_database(database: str, workdir: Path, server_url: str) -> None:
    if database == "sqlite":
        for suffix in ("", "-wal", "-shm"):
            Path(f"{workdir / 'bench_stored.sqlite3'}{suffix}").unlink(missing_ok=True)
        return
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as con:
        con.execute(f"DROP DATABASE IF EXISTS {BENCH_DB}")


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL
    )


def setup(database: str, workdir: Path, runs: list[Path], server_url: str) -> dict[str, str]:
    """A database holding the campaign: topics, every run, the qrels as its judgments."""
    fresh_database(database, workdir, server_url)
    env = database_env(database, workdir, server_url)
    manage(env, "migrate", "-v0")
    manage(env, "import_topics", CAMPAIGN, str(workdir / "topics.tsv"), "--create")
    manage(env, "import_runs", CAMPAIGN, *map(str, runs), "--progress", "off")
    subprocess.run(
        [sys.executable, str(JOB), "store-qrels", str(workdir / "qrels.txt")],
        cwd=ROOT,
        env=env,
        check=True,
    )
    return env


# ------------------------------------------------------------------------------- the comparison


def check_values(stored_json: Path, files_json: Path) -> str:
    """Every run's summary of every measure equal (to 1e-9) between the two contenders."""
    stored = json.loads(stored_json.read_text())
    files = json.loads(files_json.read_text())
    by_run: dict[str, dict[str, float]] = {}
    for row in files["runs"]:  # manage.py evaluate --format json
        by_run[str(row["run"])] = row["all"]
    compared = differ = 0
    for tag, summary in stored.items():
        theirs = by_run.get(tag)
        if theirs is None:
            continue
        for name, value in summary.items():
            if name not in theirs or value is None:
                continue
            compared += 1
            other = theirs[name]
            if other is None or not math.isclose(float(value), float(other), rel_tol=0, abs_tol=1e-9):
                differ += 1
    if not compared:
        return "values: not compared (no common run and measure)"
    return f"values: {compared - differ}/{compared} run means equal to 1e-9"


def main() -> None:
    parser = workload_parser(__doc__)
    parser.add_argument("--databases", default="sqlite", help="comma-separated: sqlite, postgres")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("WORKBENCH_BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres"),
        help=f"a PostgreSQL server URL allowed to create and drop the database {BENCH_DB}",
    )
    add_load_argument(parser)
    args = parser.parse_args()

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="wb-bench-stored-"))
    workdir.mkdir(parents=True, exist_ok=True)
    runs = ensure_workload(workdir, args.runs, args.topics, args.depth, args.seed)
    qrels = workdir / "qrels.txt"
    measures = [a for spec in _specs_in_child() for a in ("-m", spec)]
    out = Path(tempfile.mkdtemp(prefix="wb-bench-stored-out-"))
    print(
        f"{len(runs)} run files, {args.runs * args.topics * args.depth:,} lines; "
        f"measures {' '.join(measures[1::2])}\n",
        flush=True,
    )
    rows: list[dict[str, object]] = []
    failed = False
    for database in [d.strip() for d in args.databases.split(",") if d.strip()]:
        print(f"setting up {database} (import of every run, untimed) ...", flush=True)
        env = setup(database, workdir, runs, args.postgres)
        stored_out, files_out = out / f"{database}-stored.json", out / f"{database}-files.json"
        stored = Contender(
            f"stored ({database})",
            [sys.executable, str(JOB), "evaluate", "--out", str(stored_out)],
            env=env,
        )
        files = Contender(
            "manage.py evaluate (files)",
            [
                sys.executable,
                "manage.py",
                "evaluate",
                *measures,
                "--format",
                "json",
                str(qrels),
                *map(str, runs),
            ],
            stdout=files_out,
            env=env,
            check=functools.partial(check_values, stored_out, files_out),
        )
        title = f"Evaluating {len(runs)} stored runs ({database}) against the same files"
        by_load: dict[str, list] = {}
        in_worker: dict[str, float] = {}
        for kind in loads_of(args):
            sidecar = out / f"{database}-{kind}-seconds.txt"
            env["WORKBENCH_BENCH_STORED_SECONDS"] = str(sidecar)  # the stored contender's env
            by_load.update(
                measure_under_loads(
                    [stored, files], argparse.Namespace(**{**vars(args), "load": kind}), stored.name, title
                )
            )
            if sidecar.is_file():
                in_worker[kind] = statistics.median(float(x) for x in sidecar.read_text().split())
        for kind, results in by_load.items():
            by = {r.name: r for r in results}
            mine, theirs = by[stored.name], by[files.name]
            r = ratio(results, stored.name, files.name)  # stored median / file median
            met = bool(mine.ok and theirs.ok and r <= TARGET)
            failed |= not met
            rows.append(
                {
                    "what": f"default workload: evaluate {len(runs)} stored runs ({database}) vs the files",
                    "load": kind,
                    "ours": f"stored evaluation ({database})",
                    "ours_s": round(mine.median, 3) if mine.ok else None,
                    "peer": "manage.py evaluate on the files",
                    "peer_s": round(theirs.median, 3) if theirs.ok else None,
                    "ratio": round(r, 3) if not math.isnan(r) else None,
                    "target": f"stored / files <= {TARGET:g}",
                    "met": met,
                    "peak_mb": round(mine.max_rss_mb) if mine.ok else None,
                    "note": theirs.note,
                }
            )
            print(f"stored / files ({kind}): {r:.2f} (target <= {TARGET:g}); {theirs.note}\n", flush=True)
            if kind in in_worker and theirs.ok:
                # what a user of the workbench waits for: the job, in a worker already running
                # (Django's start-up, about 0.45 s here, is paid once when the worker starts)
                w = in_worker[kind]
                rows.append(
                    {
                        "what": f"default workload: evaluate {len(runs)} stored runs ({database}) in a "
                        "running worker (no start-up) vs the files",
                        "load": kind,
                        "ours": f"stored evaluation ({database}), the job's own time",
                        "ours_s": round(w, 3),
                        "peer": "manage.py evaluate on the files",
                        "peer_s": round(theirs.median, 3),
                        "ratio": round(w / theirs.median, 3),
                        "target": "- (information)",
                        "met": None,
                        "peak_mb": None,
                        "note": "",
                    }
                )
                print(f"stored in a running worker / files ({kind}): {w / theirs.median:.2f}\n", flush=True)
        drop_database(database, workdir, args.postgres)
    print(f"command: `{command_line()}`")
    if args.summary_json:
        args.summary_json.write_text(json.dumps(rows, indent=1))
    sys.exit(1 if failed else 0)


def _specs_in_child() -> list[str]:
    """The evaluation's measure specs, read in a child (the timing process stays free of Django)."""
    code = (
        "import sys; sys.path.insert(0, '.'); from metrics.evaluations import BASE_SPECS; print(*BASE_SPECS)"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "workbench.settings"}
    setup_code = "import django; django.setup(); " + code
    done = subprocess.run(
        [sys.executable, "-c", setup_code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.split()


if __name__ == "__main__":
    main()
