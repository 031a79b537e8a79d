"""``manage.py compare``: significance tests, Tukey HSD and rank correlations between runs, on files."""

from __future__ import annotations

import csv
import io
import json
import math
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from engine.evaluate import Judgments
from engine.measures.base import EvalOptions, Measure
from engine.names import MeasureError, parse_measures
from engine.significance import (
    CORRECTIONS,
    TESTS,
    CompareSettings,
    Comparison,
    ComparisonError,
    compare_runs,
    pair_count,
)
from trec import FormatError, read_qrels, read_run
from trec.cli import text_table
from trec.progress import Progress
from trec.runs import run_name_from_path

CSV_COLUMNS = (
    "section",
    "a",
    "b",
    "topic",
    "test",
    "estimate",
    "ci_low",
    "ci_high",
    "statistic",
    "p",
    "p_adjusted",
    "significant",
)


class Command(BaseCommand):
    help = (
        "Compare runs on one measure: paired t, Wilcoxon, sign and randomization tests with a bootstrap CI "
        "and a multiple-comparison correction, Tukey HSD, and Kendall tau-b / tau_AP between orderings. "
        "Example: manage.py compare -m map --baseline bm25 qrels.txt runs/*.run"
    )
    # Pure file work: no system checks, no database.
    requires_system_checks = ()
    requires_migrations_checks = False

    def add_arguments(self, parser: ArgumentParser) -> None:
        add = parser.add_argument
        add("qrels", help="qrels file; gzip is fine")
        add("runs", nargs="+", help="two or more run files; a run is named after its file")
        add("-m", dest="measure", required=True, help="one measure: map, P.10, ndcg_cut.10, nDCG@10 ...")
        add("--baseline", help="compare every run with this one (name or path); default: all pairs")
        add("--test", choices=[*TESTS, "all"], default="all", help="paired test (default all)")
        add(
            "--correction", choices=CORRECTIONS, default="holm", help="over the compared pairs (default holm)"
        )
        add(
            "--alpha", type=float, default=0.05, help="significance level (default 0.05); the CI is 1 - alpha"
        )
        add("--permutations", type=int, default=10_000, help="randomization and randomised Tukey trials")
        add("--bootstrap", type=int, default=10_000, help="bootstrap resamples for the CI (default 10000)")
        add("--seed", type=int, default=0, help="seed of every random procedure (default 0)")
        add("--compare-measure", metavar="M2", help="Kendall tau-b and tau_AP: ordering by -m vs by M2")
        add(
            "--compare-qrels",
            metavar="QRELS2",
            help="Kendall tau-b and tau_AP: ordering under QRELS vs QRELS2",
        )
        add("-l", dest="level", type=int, default=1, help="relevance level: rel >= LEVEL (default 1)")
        add("-J", dest="judged_only", action="store_true", help="judged documents only (condensed lists)")
        add("-c", dest="complete", action="store_true", help="average over every qrels topic, missing = 0")
        add("--format", choices=["text", "json", "csv"], default="text", dest="fmt")
        add("--per-topic", action="store_true", help="print the topics x runs score matrix too")

    def handle(self, *args: Any, **opts: Any) -> None:
        measure = _one_measure(opts["measure"])
        other_measure = _one_measure(opts["compare_measure"]) if opts["compare_measure"] else None
        judgments = Judgments(_read(read_qrels, opts["qrels"]))
        other_judgments = (
            Judgments(_read(read_qrels, opts["compare_qrels"])) if opts["compare_qrels"] else None
        )
        runs = [_read(read_run, path) for path in opts["runs"]]
        baseline = opts["baseline"]
        by_path = {str(p): run_name_from_path(p) for p in opts["runs"]}
        settings = CompareSettings(
            baseline=by_path.get(baseline, baseline),
            tests=TESTS if opts["test"] == "all" else (opts["test"],),
            correction=opts["correction"],
            alpha=opts["alpha"],
            permutations=opts["permutations"],
            resamples=opts["bootstrap"],
            seed=opts["seed"],
        )
        options = EvalOptions(level=opts["level"], judged_only=opts["judged_only"], complete=opts["complete"])
        total = pair_count(len(runs), settings)
        try:
            # many runs x 10,000 permutations take minutes: show progress on a terminal
            with Progress(
                total, "comparing", stream=self.stderr, enabled=None if total > 20 else False
            ) as bar:
                comparison = compare_runs(
                    judgments,
                    runs,
                    measure,
                    options,
                    settings,
                    other_measure=other_measure,
                    other_judgments=other_judgments,
                    on_pair=bar.advance,
                )
        except ComparisonError as exc:
            raise CommandError(str(exc), returncode=2) from exc
        dropped = comparison.matrix.dropped
        if dropped:
            shown = "; ".join(f"{t} (no results from {', '.join(r)})" for t, r in list(dropped.items())[:10])
            self.stderr.write(
                f"compare: warning: {len(dropped)} topic(s) left out, not evaluated for every run: {shown}"
                + ("; ..." if len(dropped) > 10 else "")
            )
        info = {
            "qrels": str(opts["qrels"]),
            "level": options.level,
            "judged_only": options.judged_only,
            "complete": options.complete,
        }
        per_topic = opts["per_topic"]
        if opts["fmt"] == "json":
            self.stdout.write(json.dumps(as_dict(comparison, info, per_topic=per_topic), indent=2))
        elif opts["fmt"] == "csv":
            buffer = io.StringIO()
            writer = csv.writer(buffer, lineterminator="\n")
            writer.writerow(CSV_COLUMNS)
            writer.writerows(csv_rows(comparison, per_topic=per_topic))
            self.stdout.write(buffer.getvalue(), ending="")
        else:
            self.stdout.write("\n".join(text_lines(comparison, info, per_topic=per_topic)))


