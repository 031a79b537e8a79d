"""The build_pool and simulate_pool commands' logic, free of Django: ``manage.py`` runs them without setup."""

from __future__ import annotations

import json
import os
from argparse import ArgumentParser
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from pooling import fastread
from pooling.fastread import TopRun
from pooling.spec import PoolSpec
from pooling.strategies import (
    ADAPTIVE,
    STRATEGIES,
    JudgingQueue,
    PoolSelection,
    Rankings,
    Simulation,
    candidate_sizes,
    per_topic_budgets,
    simulate,
)
from trec import (
    FormatError,
    Qrels,
    RankedRun,
    kernels,
    read_qrels,
    read_run,
    write_mq_prel,
    write_prel,
    write_qrels,
)
from trec.arrow_runs import available, preload
from trec.cli import UsageError, run_command
from trec.csvout import SafeWriter
from trec.io import open_text_out
from trec.progress import Progress, TextOut
from trec.runs import run_name_from_path

BUILD_HELP = (
    "Build a judging pool from run files, no database needed, and write it as qrels (rel -1), a "
    "sample_eval prel or a Million Query prel. Example: manage.py build_pool --strategy depth "
    "--depth 100 --output pool.qrels runs/*.run"
)
SIMULATE_HELP = (
    "Replay a pooling strategy against complete judgments and print the relevant documents found "
    "after every --step judgments, per topic and overall. Example: manage.py simulate_pool --qrels "
    "qrels.txt --strategy maxmean --budget 10% --depth 100 runs/*.run"
)


# -- arguments ------------------------------------------------------------------------------


def add_strategy_arguments(parser: ArgumentParser) -> None:
    """Options shared by build_pool and simulate_pool."""
    parser.add_argument("runs", nargs="+", help="run files: qid Q0 docno rank score tag (gzip is fine)")
    parser.add_argument("--strategy", required=True, choices=STRATEGIES, help="pooling strategy")
    parser.add_argument(
        "--depth",
        type=int,
        default=None,
        help="depth-k of depth/uniform, candidates of the adaptive queues (default 100 for those); "
        "for take and the fusions, the deepest rank considered (default: whole runs)",
    )
    parser.add_argument(
        "--run-depth",
        action="append",
        default=[],
        metavar="RUN=K",
        help="depth of one run (depth strategy; repeatable)",
    )
    parser.add_argument(
        "--groups",
        default=None,
        metavar="FILE",
        help="lines 'run group [priority]': with --runs-per-group, pool only each group's top runs",
    )
    parser.add_argument(
        "--runs-per-group",
        type=int,
        default=None,
        metavar="N",
        help="pool each group's N runs of best priority (1 = judged first, TREC's convention)",
    )
    parser.add_argument(
        "--order", choices=["rank", "docno"], default="rank", help="judging order of a depth pool"
    )
    parser.add_argument(
        "--total-budget",
        type=int,
        default=None,
        metavar="N",
        help="one budget for all topics, split level by level over them (take, fusions, sampling)",
    )
    parser.add_argument("--rrf-k", type=float, default=60.0, help="RRF's k (default 60)")
    parser.add_argument("--rbp-p", type=float, default=0.8, help="RBP's persistence p (default 0.8)")
    parser.add_argument(
        "--strata",
        default="10,30,100",
        help="last rank of each stratum of best rank (stratified; default 10,30,100)",
    )
    parser.add_argument(
        "--rates", default=None, help="sampling rate per stratum, e.g. 1,0.5,0.1 (stratified)"
    )
    parser.add_argument(
        "--weights", default=None, help="relative rates per stratum when sampling to a budget"
    )
    parser.add_argument("--rate", type=float, default=None, help="sampling rate of a uniform sample")
    parser.add_argument(
        "--warmup", type=int, default=0, metavar="K", help="adaptive: judge the depth-K pool first"
    )
    parser.add_argument("--beta", type=float, default=0.1, help="Hedge's beta (default 0.1)")
    parser.add_argument("--level", type=int, default=1, help="relevant means rel >= LEVEL (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    parser.add_argument(
        "--progress",
        choices=["auto", "on", "off"],
        default="auto",
        help="progress bar on stderr (auto: when stderr is a terminal)",
    )


