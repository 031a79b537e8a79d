"""The evaluate and compare command lines, free of Django: ``manage.py evaluate`` and ``manage.py
compare`` are thin wrappers around :func:`run_evaluate` and :func:`run_compare`, and :func:`main` and
:func:`compare_main` run them without setting Django up."""

from __future__ import annotations

import sys
from argparse import SUPPRESS, Action, ArgumentParser
from collections.abc import Iterator
from typing import Any

from engine.evaluate import Judgments, RunResult, evaluate_files, no_common_topic
from engine.measures.base import EvalOptions, Measure
from engine.names import MeasureError, parse_measures, parse_trec_eval_measures
from engine.output import Writer, comparison_csv, comparison_dict, comparison_json, comparison_text_lines
from engine.zscores import read_zscores
from trec import FormatError, read_mq_prel, read_prel, read_qrels, read_run
from trec.cli import UsageError, run_command
from trec.progress import Progress, TextOut
from trec.runs import run_name_from_path

EVALUATE_HELP = (
    "Evaluate runs against qrels exactly as trec_eval 10.0 (and sample_eval.pl with --prel). "
    "With --trec-eval-layout the output is byte-identical to trec_eval 10.0's; every trec_eval "
    "option is accepted under its short and long name (-q --query_eval_wanted, -m --measure, -c, -l, "
    "-n, -D, -J, -N, -M, -R, -T, -o, -Z, -v). "
    "Example: manage.py evaluate -q -m map -m P.10 -m ndcg_cut.10 qrels.txt runs/*.run"
)
TREC_EVAL_VERSION = "10.0-rc3"  # what trec_eval 10.0's Makefile sets VERSIONID to
REL_FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")  # trec_eval formats.c
PREFS_FORMATS = ("prefs", "qrels_prefs", "qrels_jg")
RESULTS_FORMATS = ("trec_results",)


class _Version(Action):
    """``-v``/``--version``: print the trec_eval version reproduced, on stderr as trec_eval does; exit 0."""

    def __init__(self, option_strings: list[str], dest: str = SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=SUPPRESS, **kwargs)

    def __call__(self, parser: ArgumentParser, *_: Any) -> None:
        sys.stderr.write(
            f"trec_eval version {TREC_EVAL_VERSION} (reproduced by the workbench's manage.py evaluate)\n"
        )
        parser.exit(0)


