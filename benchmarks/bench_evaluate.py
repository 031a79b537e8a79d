"""Time ``manage.py evaluate`` against pytrec_eval, trec_eval, pyarrow's parser and sample_eval.pl.

Every contender is its own process on the same files, parsing and start-up included, timed by
``harness.py`` (alternating rounds, medians, ``--load idle|busy|both``, peak RSS of the child):

* ``workbench evaluate``: ``manage.py evaluate -m map -m bpref -m infAP -m ndcg -m P.10 qrels runs...``
* ``pytrec_eval``: its own parsers (``parse_qrel``, ``parse_run``), one ``RelevanceEvaluator``;
* ``trec_eval -O2 (one process per run)``: a shell loop over the run files, as campaigns use it;
* ``pyarrow parse-only``: every run file read by ``pyarrow.csv.read_csv`` (delimiter ' ', qid and
  docno as binary, score as float64), the files read concurrently by a thread pool, nothing
  evaluated: the fastest honest reading of the same bytes;
* ``ir_measures`` with ``--with-ir-measures`` (slow; only if installed).

Workloads (``generate``): the default 100 runs x 50 topics x 1000 docs (5M run lines) and the
large 200 runs x 250 topics (50M), graded qrels over the depth-100 pool and a stratified prel of
the same pool. They are generated into ``--workdir`` / ``--large-workdir`` when missing, reused
otherwise. ``--scaling`` times ours alone on both workloads (large/default time, the work grows
10x). The xinf section (on by default, ``--no-xinf``) times ``evaluate --prel -m xinfAP -m
xinfNDCG`` against NIST's ``sample_eval.pl`` run once per run file, both on the same first
``--xinf-runs`` runs (sample_eval.pl takes ~10 s per large run); when that is a subset, ours is
also timed on every run and sample_eval.pl's time for all of them is extrapolated from the subset
(labelled so in the tables).

Values: ours against pytrec_eval's means to 1e-9. pytrec_eval stores run scores as C floats
(trec_eval and the workbench use doubles), so two scores that differ only beyond float precision
tie there and are ordered by docno: the check names such topics instead of hiding them. The xinf
values are compared with sample_eval.pl's printed 4 digits.

trec_eval, built with -O2 (its Makefile's default CFLAGS have no optimisation)::

    git clone https://github.com/usnistgov/trec_eval && cd trec_eval
    make CFLAGS='-O2 -I. -Wall -DVERSIONID=\\"9.0.8\\"'
    cp trec_eval ~/.local/bin/      # or pass --trec-eval path/to/trec_eval

sample_eval.pl: https://trec.nist.gov/data/web/12/sample_eval.pl (put it on PATH or pass
``--sample-eval``; it needs perl).

    python benchmarks/bench_evaluate.py --workdir /tmp/wl                      # default workload
    python benchmarks/bench_evaluate.py --large --large-workdir /tmp/wl_large  # large workload
    python benchmarks/bench_evaluate.py --large --scaling --workdir /tmp/wl --large-workdir /tmp/wl_large
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# run as a script, this folder is on sys.path
import harness  # noqa: E402

MEASURES = ["map", "bpref", "infAP", "ndcg", "P.10"]
OURS = "workbench evaluate"
PYTREC = "pytrec_eval"
TREC_EVAL = "trec_eval -O2 (one process per run)"
PYARROW = "pyarrow parse-only"
IR_MEASURES = "ir_measures"
OURS_XINF = OURS + " --prel xinfAP xinfNDCG"
SAMPLE_EVAL = "sample_eval.pl (one process per run)"
DEFAULT_SIZE = (100, 50)  # runs, topics
LARGE_SIZE = (200, 250)
TOLERANCE = 1e-9
PEAK_RSS_LIMIT_MB = 1024


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


# pytrec_eval's own parsers and one evaluator, each run parsed and evaluated in turn
_PYTREC_LOOP = """
import sys, pytrec_eval
qrels_path, runs = sys.argv[1], sys.argv[2:]
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "bpref", "infAP", "ndcg", "P.10"})
for path in runs:
    with open(path) as f:
        run = pytrec_eval.parse_run(f)
