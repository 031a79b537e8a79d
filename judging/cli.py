"""The agreement command's logic, free of Django: ``manage.py agreement`` runs it without Django setup."""

from __future__ import annotations

import json
import math
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from engine.cli import unique_run_names
from engine.measures.base import EvalOptions
from engine.names import MeasureError, parse_measures
from judging.agreement import (
    DEFAULT_MEASURES,
    AgreementReport,
    Pooled,
    SummaryStat,
    TableAgreement,
    agreement_report,
    report_as_dict,
    summary_rows,
)
from judging.agreement.inference import PARADOX_KAPPA, PARADOX_P_E, PARADOX_P_O
from trec import FormatError, Qrels, read_qrels, read_run
from trec.cli import UsageError, run_command, text_table
from trec.progress import TextOut

AGREEMENT_HELP = (
    "Agreement between assessors' qrels files, no database: Cohen's, weighted and pooled kappa, "
    "Krippendorff's alpha, Gwet's AC1, Voorhees overlap per pair (and Fleiss' kappa for three or more), "
    "per topic and pooled over topics; with --runs, how much the system rankings change. "
    "The report leads with a summary table: per pair and for the group, kappa, linear-weighted kappa, "
    "AC1 and ordinal alpha with CIs, and the kappa-paradox flag. "
    "Example: manage.py agreement alice.qrels bob.qrels --runs runs/*.run --bootstrap 1000. "
    "Conventions (printed with the results, 'conventions' in JSON; docs/agreement.md): weights by grade "
    "position among the grades seen unless --scale; negative grades = not judged; items judged by one "
    "assessor of a pair left out; the bootstrap resamples topics; asymptotic CIs are Wald, clipped to [-1, 1]"
)
_COMPRESSED = (".gz", ".bz2", ".xz")
STAT_NAMES = {
    "p_o": "P_o (percent agreement)",
    "cohen": "Cohen kappa",
    "linear": "weighted kappa, linear",
    "quadratic": "weighted kappa, quadratic",
    "pooled": "pooled kappa (IIR 8.5, Scott pi)",
    "ac1": "Gwet AC1",
    "alpha_nominal": "Krippendorff alpha, nominal",
    "alpha_ordinal": "Krippendorff alpha, ordinal",
    "alpha_interval": "Krippendorff alpha, interval",
    "alpha_ratio": "Krippendorff alpha, ratio",
    "overlap": "Voorhees overlap (micro, macro)",
    "binary_cohen": "binarized: Cohen kappa",
    "binary_pooled": "binarized: pooled kappa",
    "binary_ac1": "binarized: Gwet AC1",
    "fleiss": "Fleiss kappa",
}


def add_agreement_arguments(parser: ArgumentParser) -> None:
    parser.add_argument("qrels", nargs="+", help="two or more qrels files, one per assessor (gzip is fine)")
    parser.add_argument(
        "--names", default=None, help="assessor names, comma separated (default: the file names' stems)"
    )
    parser.add_argument(
        "--threshold",
        type=int,
        default=1,
        help="relevant = grade >= THRESHOLD, for the binarized kappa, pooled kappa, AC1 and confusion "
        "matrix, the overlap and the τ measures' -l (default 1)",
    )
    parser.add_argument(
        "--negative",
        choices=["missing", "category"],
        default="missing",
        help="negative grades: 'missing' = pooled but not judged, as in qrels (default); "
        "'category' = ordinary labels (e.g. -2 junk)",
    )
    parser.add_argument(
        "--scale",
        default=None,
        help="the label scale, e.g. 0,1,2,3 (default: the grades seen per pair). Weighted kappa, AC2 and "
        "ordinal alpha weigh grades by their POSITION on it: without --scale, grades {0,1,3} are "
        "positions 0,1,2, so 1 vs 3 counts as a one-step disagreement",
    )
    parser.add_argument("--format", choices=["text", "json"], default="text", dest="fmt")
    parser.add_argument("--per-topic", action="store_true", help="per-topic tables too")
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=0,
        metavar="B",
        help="percentile CIs from B resamples of the topics (default 0: none)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    parser.add_argument("--confidence", type=float, default=0.95, help="CI level (default 0.95)")
    parser.add_argument(
        "--runs",
        nargs="+",
        default=None,
        metavar="RUN",
        help="run files: rank them under each assessor and correlate the rankings (Kendall tau-b, tau_AP)",
    )
    parser.add_argument(
        "--measures",
        action="append",
        default=None,
        help=f"measures for --runs, comma separated, repeatable (default {','.join(DEFAULT_MEASURES)})",
    )
    parser.add_argument("--digits", type=int, default=4, help="decimals printed (default 4)")