def add_evaluate_arguments(parser: ArgumentParser) -> None:
    add = parser.add_argument
    add("qrels", help="qrels file (or a prel with --prel / --mq-prel, prefs with -R); gzip is fine")
    add("runs", nargs="+", help="run files: qid Q0 docno rank score tag [ignored...]; '-' is stdin")
    if "-v" not in parser._option_string_actions:  # Django's own parser has -v (verbosity), --version
        add("-v", "--version", action=_Version, help="print the trec_eval version reproduced and exit")
    add("-q", "--query_eval_wanted", dest="per_topic", action="store_true", help="print per-topic values too")
    add(
        "-c",
        "--complete_rel_info_wanted",
        dest="complete",
        action="store_true",
        help="average over every qrels topic (missing = 0)",
    )
    add("-J", "--Judged_docs_only", dest="judged_only", action="store_true", help="judged documents only")
    add("-l", "--level_for_rel", dest="level", type=int, default=1, help="relevant: rel >= LEVEL (default 1)")
    add(
        "-M",
        "--Max_retrieved_per_topic",
        dest="max_docs",
        type=int,
        default=None,
        help="evaluate only the top N per topic",
    )
    add(
        "-N",
        "--Number_docs_in_coll",
        dest="num_docs",
        type=int,
        default=0,
        help="documents in the collection (utility's 4th coefficient; default 0 as in trec_eval)",
    )
    add("-n", "--nosummary", dest="nosummary", action="store_true", help="print no 'all' summary lines")
    add(
        "-D",
        "--Debug_level",
        dest="debug",
        default=None,
        metavar="LEVEL[.QID]",
        help="trec_eval's debug option: '.QID' evaluates only that topic; the level itself prints nothing",
    )
    add(
        "-R",
        "--Rel_info_format",
        dest="rel_format",
        default="qrels",
        help="judgments format: qrels (default), prefs, qrels_prefs, qrels_jg",
    )
    add("-T", "--Results_format", dest="results_format", default="trec_results", help="only trec_results")
    add(
        "-o",
        "--Output_old_results_format",
        dest="old_format",
        action="store_true",
        help="accepted for trec_eval compatibility; has no effect (obsolete in trec_eval too)",
    )
    add(
        "-Z",
        "--Zscore",
        dest="zscores",
        default=None,
        metavar="ZMEAN_FILE",
        help="print z-scores (qid measure mean sd)",
    )
    add(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        default=None,
        help="measure or group: map, P.5,10, ndcg_cut.10, official, all_trec, set, nDCG@10, P(rel=2)@10, "
        "Bpref, Judged@10 ... (repeatable; see the list below)",
    )
    design = parser.add_mutually_exclusive_group()
    design.add_argument(
        "--prel",
        action="store_true",
        help="QRELS is a sample_eval prel 'qid iter docno stratum rel' (enables xinfAP, xinfNDCG, iP_k)",
    )
    design.add_argument(
        "--mq-prel",
        action="store_true",
        help="QRELS is a Million Query prel 'qid docno rel method iprob' (enables statAP)",
    )
    add(
        "--sample-version",
        choices=["trec2011", "trecvid2012"],
        default="trec2011",
        help="which sample_eval.pl to reproduce (default trec2011)",
    )
    add(
        "--prior",
        choices=["third", "half"],
        default="third",
        help="xinfAP's empty-sample prior: sample_eval's 1/3 (default) or trec_eval's 1/2",
    )
    add("--digits", type=int, default=4, help="decimals printed (default 4)")
    add("--format", choices=["trec", "json", "csv"], default="trec", dest="fmt")
    add(
        "--trec-eval-layout",
        action="store_true",
        help="trec_eval's exact output: padded names, its measure order, -m parsed as trec_eval does",
    )
    add(
        "--threads",
        type=int,
        default=None,
        help="runs read and evaluated concurrently by N threads of this process (default: one thread "
        "per core, or forked worker processes, one more than cores, where the compiled readers are "
        "not built)",
    )
    add(
        "--progress",
        choices=["auto", "on", "off"],
        default="auto",
        help="progress bar on stderr (auto: when stderr is a terminal and there are several runs)",
    )


def _check_options(opts: dict[str, Any]) -> None:
    if opts["max_docs"] is not None and opts["max_docs"] < 1:
        raise UsageError("-M takes a positive number of documents")
    if opts["digits"] < 0 or opts["digits"] > 17:
        raise UsageError("--digits takes a number from 0 to 17")
    if opts["num_docs"] < 0:
        raise UsageError("-N takes a number of documents >= 0")
    if opts["rel_format"] not in REL_FORMATS:
        raise UsageError(f"illegal rel_format '{opts['rel_format']}' (-R takes {', '.join(REL_FORMATS)})")
    if opts["results_format"] not in RESULTS_FORMATS:
        raise UsageError(
            f"illegal retrieval results format '{opts['results_format']}' (-T takes trec_results)"
        )
    if opts["rel_format"] != "qrels" and (opts["prel"] or opts["mq_prel"]):
        raise UsageError("-R cannot be combined with --prel or --mq-prel")
    if opts["zscores"] and opts["rel_format"] in PREFS_FORMATS:
        raise UsageError(f"-Z is not supported with -R {opts['rel_format']}")


def _debug_topic(debug: str | None) -> str | None:
    """trec_eval's ``-D level.qid``: the topic to evaluate alone (None: every topic)."""
    if debug is None:
        return None
    level, dot, qid = debug.partition(".")
    try:
        int(level or "0")
    except ValueError as exc:
        raise UsageError(f"-D takes LEVEL or LEVEL.QID, got '{debug}'") from exc
    return qid if dot else None


