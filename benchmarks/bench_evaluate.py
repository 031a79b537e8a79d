"""Time ``manage.py evaluate`` against pytrec_eval (and ir_measures, trec_eval, sample_eval.pl if present).

Generates the campaign workload (default 100 runs x 50 topics x 1000 docs, graded qrels from a
depth-100 pool; ``--large`` 200 runs x 250 topics), then runs every contender as its own process
on the same files, parsing included, and prints wall time, peak memory (max RSS) and ratios.
A stratified prel of the same workload times xinfAP/xinfNDCG too.

    python benchmarks/bench_evaluate.py            # default workload
    python benchmarks/bench_evaluate.py --large
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# run as a script, this folder is on sys.path
import harness  # noqa: E402

MEASURES = ["map", "bpref", "infAP", "ndcg", "P.10"]


@dataclass
class Workload:
    folder: Path
    qrels: Path
    prel: Path
    runs: list[Path]


def generate(folder: Path, n_runs: int, n_topics: int, depth: int, seed: int) -> Workload:
    """Runs share a per-topic latent document quality plus per-run noise, like real systems do."""
    import numpy as np

    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runs").mkdir(exist_ok=True)
    universe = 20 * depth
    topics = [str(401 + t) for t in range(n_topics)]
    quality = rng.standard_normal((n_topics, universe))
    doc_ids = rng.choice(10**8, size=(n_topics, universe), replace=False)
    noise = rng.uniform(0.5, 2.0, size=n_runs)
    best_rank = np.full((n_topics, universe), np.iinfo(np.int64).max)
    paths = []
    for r in range(n_runs):
        lines: list[str] = []
        for t, topic in enumerate(topics):
            scores = quality[t] + noise[r] * rng.standard_normal(universe)
            top = np.argpartition(-scores, depth)[:depth]
            top = top[np.argsort(-scores[top])]
            best_rank[t, top] = np.minimum(best_rank[t, top], np.arange(1, depth + 1))
            s = scores[top] * 10 + 50
            lines.extend(
                f"{topic} Q0 doc{doc_ids[t, d]:08d} {i} {v:.6f} sys{r:03d}\n"
                for i, (d, v) in enumerate(zip(top.tolist(), s.tolist(), strict=False), start=1)
            )
        path = folder / "runs" / f"sys{r:03d}.run"
        path.write_text("".join(lines))
        paths.append(path)
    # graded qrels over the depth-100 pool; grade probability rises with latent quality
    qrels_lines, prel_lines = [], []
    for t, topic in enumerate(topics):
        pooled = np.flatnonzero(best_rank[t] <= 100)
        q = quality[t, pooled]
        u = rng.random(len(pooled))
        grades = np.select(
            [
                u < 1 / (1 + np.exp(-(2 * q - 4))),
                u < 1 / (1 + np.exp(-(2 * q - 3))),
                u < 1 / (1 + np.exp(-(2 * q - 2))),
            ],
            [3, 2, 1],
            0,
        )
        ranks = best_rank[t, pooled]
        stratum = np.where(ranks <= 10, 1, np.where(ranks <= 30, 2, 3))
        rate = np.array([0.0, 1.0, 0.5, 0.1])[stratum]
        sampled = rng.random(len(pooled)) < rate
        for d, g, s, smp in zip(
            pooled.tolist(), grades.tolist(), stratum.tolist(), sampled.tolist(), strict=False
        ):
            qrels_lines.append(f"{topic} 0 doc{doc_ids[t, d]:08d} {g}\n")
            prel_lines.append(f"{topic} 0 doc{doc_ids[t, d]:08d} {s} {g if smp else -1}\n")
    (folder / "qrels.txt").write_text("".join(qrels_lines))
    (folder / "prel.txt").write_text("".join(prel_lines))
    return Workload(folder, folder / "qrels.txt", folder / "prel.txt", paths)


def generate_in_child(workdir: Path, n_runs: int, n_topics: int, depth: int, seed: int) -> list[Path]:
    """Generate the workload in a child process unless ``workdir`` already holds it; its run files.

    A child's peak RSS starts from its parent's size at fork, so the generator runs in a child
    and the timing process stays small, which keeps the contenders' memory figures honest.
    """
    runs = sorted((workdir / "runs").glob("*.run"))
    if len(runs) == n_runs and (workdir / "qrels.txt").is_file():
        return runs
    print(f"generating {n_runs} runs x {n_topics} topics x {depth} docs in {workdir} ...", flush=True)
    args = ["--runs", str(n_runs), "--topics", str(n_topics), "--depth", str(depth), "--seed", str(seed)]
    subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--generate-only", "--workdir", str(workdir), *args],
        check=True,
    )
    return sorted((workdir / "runs").glob("*.run"))


PYTREC_SCRIPT = textwrap.dedent(
    """
    import sys, pytrec_eval
    qrels_path, runs = sys.argv[1], sys.argv[2:]
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "bpref", "infAP", "ndcg", "P.10"})
    for path in runs:
        with open(path) as f:
            run = pytrec_eval.parse_run(f)
        res = evaluator.evaluate(run)
        for m in ("map", "bpref", "infAP", "ndcg", "P_10"):
            vals = [v[m] for v in res.values()]
            print(path, m, sum(vals) / len(vals))
    """
)

IR_MEASURES_SCRIPT = textwrap.dedent(
    """
    import sys, ir_measures
    from ir_measures import AP, Bpref, infAP, nDCG, P
    qrels_path, runs = sys.argv[1], sys.argv[2:]
    qrels = list(ir_measures.read_trec_qrels(qrels_path))
    measures = [AP, Bpref, infAP, nDCG, P@10]
    for path in runs:
        print(path, ir_measures.calc_aggregate(measures, qrels, ir_measures.read_trec_run(path)))
    """
)

# The fastest honest parse-only reading of the same files with pyarrow: every run file parsed by
# pyarrow's C++ CSV reader into typed columns (qid, docno, score), files read concurrently by one
# thread per core (pyarrow releases the GIL), nothing evaluated.
PYARROW_PARSE_ONLY = textwrap.dedent(
    """
    import os, sys
    from concurrent.futures import ThreadPoolExecutor
    import pyarrow as pa, pyarrow.csv as pcsv
    names = ["qid", "Q0", "docno", "rank", "score", "tag"]
    read = pcsv.ReadOptions(column_names=names, use_threads=False, block_size=1 << 26)
    parse = pcsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False)
    convert = pcsv.ConvertOptions(
        column_types={"qid": pa.binary(), "docno": pa.binary(), "score": pa.float64()},
        include_columns=["qid", "docno", "score"],
    )
    def one(path):
        return pcsv.read_csv(path, read_options=read, parse_options=parse, convert_options=convert).num_rows
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        print(sum(pool.map(one, sys.argv[1:])))
    """
)


def compare_values(ours: Path, pytrec: Path) -> str:
    """Our 'all' values against pytrec_eval's means on every run (both at full precision)."""
    mine: dict[tuple[str, str], float] = {}
    for line in ours.read_text().splitlines():
        run, measure, topic, value = line.split("\t")
        if topic == "all":
            mine[(run, measure)] = float(value)
    worst = 0.0
    for line in pytrec.read_text().splitlines():
        path, measure, value = line.split(" ")
        worst = max(worst, abs(mine[(Path(path).stem, measure)] - float(value)))
    return f"largest |ours - pytrec_eval| over all runs and measures: {worst:.2e}"