def assessor_name(path: str) -> str:
    """``judges/alice.qrels.gz`` -> ``alice``: the file name without compression and one extension."""
    name = Path(path).name
    for ext in _COMPRESSED:
        if name.lower().endswith(ext) and len(name) > len(ext):
            name = name[: -len(ext)]
    stem, dot, _ = name.rpartition(".")
    return stem if dot and stem else name


def split_measures(spec: str) -> list[str]:
    """``map,P.5,10,bpref`` -> ``map``, ``P.5,10``, ``bpref``: a piece that is only a number (or
    ``name=number``) continues the previous measure's parameter list, as in trec_eval's ``-m P.5,10``."""
    out: list[str] = []
    for piece in filter(None, (p.strip() for p in spec.split(","))):
        value = piece.partition("=")[2] if "=" in piece and "(" not in piece else piece
        try:
            float(value)
            numeric = True
        except ValueError:
            numeric = False
        if numeric and out:
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out


def _names(opts: dict[str, Any]) -> list[str]:
    paths = opts["qrels"]
    if opts["names"]:
        names = [n.strip() for n in opts["names"].split(",")]
        if len(names) != len(paths):
            raise UsageError(f"--names gives {len(names)} name(s) for {len(paths)} qrels file(s)")
    else:
        names = [assessor_name(p) for p in paths]
        if len(set(names)) < len(names):
            names = [str(p) for p in paths]  # same stem in two folders: the paths tell them apart
    if len(set(names)) < len(names):
        raise UsageError("two assessors have the same name: give --names")
    return names


def _read(reader: Any, path: str) -> Any:
    try:
        return reader(path)
    except FormatError as exc:
        raise UsageError(str(exc)) from exc
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from exc


def run_agreement(opts: dict[str, Any], stdout: TextOut, stderr: TextOut) -> None:
    """Compute and print the report; raises :class:`UsageError` on bad input."""
    if len(opts["qrels"]) < 2:
        raise UsageError("agreement needs at least two qrels files (one per assessor)")
    if opts["bootstrap"] < 0:
        raise UsageError("--bootstrap takes a number of resamples >= 0")
    if not 0.0 < opts["confidence"] < 1.0:
        raise UsageError("--confidence takes a number between 0 and 1")
    if opts["digits"] < 0 or opts["digits"] > 17:
        raise UsageError("--digits takes a number from 0 to 17")
    scale = None
    if opts["scale"]:
        try:
            scale = [int(x) for x in opts["scale"].split(",") if x.strip()]
        except ValueError as exc:
            raise UsageError(f"--scale takes integers separated by commas, not '{opts['scale']}'") from exc
    measures = [m for spec in opts["measures"] or [] for m in split_measures(spec)] or list(DEFAULT_MEASURES)
    if opts["runs"]:
        try:  # before reading any file: a typo should not cost a long read
            parse_measures(measures)
        except MeasureError as exc:
            raise UsageError(str(exc)) from exc
    names = _names(opts)
    qrels: dict[str, Qrels] = {n: _read(read_qrels, p) for n, p in zip(names, opts["qrels"], strict=True)}
    runs = None
    if opts["runs"]:
        run_names = unique_run_names(opts["runs"])
        runs = [
            _read(lambda p, n=n: read_run(p, name=n), path)
            for n, path in zip(run_names, opts["runs"], strict=True)
        ]
    try:
        report = agreement_report(
            qrels,
            threshold=opts["threshold"],
            negative=opts["negative"],
            scale=scale,
            bootstrap=opts["bootstrap"],
            seed=opts["seed"],
            confidence=opts["confidence"],
            runs=runs,
            measures=measures,
            options=EvalOptions(level=opts["threshold"]),
        )
    except ValueError as exc:  # unknown measure, grade off the scale, duplicate run names...
        raise UsageError(str(exc)) from exc
    if opts["fmt"] == "json":
        data = report_as_dict(report, per_topic=opts["per_topic"])
        data["files"] = dict(zip(names, opts["qrels"], strict=True))
        stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        stdout.write("\n".join(text_lines(report, per_topic=opts["per_topic"], digits=opts["digits"])) + "\n")