def _one_measure(spec: str) -> Measure:
    try:
        measures = parse_measures([spec])
    except MeasureError as exc:
        raise CommandError(str(exc), returncode=2) from exc
    if len(measures) != 1:
        names = ", ".join(m.measure_name() for m in measures)
        raise CommandError(
            f"'{spec}' names {len(measures)} measures ({names}): compare one at a time", returncode=2
        )
    return measures[0]


def _read(reader: Any, path: str) -> Any:
    try:
        return reader(path)
    except FormatError as exc:
        raise CommandError(str(exc), returncode=2) from exc
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror or exc}", returncode=2) from exc


# --------------------------------------------------------------------------- rendering


def _num(value: float) -> float | None:
    return value if math.isfinite(value) else None


def as_dict(c: Comparison, info: dict[str, Any], *, per_topic: bool) -> dict[str, Any]:
    """The whole comparison as JSON-ready data; non-finite numbers become null."""
    m, s = c.matrix, c.settings
    out: dict[str, Any] = {
        "measure": m.measure,
        **info,
        "settings": {
            "baseline": s.baseline,
            "tests": list(s.tests),
            "correction": s.correction,
            "alpha": s.alpha,
            "permutations": s.permutations,
            "bootstrap": s.resamples,
            "seed": s.seed,
        },
        "topics": list(m.topics),
        "dropped": {t: list(r) for t, r in m.dropped.items()},
        "runs": [{"run": r, "mean": _num(float(v))} for r, v in zip(m.runs, m.means, strict=True)],
        "pairs": [
            {
                "a": p.a,
                "b": p.b,
                "diff": _num(p.diff),
                "ci": [_num(p.ci[0]), _num(p.ci[1])],
                "tests": {
                    t: {
                        "statistic": _num(r.statistic),
                        "p": _num(r.p),
                        "p_adjusted": _num(p.adjusted[t]),
                        "significant": p.significant[t],
                        "n": r.n,
                    }
                    for t, r in p.tests.items()
                },
            }
            for p in c.pairs
        ],
        "tukey": [
            {
                "method": t.method,
                "mse": _num(t.mse),
                "df": t.df,
                "trials": t.trials,
                "pairs": [
                    {
                        "a": q.a,
                        "b": q.b,
                        "diff": _num(q.diff),
                        "statistic": _num(q.statistic),
                        "p": _num(q.p),
                        "significant": q.significant,
                    }
                    for q in t.pairs
                ],
                "groups": [list(g) for g in t.groups],
            }
            for t in c.tukey
        ],
        "correlations": [
            {
                "truth": r.truth,
                "other": r.other,
                "runs": r.runs,
                "tau_b": _num(r.tau_b),
                "tau_ap": _num(r.tau_ap),
            }
            for r in c.correlations
        ],
    }
    if per_topic:
        out["per_topic"] = {
            run: {t: float(v) for t, v in zip(m.topics, row, strict=True)}
            for run, row in zip(m.runs, m.scores, strict=True)
        }
    return out


def csv_rows(c: Comparison, *, per_topic: bool) -> list[list[Any]]:
    """Tidy rows under :data:`CSV_COLUMNS`; ``section`` says what a row is."""

    def row(section: str, **cells: Any) -> list[Any]:
        return [section] + [_cell(cells.get(col)) for col in CSV_COLUMNS[1:]]

    m = c.matrix
    rows = [row("mean", a=r, estimate=float(v)) for r, v in zip(m.runs, m.means, strict=True)]
    rows += [row("dropped", a=r, topic=t) for t, runs in m.dropped.items() for r in runs]
    for p in c.pairs:
        lo, hi = p.ci
        for t, res in p.tests.items():
            rows.append(
                row(
                    "pair",
                    a=p.a,
                    b=p.b,
                    test=t,
                    estimate=p.diff,
                    ci_low=lo,
                    ci_high=hi,
                    statistic=res.statistic,
                    p=res.p,
                    p_adjusted=p.adjusted[t],
                    significant=p.significant[t],
                )
            )
    for tk in c.tukey:
        test = "tukey_anova" if tk.method == "two-way ANOVA" else "tukey_randomised"
        rows += [
            row(
                "tukey",
                a=q.a,
                b=q.b,
                test=test,
                estimate=q.diff,
                statistic=q.statistic,
                p=q.p,
                significant=q.significant,
            )
            for q in tk.pairs
        ]
    for r in c.correlations:
        rows.append(row("correlation", a=r.truth, b=r.other, test="tau_b", estimate=r.tau_b))
        rows.append(row("correlation", a=r.truth, b=r.other, test="tau_ap", estimate=r.tau_ap))
    if per_topic:
        for run, values in zip(m.runs, m.scores, strict=True):
            rows += [
                row("score", a=run, topic=t, estimate=float(v)) for t, v in zip(m.topics, values, strict=True)
            ]
    return rows


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return value


