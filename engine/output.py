"""Rendering evaluation results as trec_eval text, JSON or CSV, and comparisons of runs as a text
table, CSV or JSON (``manage.py compare``'s formats, which the significance page's downloads reuse)."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from engine.evaluate import RunResult
from trec.cli import text_table
from trec.csvout import SafeWriter
from trec.progress import TextOut

if TYPE_CHECKING:  # scipy (behind significance) costs ~1 s to import: evaluate never needs it
    from engine.effects import EffectSize
    from engine.significance import Comparison, RankCorrelation

NAN_TEXT = "-nan"  # what trec_eval's printf("%6.4f") shows for its 0/0 (glibc on x86-64: sign bit set)


def _value(result: RunResult, name: str, value: float, digits: int, trec_eval_layout: bool = False) -> str:
    """One value as trec_eval prints it: runid's tag, integers as ``%ld``, the rest ``%6.4f``.

    Under ``-Z`` every number is a z-score and prints ``%6.4f``, integers too (meas_print_*.c).
    NaN prints ``-nan`` (padded to 6 in the trec_eval layout), as glibc's printf does for 0/0.
    """
    if name == "runid":
        return result.runid or result.run
    if math.isnan(value):
        return f"{NAN_TEXT:>6}" if trec_eval_layout else NAN_TEXT
    if name in result.integer and not result.zscore:
        return str(round(value))
    return f"{value:.{digits}f}"


def trec_lines(
    result: RunResult,
    *,
    per_topic: bool,
    digits: int,
    with_run: bool,
    trec_eval_layout: bool = False,
    summary: bool = True,
) -> Iterable[str]:
    """``measure<TAB>topic<TAB>value`` lines: per-topic lines first (with -q), then 'all' (unless -n).

    ``trec_eval_layout`` pads the measure column to 22 characters, as trec_eval prints it.
    Per-topic strings (relstring) print quoted and have no 'all' line; under ``-Z`` every name
    but runid and relstring gets a ``Z`` in front, as in trec_eval.
    """
    prefix = f"{result.run}\t" if with_run else ""

    def line(name: str, topic: str, text: str, z: bool = False) -> str:
        label = f"{name:<22}" if trec_eval_layout else name
        return f"{prefix}{'Z' if z else ''}{label}\t{topic}\t{text}"

    z = result.zscore
    if per_topic:
        for i, topic in enumerate(result.topics):
            for name in result.names:
                if name in result.text:
                    yield line(name, topic, f"'{result.text[name][i]}'")
                    continue
                if name in result.summary_only:
                    continue
                value = float(result.per_topic[name][i])
                yield line(name, topic, _value(result, name, value, digits, trec_eval_layout), z)
    if not summary:
        return
    for name in result.names:
        if name in result.text:
            continue
        text = _value(result, name, result.summary[name], digits, trec_eval_layout)
        yield line(name, "all", text, z and name != "runid")


def result_dict(
    result: RunResult, *, per_topic: bool, digits: int | None = None, summary: bool = True
) -> dict[str, Any]:
    """One run's results as JSON-ready data: numbers (null for NaN), runid's tag, relstring's strings."""

    def num(name: str, v: float) -> Any:
        if name == "runid":
            return result.runid or result.run
        if not math.isfinite(v):
            return None
        if name in result.integer and not result.zscore:
            return round(v)
        return round(v, digits) if digits is not None else v

    out: dict[str, Any] = {"run": result.run, "runid": result.runid or result.run}
    if result.zscore:
        out["zscores"] = True
    if summary:
        out["all"] = {n: num(n, result.summary[n]) for n in result.names if n not in result.text}
    out["missing_topics"] = result.missing_topics
    if per_topic:
        out["per_topic"] = {
            t: {
                n: result.text[n][i] if n in result.text else num(n, float(result.per_topic[n][i]))
                for n in result.names
                if n not in result.summary_only or n in result.text
            }
            for i, t in enumerate(result.topics)
        }
    return out