def add_build_arguments(parser: ArgumentParser) -> None:
    add_strategy_arguments(parser)
    parser.add_argument(
        "--budget",
        type=int,
        default=None,
        metavar="N",
        help="judgments per topic (take, fusions, sampling, adaptive)",
    )
    parser.add_argument("--output", required=True, help="file to write (.gz compresses)")
    parser.add_argument(
        "--format",
        dest="fmt",
        choices=["qrels", "prel", "mq"],
        default="qrels",
        help="qrels with rel -1 (default), sample_eval prel with strata (every document of the strata; "
        "the ones drawn for judging have 1 in the iter column, the others 0), Million Query prel with iprobs",
    )
    parser.add_argument(
        "--machine-qrels",
        default=None,
        metavar="QRELS",
        help="machine strategy: a machine assessor's grades (e.g. machine_judge --qrels-out); the pool is "
        "stratified by them (g<grade> highest first, then 'ungraded') and --rates or --budget/--weights "
        "say how much of each stratum humans judge",
    )
    parser.add_argument(
        "--grades",
        default=None,
        metavar="G,G,...",
        help="machine strategy: the scale's grades, one stratum each (default: those in --machine-qrels)",
    )
    parser.add_argument(
        "--judgments",
        default=None,
        metavar="QRELS",
        help="grades to fill in for pooled documents already judged; an adaptive strategy replays them "
        "as its assessor (a document they lack counts as non-relevant)",
    )


def add_simulate_arguments(parser: ArgumentParser) -> None:
    add_strategy_arguments(parser)
    parser.add_argument("--qrels", required=True, help="complete judgments replayed as the assessor")
    parser.add_argument(
        "--budget",
        required=True,
        help="judgments per topic: a count, or a percentage of the topic's depth-k pool (e.g. 10%%)",
    )
    parser.add_argument("--step", type=int, default=10, help="report after every STEP judgments (default 10)")
    parser.add_argument("--format", dest="fmt", choices=["text", "csv", "json"], default="text")


# -- shared plumbing ------------------------------------------------------------------------


def read_runs(
    paths: Sequence[str], stderr: TextOut, progress: str, depth: int | None = None
) -> list[RankedRun]:
    """Read the runs two at a time (pyarrow and numpy release the GIL while parsing), with a progress bar.

    With ``depth``, each run is cut to its top ``depth`` per topic as it is read: the pooling reader
    (:mod:`pooling.fastread`) parses the file once and keeps only those, and any file it does not
    take is read by :func:`trec.runs.read_run` (which words every error).
    """
    if depth is None:
        return _read(paths, stderr, progress, lambda p, n: read_run(p, n))
    return [_as_run(top) for top in read_tops(paths, stderr, progress, depth)]


def read_tops(paths: Sequence[str], stderr: TextOut, progress: str, depth: int | None) -> list[TopRun]:
    """Each run's top ``depth`` documents per topic (None: all), read as :func:`read_runs` reads them."""
    return _read(paths, stderr, progress, lambda p, n: _read_top(p, n, depth))


def _read_top(path: str, name: str, depth: int | None) -> TopRun:
    top = fastread.read_top(path, depth, name)
    return top if top is not None else fastread.top_of_run(read_run(path, name), depth)


def _as_run(top: TopRun) -> RankedRun:
    return RankedRun(
        name=top.name,
        tag=top.tag,
        topics=top.topics,
        offsets=top.offsets,
        docnos=top.docnos,
        scores=top.scores,
        path=top.path,
        runid=top.runid,
    )