# --------------------------------------------------------------------------- text rendering


def text_lines(report: AgreementReport, *, per_topic: bool = False, digits: int = 4) -> list[str]:
    """The report as readable tables (``nan`` = undefined)."""

    def f(x: float) -> str:
        # a value that rounds to zero prints as 0, not -0.0000
        return "nan" if math.isnan(x) else f"{x:.{digits}f}" if round(x, digits) != 0 else f"{0:.{digits}f}"

    pct = f"{100 * report.confidence:g}%"
    judged = ", ".join(f"{a} ({report.judged[a]} judged)" for a in report.assessors)
    negative = "not judged (pooled, as in qrels)" if report.negative == "missing" else "ordinary labels"
    lines = [
        f"agreement of {len(report.assessors)} assessors over {len(report.topics)} topics: {judged}",
        f"negative grades: {negative}; binarized statistics and overlap: relevant = grade >= "
        f"{report.threshold}; nan = undefined (no shared item, or P_e = 1: a single category)",
    ]
    lines += _summary_lines(report, f, pct)
    if report.bootstrap is not None:
        b = report.bootstrap
        lines.append(f"bootstrap: {b.resamples} resamples of the topics, seed {b.seed}, percentile {pct} CIs")
    lines += ["conventions:", *_convention_lines(report)]

    lines += [
        "",
        "pairs, one table concatenated over all topics (items judged by both; kappa SE and CI: "
        f"Fleiss, Cohen & Everitt 1969, {pct}):",
    ]
    head = ["a", "b", "items", "P_o", "kappa", "SE", "CI", "linear", "quadratic", "pooled", "AC1"]
    head += ["alpha_nom", "alpha_ord", "overlap"]
    rows = [head]
    for p in report.pairs:
        rows.append([p.a, p.b, str(p.items), *_stat_cells(p.overall, f)])
    lines += text_table(rows, "llr" + "r" * (len(head) - 3))
    lines += [
        "",
        f"pairs, labels binarized at the threshold (relevant = grade >= {report.threshold}), "
        "one 2x2 table concatenated over all topics:",
    ]
    rows = [["a", "b", "items", "P_o", "kappa", "SE", "CI", "pooled", "AC1"]]
    for p in report.pairs:
        rows.append([p.a, p.b, str(p.items), *_binary_cells(p.overall, f)])
    lines += text_table(rows, "llrrrrrrr")
    lines += _inference_lines(report, f, pct)

    for p in report.pairs:
        lines += [
            "",
            f"{p.a} vs {p.b}: {p.items} shared items over {len(p.per_topic)} topics "
            f"(left out, judged by one only: {p.a} {p.only_a}, {p.b} {p.only_b})",
        ]
        lines += _pooled_lines(p.pooled, f, bootstrap=report.bootstrap is not None)
        lines.append(f"confusion matrix (rows {p.a}, columns {p.b}):")
        counts = p.overall.counts
        rows = [["", *map(str, p.labels)]] + [
            [str(lab), *map(str, counts[i].tolist())] for i, lab in enumerate(p.labels)
        ]
        lines += ["  " + x for x in text_table(rows, "r" * (len(p.labels) + 1))]
        binary = p.overall.binary
        lines.append(
            f"binarized confusion matrix (relevant = grade >= {binary.threshold}; rows {p.a}, columns {p.b}):"
        )
        sides = (f"< {binary.threshold}", f">= {binary.threshold}")
        rows = [["", *sides]] + [[side, *map(str, binary.counts[i].tolist())] for i, side in enumerate(sides)]
        lines += ["  " + x for x in text_table(rows, "rrr")]
        if per_topic:
            lines.append(f"per topic ({p.a} vs {p.b}):")
            rows = [["topic", "items", *head[3:], "bin_kappa", "bin_pooled", "bin_AC1"]]
            rows += [
                [
                    t,
                    str(s.n),
                    *_stat_cells(s, f),
                    f(s.binary.cohen.value),
                    f(s.binary.pooled.value),
                    f(s.binary.ac1.value),
                ]
                for t, s in p.per_topic.items()
            ]
            lines += text_table(rows, "l" + "r" * (len(rows[0]) - 1))

    g = report.group
    if g is not None:
        lines += [
            "",
            f"all {len(g.assessors)} assessors: Fleiss kappa on the {g.items} items judged by all; "
            f"Krippendorff alpha on the {g.pairable} judged by two or more "
            f"({g.pairable - g.items} left out of Fleiss; {g.single} judged by one only, left out of both)",
        ]
        lines += _pooled_lines(g.pooled, f, bootstrap=report.bootstrap is not None)
        lines += _group_inference_lines(report, f, pct)
        if per_topic:
            rows = [["topic", "items", "fleiss", "pairable", "alpha_nom", "alpha_ord"]]
            rows += [
                [t, str(s.items), f(s.fleiss.value), str(s.pairable), f(s.alpha_nominal), f(s.alpha_ordinal)]
                for t, s in g.per_topic.items()
            ]
            lines += ["per topic (all assessors):", *text_table(rows, "lrrrrr")]

    s = report.systems
    if s is not None:
        lines += [
            "",
            f"system rankings: {len(s.runs)} runs ranked by mean score under each assessor, on the topics "
            "both assessors of a pair judged; tau_AP(a,b) takes a's ranking as the truth, tau_AP,b is "
            "symmetric (Urbano & Marrero 2017); RBO p = 0.9 (a's ranking first, ties broken by run "
            "name) lies in [min, min + residual]; swap rates: pairs ordered oppositely, min counting "
            "a pair tied in one ranking as no swap, mean as half:",
        ]
        rows = [
            [
                "measure",
                "a",
                "b",
                "topics",
                "tau_b",
                "tau_AP(a,b)",
                "tau_AP(b,a)",
                "tau_AP,b",
                "rho",
                "RBO",
                "RBO min",
                "residual",
                "swaps min",
                "mean",
            ]
        ]
        rows += [
            [
                c.measure,
                c.a,
                c.b,
                str(c.topics),
                f(c.tau_b),
                f(c.tau_ap_ab),
                f(c.tau_ap_ba),
                f(c.tau_ap_b),
                f(c.spearman),
                f(c.rbo),
                f(c.rbo_min),
                f(c.rbo_residual),
                f(c.swap_min),
                f(c.swap_mean),
            ]
            for c in s.correlations
        ]
        lines += text_table(rows, "lllrrrrrrrrrrr")
        lines.append("mean scores (each assessor's topics):")
        rows = [["measure", "run", *report.assessors]]
        for m in s.measures:
            for r in s.runs:
                rows.append([m, r, *(f(s.means[a][m].get(r, math.nan)) for a in report.assessors)])
        lines += text_table(rows, "ll" + "r" * len(report.assessors))
    return lines