"""

PYTREC_SCRIPT = _PYTREC_LOOP + (
    "    res = evaluator.evaluate(run)\n"
    '    for m in ("map", "bpref", "infAP", "ndcg", "P_10"):\n'
    "        vals = [v[m] for v in res.values()]\n"
    "        print(path, m, sum(vals) / len(vals))\n"
)

# per topic, for the value check only (untimed)
PYTREC_PER_TOPIC_SCRIPT = _PYTREC_LOOP + (
    "    for topic, values in evaluator.evaluate(run).items():\n"
    "        for m, v in values.items():\n"
    "            print(path, m, topic, repr(v))\n"
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

# one process per run file, as campaigns run trec_eval and sample_eval.pl: "$@" is the run files
LOOP = 'tool="$1"; judged="$2"; shift 2; for r in "$@"; do {call} || exit 1; done'
SAMPLE_EVAL_CALL = 'perl "$tool" "$judged" "$r"'


def loop(call: str, tool: str, judged: Path) -> list[str]:
    """``sh -c`` running ``call`` once per run file given after this prefix."""
    return ["sh", "-c", LOOP.format(call=call), "sh", tool, str(judged)]


# ---------------------------------------------------------------- value checks (untimed)


def _means(ours: Path) -> dict[tuple[str, str], float]:
    mine: dict[tuple[str, str], float] = {}
    for line in ours.read_text().splitlines():
        run, measure, topic, value = line.split("\t")
        if topic == "all":
            mine[(run, measure)] = float(value)
    return mine


def _mean_differences(ours: Path, pytrec: Path) -> dict[tuple[str, str], float]:
    """|ours - pytrec_eval| of every (run file, measure) mean."""
    mine = _means(ours)
    out: dict[tuple[str, str], float] = {}
    for line in pytrec.read_text().splitlines():
        path, measure, value = line.split(" ")
        out[(path, measure)] = abs(mine[(Path(path).stem, measure)] - float(value))
    return out


def compare_values(ours: Path, pytrec: Path) -> str:
    """Our 'all' values against pytrec_eval's means on every run (both at full precision)."""
    diffs = _mean_differences(ours, pytrec)
    worst = max(diffs.values(), default=0.0)
    return f"largest |ours - pytrec_eval| over all runs and measures: {worst:.2e}"


def float_ties(path: Path) -> set[str]:
    """Topics of a run file where two different scores become equal as C floats (pytrec_eval's)."""
    import numpy as np

    by_topic: dict[str, list[float]] = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            by_topic.setdefault(fields[0], []).append(float(fields[4]))
    tied = set()
    for topic, scores in by_topic.items():
        s = np.array(scores)
        if len(np.unique(s.astype(np.float32))) < len(np.unique(s)):
            tied.add(topic)
    return tied


