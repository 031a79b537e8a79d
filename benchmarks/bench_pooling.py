"""Time ``manage.py build_pool --strategy depth --depth 100`` against plain Python and trectools.

Reuses bench_evaluate.py's workload (default 100 runs x 50 topics x 1000 docs; ``--large`` 200
runs x 250 topics) and its timing harness: every contender runs as its own process on the same
files, reading included, and writes the pool as qrels; the best wall time of ``--repeat`` runs
and the peak RSS are reported with the ratios. The pools are compared: the plain Python one
uses the canonical order too and must be identical; trectools breaks score ties by docno
ascending, so a few documents at the cut may differ.

    python benchmarks/bench_pooling.py                       # default workload
    python benchmarks/bench_pooling.py --workdir /tmp/wb     # reuse (or keep) the generated files
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# run as a script, this folder is on sys.path: share bench_evaluate's generator and timing harness
import bench_evaluate  # noqa: E402

REQUIRED_SECONDS = 3.0


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


def _agreement(ours: Path, other: Path) -> str:
    a, b = _pairs(ours), _pairs(other)
    if a == b:
        return f"same pool as the workbench ({len(a)} topic-document pairs)"
    return f"differs from the workbench's pool: {len(a - b)} only ours, {len(b - a)} only theirs of {len(a)}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--large", action="store_true", help="200 runs x 250 topics")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--topics", type=int, default=None)
    parser.add_argument("--docs", type=int, default=1000, help="documents per topic in each run")
    parser.add_argument("--depth", type=int, default=100, help="pool depth (default 100)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=None, help="reuse or keep the generated files here")
    parser.add_argument("--repeat", type=int, default=3, help="runs per contender; the best is reported")
    args = parser.parse_args()
    be = bench_evaluate
    be.REPEAT = max(1, args.repeat)
    n_runs = args.runs or (200 if args.large else 100)
    n_topics = args.topics or (250 if args.large else 50)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="wb-pool-"))
    runs = be.generate_in_child(workdir, n_runs, n_topics, args.docs, args.seed)
    paths = [str(p) for p in runs]
    depth = str(args.depth)
    py = sys.executable
    ours_out = workdir / "pool.workbench.qrels"
    ours = be.timed(
        "workbench build_pool",
        [
            py,
            "manage.py",
            "build_pool",
            "--strategy",
            "depth",
            "--depth",
            depth,
            "--output",
            str(ours_out),
            *paths,
        ],
        workdir / "build_pool.stdout",
    )
    results = [ours]
    plain_out = workdir / "pool.plain.qrels"
    plain = be.timed(
        "plain Python (dict/set)",
        [py, "-c", PLAIN_PYTHON, depth, str(plain_out), *paths],
        workdir / "plain.stdout",
    )
    if plain.ok and ours.ok:
        plain.note = _agreement(ours_out, plain_out)
    results.append(plain)
    try:
        import trectools  # noqa: F401

        version = _version("trectools")
        tt_out = workdir / "pool.trectools.qrels"
        tt = be.timed(
            f"trectools {version}",
            [py, "-c", TRECTOOLS, depth, str(tt_out), *paths],
            workdir / "trectools.stdout",
        )
        if tt.ok and ours.ok:
            tt.note = _agreement(ours_out, tt_out)
        results.append(tt)
    except ImportError:
        print("trectools not installed: pip install -e '.[bench]'")

    print(f"\ndepth-{args.depth} pool of {len(paths)} runs; best of {be.REPEAT} runs each")
    print(f"{'tool':32s} {'wall s':>8s} {'peak MB':>8s} {'ratio':>8s}   all runs (s)")
    for r in results:
        ratio = r.seconds / ours.seconds if ours.ok and ours.seconds else float("nan")
        runs_s = " ".join(f"{x:.2f}" for x in r.all_seconds or [])
        status = "" if r.ok else "FAILED"
        print(f"{r.name:32s} {r.seconds:8.2f} {r.max_rss_mb:8.0f} {ratio:7.2f}x {status}  {runs_s}")
        if r.note:
            print(f"    {r.note}")
    print("(ratio = tool's wall time / workbench's: above 1 means the workbench is faster)")
    peers = [r for r in results[1:] if r.ok]
    fastest = ours.ok and all(ours.seconds < r.seconds for r in peers)
    verdict = "met" if fastest and ours.seconds < REQUIRED_SECONDS else "NOT met"
    print(f"requirement (faster than every peer and under {REQUIRED_SECONDS:.0f} s): {verdict}")


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "?"


if __name__ == "__main__":
    main()