def _only_topic(judgments: Judgments, topic: str) -> Judgments:
    """The judgments of one topic (trec_eval -D level.qid skips every other qrels topic)."""
    q = judgments.qrels
    index = q.topic_index().get(topic)
    if index is None:
        raise UsageError(f"-D: topic '{topic}' is not in the qrels")
    return Judgments(q.only_topic(index))  # its subtopic lines included


def run_evaluate(opts: dict[str, Any], stdout: TextOut, stderr: TextOut) -> None:
    """Evaluate ``opts['runs']`` against ``opts['qrels']``; raises :class:`UsageError` on bad input."""
    _check_options(opts)
    design = "prel" if opts["prel"] else "mq" if opts["mq_prel"] else "qrels"
    default = ["sample_eval"] if design == "prel" else ["statAP"] if design == "mq" else ["official"]
    specs = [p for spec in (opts["measures"] or default) for p in _split_specs(spec)]
    options = EvalOptions(
        level=opts["level"],
        max_docs=opts["max_docs"],
        judged_only=opts["judged_only"],
        complete=opts["complete"],
        sample_variant=opts["sample_version"],
        sample_prior=opts["prior"],
        num_docs_in_coll=opts["num_docs"],
    )
    runs = opts["runs"]
    names = unique_run_names(runs)
    many = len(runs) > 1
    writer = Writer(
        stdout,
        opts["fmt"],
        per_topic=opts["per_topic"],
        digits=opts["digits"],
        with_run=many,
        trec_eval_layout=opts["trec_eval_layout"],
        summary=not opts["nosummary"],
    )
    if opts["rel_format"] in PREFS_FORMATS:
        results = _prefs_results(opts, runs, specs, options, names)
    else:
        results = _qrels_results(opts, runs, specs, options, names, design)
    enabled = None if opts["progress"] == "auto" else opts["progress"] == "on"
    if enabled is None and not many:
        enabled = False
    with Progress(len(runs), "evaluating", stream=stderr, enabled=enabled) as progress:
        try:
            for result in results:
                refused = no_common_topic(result)
                if refused:
                    raise UsageError(refused)
                if result.missing_topics:
                    _warn_missing(stderr, result.run, result.missing_topics, options.complete)
                writer.write(result)
                progress.advance(result.run)
        except (FormatError, MeasureError) as exc:
            raise UsageError(str(exc)) from exc
    writer.close(
        {
            "qrels": str(opts["qrels"]),
            "options": {
                "level": options.level,
                "max_docs": options.max_docs,
                "judged_only": options.judged_only,
                "complete": options.complete,
                "design": design,
                "rel_format": opts["rel_format"],
            },
        }
    )


def _parse(opts: dict[str, Any], specs: list[str], design: str) -> list[Measure]:
    parse = parse_trec_eval_measures if opts["trec_eval_layout"] else parse_measures
    try:
        return parse(specs, design=design, sample_variant=opts["sample_version"])
    except MeasureError as exc:
        raise UsageError(str(exc)) from exc


def _qrels_results(
    opts: dict[str, Any],
    runs: list[str],
    specs: list[str],
    options: EvalOptions,
    names: list[str],
    design: str,
) -> Iterator[RunResult]:
    measures = _parse(opts, specs, design)
    if len(runs) > 1:
        from trec import kernels
        from trec.arrow_runs import preload

        if not kernels.enabled():  # the compiled readers need no pyarrow
            preload()  # pyarrow's reader for the judgments too (evaluate_files reads the runs with it)
    try:
        if design == "prel":
            judgments = Judgments.from_prel(read_prel(opts["qrels"]))
        elif design == "mq":
            judgments = Judgments.from_mq(read_mq_prel(opts["qrels"]))
        else:
            judgments = Judgments(read_qrels(opts["qrels"]))
        zscores = read_zscores(opts["zscores"]) if opts["zscores"] else None
    except FormatError as exc:
        raise UsageError(str(exc)) from exc
    topic = _debug_topic(opts["debug"])
    if topic is not None:
        judgments = _only_topic(judgments, topic)
    return evaluate_files(
        judgments,
        runs,
        measures,
        options,
        names=names,
        workers=opts["threads"],
        zscores=zscores,
        processes=opts["threads"] is None and not _kernels_enabled(),
    )