def check_values(ours: Path, pytrec: Path, qrels: Path, *, explain: int = 3) -> str:
    """Means equal to 1e-9, or each difference traced to topics where pytrec_eval's floats tie.

    For up to ``explain`` runs whose means differ, both tools are run again per topic (untimed)
    and every topic that differs by more than 1e-9 is checked to hold two scores that differ as
    doubles but tie as floats: there pytrec_eval orders the documents by docno, trec_eval (whose
    ``sim`` is a double) and the workbench by score.
    """
    diffs = _mean_differences(ours, pytrec)
    worst = max(diffs.values(), default=0.0)
    bad_runs = sorted({path for (path, _), d in diffs.items() if d > TOLERANCE})
    head = (
        f"values: {len(diffs) - sum(d > TOLERANCE for d in diffs.values())}/{len(diffs)} means equal to "
        f"pytrec_eval's within {TOLERANCE:g} (largest difference {worst:.1e})"
    )
    if not bad_runs:
        return head + ": EQUAL"
    checked = bad_runs[:explain]
    per_topic = subprocess.run(
        [sys.executable, "-c", PYTREC_PER_TOPIC_SCRIPT, str(qrels), *checked],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    theirs: dict[tuple[str, str, str], float] = {}
    for line in per_topic.splitlines():
        path, measure, topic, value = line.split(" ")
        theirs[(Path(path).stem, measure, topic)] = float(value)
    mflags = [a for m in MEASURES for a in ("-m", m)]
    done = subprocess.run(
        [sys.executable, "manage.py", "evaluate", "-q", "--digits", "17", *mflags, str(qrels), *checked],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    differing: dict[str, set[str]] = {}
    compared = 0
    for line in done.splitlines():
        fields = line.split("\t")
        run, measure, topic, value = fields if len(fields) == 4 else ([Path(checked[0]).stem, *fields])
        if topic == "all" or (run, measure, topic) not in theirs:
            continue
        compared += 1
        if abs(float(value) - theirs[(run, measure, topic)]) > TOLERANCE:
            differing.setdefault(run, set()).add(topic)
    unexplained = []
    n_topics = 0
    for path in checked:
        run = Path(path).stem
        topics = differing.get(run, set())
        n_topics += len(topics)
        unexplained += [f"{run}/{t}" for t in sorted(topics - float_ties(Path(path)))]
    verdict = (
        "all explained by float ties in pytrec_eval"
        if not unexplained
        else f"UNEXPLAINED differences in {', '.join(unexplained[:10])}"
    )
    return (
        f"{head}; {len(bad_runs)} runs differ; per topic on {len(checked)} of them: {n_topics} topics of "
        f"{compared} (run, measure, topic) values differ by > {TOLERANCE:g}, {verdict}; every other "
        "per-topic value equal"
    )


def check_xinf(ours: Path, sample_eval: Path) -> str:
    """Our xinfAP/xinfNDCG (4 digits) against sample_eval.pl's printed infAP/infNDCG, run by run."""
    mine: list[tuple[str, str]] = []
    for line in ours.read_text().splitlines():
        fields = line.split("\t")
        if fields[-2] == "all":
            mine.append((fields[-3], fields[-1]))
    theirs = []
    for line in sample_eval.read_text().splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0] in ("infAP", "infNDCG") and fields[1] == "all":
            theirs.append(("x" + fields[0], fields[2]))
    same = sum(a == b for a, b in zip(mine, theirs, strict=False))
    verdict = "EQUAL" if same == len(mine) == len(theirs) else "DIFFERENT"
    return f"xinf values: {same}/{len(theirs)} identical to sample_eval.pl's 4 printed digits: {verdict}"


# ---------------------------------------------------------------- contenders


def _flags() -> list[str]:
    return [a for m in MEASURES for a in ("-m", m)]


def contenders(
    wl: Workload, *, with_ir_measures: bool, trec_eval: str | None, check: bool = True
) -> list[harness.Contender]:
    py = sys.executable
    runs = [str(p) for p in wl.runs]
    mflags = _flags()
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
                PYTREC,
                [py, "-c", PYTREC_SCRIPT, str(wl.qrels), *runs],
                pytrec_out,
                check=(lambda: check_values(ours_out, pytrec_out, wl.qrels)) if check else None,
            )
        )
    except ImportError:
        print("pytrec_eval not installed: pip install pytrec-eval-terrier", file=sys.stderr)
    if trec_eval:
        call = '"$tool" ' + " ".join(mflags) + ' "$judged" "$r"'
        out.append(
            harness.Contender(
                TREC_EVAL,
                [*loop(call, trec_eval, wl.qrels), *runs],
                wl.folder / "te.txt",
            )
        )
    out.append(harness.Contender(PYARROW, [py, "-c", PYARROW_PARSE_ONLY, *runs], wl.folder / "pa.txt"))
    if with_ir_measures:
        try:
            import ir_measures  # noqa: F401

            out.append(harness.Contender(IR_MEASURES, [py, "-c", IR_MEASURES_SCRIPT, str(wl.qrels), *runs]))
        except ImportError:
            print("ir_measures not installed: skipped", file=sys.stderr)
    return out


def ours_xinf(wl: Workload, runs: Sequence[Path], name: str = OURS_XINF) -> harness.Contender:
    cmd = [sys.executable, "manage.py", "evaluate", "--prel", "-m", "xinfAP", "-m", "xinfNDCG"]
    return harness.Contender(name, [*cmd, str(wl.prel), *map(str, runs)], wl.folder / "xinf.txt")


