"""Time ``manage.py build_pool --strategy depth --depth 100`` against pyarrow parsing the same files.

Uses bench_evaluate.py's workload (default 100 runs x 50 topics x 1000 docs; ``--large`` 200 runs
x 250 topics, 50M lines) and the shared harness (benchmarks/harness.py): every contender is its
own process on the same files, reading included, run in alternating rounds; medians, peak RSS and
ratios are reported, with the other core idle and/or busy (``--load``).

Contenders:

* ``workbench build_pool``: the depth-100 pool written as qrels (rel -1);
* ``pyarrow parse-only``: two scripts, each the fastest honest way we found to parse every run
  file with pyarrow's C++ CSV reader into typed columns (qid, docno, score) and nothing else:
  files read concurrently by one thread per core, either pyarrow reading the path with its own
  threads inside a file, or Python reading the whole file and pyarrow parsing that buffer. The
  criterion (at most 1.5x parse-only time) is taken against the faster of the two;
* ``plain Python (dict/set)``: a straightforward pool in canonical order (score descending, ties
  by docno descending); the workbench's pool must be identical to it. Being slow, it runs
  ``--peer-rounds`` times (default 1), with the other core idle only unless ``--load busy``;
* ``trectools`` when installed (``pip install -e '.[bench]'``): its own pooling API. It breaks
  score ties by docno ascending, so a few documents at the cut may differ.

    python benchmarks/bench_pooling.py                                # default workload
    python benchmarks/bench_pooling.py --large --workdir /tmp/wl_large --rounds 3
    python benchmarks/bench_pooling.py --workdir /tmp/wl --load idle --summary-json pool.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import textwrap
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# run as a script, this folder is on sys.path: share bench_evaluate's workload generator
import bench_evaluate  # noqa: E402
import harness  # noqa: E402

OURS = "workbench build_pool"
PA_THREADS = "pyarrow parse-only (pyarrow threads)"
PA_BUFFER = "pyarrow parse-only (whole-file buffer)"
PLAIN = "plain Python (dict/set)"
PARSE_LIMIT = 1.5  # ours at most 1.5x the parse-only time
PEAK_RSS_LIMIT_MB = 1024

_PA_OPTIONS = """
import os, sys
from concurrent.futures import ThreadPoolExecutor
import pyarrow as pa, pyarrow.csv as pcsv
names = ["qid", "Q0", "docno", "rank", "score", "tag"]
parse = pcsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False)
convert = pcsv.ConvertOptions(
    column_types={"qid": pa.binary(), "docno": pa.binary(), "score": pa.float64()},
    include_columns=["qid", "docno", "score"],
)
"""

# Parse-only with pyarrow, files read concurrently (one per core, pyarrow releases the GIL) and
# pyarrow's own threads inside each file (1 MB blocks).
PYARROW_THREADS = textwrap.dedent(_PA_OPTIONS) + textwrap.dedent(
    """
    read = pcsv.ReadOptions(column_names=names, use_threads=True, block_size=1 << 20)
    def one(path):
        return pcsv.read_csv(path, read_options=read, parse_options=parse, convert_options=convert).num_rows
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        print(sum(pool.map(one, sys.argv[1:])))
    """
)

# Parse-only with pyarrow, files read concurrently, each read whole by Python and parsed from
# memory as one block: the way build_pool reads them.
PYARROW_BUFFER = textwrap.dedent(_PA_OPTIONS) + textwrap.dedent(
    """
    read = pcsv.ReadOptions(column_names=names, use_threads=False, block_size=1 << 30)
    def one(path):
        with open(path, "rb") as fh:
            data = fh.read()
        table = pcsv.read_csv(pa.py_buffer(data), read, parse, convert)
        return table.num_rows
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        print(sum(pool.map(one, sys.argv[1:])))
    """
)

PLAIN_PYTHON = textwrap.dedent(
    """
    # A straightforward depth-k pool: dicts and sets, canonical order (score desc, docno desc).
    import sys
    from collections import defaultdict

    depth, out, paths = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    pool = defaultdict(set)
    for path in paths:
        per_topic = defaultdict(list)
        with open(path) as fh:
            for line in fh:
                qid, _, docno, _, score, _ = line.split()
                per_topic[qid].append((float(score), docno))
        for qid, docs in per_topic.items():
            docs.sort(reverse=True)
            pool[qid].update(d for _, d in docs[:depth])
    with open(out, "w") as fh:
        for qid in sorted(pool):
            for docno in sorted(pool[qid]):
                fh.write(f"{qid} 0 {docno} -1\\n")
    """
)

TRECTOOLS = textwrap.dedent(
    """
    # trectools' own pooling API, the pool written as qrels.
    import sys
    from trectools import TrecPoolMaker

    depth, out, paths = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    pool = TrecPoolMaker().make_pool_from_files(paths, strategy="topX", topX=depth)
    with open(out, "w") as fh:
        for qid in sorted(pool.pool, key=str):
            for docno in sorted(pool.pool[qid]):
                fh.write(f"{qid} 0 {docno} -1\\n")
    """
)


def _pairs(path: Path) -> set[tuple[str, str]]:
    with open(path) as fh:
        return {(f[0], f[2]) for f in (line.split() for line in fh)}


def agreement(ours: Path, other: Path) -> tuple[bool, str]:
    """Whether ``other`` pools the same (topic, docno) pairs as ours, and a sentence saying so."""
    a, b = _pairs(ours), _pairs(other)
    if a == b:
        same_bytes = ours.read_bytes() == other.read_bytes()
        return True, (
            f"same pool as the workbench ({len(a):,} topic-document pairs"
            f"{', byte-identical file' if same_bytes else ''})"
        )
    return (
        False,
        f"differs from the workbench's pool: {len(a - b)} only ours, {len(b - a)} only theirs of {len(a)}",
    )


def trectools_version() -> str | None:
    try:
        import trectools  # noqa: F401
    except ImportError:
        return None
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("trectools")
    except PackageNotFoundError:
        return "?"


def main_contenders(paths: Sequence[str], depth: int, workdir: Path) -> list[harness.Contender]:
    py = sys.executable
    build = [py, "manage.py", "build_pool", "--strategy", "depth", "--depth", str(depth), "--progress", "off"]
    return [
        harness.Contender(OURS, [*build, "--output", str(workdir / "pool.workbench.qrels"), *paths]),
        harness.Contender(PA_THREADS, [py, "-c", PYARROW_THREADS, *paths], workdir / "pa_threads.txt"),
        harness.Contender(PA_BUFFER, [py, "-c", PYARROW_BUFFER, *paths], workdir / "pa_buffer.txt"),
    ]


def peer_contenders(
    paths: Sequence[str], depth: int, workdir: Path, identical: dict[str, bool]
) -> list[harness.Contender]:
    py = sys.executable
    ours_out = workdir / "pool.workbench.qrels"
    build = [py, "manage.py", "build_pool", "--strategy", "depth", "--depth", str(depth), "--progress", "off"]

    def checker(name: str, out: Path):
        def check() -> str:
            same, note = agreement(ours_out, out)
            identical[name] = same
            return note

        return check

    plain_out = workdir / "pool.plain.qrels"
    out = [
        harness.Contender(OURS, [*build, "--output", str(ours_out), *paths]),
        harness.Contender(
            PLAIN,
            [py, "-c", PLAIN_PYTHON, str(depth), str(plain_out), *paths],
            check=checker(PLAIN, plain_out),
        ),
    ]
    version = trectools_version()
    if version is not None:
        tt_out = workdir / "pool.trectools.qrels"
        name = f"trectools {version}"
        out.append(
            harness.Contender(
                name, [py, "-c", TRECTOOLS, str(depth), str(tt_out), *paths], check=checker(name, tt_out)
            )
        )
    return out


def _row(
    what: str, load: str, ours: harness.Result, peer: harness.Result | None, target: str, met: bool | None
) -> dict[str, object]:
    ratio = peer.median / ours.median if peer is not None else None
    return {
        "what": what,
        "load": load,
        "ours": ours.name,
        "ours_s": round(ours.median, 3),
        "peer": peer.name if peer is not None else None,
        "peer_s": round(peer.median, 3) if peer is not None else None,
        "ratio": round(ratio, 2) if ratio is not None else None,
        "target": target,
        "met": met,
        "peak_mb": round(ours.max_rss_mb),
    }


def summary_rows(
    scale: str,
    depth: int,
    timed: dict[str, list[harness.Result]],
    peers: dict[str, list[harness.Result]],
    identical: dict[str, bool],
) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    what = f"{scale} workload: depth-{depth} pool"
    for load, results in timed.items():
        by = {r.name: r for r in results}
        ours = by[OURS]
        if not ours.ok:
            continue
        parsers = [r for r in (by[PA_THREADS], by[PA_BUFFER]) if r.ok]
        if parsers:
            fastest = min(parsers, key=lambda r: r.median)
            ratio = fastest.median / ours.median
            rows.append(
                _row(
                    f"{what} vs parse-only (the faster pyarrow script)",
                    load,
                    ours,
                    fastest,
                    f"ours <= {PARSE_LIMIT}x parse (ratio >= {1 / PARSE_LIMIT:.2f})",
                    ratio >= 1 / PARSE_LIMIT,
                )
            )
        rows.append(
            _row(
                f"{what}: peak RSS",
                load,
                ours,
                None,
                f"peak RSS <= {PEAK_RSS_LIMIT_MB} MB",
                ours.max_rss_mb <= PEAK_RSS_LIMIT_MB,
            )
        )
    for load, results in peers.items():
        by = {r.name: r for r in results}
        ours = by[OURS]
        if not ours.ok:
            continue
        for r in results:
            if r.name == OURS or not r.ok:
                continue
            if r.name == PLAIN:
                row = _row(f"{what}: pool identical to plain Python's", load, ours, r, "identical pool", None)
                row["met"] = identical.get(PLAIN, False)
            else:
                row = _row(f"{what} vs {r.name}", load, ours, r, "faster (ratio > 1)", r.median > ours.median)
            row["note"] = r.note
            rows.append(row)
    return rows


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--large", action="store_true", help="200 runs x 250 topics (50M lines)")
    parser.add_argument("--runs", type=int, default=None, help="a custom number of runs")
    parser.add_argument("--topics", type=int, default=None, help="a custom number of topics")
    parser.add_argument("--docs", type=int, default=1000, help="documents per topic in each run")
    parser.add_argument("--depth", type=int, default=100, help="pool depth (default 100)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=None, help="reuse (or keep) the workload here")
    parser.add_argument(
        "--large-workdir", type=Path, default=None, help="with --large: the large workload's folder"
    )
    parser.add_argument(
        "--peer-rounds", type=int, default=1, help="rounds of the slow peers (plain Python, trectools)"
    )
    parser.add_argument("--no-peers", action="store_true", help="skip plain Python and trectools")
    harness.add_load_argument(parser)
    args = parser.parse_args(argv)
    return args


def main(argv: Sequence[str] | None = None) -> list[dict[str, object]]:
    args = parse_args(argv)
    n_runs = args.runs or (200 if args.large else 100)
    n_topics = args.topics or (250 if args.large else 50)
    workdir = (args.large_workdir if args.large else None) or args.workdir
    workdir = workdir or Path(tempfile.mkdtemp(prefix="wb-pool-"))
    runs = bench_evaluate.generate_in_child(workdir, n_runs, n_topics, args.docs, args.seed)
    paths = [str(p) for p in runs]
    scale = "large" if args.large else "default" if not (args.runs or args.topics) else "custom"
    label = f"{len(paths)} runs x {n_topics} topics x {args.docs} docs"
    print(f"depth-{args.depth} pool of {label}; command: {harness.command_line()}\n", flush=True)
    timed = harness.measure_under_loads(
        main_contenders(paths, args.depth, workdir), args, OURS, f"build_pool vs parse-only: {label}"
    )
    identical: dict[str, bool] = {}
    peers: dict[str, list[harness.Result]] = {}
    if not args.no_peers:
        if trectools_version() is None:
            print("trectools not installed (pip install -e '.[bench]'): timed without it\n")
        peer_args = argparse.Namespace(**vars(args))
        peer_args.rounds = max(1, args.peer_rounds)
        peer_args.load = "busy" if args.load == "busy" else "idle"
        peers = harness.measure_under_loads(
            peer_contenders(paths, args.depth, workdir, identical),
            peer_args,
            OURS,
            f"build_pool vs peers: {label}",
        )
    rows = summary_rows(scale, args.depth, timed, peers, identical)
    for row in rows:
        shown = "-" if row["ratio"] is None else f"{row['ratio']:.2f}"
        verdict = "met" if row["met"] else "NOT met"
        print(f"{row['what']} [{row['load']}]: ratio {shown}, target {row['target']}: {verdict}")
    if args.summary_json:
        args.summary_json.write_text(json.dumps(rows, indent=1))
    return rows


if __name__ == "__main__":
    main()