def contenders(wl: Workload, *, with_ir_measures: bool, trec_eval: str | None) -> list[harness.Contender]:
    py = sys.executable
    runs = [str(p) for p in wl.runs]
    mflags = [a for m in MEASURES for a in ("-m", m)]
    ours_out = wl.folder / "ours.txt"
    out: list[harness.Contender] = [
        harness.Contender(
            OURS, [py, "manage.py", "evaluate", "--digits", "17", *mflags, str(wl.qrels), *runs], ours_out
        )
    ]
    try:
        import pytrec_eval  # noqa: F401

        pytrec_out = wl.folder / "pytrec.txt"
        out.append(
            harness.Contender(
                "pytrec_eval",
                [py, "-c", PYTREC_SCRIPT, str(wl.qrels), *runs],
                pytrec_out,
                check=lambda: compare_values(ours_out, pytrec_out),
            )
        )
    except ImportError:
        print("pytrec_eval not installed: pip install -e '.[bench]'", file=sys.stderr)
    if trec_eval:
        # trec_eval takes one run per call: a shell loop is how campaigns use it
        script = " ; ".join(f"{trec_eval} {' '.join(mflags)} {wl.qrels} {r}" for r in runs)
        out.append(
            harness.Contender(
                "trec_eval -O2 (one process per run)", ["sh", "-c", script], wl.folder / "te.txt"
            )
        )
    out.append(
        harness.Contender("pyarrow parse-only", [py, "-c", PYARROW_PARSE_ONLY, *runs], wl.folder / "pa.txt")
    )
    if with_ir_measures:
        out.append(harness.Contender("ir_measures", [py, "-c", IR_MEASURES_SCRIPT, str(wl.qrels), *runs]))
    return out


def xinf_contenders(wl: Workload, sample_eval: str | None, subset: int | None) -> list[harness.Contender]:
    py = sys.executable
    runs = [str(p) for p in wl.runs][: subset or None]
    out = [
        harness.Contender(
            OURS + " --prel xinfAP xinfNDCG",
            [py, "manage.py", "evaluate", "--prel", "-m", "xinfAP", "-m", "xinfNDCG", str(wl.prel), *runs],
            wl.folder / "xinf.txt",
        )
    ]
    if sample_eval:
        script = " ; ".join(f"perl {sample_eval} {wl.prel} {r}" for r in runs)
        out.append(
            harness.Contender(
                "sample_eval.pl (one process per run)", ["sh", "-c", script], wl.folder / "se.txt"
            )
        )
    return out


OURS = "workbench evaluate"