def xinf_contenders(wl: Workload, sample_eval: str | None, subset: int | None) -> list[harness.Contender]:
    runs = wl.runs[: subset or None]
    out = [ours_xinf(wl, runs)]
    if sample_eval:
        se_out = wl.folder / "se.txt"
        out.append(
            harness.Contender(
                SAMPLE_EVAL,
                [*loop(SAMPLE_EVAL_CALL, sample_eval, wl.prel), *map(str, runs)],
                se_out,
                check=lambda: check_xinf(wl.folder / "xinf.txt", se_out),
            )
        )
    return out


def find_tool(explicit: str | None, name: str) -> str | None:
    return explicit or shutil.which(name)


# ---------------------------------------------------------------- summary rows


def summary_rows(
    what: str, results: dict[str, list[harness.Result]], peer: str, target: str, minimum: float | None
) -> list[dict[str, object]]:
    """One row per load: ``ratio`` = peer median / ours; ``met`` = ratio >= minimum (None: no target)."""
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
                "met": ratio >= minimum if minimum is not None else None,
                "peak_mb": round(ours.max_rss_mb),
            }
        )
    return rows


def peak_rows(
    what: str, results: dict[str, list[harness.Result]], limit_mb: float
) -> list[dict[str, object]]:
    """An absolute target on our peak RSS (no peer)."""
    rows: list[dict[str, object]] = []
    for load, res in results.items():
        ours = next(r for r in res if r.name.startswith(OURS))
        if not ours.ok:
            continue
        rows.append(
            {
                "what": what,
                "load": load,
                "ours": ours.name,
                "ours_s": round(ours.median, 3),
                "peer": None,
                "peer_s": None,
                "ratio": None,
                "target": f"peak RSS <= {limit_mb:.0f} MB",
                "met": ours.max_rss_mb <= limit_mb,
                "peak_mb": round(ours.max_rss_mb),
            }
        )
    return rows


def scaling_rows(
    results: dict[str, list[harness.Result]], large: str, default: str, limit: float
) -> list[dict[str, object]]:
    """large/default time of ours: here ``ratio`` is large median / default median (target <= limit)."""
    rows: list[dict[str, object]] = []
    for load, res in results.items():
        by = {r.name: r for r in res}
        big, small = by.get(large), by.get(default)
        if big is None or small is None or not big.ok or not small.ok:
            continue
        ratio = big.median / small.median
        rows.append(
            {
                "what": "large / default time (the work grows 10x)",
                "load": load,
                "ours": large,
                "ours_s": round(big.median, 3),
                "peer": default,
                "peer_s": round(small.median, 3),
                "ratio": round(ratio, 2),
                "target": f"large/default <= {limit:g} (ratio here = large/default)",
                "met": ratio <= limit,
                "peak_mb": round(big.max_rss_mb),
            }
        )
    return rows


def extrapolated_rows(
    what: str,
    ours_all: dict[str, list[harness.Result]],
    subset: dict[str, list[harness.Result]],
    factor: float,
    target: str,
    minimum: float | None,
) -> list[dict[str, object]]:
    """Ours timed on every run against sample_eval.pl's subset median x ``factor`` (labelled)."""
    rows: list[dict[str, object]] = []
    for load, res in ours_all.items():
        ours = res[0]
        peer = {r.name: r for r in subset.get(load, [])}.get(SAMPLE_EVAL)
        if peer is None or not peer.ok or not ours.ok:
            continue
        peer_s = peer.median * factor
        rows.append(
            {
                "what": what,
                "load": load,
                "ours": ours.name,
                "ours_s": round(ours.median, 3),
                "peer": SAMPLE_EVAL + f" EXTRAPOLATED (subset median x {factor:g})",
                "peer_s": round(peer_s, 3),
                "ratio": round(peer_s / ours.median, 2),
                "target": target,
                "met": peer_s / ours.median >= minimum if minimum is not None else None,
                "peak_mb": round(ours.max_rss_mb),
            }
        )
    return rows