def _summary_lines(report: AgreementReport, f: Any, pct: str) -> list[str]:
    """The summary table every report leads with (:mod:`judging.agreement.summary_table`)."""

    def cell(s: SummaryStat) -> str:
        if math.isnan(s.ci_low) or math.isnan(s.ci_high):
            return f(s.value)
        return f"{f(s.value)} [{f(s.ci_low)}, {f(s.ci_high)}]"

    rows = [
        ["a", "b", "items", "P_o", "kappa", "weighted kappa (linear)", "AC1", "alpha (ordinal)", "paradox"]
    ]
    for r in summary_rows(report):
        paradox = ", ".join(
            "kappa" if w == "kappa" else f"binarized at {report.threshold}" for w in r.paradox
        )
        rows.append(
            [
                r.a,
                r.b,
                str(r.items),
                f(r.p_o),
                cell(r.kappa),
                cell(r.weighted_kappa),
                cell(r.ac1),
                cell(r.alpha),
                paradox or "no",
            ]
        )
    alpha = "alpha: topic bootstrap" if report.bootstrap is not None else "alpha: no CI without --bootstrap"
    return [
        "",
        f"summary ({pct} CIs; pairs: Cohen kappa and linear-weighted kappa, asymptotic, Fleiss, Cohen & "
        "Everitt 1969; AC1 Gwet 2014; all: Fleiss kappa, weighted Fleiss kappa and AC1 with missing "
        f"ratings kept (Gwet 2014) on the items judged by two or more; {alpha}; paradox: P_o >= "
        f"{PARADOX_P_O:g}, kappa < {PARADOX_KAPPA:g}, P_e >= {PARADOX_P_E:g}):",
        *text_table(rows, "llrrrrrrl"),
        "",
    ]