class Writer:
    """Streams results run by run so that memory stays bounded with many runs."""

    def __init__(
        self,
        stream: TextOut,
        fmt: str,
        *,
        per_topic: bool,
        digits: int,
        with_run: bool,
        trec_eval_layout: bool,
        summary: bool = True,
    ) -> None:
        self.stream = stream
        self.summary = summary
        self.fmt = fmt
        self.per_topic = per_topic
        self.digits = digits
        self.with_run = with_run
        self.trec_eval_layout = trec_eval_layout
        self._json: list[dict[str, Any]] = []
        self._csv: SafeWriter | None = None

    def write(self, result: RunResult) -> None:
        if self.fmt == "trec":
            for line in trec_lines(
                result,
                per_topic=self.per_topic,
                digits=self.digits,
                with_run=self.with_run,
                trec_eval_layout=self.trec_eval_layout,
                summary=self.summary,
            ):
                self.stream.write(line + "\n")
        elif self.fmt == "json":
            self._json.append(result_dict(result, per_topic=self.per_topic, summary=self.summary))
        else:
            if self._csv is None:
                self._csv = SafeWriter(self.stream)
                self._csv.writerow(["run", "measure", "topic", "value"])
            lines = trec_lines(
                result, per_topic=self.per_topic, digits=self.digits, with_run=False, summary=self.summary
            )
            for line in lines:
                name, topic, value = line.split("\t", 2)
                if name in result.text:  # relstring: the string itself, without trec_eval's quotes
                    value = value[1:-1]
                self._csv.writerow([result.run, name, topic, value])

    def close(self, meta: dict[str, Any]) -> None:
        if self.fmt == "json":
            json.dump({**meta, "runs": self._json}, self.stream, indent=1, allow_nan=False)
            self.stream.write("\n")


# ------------------------------------------------------------------------------ comparisons