def attach_notes(rows: list[dict[str, object]], results: dict[str, list[harness.Result]]) -> None:
    """A peer's check (values equal...) as the ``note`` of its rows."""
    notes = {r.name: r.note for res in results.values() for r in res if r.note}
    for row in rows:
        if row["peer"] in notes and "note" not in row:
            row["note"] = notes[str(row["peer"])]


# ---------------------------------------------------------------- main


def workload_at(folder: Path, n_runs: int, n_topics: int, depth: int, seed: int) -> Workload:
    runs = generate_in_child(folder, n_runs, n_topics, depth, seed)
    return Workload(folder, folder / "qrels.txt", folder / "prel.txt", runs)


def describe(wl: Workload, n_topics: int, depth: int) -> str:
    lines = wl.qrels.read_bytes().count(b"\n")
    return f"{len(wl.runs)} runs x {n_topics} topics x {depth} docs, {lines:,} qrels"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--large", action="store_true", help="benchmark the large workload (200 runs x 250 topics)"
    )
    parser.add_argument("--runs", type=int, default=None, help="a custom number of runs")
    parser.add_argument("--topics", type=int, default=None, help="a custom number of topics")
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workdir", type=Path, default=None, help="the default workload's folder (reused)")
    parser.add_argument(
        "--large-workdir", type=Path, default=None, help="the large workload's folder (reused)"
    )
    parser.add_argument(
        "--scaling", action="store_true", help="also time ours on both workloads: large/default time"
    )
    parser.add_argument("--trec-eval", default=None, help="trec_eval binary (default: trec_eval on PATH)")
    parser.add_argument("--sample-eval", default=None, help="sample_eval.pl (default: on PATH)")
    parser.add_argument(
        "--evaluate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the 5-measure comparison (--no-evaluate: only --scaling and/or --xinf)",
    )
    parser.add_argument(
        "--xinf", action=argparse.BooleanOptionalAction, default=True, help="the xinfAP/xinfNDCG section"
    )
    parser.add_argument(
        "--xinf-runs", type=int, default=10, help="both xinf tools on the first N runs (0: all; default 10)"
    )
    parser.add_argument("--with-ir-measures", action="store_true", help="time ir_measures too (slow)")
    parser.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    harness.add_load_argument(parser)
    args = parser.parse_args(argv)
    return args