def _read(paths: Sequence[str], stderr: TextOut, progress: str, read: Callable[[str, str], Any]) -> list[Any]:
    enabled = None if progress == "auto" else progress == "on"
    names = [run_name_from_path(p) for p in paths]
    seen: dict[str, str] = {}
    for name, path in zip(names, paths, strict=True):
        if name in seen:
            raise UsageError(f"runs '{seen[name]}' and '{path}' are both named '{name}': rename one")
        seen[name] = path
    runs: list[Any] = []
    if len(paths) > 1 and not kernels.enabled():
        preload()  # pyarrow's reader, as manage.py evaluate reads runs (trec.arrow_runs)
    with Progress(len(paths), "reading runs", stream=stderr, enabled=enabled) as bar:
        # one thread more than cores: while one holds the GIL for numpy work between pyarrow's
        # calls, the others parse (measured on the large workload: 5% faster than one per core)
        workers = min((os.cpu_count() or 1) + 1, len(paths))
        with ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
            try:
                for run in pool.map(read, paths, names):
                    runs.append(run)
                    bar.advance(run.name)
            except ValueError as exc:  # a FormatError (file:line), or a negative depth
                raise UsageError(str(exc)) from exc
    return runs


def _machine_grades(opts: dict[str, Any]) -> Qrels | None:
    if opts["strategy"] != "machine":
        if opts.get("machine_qrels") or opts.get("grades"):
            raise UsageError("--machine-qrels and --grades go with --strategy machine")
        return None
    if not opts.get("machine_qrels"):
        raise UsageError(
            "--strategy machine stratifies by a machine assessor's grades: give --machine-qrels QRELS"
        )
    return _read_qrels(opts["machine_qrels"])


def _read_qrels(path: str) -> Qrels:
    try:
        return read_qrels(path)
    except FormatError as exc:
        raise UsageError(str(exc)) from exc