def _p(value: float) -> str:
    if math.isnan(value):
        return "nan"
    return f"{value:.4f}" if value == 0 or value >= 5e-5 else f"{value:.0e}"


def _f(value: float) -> str:
    return "nan" if math.isnan(value) else str(value) if math.isinf(value) else f"{value:.4f}"



def text_lines(c: Comparison, info: dict[str, Any], *, per_topic: bool) -> list[str]:
    m, s = c.matrix, c.settings
    lines = [f"measure {m.measure}: {len(m.runs)} runs over {len(m.topics)} topics (qrels {info['qrels']})"]
    if m.dropped:
        shown = ", ".join(list(m.dropped)[:10]) + (", ..." if len(m.dropped) > 10 else "")
        lines.append(f"{len(m.dropped)} topic(s) left out, not evaluated for every run: {shown}")
    order = sorted(range(len(m.runs)), key=lambda i: -m.means[i])
    lines += [
        "",
        *text_table(
            [["rank", "run", "mean"]] + [[str(n), m.runs[i], _f(m.means[i])] for n, i in enumerate(order, 1)],
            "rlr",
        ),
    ]

    against = f" against baseline {s.baseline}" if s.baseline else ""
    corrected = "" if s.correction == "none" else f", p_adj by {s.correction} over {len(c.pairs)} pair(s)"
    lines += [
        "",
        f"paired tests, diff = mean(a - b){against}{corrected}; * = p_adj < {s.alpha:g}",
        f"CI: bootstrap percentile {100 * (1 - s.alpha):g}% ({s.resamples} resamples); randomization: "
        f"{s.permutations} sign flips; sign test: ties dropped; seed {s.seed}",
    ]
    rows = [["a", "b", "diff", "CI", "test", "statistic", "p", "p_adj", ""]]
    for p in c.pairs:
        for n, (t, r) in enumerate(p.tests.items()):
            head = [p.a, p.b, _f(p.diff), f"[{_f(p.ci[0])}, {_f(p.ci[1])}]"] if n == 0 else ["", "", "", ""]
            rows.append(
                [*head, t, _f(r.statistic), _p(r.p), _p(p.adjusted[t]), "*" if p.significant[t] else ""]
            )
    lines += text_table(rows, "llrrlrrrl")

    anova, rand = c.tukey
    lines += [
        "",
        f"Tukey HSD over all pairs (family-wise; * = p < {s.alpha:g}): two-way ANOVA with topics as blocks",
        f"(MSE {anova.mse:.6g}, df {anova.df}) and Sakai's randomised Tukey HSD ({rand.trials} trials)",
    ]
    rows = [["a", "b", "diff", "q", "p_anova", "", "p_rand", ""]]
    for qa, qr in zip(anova.pairs, rand.pairs, strict=True):
        rows.append(
            [
                qa.a,
                qa.b,
                _f(qa.diff),
                _f(qa.statistic),
                _p(qa.p),
                "*" if qa.significant else "",
                _p(qr.p),
                "*" if qr.significant else "",
            ]
        )
    lines += text_table(rows, "llrrrlrl")
    lines.append("groups (the runs of a group do not differ significantly):")
    for tk in c.tukey:
        lines.append(f"  {tk.method + ':':<15}" + "  ".join("[" + " ".join(g) + "]" for g in tk.groups))

    if c.correlations:
        lines += [
            "",
            "rank correlation of the runs ordered by mean (the first ordering is the truth for tau_AP):",
        ]
        lines += [
            f"  {r.truth} vs {r.other}: Kendall tau-b {_f(r.tau_b)}, tau_AP {_f(r.tau_ap)} ({r.runs} runs)"
            for r in c.correlations
        ]
    if per_topic:
        rows = [["topic", *m.runs]] + [[t, *map(_f, m.scores[:, j])] for j, t in enumerate(m.topics)]
        lines += ["", f"per-topic {m.measure}:", *text_table(rows, "l" + "r" * len(m.runs))]
    return lines