def _kernels_enabled() -> bool:
    """The compiled reader and join release the GIL for most of a run's time, so threads of this
    process evaluate runs as fast as forked workers, without forking (docs/speed.md)."""
    from trec import kernels

    return kernels.enabled()


def _prefs_results(
    opts: dict[str, Any], runs: list[str], specs: list[str], options: EvalOptions, names: list[str]
) -> Iterator[RunResult]:
    """-R prefs / qrels_prefs / qrels_jg: evaluated by :mod:`engine.prefs` (trec_eval's prefs formats)."""
    try:
        from engine.prefs import evaluate_prefs_files  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        raise UsageError(
            f"-R {opts['rel_format']} is not available in this build (engine.prefs is missing)"
        ) from exc
    if _debug_topic(opts["debug"]) is not None:
        raise UsageError(f"-D LEVEL.QID is not supported with -R {opts['rel_format']}")
    try:
        results: Iterator[RunResult] = evaluate_prefs_files(
            str(opts["qrels"]), list(runs), specs, options, opts["rel_format"], names
        )
    except (FormatError, MeasureError) as exc:
        raise UsageError(str(exc)) from exc
    return results


def unique_run_names(paths: list[str]) -> list[str]:
    """Run names from file names; where two files share a name, enough parent folders to tell them apart.

    ``a/bm25.run`` and ``b/bm25.run`` become ``a/bm25`` and ``b/bm25``, never two ``bm25`` blocks.
    """
    from pathlib import PurePath

    names = [run_name_from_path(p) for p in paths]
    depth = 0
    while len(set(names)) < len(names) and depth < 32:
        depth += 1
        clashing = {n for n in names if names.count(n) > 1}
        names = [
            "/".join([*PurePath(p).parent.parts[-depth:], run_name_from_path(p)]) if n in clashing else n
            for n, p in zip(names, paths, strict=True)
        ]
    return names


def _warn_missing(stderr: TextOut, run: str, topics: list[str], complete: bool) -> None:
    shown = ", ".join(topics[:10]) + (", ..." if len(topics) > 10 else "")
    what = "counted as 0 (-c)" if complete else "skipped (use -c to count them as 0)"
    stderr.write(
        f"evaluate: warning: run '{run}' has no results for {len(topics)} qrels topic(s): {shown}; {what}\n"
    )


def _split_specs(spec: str) -> list[str]:
    """``-m P.5,10`` is one spec, ``-m map,P.5`` two: a comma inside a parameter list continues it."""
    out: list[str] = []
    depth = 0
    current = ""
    for ch in spec:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0 and current and not _takes_params(current):
            out.append(current)
            current = ""
            continue
        current += ch
    if current:
        out.append(current)
    return out


def _takes_params(current: str) -> bool:
    # inside "P.5,10" the comma continues the parameter list; "IPrec@0.1," is an ir_measures name, not one
    return "." in current and not current.startswith(".") and "@" not in current and "(" not in current


def main(argv: list[str], stdout: TextOut, stderr: TextOut, prog: str = "manage.py evaluate") -> int:
    """Entry point without Django (used by manage.py's fast path)."""
    return run_command(
        argv,
        stdout,
        stderr,
        prog=prog,
        description=EVALUATE_HELP,
        add_arguments=add_evaluate_arguments,
        run=run_evaluate,
        epilog=_measure_list(),
    )


def _measure_list() -> str | None:
    """Every measure name, one line each (:func:`engine.catalog.measure_help`), for ``--help``."""
    from engine.catalog import measure_help

    text = measure_help()
    return text or None


# -------------------------------------------------------------------------------- compare