def _numbers(text: str | None, what: str, kind: type = float) -> list[Any] | None:
    if text is None:
        return None
    try:
        return [kind(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{what} takes comma-separated numbers, found '{text}'") from None


def _run_depths(specs: Sequence[str]) -> dict[str, int]:
    out = {}
    for spec in specs:
        name, sep, value = spec.rpartition("=")
        if not sep or not name or not value.lstrip("-").isdigit():
            raise UsageError(f"--run-depth takes RUN=K, found '{spec}'")
        out[name] = int(value)
    return out


def _read_groups(path: str) -> tuple[dict[str, str], dict[str, int]]:
    groups: dict[str, str] = {}
    priorities: dict[str, int] = {}
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise UsageError(f"{path}: cannot open file: {exc.strerror or exc}") from exc
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) not in (2, 3) or (len(fields) == 3 and not fields[2].lstrip("-").isdigit()):
            raise UsageError(f"{path}:{number}: expected 'run group [priority]', found '{line.strip()}'")
        groups[fields[0]] = fields[1]
        if len(fields) == 3:
            priorities[fields[0]] = int(fields[2])
    return groups, priorities


def spec_from_options(opts: dict[str, Any]) -> PoolSpec:
    """The command's options as a :class:`PoolSpec`; UsageError names the option at fault."""
    try:
        return PoolSpec(
            strategy=opts["strategy"],
            depth=opts["depth"],
            run_depths=_run_depths(opts["run_depth"]),
            runs_per_group=opts["runs_per_group"],
            order=opts["order"],
            budget=opts["budget"] if isinstance(opts.get("budget"), int) else None,
            total_budget=opts["total_budget"],
            rrf_k=opts["rrf_k"],
            rbp_p=opts["rbp_p"],
            strata=tuple(_numbers(opts["strata"], "--strata", int) or ()),
            rates=_tuple(_numbers(opts["rates"], "--rates")),
            weights=_tuple(_numbers(opts["weights"], "--weights")),
            rate=opts["rate"],
            warmup=opts["warmup"],
            beta=opts["beta"],
            level=opts["level"],
            seed=opts["seed"],
            machine=opts.get("machine_qrels"),
            grades=_tuple(_numbers(opts.get("grades"), "--grades", int)),
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def _tuple(values: list[Any] | None) -> tuple[Any, ...] | None:
    return None if values is None else tuple(values)


def _included(opts: dict[str, Any], spec: PoolSpec, runs: Sequence[RankedRun | TopRun]) -> list[str] | None:
    if spec.runs_per_group is None:
        if opts["groups"]:
            raise UsageError("--groups chooses runs together with --runs-per-group N")
        return None
    groups, priorities = _read_groups(opts["groups"]) if opts["groups"] else ({}, {})
    try:
        return spec.included([r.name for r in runs], groups, priorities)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def _progress(opts: dict[str, Any], total: int, what: str, stderr: TextOut) -> Progress:
    enabled = None if opts["progress"] == "auto" else opts["progress"] == "on"
    return Progress(total, what, stream=stderr, enabled=enabled)


# -- build_pool -----------------------------------------------------------------------------


def run_build(opts: dict[str, Any], stdout: TextOut, stderr: TextOut) -> PoolSelection:
    """Build the pool ``opts`` describe and write it to ``opts['output']``; UsageError on bad input."""
    spec = spec_from_options(opts)
    if opts["strategy"] == "depth" and (kernels.enabled() or available()):
        return _build_depth(opts, spec, stdout, stderr)
    runs = read_runs(opts["runs"], stderr, opts["progress"], spec.deepest())
    judgments = _read_qrels(opts["judgments"]) if opts["judgments"] else None
    include = _included(opts, spec, runs)
    try:
        if opts["strategy"] in ADAPTIVE:
            if judgments is None:
                raise UsageError(
                    f"{opts['strategy']} chooses each document from the judgments before it: give "
                    "--judgments QRELS (or judge live in the workbench, or use simulate_pool)"
                )
            queue = spec.queue(runs, include)
            pools = candidate_sizes(queue.rankings)
            budgets = {t: n if opts["budget"] is None else opts["budget"] for t, n in pools.items()}
            with _progress(opts, len(budgets), "judging", stderr) as bar:
                sim = simulate(queue, judgments, budgets, level=opts["level"], progress=bar.advance)
            _warn_skipped(stderr, sim, "build_pool")
            pool = PoolSelection.from_lists(
                opts["strategy"], {t.topic: list(t.docnos) for t in sim.traces}, queue.params()
            )
        else:
            pool = spec.build(runs, include, machine_grades=_machine_grades(opts))
        _write(pool, opts["output"], opts["fmt"], judgments)
    except ValueError as exc:  # invalid strategy parameters
        raise UsageError(str(exc)) from exc
    _report(pool, opts, stdout)
    return pool


def _build_depth(opts: dict[str, Any], spec: PoolSpec, stdout: TextOut, stderr: TextOut) -> PoolSelection:
    """The depth-k pool straight from each run's top k (:mod:`pooling.fastread`): the pool
    :func:`~pooling.strategies.depth_pool` builds, without aligning whole runs first."""
    tops = read_tops(opts["runs"], stderr, opts["progress"], spec.deepest())
    judgments = _read_qrels(opts["judgments"]) if opts["judgments"] else None
    include = _included(opts, spec, tops)
    try:
        built = fastread.depth_pool_from_tops(
            tops,
            spec.pool_depth,
            run_depths=dict(spec.run_depths),
            include=include,
            order=spec.order,
        )
        pool = built.pool if built is not None else spec.build([_as_run(t) for t in tops], include)
        plain = built is not None and judgments is None and opts["fmt"] == "qrels"
        if not (plain and built is not None and _write_sorted(built, opts["output"])):
            _write(pool, opts["output"], opts["fmt"], judgments)
    except ValueError as exc:  # invalid strategy parameters
        raise UsageError(str(exc)) from exc
    _report(pool, opts, stdout)
    return pool


def _write_sorted(built: fastread.DepthPool, path: str) -> bool:
    """Write the pool as qrels (rel -1) from its documents in (topic, docno) order, as write_qrels
    writes them; False (nothing written) when a docno is not UTF-8, which write_qrels reports."""
    pool = built.pool
    text = _qrels_bytes(pool.topics, pool.offsets, built.by_docno)
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError:
        return False
    try:
        with open_text_out(path) as fh:
            fh.write(decoded)
    except OSError as exc:
        raise UsageError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    return True


def _qrels_bytes(topics: Sequence[str], offsets: np.ndarray, docnos: np.ndarray) -> bytes:
    """``topic 0 docno -1`` lines, built as one byte matrix (a row a line, its unused tail
    masked out) rather than a Python string per line."""
    n = len(docnos)
    if n == 0:
        return b""
    heads = np.array([f"{t} 0 ".encode() for t in topics], dtype=bytes)
    head_per_line = np.repeat(heads, np.diff(offsets))
    tail = np.full(n, b" -1\n", dtype="S4")
    parts = [head_per_line, np.asarray(docnos), tail]
    widths = [p.dtype.itemsize for p in parts]
    matrix = np.empty((n, sum(widths)), dtype=np.uint8)
    col = 0
    for part, width in zip(parts, widths, strict=True):
        matrix[:, col : col + width] = np.ascontiguousarray(part).view(np.uint8).reshape(n, width)
        col += width
    # a fixed-width value is its bytes then NUL padding, and no value holds a NUL (the readers
    # refuse control bytes): the line is the row's non-NUL bytes, in order
    return matrix[matrix != 0].tobytes()


def _report(pool: PoolSelection, opts: dict[str, Any], stdout: TextOut) -> None:
    sizes = list(pool.sizes().values())
    shown = f" (per topic: min {min(sizes)}, max {max(sizes)})" if sizes else ""
    stdout.write(
        f"{opts['strategy']} pool: {len(pool)} documents to judge over {len(pool.topics)} topics"
        f"{shown}; written to {opts['output']} ({opts['fmt']})\n"
    )
    listed = len(pool.docnos)
    if opts["fmt"] == "prel" and listed > len(pool):
        stdout.write(
            f"the prel lists all {listed} documents of the strata; the {len(pool)} drawn for judging "
            "have 1 in its second (iter) column, the others 0 (sample_eval ignores that column). "
            "Judge the drawn ones and put their grade in the last column; rel -1 stays 'not sampled'.\n"
        )


def _write(pool: PoolSelection, path: str, fmt: str, judgments: Qrels | None) -> None:
    try:
        if fmt == "prel":
            write_prel(pool.to_prel(judgments), path)
        elif fmt == "mq":
            write_mq_prel(pool.to_mq_prel(judgments), path)
        else:
            write_qrels(pool.to_qrels(judgments), path)
    except OSError as exc:
        raise UsageError(f"{path}: cannot write: {exc.strerror or exc}") from exc


# -- simulate_pool --------------------------------------------------------------------------


def _budgets(text: str, sizes: dict[str, int]) -> dict[str, int]:
    text = text.strip()
    try:
        if text.endswith("%"):
            return per_topic_budgets(sizes, fraction=float(text[:-1]) / 100)
        return per_topic_budgets(sizes, count=int(text))
    except ValueError as exc:
        raise UsageError(
            f"--budget takes a count or a percentage such as 10%, found '{text}' ({exc})"
        ) from None


def run_simulate(opts: dict[str, Any], stdout: TextOut, stderr: TextOut) -> Simulation:
    """Replay ``opts['strategy']`` against ``opts['qrels']`` and print the curve."""
    if opts["step"] < 1:
        raise UsageError("--step takes a positive number of judgments")
    qrels = _read_qrels(opts["qrels"])
    spec = spec_from_options(opts)
    deepest = spec.deepest()
    runs = read_runs(
        opts["runs"], stderr, opts["progress"], None if deepest is None else max(deepest, spec.pool_depth)
    )
    include = _included(opts, spec, runs)
    try:
        # the budget's percentage refers to the depth-k pool of the pooled runs
        candidates = Rankings.from_runs(
            [r for r in runs if include is None or r.name in include], spec.pool_depth
        )
        budgets = _budgets(opts["budget"], candidate_sizes(candidates))
        source: JudgingQueue | PoolSelection
        if opts["strategy"] in ADAPTIVE:
            source = spec.queue(runs, include)
        else:
            # A static pool is judged in its own order, so building it with the largest topic
            # budget and cutting each topic at its own gives the same judgments.
            sized = opts["strategy"] != "depth" and opts["rates"] is None and opts["rate"] is None
            static_budget = (
                max(budgets.values(), default=0) if sized and opts["total_budget"] is None else None
            )
            source = spec.build(runs, include, static_budget)
        with _progress(opts, len(budgets), "simulating", stderr) as bar:
            sim = simulate(
                source, qrels, budgets, level=opts["level"], strategy=opts["strategy"], progress=bar.advance
            )
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    _warn_skipped(stderr, sim, "simulate_pool")
    _print_curve(sim, opts, stdout)
    return sim


def _warn_skipped(stderr: TextOut, sim: Simulation, command: str) -> None:
    if sim.skipped:
        shown = ", ".join(sim.skipped[:10]) + (", ..." if len(sim.skipped) > 10 else "")
        stderr.write(
            f"{command}: warning: {len(sim.skipped)} topic(s) of the runs have no judgments and were "
            f"skipped: {shown}\n"
        )


def _print_curve(sim: Simulation, opts: dict[str, Any], out: TextOut) -> None:
    depth = spec_from_options(opts).pool_depth
    points = sim.curve(opts["step"])
    found, judged = sim.total_found(), sim.total_judged()
    relevant = sum(t.relevant_total for t in sim.traces)
    if opts["fmt"] == "json":
        doc = {
            "strategy": sim.strategy,
            "budget": opts["budget"],
            "step": opts["step"],
            "depth": depth,
            "seed": opts["seed"],
            "topics": len(sim.traces),
            "judged": judged,
            "relevant_found": found,
            "relevant_total": relevant,
            "curve": [
                {"topic": p.topic, "step": p.step, "judged": p.judged, "relevant": p.relevant} for p in points
            ],
        }
        out.write(json.dumps(doc, indent=1) + "\n")
        return
    if opts["fmt"] == "csv":
        writer = SafeWriter(out)
        writer.writerow(["topic", "step", "judged", "relevant"])
        writer.writerows([p.topic, p.step, p.judged, p.relevant] for p in points)
        return
    out.write(
        f"# {sim.strategy}: budget {opts['budget']} per topic, depth {depth}, seed {opts['seed']}, "
        f"{len(sim.traces)} topics\n"
    )
    out.write(f"{'topic':<12}{'step':>8}{'judged':>10}{'relevant':>10}\n")
    for p in points:
        out.write(f"{p.topic:<12}{p.step:>8}{p.judged:>10}{p.relevant:>10}\n")
    share = f" ({found / relevant:.1%} of {relevant} relevant in the qrels)" if relevant else ""
    out.write(f"# found {found} relevant in {judged} judgments{share}\n")


# -- entry point ----------------------------------------------------------------------------

COMMANDS = {
    "build_pool": (BUILD_HELP, add_build_arguments, run_build),
    "simulate_pool": (SIMULATE_HELP, add_simulate_arguments, run_simulate),
}


def main(argv: list[str], stdout: TextOut, stderr: TextOut, prog: str = "manage.py build_pool") -> int:
    """Entry point without Django (manage.py's fast path): the command is the last word of ``prog``."""
    command = prog.split()[-1]
    if command not in COMMANDS:
        stderr.write(f"CommandError: unknown pooling command '{command}' (one of {', '.join(COMMANDS)})\n")
        return 2
    description, add_arguments, run = COMMANDS[command]
    return run_command(
        argv, stdout, stderr, prog=prog, description=description, add_arguments=add_arguments, run=run
    )
    return 0
