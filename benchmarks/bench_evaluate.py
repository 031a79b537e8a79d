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
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
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


@dataclass
class Timing:
    name: str
    seconds: float
    max_rss_mb: float
    ok: bool
    note: str = ""
    all_seconds: list[float] | None = None


REPEAT = 3


def _once(cmd: list[str], out: Path) -> tuple[float, float, int, bytes]:
    start = time.perf_counter()
    with open(out, "wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.PIPE, cwd=ROOT)
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), err


def timed(name: str, cmd: list[str], out: Path) -> Timing:
    """Run ``cmd`` REPEAT times as a child: the best wall time, and the peak RSS (wait4's rusage).

    The best of a few runs is the usual way to time on a shared machine: noise only adds time.
    """
    times, peak = [], 0.0
    for _ in range(REPEAT):
        seconds, rss, code, err = _once(cmd, out)
        if code != 0:
            return Timing(
                name, seconds, rss, False, f"exit {code}: {err.decode(errors='replace').strip()[-300:]}"
            )
        times.append(seconds)
        peak = max(peak, rss)
    times.sort()
    return Timing(name, times[0], peak, True, "", times)


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


def compare_values(ours: Path, pytrec: Path, runs: list[Path]) -> str:
    """Check that our 'all' values equal pytrec_eval's means on every run (both at full precision)."""
    names = {"P_10": "P_10"}
    mine: dict[tuple[str, str], float] = {}
    for line in ours.read_text().splitlines():
        run, measure, topic, value = line.split("\t")
        if topic == "all":
            mine[(run, names.get(measure, measure))] = float(value)
    worst = 0.0
    for line in pytrec.read_text().splitlines():
        path, measure, value = line.split(" ")
        run = Path(path).stem
        worst = max(worst, abs(mine[(run, measure)] - float(value)))
    return f"largest |ours - pytrec_eval| over all runs and measures: {worst:.2e}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--large", action="store_true", help="200 runs x 250 topics")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--topics", type=int, default=None)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=None, help="keep the generated files here")
    parser.add_argument("--repeat", type=int, default=3, help="runs per contender; the best is reported")
    parser.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    n_runs = args.runs or (200 if args.large else 100)
    n_topics = args.topics or (250 if args.large else 50)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="wb-bench-"))
    global REPEAT
    REPEAT = max(1, args.repeat)
    if args.generate_only:
        generate(workdir, n_runs, n_topics, args.depth, args.seed)
        return
    t0 = time.perf_counter()
    generate_in_child(workdir, n_runs, n_topics, args.depth, args.seed)
    wl = Workload(
        workdir, workdir / "qrels.txt", workdir / "prel.txt", sorted((workdir / "runs").glob("*.run"))
    )
    with open(wl.qrels) as fh:
        lines = sum(1 for _ in fh)
    print(
        f"  done in {time.perf_counter() - t0:.1f}s; qrels: {lines} judgments (depth-100 pool)\n", flush=True
    )

    py = sys.executable
    runs = [str(p) for p in wl.runs]
    mflags = [a for m in MEASURES for a in ("-m", m)]
    results: list[Timing] = []
    ours_out = workdir / "ours.txt"
    ours = timed(
        "workbench evaluate",
        [py, "manage.py", "evaluate", "--digits", "17", *mflags, str(wl.qrels), *runs],
        ours_out,
    )
    results.append(ours)
    peers: list[Timing] = []
    try:
        import pytrec_eval  # noqa: F401

        pt = timed("pytrec_eval", [py, "-c", PYTREC_SCRIPT, str(wl.qrels), *runs], workdir / "pytrec.txt")
        peers.append(pt)
        if pt.ok and ours.ok:
            pt.note = compare_values(ours_out, workdir / "pytrec.txt", wl.runs)
    except ImportError:
        print("pytrec_eval not installed: pip install -e '.[bench]'")
    try:
        import ir_measures  # noqa: F401

        peers.append(
            timed("ir_measures", [py, "-c", IR_MEASURES_SCRIPT, str(wl.qrels), *runs], workdir / "irm.txt")
        )
    except ImportError:
        pass
    if shutil.which("trec_eval"):
        # trec_eval takes one run per call: a shell loop is how campaigns use it
        script = " ; ".join(
            f"trec_eval -m map -m bpref -m infAP -m ndcg -m P.10 {wl.qrels} {r}" for r in runs
        )
        peers.append(timed("trec_eval (C, one process per run)", ["sh", "-c", script], workdir / "te.txt"))
    results += peers

    print(f"best of {REPEAT} runs each")
    print(f"{'tool':38s} {'wall s':>8s} {'peak MB':>8s} {'ratio':>8s}   all runs (s)")
    for r in results:
        ratio = r.seconds / ours.seconds if ours.seconds and ours.ok else float("nan")
        runs_s = " ".join(f"{x:.2f}" for x in r.all_seconds or [])
        status = "" if r.ok else "FAILED"
        print(f"{r.name:38s} {r.seconds:8.2f} {r.max_rss_mb:8.0f} {ratio:7.2f}x {status}  {runs_s}")
        if r.note:
            print(f"    {r.note}")
    print("(ratio = tool's wall time / workbench's: above 1 means the workbench is faster)\n")

    xi = timed(
        "workbench evaluate --prel xinfAP xinfNDCG",
        [py, "manage.py", "evaluate", "--prel", "-m", "xinfAP", "-m", "xinfNDCG", str(wl.prel), *runs],
        workdir / "xinf.txt",
    )
    print(f"{xi.name:45s} {xi.seconds:8.2f} s {xi.max_rss_mb:8.0f} MB {'' if xi.ok else 'FAILED ' + xi.note}")
    if shutil.which("sample_eval.pl"):
        script = " ; ".join(f"sample_eval.pl {wl.prel} {r}" for r in runs)
        se = timed("sample_eval.pl (one process per run)", ["sh", "-c", script], workdir / "se.txt")
        print(
            f"{se.name:45s} {se.seconds:8.2f} s {se.max_rss_mb:8.0f} MB  ratio {se.seconds / xi.seconds:.2f}x"
        )


if __name__ == "__main__":
    main()