COMPARE_HELP = (
    "Compare runs on one measure: paired t, Wilcoxon, sign and randomization tests with a bootstrap CI "
    "and a multiple-comparison correction; effect sizes (d_z, d_av, Hedges' g_av); Tukey HSD with "
    "simultaneous CIs; Friedman with Kendall's W; Kendall tau-b / tau_AP between orderings with bootstrap "
    "CIs. "
    "Example: manage.py compare -m map --baseline bm25 qrels.txt runs/*.run"
)


def add_compare_arguments(parser: ArgumentParser) -> None:
    import engine.significance as sig  # scipy behind it: only compare needs it

    add = parser.add_argument
    add("qrels", help="qrels file; gzip is fine")
    add("runs", nargs="+", help="two or more run files; a run is named after its file")
    add("-m", dest="measure", required=True, help="one measure: map, P.10, ndcg_cut.10, nDCG@10 ...")
    add("--baseline", help="compare every run with this one (name or path); default: all pairs")
    add(
        "--test",
        default="all",
        type=_tests,
        help=f"paired tests, comma-separated: {', '.join(sig.ALL_TESTS)} or all (default all = "
        f"{', '.join(sig.TESTS)}); exact = the randomization test over all 2^n sign vectors "
        f"(at most {sig.EXACT_MAX_TOPICS} topics)",
    )
    add(
        "--alternative",
        choices=sig.ALTERNATIVES,
        default="two-sided",
        help="of every paired test (default two-sided); greater: H1 a scores higher than b",
    )
    add(
        "--ci",
        dest="ci_method",
        choices=sig.CI_METHODS,
        default="percentile",
        help="bootstrap interval of the mean difference: percentile (default) or bca (bias-corrected "
        "and accelerated, Efron & Tibshirani 1993 ch. 14)",
    )
    add(
        "--zero-method",
        choices=sig.ZERO_METHODS,
        default="wilcox",
        help="Wilcoxon's zero differences: wilcox drops them first (default), pratt ranks then drops "
        "them, zsplit splits their ranks between the signs",
    )
    add(
        "--correction",
        choices=sig.CORRECTIONS,
        default="holm",
        help="over the compared pairs (default holm; bh and by: Benjamini-Hochberg and -Yekutieli FDR)",
    )
    add("--alpha", type=float, default=0.05, help="significance level (default 0.05); the CI is 1 - alpha")
    add("--permutations", type=int, default=10_000, help="randomization and randomised Tukey trials")
    add(
        "--bootstrap",
        type=int,
        default=10_000,
        help="bootstrap resamples of the mean difference's CI and of the tau-b / tau_AP CIs (default 10000)",
    )
    add("--seed", type=int, default=0, help="seed of every random procedure (default 0)")
    add(
        "--compare-measure",
        metavar="M2",
        help="Kendall tau-b and tau_AP (with bootstrap CIs over topics): ordering by -m vs by M2",
    )
    add(
        "--compare-qrels",
        metavar="QRELS2",
        help="Kendall tau-b and tau_AP (with bootstrap CIs over topics): ordering under QRELS vs QRELS2",
    )
    add("-l", dest="level", type=int, default=1, help="relevance level: rel >= LEVEL (default 1)")
    add("-J", dest="judged_only", action="store_true", help="judged documents only (condensed lists)")
    add("-c", dest="complete", action="store_true", help="average over every qrels topic, missing = 0")
    add("--format", choices=["text", "json", "csv"], default="text", dest="fmt")
    add("--per-topic", action="store_true", help="print the topics x runs score matrix too")