def main(argv: Sequence[str] | None = None) -> list[dict[str, object]]:
    args = parse_args(argv)
    size = LARGE_SIZE if args.large else DEFAULT_SIZE
    n_runs, n_topics = args.runs or size[0], args.topics or size[1]
    custom = args.runs is not None or args.topics is not None
    scale = "custom" if custom else "large" if args.large else "default"
    if args.generate_only:
        target = args.large_workdir if args.large and args.large_workdir else args.workdir
        if target is None:
            raise SystemExit("--generate-only needs --workdir (or --large-workdir with --large)")
        generate(target, n_runs, n_topics, args.depth, args.seed)
        return []
    folder = (args.large_workdir if args.large else args.workdir) or Path(
        tempfile.mkdtemp(prefix="wb-bench-")
    )
    wl = workload_at(folder, n_runs, n_topics, args.depth, args.seed)
    label = describe(wl, n_topics, args.depth)
    print(f"{label}; command: {harness.command_line()}\n", flush=True)
    rows: list[dict[str, object]] = []
    info = "- (information)"
    if args.evaluate:
        trec_eval = find_tool(args.trec_eval, "trec_eval")
        if trec_eval is None:
            print("trec_eval not found: build it with -O2 (see --help) and pass --trec-eval", file=sys.stderr)
        results = harness.measure_under_loads(
            contenders(wl, with_ir_measures=args.with_ir_measures, trec_eval=trec_eval),
            args,
            OURS,
            f"evaluate 5 measures: {label}",
        )
        what = f"{scale} workload: evaluate 5 measures"
        primary = scale != "custom"
        rows += summary_rows(what, results, PYTREC, ">= 5x" if primary else info, 5.0 if primary else None)
        rows += summary_rows(
            what,
            results,
            TREC_EVAL,
            ">= 2x" if scale == "default" else info,
            2.0 if scale == "default" else None,
        )
        rows += summary_rows(
            f"{scale} workload: evaluate vs parse-only",
            results,
            PYARROW,
            "ours <= 1.5x parse-only (ratio >= 0.67)" if scale == "default" else info,
            1 / 1.5 if scale == "default" else None,
        )
        rows += summary_rows(what, results, IR_MEASURES, info, None)
        if scale == "large":
            rows += peak_rows("large workload: peak RSS of evaluate", results, PEAK_RSS_LIMIT_MB)
        attach_notes(rows, results)

    if args.scaling:
        small = workload_at(
            args.workdir or Path(tempfile.mkdtemp(prefix="wb-bench-")), *DEFAULT_SIZE, args.depth, args.seed
        )
        big = workload_at(
            args.large_workdir or Path(tempfile.mkdtemp(prefix="wb-bench-")),
            *LARGE_SIZE,
            args.depth,
            args.seed,
        )
        names = (OURS + ", default workload", OURS + ", large workload")
        pair = []
        for name, w in zip(names, (small, big), strict=True):
            cmd = [
                sys.executable,
                "manage.py",
                "evaluate",
                "--digits",
                "17",
                *_flags(),
                str(w.qrels),
                *map(str, w.runs),
            ]
            pair.append(harness.Contender(name, cmd, w.folder / "ours_scaling.txt"))
        scaled = harness.measure_under_loads(
            pair, args, names[0], "scaling: ours on the default and the large workload"
        )
        rows += scaling_rows(scaled, names[1], names[0], 11.0)
        rows += peak_rows(
            "large workload: peak RSS of evaluate (scaling runs)",
            {k: v[1:] for k, v in scaled.items()},
            PEAK_RSS_LIMIT_MB,
        )

    if args.xinf:
        sample_eval = find_tool(args.sample_eval, "sample_eval.pl")
        if sample_eval is None or shutil.which("perl") is None:
            print("sample_eval.pl or perl not found: ours alone (pass --sample-eval)", file=sys.stderr)
            sample_eval = None
        subset = min(args.xinf_runs or len(wl.runs), len(wl.runs))
        xtitle = f"xinfAP and xinfNDCG on the prel, first {subset} runs: {label}"
        xres = harness.measure_under_loads(xinf_contenders(wl, sample_eval, subset), args, OURS_XINF, xtitle)
        target, minimum = (
            (">= 20x", 20.0) if scale == "large" else (info + "; the target is on the large workload", None)
        )
        xwhat = f"{scale} workload: xinfAP + xinfNDCG ({subset} runs, both tools)"
        rows += summary_rows(xwhat, xres, SAMPLE_EVAL, target, minimum)
        attach_notes(rows, xres)
        if subset < len(wl.runs):
            everything = ours_xinf(wl, wl.runs, OURS_XINF + f", all {len(wl.runs)} runs")
            everything.stdout = wl.folder / "xinf_all.txt"
            xall = harness.measure_under_loads(
                [everything], args, everything.name, f"xinfAP and xinfNDCG on the prel, all runs: {label}"
            )
            factor = len(wl.runs) / subset
            print(
                f"sample_eval.pl on all {len(wl.runs)} runs is EXTRAPOLATED from its {subset}-run median "
                f"(x {factor:g}): it runs once per run file, so its time is linear in the runs\n"
            )
            rows += extrapolated_rows(
                f"{scale} workload: xinfAP + xinfNDCG (all {len(wl.runs)} runs; sample_eval.pl extrapolated)",
                xall,
                xres,
                factor,
                target,
                minimum,
            )

    print("criteria:")
    for row in rows:
        ratio = "-" if row["ratio"] is None else f"{row['ratio']}"
        print(
            f"- [{row['load']}] {row['what']}: ours {row['ours_s']} s, {row['peer']} {row['peer_s']} s, "
            f"ratio {ratio}, target {row['target']}, met {row['met']}, peak {row['peak_mb']} MB"
        )
    if args.summary_json:
        args.summary_json.write_text(json.dumps(rows, indent=1))
    return rows


# kept for the scripts that time single commands the old way (bench_pooling.py)
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