def _convention_lines(report: AgreementReport) -> list[str]:
    legend = report_as_dict(report, per_topic=False)["conventions"]
    return [f"  {key}: {text}" for key, text in legend.items()]


def _se_ci(e: Any, f: Any) -> list[str]:
    return [f(e.value), f(e.se), f"[{f(e.ci_low)}, {f(e.ci_high)}]"]


def _inference_lines(report: AgreementReport, f: Any, pct: str) -> list[str]:
    """Asymptotic SEs of pooled kappa, AC1 and AC2 (Gwet 2014), z tests of kappa, PABAK; then the
    binarized table's prevalence and bias indices with kappa, AC1 and PABAK side by side."""
    lines = [
        "",
        "pairs, concatenated table: SE and Wald CI (Gwet 2014 linearisation, "
        f"{pct}), kappa tested against 0 (SE under kappa = 0, Fleiss, Cohen & Everitt 1969), "
        "PABAK = (q P_o - 1)/(q - 1) (Byrt, Bishop & Carlin 1993):",
    ]
    rows = [["a", "b", "pooled", "SE", "CI", "AC1", "SE", "CI", "AC2 lin", "SE", "AC2 quad", "SE"]]
    rows[0] += ["kappa z", "p", "lin z", "p", "PABAK", "alpha_int", "alpha_ratio"]
    for p in report.pairs:
        i = p.inference
        if i is None:
            continue
        rows.append(
            [
                p.a,
                p.b,
                *_se_ci(i.pooled, f),
                *_se_ci(i.ac1, f),
                f(i.ac2_linear.value),
                f(i.ac2_linear.se),
                f(i.ac2_quadratic.value),
                f(i.ac2_quadratic.se),
                f(i.cohen_test.z),
                f(i.cohen_test.p),
                f(i.linear_test.z),
                f(i.linear_test.p),
                f(i.pabak),
                f(i.alpha_interval),
                f(i.alpha_ratio),
            ]
        )
    lines += text_table(rows, "ll" + "r" * (len(rows[0]) - 2))
    lines += [
        "",
        f"pairs, binarized at {report.threshold}: kappa beside AC1 and PABAK = 2 P_o - 1, with the "
        "prevalence index (both relevant - both not)/n and bias index (a only - b only)/n "
        "(Byrt, Bishop & Carlin 1993):",
    ]
    rows = [["a", "b", "kappa", "AC1", "SE", "pooled", "SE", "PABAK", "prevalence", "bias", "note"]]
    for p in report.pairs:
        i = p.inference
        if i is None:
            continue
        b = p.overall.binary
        note = "kappa paradox: rare class depresses kappa" if i.binary.paradox else ""
        rows.append(
            [
                p.a,
                p.b,
                f(b.cohen.value),
                f(i.binary_ac1.value),
                f(i.binary_ac1.se),
                f(i.binary_pooled.value),
                f(i.binary_pooled.se),
                f(i.binary.pabak),
                f(i.binary.prevalence_index),
                f(i.binary.bias_index),
                note,
            ]
        )
    return lines + text_table(rows, "ll" + "r" * 8 + "l")