COMPARISON_CSV_COLUMNS = (
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


def comparison_dict(
    c: Comparison, info: dict[str, Any], *, per_topic: bool, keep_infinite: bool = False
) -> dict[str, Any]:
    """The whole comparison as JSON-ready data; non-finite numbers become null.

    ``keep_infinite`` keeps ±inf (a t statistic of differences with no variance) for
    :func:`comparison_csv`, which prints them; JSON has no infinity, so the JSON output nulls them.
    """

    def num(value: float) -> float | None:
        return value if math.isfinite(value) or (keep_infinite and not math.isnan(value)) else None

    from engine.significance import conventions

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
            "alternative": s.alternative,
            "zero_method": s.zero_method,
            "ci": s.ci_method,
        },
        "conventions": conventions(s),
        "topics": list(m.topics),
        "dropped": {t: list(r) for t, r in m.dropped.items()},
        "runs": [{"run": r, "mean": num(float(v))} for r, v in zip(m.runs, m.means, strict=True)],
        "pairs": [
            {
                "a": p.a,
                "b": p.b,
                "diff": num(p.diff),
                "ci": [num(p.ci[0]), num(p.ci[1])],
                "tests": {
                    t: {
                        "statistic": num(r.statistic),
                        "p": num(r.p),
                        "p_adjusted": num(p.adjusted[t]),
                        "significant": p.significant[t],
                        "n": r.n,
                    }
                    for t, r in p.tests.items()
                },
                **({"effect": _effect_dict(p.effect, num)} if p.effect is not None else {}),
            }
            for p in c.pairs
        ],
        "anova": [
            {"source": r.source, "ss": num(r.ss), "df": r.df, "ms": num(r.ms), "f": num(r.f), "p": num(r.p)}
            for r in c.anova
        ],
        "friedman": None
        if c.friedman is None
        else {
            "chi2": num(c.friedman.chi2),
            "df": c.friedman.df,
            "p": num(c.friedman.p),
            "kendall_w": num(c.friedman.kendall_w),
            "mean_ranks": {r: num(v) for r, v in zip(c.friedman.runs, c.friedman.mean_ranks, strict=True)},
            "nemenyi": [
                {
                    "a": q.a,
                    "b": q.b,
                    "rank_diff": num(q.rank_diff),
                    "statistic": num(q.statistic),
                    "p": num(q.p),
                    "significant": q.significant,
                }
                for q in c.friedman.pairs
            ],
        },
        "tukey": [
            {
                "method": t.method,
                "mse": num(t.mse),
                "df": t.df,
                "trials": t.trials,
                **({"q_crit": num(t.q_crit), "confidence": t.confidence} if t.simultaneous else {}),
                "pairs": [
                    {
                        "a": q.a,
                        "b": q.b,
                        "diff": num(q.diff),
                        **({"ci": [num(q.ci[0]), num(q.ci[1])]} if t.simultaneous else {}),
                        "statistic": num(q.statistic),
                        "p": num(q.p),
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
                "tau_b": num(r.tau_b),
                "tau_ap": num(r.tau_ap),
                **_ranking_dict(r, num),
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


def _ranking_dict(r: RankCorrelation, num: Any) -> dict[str, Any]:
    """The intervals of τ-b and τ_AP, Spearman, τ_AP,b, RBO and swap rates of one correlation
    (engine.ranking_bootstrap, engine.ranking_agreement)."""
    out: dict[str, Any] = {}
    if r.ci is not None:
        out["tau_b_ci"] = [num(r.ci.tau_b[0]), num(r.ci.tau_b[1])]
        out["tau_ap_ci"] = [num(r.ci.tau_ap[0]), num(r.ci.tau_ap[1])]
        out["bootstrap"] = {
            "method": "percentile",
            "resamples": r.ci.resamples,
            "confidence": r.ci.confidence,
            "paired": r.ci.paired,
            "undefined": r.ci.undefined,
        }
    out |= {"spearman": num(r.spearman), "tau_ap_b": num(r.tau_ap_b)}
    if r.rbo is not None:
        out["rbo"] = {
            "p": r.rbo.p,
            "depth": r.rbo.depth,
            "min": num(r.rbo.minimum),
            "residual": num(r.rbo.residual),
            "ext": num(r.rbo.extrapolated),
        }
    if r.swaps is not None:
        out["swaps"] = {
            "pairs": r.swaps.pairs,
            "swapped": r.swaps.swapped,
            "half_tied": r.swaps.half_tied,
            "min_rate": num(r.swaps.minimum),
            "mean_rate": num(r.swaps.mean),
        }
    return out


def _effect_dict(e: EffectSize, num: Any) -> dict[str, Any]:
    return {
        "n": e.n,
        "mean": num(e.mean),
        "mean_ci": [num(e.mean_ci[0]), num(e.mean_ci[1])],
        "d_z": num(e.d_z),
        "d_z_ci": [num(e.d_z_ci[0]), num(e.d_z_ci[1])],
        "d_av": num(e.d_av),
        "d_av_ci": [num(e.d_av_ci[0]), num(e.d_av_ci[1])],
        "g_av": num(e.g_av),
        "g_av_ci": [num(e.g_av_ci[0]), num(e.g_av_ci[1])],
        "sd_a": num(e.sd_a),
        "sd_b": num(e.sd_b),
        "superiority": num(e.superiority),
        "superiority_ci": [num(e.superiority_ci[0]), num(e.superiority_ci[1])],
        "wins": e.wins,
        "ties": e.ties,
        "losses": e.losses,
    }


def comparison_json(c: Comparison, info: dict[str, Any], *, per_topic: bool) -> str:
    return json.dumps(comparison_dict(c, info, per_topic=per_topic), indent=2) + "\n"


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return value


def comparison_csv_rows(data: dict[str, Any]) -> list[list[Any]]:
    """Tidy rows under :data:`COMPARISON_CSV_COLUMNS` from :func:`comparison_dict`'s shape (stored
    or fresh); ``section`` says what a row is: mean, dropped, pair, effect, anova, friedman, tukey,
    correlation, score."""

    def row(section: str, **cells: Any) -> list[Any]:
        return [section] + [_cell(cells.get(col)) for col in COMPARISON_CSV_COLUMNS[1:]]

    rows = [row("mean", a=r["run"], estimate=r["mean"]) for r in data["runs"]]
    rows += [row("dropped", a=r, topic=t) for t, runs in data["dropped"].items() for r in runs]
    for p in data["pairs"]:
        lo, hi = p["ci"]
        for t, res in p["tests"].items():
            rows.append(
                row(
                    "pair",
                    a=p["a"],
                    b=p["b"],
                    test=t,
                    estimate=p["diff"],
                    ci_low=lo,
                    ci_high=hi,
                    statistic=res["statistic"],
                    p=res["p"],
                    p_adjusted=res["p_adjusted"],
                    significant=res["significant"],
                )
            )
        effect = p.get("effect")
        if effect:
            named = ("mean_t", "mean"), ("d_z", "d_z"), ("d_av", "d_av"), ("g_av", "g_av")
            for name, key in (*named, ("superiority", "superiority")):
                if key not in effect:  # stored before d_av and g_av were computed
                    continue
                lo, hi = effect[f"{key}_ci"]
                rows.append(
                    row("effect", a=p["a"], b=p["b"], test=name, estimate=effect[key], ci_low=lo, ci_high=hi)
                )
            for name in ("wins", "ties", "losses"):
                rows.append(row("effect", a=p["a"], b=p["b"], test=name, estimate=effect[name]))
    for r in data.get("anova", []):
        # the source (systems, topics, residual, total) in the test column: a and b name runs only
        rows.append(row("anova", test=r["source"], estimate=r["ss"], statistic=r["f"], p=r["p"]))
    friedman = data.get("friedman")
    if friedman:
        rows.append(row("friedman", test="friedman", statistic=friedman["chi2"], p=friedman["p"]))
        if "kendall_w" in friedman:
            rows.append(row("friedman", test="kendall_w", estimate=friedman["kendall_w"]))
        rows += [
            row(
                "friedman",
                a=q["a"],
                b=q["b"],
                test="nemenyi",
                estimate=q["rank_diff"],
                statistic=q["statistic"],
                p=q["p"],
                significant=q["significant"],
            )
            for q in friedman["nemenyi"]
        ]
    for tk in data.get("tukey", []):
        test = "tukey_anova" if tk["method"] == "two-way ANOVA" else "tukey_randomised"
        rows += [
            row(
                "tukey",
                a=q["a"],
                b=q["b"],
                test=test,
                estimate=q["diff"],
                ci_low=q.get("ci", [None, None])[0],
                ci_high=q.get("ci", [None, None])[1],
                statistic=q["statistic"],
                p=q["p"],
                significant=q["significant"],
            )
            for q in tk["pairs"]
        ]
    for r in data.get("correlations", []):
        for name in ("tau_b", "tau_ap"):
            lo, hi = r.get(f"{name}_ci", [None, None])
            rows.append(
                row(
                    "correlation",
                    a=r["truth"],
                    b=r["other"],
                    test=name,
                    estimate=r[name],
                    ci_low=lo,
                    ci_high=hi,
                )
            )
        for name in ("spearman", "tau_ap_b"):
            if name in r:
                rows.append(row("correlation", a=r["truth"], b=r["other"], test=name, estimate=r[name]))
        if "rbo" in r:
            rb = r["rbo"]
            rows.append(
                row(
                    "correlation",
                    a=r["truth"],
                    b=r["other"],
                    test=f"rbo_p{rb['p']:g}",
                    estimate=rb["ext"],
                    ci_low=rb["min"],
                    ci_high=None
                    if rb["min"] is None or rb["residual"] is None
                    else rb["min"] + rb["residual"],
                )
            )
        if "swaps" in r:
            for name in ("min_rate", "mean_rate"):
                test = f"swap_{name}"
                rows.append(
                    row("correlation", a=r["truth"], b=r["other"], test=test, estimate=r["swaps"][name])
                )
    for run, values in data.get("per_topic", {}).items():
        rows += [row("score", a=run, topic=t, estimate=v) for t, v in values.items()]
    return rows


def comparison_csv(data: dict[str, Any]) -> str:
    """The CSV text of :func:`comparison_dict`'s shape: the header, then :func:`comparison_csv_rows`;
    run tags and topics that start like a formula are quoted (:mod:`trec.csvout`)."""
    buffer = io.StringIO()
    writer = SafeWriter(buffer)
    writer.writerow(COMPARISON_CSV_COLUMNS)
    writer.writerows(comparison_csv_rows(data))
    return buffer.getvalue()


def _p(value: float) -> str:
    if math.isnan(value):
        return "nan"
    return f"{value:.4f}" if value == 0 or value >= 5e-5 else f"{value:.0e}"


def _f(value: float) -> str:
    return "nan" if math.isnan(value) else str(value) if math.isinf(value) else f"{value:.4f}"


def comparison_text_lines(c: Comparison, info: dict[str, Any], *, per_topic: bool) -> list[str]:
    """The comparison as aligned text tables: means, paired tests, Tukey HSD, correlations."""
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
        f"CI: bootstrap {'BCa' if s.ci_method == 'bca' else 'percentile'} {100 * (1 - s.alpha):g}% "
        f"({s.resamples} resamples); randomization: "
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

    if any(p.effect is not None for p in c.pairs):
        effects = [(p, p.effect) for p in c.pairs if p.effect is not None]
        lines += [
            "",
            f"effect sizes ({100 * (1 - s.alpha):g}% CIs): W/T/L = topics a wins/ties/loses; "
            "mean difference (t CI);",
            "  P(a > b) = (wins + ties/2)/topics (Wilson CI)",
        ]
        rows = [["a", "b", "W/T/L", "mean", "CI", "P(a>b)", "CI"]]
        rows += [
            [
                p.a,
                p.b,
                f"{e.wins}/{e.ties}/{e.losses}",
                _f(e.mean),
                _interval(e.mean_ci),
                _f(e.superiority),
                _interval(e.superiority_ci),
            ]
            for p, e in effects
        ]
        lines += text_table(rows, "llrrrrr")
        lines += [
            "",
            f"standardized mean differences ({100 * (1 - s.alpha):g}% CIs; — = undefined, no spread):",
            "  d_z = mean(d)/sd(d) (noncentral t CI); d_av = mean(d)/((sd_a + sd_b)/2) (Algina-Keselman "
            "noncentral t CI);",
            "  Hedges' g_av = d_av x J(topics - 1), the small-sample bias correction (CI: d_av's x J)",
        ]
        rows = [["a", "b", "d_z", "CI", "d_av", "CI", "Hedges' g_av", "CI"]]
        rows += [
            [
                p.a,
                p.b,
                _defined(e.d_z),
                _defined_interval(e.d_z_ci),
                _defined(e.d_av),
                _defined_interval(e.d_av_ci),
                _defined(e.g_av),
                _defined_interval(e.g_av_ci),
            ]
            for p, e in effects
        ]
        lines += text_table(rows, "llrrrrrr")

    if c.anova:
        lines += ["", "two-way ANOVA (systems x topics, topics as blocks; its residual MS is Tukey's MSE):"]
        rows = [["source", "SS", "df", "MS", "F", "p"]]
        rows += [
            [r.source, f"{r.ss:.6g}", str(r.df), _g(r.ms), _g(r.f), "" if math.isnan(r.p) else _p(r.p)]
            for r in c.anova
        ]
        lines += text_table(rows, "lrrrrr")

    if c.friedman is not None:
        fr = c.friedman
        lines += [
            "",
            "Friedman's test over the runs' per-topic ranks (1 = best): "
            f"chi2 {fr.chi2:.4f}, df {fr.df}, p {_p(fr.p)}",
            f"  Kendall's W {_defined(fr.kendall_w)} = chi2/(topics x (runs - 1)), how alike the topics "
            "rank the runs (0: as at random, 1: all alike)",
            "  mean ranks: " + ", ".join(f"{r} {v:.3f}" for r, v in zip(fr.runs, fr.mean_ranks, strict=True)),
            f"Nemenyi post-hoc (family-wise; * = p < {s.alpha:g}):",
        ]
        rows = [["a", "b", "rank diff", "z", "p", ""]]
        rows += [
            [q.a, q.b, _f(q.rank_diff), _f(q.statistic), _p(q.p), "*" if q.significant else ""]
            for q in fr.pairs
        ]
        lines += text_table(rows, "llrrrl")

    anova, rand = c.tukey
    lines += [
        "",
        f"Tukey HSD over all pairs (family-wise; * = p < {s.alpha:g}): two-way ANOVA with topics as blocks",
        f"(MSE {anova.mse:.6g}, df {anova.df}) and Sakai's randomised Tukey HSD ({rand.trials} trials);",
        f"simultaneous {100 * anova.confidence:g}% CIs (all cover together): "
        f"diff +- q_crit x sqrt(MSE/topics), q_crit {_f(anova.q_crit)}",
    ]
    rows = [["a", "b", "diff", "simultaneous CI", "q", "p_anova", "", "p_rand", ""]]
    for qa, qr in zip(anova.pairs, rand.pairs, strict=True):
        rows.append(
            [
                qa.a,
                qa.b,
                _f(qa.diff),
                _defined_interval(qa.ci),
                _f(qa.statistic),
                _p(qa.p),
                "*" if qa.significant else "",
                _p(qr.p),
                "*" if qr.significant else "",
            ]
        )
    lines += text_table(rows, "llrrrrlrl")
    lines.append("groups (the runs of a group do not differ significantly):")
    for tk in c.tukey:
        lines.append(f"  {tk.method + ':':<15}" + "  ".join("[" + " ".join(g) + "]" for g in tk.groups))

    if c.correlations:
        lines += [
            "",
            "rank correlation of the runs ordered by mean (the first ordering is the truth for tau_AP):",
        ]
        for rc in c.correlations:
            lines.append(
                f"  {rc.truth} vs {rc.other}: Kendall tau-b {_f(rc.tau_b)}, tau_AP {_f(rc.tau_ap)}, "
                f"tau_AP,b {_f(rc.tau_ap_b)}, Spearman rho {_f(rc.spearman)} ({rc.runs} runs)"
            )
            if rc.ci is not None:
                pairing = "topics paired" if rc.ci.paired else "each ordering on its own topics"
                lines.append(
                    f"    bootstrap {100 * rc.ci.confidence:g}% CIs over topics (percentile, "
                    f"{rc.ci.resamples} resamples, {pairing}, seed {s.seed}): "
                    f"tau-b {_defined_interval(rc.ci.tau_b)}, "
                    f"tau_AP {_defined_interval(rc.ci.tau_ap)}"
                    + (f" ({rc.ci.undefined} resamples without a tau-b left out)" if rc.ci.undefined else "")
                )
            if rc.rbo is not None:
                lines.append(
                    f"    RBO (p = {rc.rbo.p:g}, ties broken by run name) "
                    f"{_f(rc.rbo.extrapolated)} extrapolated, "
                    f"in [{_f(rc.rbo.minimum)}, {_f(rc.rbo.minimum + rc.rbo.residual)}] (min + residual "
                    f"{_f(rc.rbo.residual)})"
                )
            if rc.swaps is not None:
                lines.append(
                    f"    swaps: {rc.swaps.swapped} of {rc.swaps.pairs} pairs ordered oppositely, "
                    f"{rc.swaps.half_tied} tied in one ranking only: swap rate min {_f(rc.swaps.minimum)}, "
                    f"mean {_f(rc.swaps.mean)} (a half-tied pair counts half)"
                )
    if per_topic:
        rows = [["topic", *m.runs]] + [[t, *map(_f, m.scores[:, j])] for j, t in enumerate(m.topics)]
        lines += ["", f"per-topic {m.measure}:", *text_table(rows, "l" + "r" * len(m.runs))]
    from engine.significance import conventions

    lines += ["", "conventions:", *(f"  - {text}" for text in conventions(s))]
    return lines


UNDEFINED = "—"  # an effect size without a value (d_z of differences with no spread): docs/significance.md


def _defined(value: float) -> str:
    return UNDEFINED if math.isnan(value) else _f(value)


def _interval(ci: tuple[float, float]) -> str:
    return f"[{_f(ci[0])}, {_f(ci[1])}]"


def _defined_interval(ci: tuple[float, float]) -> str:
    return UNDEFINED if math.isnan(ci[0]) or math.isnan(ci[1]) else _interval(ci)


def _g(value: float) -> str:
    return "" if math.isnan(value) else f"{value:.6g}"