def find_tool(explicit: str | None, name: str) -> str | None:
    return explicit or shutil.which(name)


def summary_rows(
    what: str, results: dict[str, list[harness.Result]], peer: str, target: str, minimum: float
) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for load, res in results.items():
        by = {r.name: r for r in res}
        ours = next(r for r in res if r.name.startswith(OURS))
        other = by.get(peer)
        if other is None or not other.ok or not ours.ok:
            continue
        ratio = other.median / ours.median
        rows.append(
            {
                "what": what,
                "load": load,
                "ours": ours.name,
                "ours_s": round(ours.median, 3),
                "peer": peer,
                "peer_s": round(other.median, 3),
                "ratio": round(ratio, 2),
                "target": target,
                "met": ratio >= minimum,
                "peak_mb": round(ours.max_rss_mb),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--large", action="store_true", help="200 runs x 250 topics")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--topics", type=int, default=None)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--workdir", type=Path, default=None, help="keep (and reuse) the generated files here"
    )
    parser.add_argument("--trec-eval", default=None, help="trec_eval binary (default: on PATH)")
    parser.add_argument("--sample-eval", default=None, help="sample_eval.pl (default: on PATH)")
    parser.add_argument("--xinf-runs", type=int, default=None, help="time xinfAP on the first N runs only")
    parser.add_argument("--no-xinf", action="store_true", help="skip the xinfAP/xinfNDCG comparison")
    parser.add_argument("--with-ir-measures", action="store_true", help="time ir_measures too (slow)")
    parser.add_argument("--summary-json", type=Path, default=None, help="write the criteria rows here")
    parser.add_argument("--repeat", type=int, default=None, help=argparse.SUPPRESS)  # old name of --rounds
    parser.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    harness.add_load_argument(parser)
    args = parser.parse_args()
    if args.repeat:
        args.rounds = args.repeat
    n_runs = args.runs or (200 if args.large else 100)
    n_topics = args.topics or (250 if args.large else 50)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="wb-bench-"))
    if args.generate_only:
        generate(workdir, n_runs, n_topics, args.depth, args.seed)
        return
    runs = generate_in_child(workdir, n_runs, n_topics, args.depth, args.seed)
    wl = Workload(workdir, workdir / "qrels.txt", workdir / "prel.txt", runs)
    lines = wl.qrels.read_bytes().count(b"\n")
    label = f"{n_runs} runs x {n_topics} topics x {args.depth} docs, {lines:,} qrels"
    print(f"{label}; command: {harness.command_line()}\n", flush=True)
    trec_eval = find_tool(args.trec_eval, "trec_eval")
    if trec_eval is None:
        print(
            "trec_eval not found: build it with -O2 (see the docstring) and pass --trec-eval", file=sys.stderr
        )
    results = harness.measure_under_loads(
        contenders(wl, with_ir_measures=args.with_ir_measures, trec_eval=trec_eval),
        args,
        OURS,
        f"evaluate: {label}",
    )
    scale = "large" if args.large else "default" if not (args.runs or args.topics) else "custom"
    rows = summary_rows(f"{scale} workload: evaluate 5 measures", results, "pytrec_eval", ">= 5x", 5.0)
    rows += summary_rows(
        f"{scale} workload: evaluate 5 measures", results, "trec_eval -O2 (one process per run)", ">= 2x", 2.0
    )
    rows += summary_rows(
        f"{scale} workload: vs parse-only",
        results,
        "pyarrow parse-only",
        "ours <= 1.5x parse (ratio >= 0.67)",
        1 / 1.5,
    )
    if not args.no_xinf:
        sample_eval = find_tool(args.sample_eval, "sample_eval.pl")
        xres = harness.measure_under_loads(
            xinf_contenders(wl, sample_eval, args.xinf_runs),
            args,
            OURS + " --prel xinfAP xinfNDCG",
            f"xinfAP and xinfNDCG: {label}",
        )
        rows += summary_rows(
            f"{scale} workload: xinfAP + xinfNDCG" + (f" ({args.xinf_runs} runs)" if args.xinf_runs else ""),
            xres,
            "sample_eval.pl (one process per run)",
            ">= 20x",
            20.0,
        )
    if args.summary_json:
        args.summary_json.write_text(json.dumps(rows, indent=1))


# kept for bench_import.py and bench_pooling.py, which time single commands the old way
@dataclass
class Timing:
    name: str
    seconds: float
    max_rss_mb: float
    ok: bool
    note: str = ""
    all_seconds: list[float] | None = None


REPEAT = 3


def timed(name: str, cmd: list[str], out: Path) -> Timing:
    """Run ``cmd`` REPEAT times as a child: the best wall time, and the peak RSS."""
    res = harness.alternate([harness.Contender(name, cmd, out)], REPEAT, progress=False)[0]
    if not res.ok:
        return Timing(name, float("nan"), res.max_rss_mb, False, res.note)
    return Timing(name, min(res.seconds), res.max_rss_mb, True, "", sorted(res.seconds))


if __name__ == "__main__":
    main()