def _group_inference_lines(report: AgreementReport, f: Any, pct: str) -> list[str]:
    g = report.group
    if g is None or g.inference is None:
        return []
    i = g.inference
    rows = [["statistic", "items", "value", "SE", f"{pct} CI"]]
    for name, e in (
        ("Fleiss kappa, items judged by all", i.fleiss_complete),
        ("Fleiss kappa, missing ratings kept (Gwet)", i.fleiss_missing),
        ("Gwet AC1, items judged by all", i.ac1_complete),
        ("Gwet AC1, missing ratings kept (Gwet)", i.ac1_missing),
        *(
            (f"Gwet AC2, {kind}, missing ratings kept", e)
            for kind, e in (("linear", i.ac2_linear), ("quadratic", i.ac2_quadratic))
            if e is not None
        ),
    ):
        rows.append([name, str(e.items), *_se_ci(e, f)])
    t = i.fleiss_test
    return [
        "  SEs: Gwet 2014 linearisation; missing-data versions on every item judged by two or more, "
        f"category shares from all {i.missing_items} judged items",
        *("  " + x for x in text_table(rows, "lrrrr")),
        f"  Fleiss kappa vs 0 (Fleiss, Nee & Landis 1979 SE under kappa = 0, items judged by all): "
        f"SE0 {f(t.se0)}, z {f(t.z)}, p {f(t.p)}",
        f"  Conger kappa (1980), items judged by all: {f(i.conger)}; Light kappa (1971), mean Cohen kappa "
        f"of {i.light_pairs} pairs: {f(i.light)}",
        f"  Krippendorff alpha on the grade values, judged by two or more: interval {f(i.alpha_interval)}, "
        f"ratio {f(i.alpha_ratio)}",
    ]


def _stat_cells(s: TableAgreement, f: Any) -> list[str]:
    ci = f"[{f(s.cohen.ci_low)}, {f(s.cohen.ci_high)}]"
    return [
        f(s.p_o),
        f(s.cohen.value),
        f(s.cohen.se),
        ci,
        f(s.linear.value),
        f(s.quadratic.value),
        f(s.pooled.value),
        f(s.ac1.value),
        f(s.alpha_nominal),
        f(s.alpha_ordinal),
        f(s.overlap.value),
    ]


def _binary_cells(s: TableAgreement, f: Any) -> list[str]:
    b = s.binary
    ci = f"[{f(b.cohen.ci_low)}, {f(b.cohen.ci_high)}]"
    return [f(b.p_o), f(b.cohen.value), f(b.cohen.se), ci, f(b.pooled.value), f(b.ac1.value)]


def _pooled_lines(pooled: dict[str, Pooled], f: Any, *, bootstrap: bool) -> list[str]:
    """The three readings of 'pooled over topics', named, with bootstrap CIs when there are some."""

    def cell(p: Pooled, reading: str, value: float | None) -> str:
        if value is None:
            return "-"
        text = f(value)
        if bootstrap and reading in p.ci:
            lo, hi = p.ci[reading]
            text += f" [{f(lo)}, {f(hi)}]"
        return text

    rows = [["statistic", "concatenated", "De Vries 2008", "mean per topic", "topics"]]
    for stat, p in pooled.items():
        rows.append(
            [
                STAT_NAMES.get(stat, stat),
                cell(p, "concatenated", p.concatenated),
                cell(p, "de_vries", p.de_vries),
                cell(p, "mean_per_topic", p.mean_per_topic),
                str(p.topics),
            ]
        )
    intro = (
        "  pooled over topics: concatenated = one table summed over topics; De Vries 2008 = "
        "(mean P_o - mean P_e)/(1 - mean P_e); mean per topic = over the topics where defined"
    )
    return [intro, *("  " + x for x in text_table(rows, "lrrrr"))]


def main(argv: list[str], stdout: TextOut, stderr: TextOut, prog: str = "manage.py agreement") -> int:
    """Entry point without Django (used by manage.py's fast path)."""
    return run_command(
        argv,
        stdout,
        stderr,
        prog=prog,
        description=AGREEMENT_HELP,
        add_arguments=add_agreement_arguments,
        run=run_agreement,
    )