def run_compare(opts: dict[str, Any], stdout: TextOut, stderr: TextOut) -> None:
    """Compare ``opts['runs']`` on one measure and print the comparison; raises :class:`UsageError`."""
    import engine.significance as sig  # scipy behind it: only compare needs it

    measure = _one_measure(opts["measure"])
    other_measure = _one_measure(opts["compare_measure"]) if opts["compare_measure"] else None
    judgments = Judgments(_read(read_qrels, opts["qrels"]))
    other_judgments = Judgments(_read(read_qrels, opts["compare_qrels"])) if opts["compare_qrels"] else None
    runs = [_read(read_run, path) for path in opts["runs"]]
    baseline = opts["baseline"]
    by_path = {str(p): run_name_from_path(p) for p in opts["runs"]}
    settings = sig.CompareSettings(
        baseline=by_path.get(baseline, baseline),
        tests=opts["test"],
        alternative=opts["alternative"],
        zero_method=opts["zero_method"],
        ci_method=opts["ci_method"],
        correction=opts["correction"],
        alpha=opts["alpha"],
        permutations=opts["permutations"],
        resamples=opts["bootstrap"],
        seed=opts["seed"],
    )
    options = EvalOptions(level=opts["level"], judged_only=opts["judged_only"], complete=opts["complete"])
    total = sig.pair_count(len(runs), settings)
    try:
        # many runs x 10,000 permutations take minutes: show progress on a terminal
        with Progress(total, "comparing", stream=stderr, enabled=None if total > 20 else False) as bar:
            comparison = sig.compare_runs(
                judgments,
                runs,
                measure,
                options,
                settings,
                other_measure=other_measure,
                other_judgments=other_judgments,
                on_pair=bar.advance,
            )
    except sig.ComparisonError as exc:
        raise UsageError(str(exc)) from exc
    dropped = comparison.matrix.dropped
    if dropped:
        shown = "; ".join(f"{t} (no results from {', '.join(r)})" for t, r in list(dropped.items())[:10])
        stderr.write(
            f"compare: warning: {len(dropped)} topic(s) left out, not evaluated for every run: {shown}"
            + ("; ..." if len(dropped) > 10 else "")
            + "\n"
        )
    info = {
        "qrels": str(opts["qrels"]),
        "level": options.level,
        "judged_only": options.judged_only,
        "complete": options.complete,
    }
    per_topic = opts["per_topic"]
    if opts["fmt"] == "json":
        stdout.write(comparison_json(comparison, info, per_topic=per_topic))
    elif opts["fmt"] == "csv":
        stdout.write(
            comparison_csv(comparison_dict(comparison, info, per_topic=per_topic, keep_infinite=True))
        )
    else:
        stdout.write("\n".join(comparison_text_lines(comparison, info, per_topic=per_topic)) + "\n")


def _tests(spec: str) -> tuple[str, ...]:
    """``--test``: "all" or a comma-separated list of test names."""
    from argparse import ArgumentTypeError

    import engine.significance as sig  # scipy behind it: only compare needs it

    if spec == "all":
        return sig.TESTS
    names = tuple(dict.fromkeys(t.strip() for t in spec.split(",") if t.strip()))
    unknown = [t for t in names if t not in sig.ALL_TESTS]
    if unknown or not names:
        raise ArgumentTypeError(
            f"unknown test(s) {', '.join(unknown) or spec!r}; choose from {', '.join(sig.ALL_TESTS)}, all"
        )
    return names


def _one_measure(spec: str) -> Measure:
    try:
        measures = parse_measures([spec])
    except MeasureError as exc:
        raise UsageError(str(exc)) from exc
    if len(measures) != 1:
        names = ", ".join(m.measure_name() for m in measures)
        raise UsageError(f"'{spec}' names {len(measures)} measures ({names}): compare one at a time")
    return measures[0]


def _read(reader: Any, path: str) -> Any:
    try:
        return reader(path)
    except FormatError as exc:
        raise UsageError(str(exc)) from exc
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from exc


def compare_main(argv: list[str], stdout: TextOut, stderr: TextOut, prog: str = "manage.py compare") -> int:
    """Entry point of the compare command line without Django."""
    import engine.significance as sig  # scipy behind it: only compare needs it

    return run_command(
        argv,
        stdout,
        stderr,
        prog=prog,
        description=COMPARE_HELP,
        add_arguments=add_compare_arguments,
        run=run_compare,
        epilog="conventions (also printed with every result):\n"
        + "\n".join(f"  - {text}" for text in sig.conventions(sig.CompareSettings())),
    )
