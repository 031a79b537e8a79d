"""The whole agreement report from N assessors' label sets, and its JSON-ready form (NaN → None)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.measures.base import EvalOptions
from judging.agreement.conventions import conventions
from judging.agreement.inference import Estimate, GroupInference, NullTest, PairInference
from judging.agreement.labels import Labels, LabelSource, align, as_labels, labels_to_qrels
from judging.agreement.report import (
    GroupReport,
    PairReport,
    Pooled,
    assessor_pairs,
    group_agreement,
    pair_agreement,
)
from judging.agreement.summary_table import summary_dict, summary_rows
from judging.agreement.systems import DEFAULT_MEASURES, SystemRankings, system_rankings
from judging.agreement.tables import Binary, Kappa, TableAgreement
from trec.qrels import Qrels
from trec.runs import RankedRun


@dataclass(frozen=True)
class BootstrapSettings:
    resamples: int
    seed: int
    confidence: float


@dataclass(frozen=True)
class AgreementReport:
    """Pairs, the group (three or more assessors) and, given runs, the system rankings."""

    assessors: tuple[str, ...]
    judged: dict[str, int]  # items each assessor judged (after the negative-grade rule)
    topics: tuple[str, ...]
    threshold: int
    negative: str
    confidence: float
    pairs: list[PairReport]
    group: GroupReport | None
    bootstrap: BootstrapSettings | None
    systems: SystemRankings | None
    scale: tuple[int, ...] | None = None  # --scale: weights by position on it, else on the grades seen


def agreement_report(
    label_sets: Mapping[str, LabelSource],
    *,
    threshold: int = 1,
    negative: str = "missing",
    scale: Sequence[int] | None = None,
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
    runs: Sequence[RankedRun] | None = None,
    measures: Sequence[str] = DEFAULT_MEASURES,
    options: EvalOptions | None = None,
) -> AgreementReport:
    """Agreement of every assessor pair, of all assessors together when there are three or more,
    and (with ``runs``) the correlation of the system rankings each assessor's judgments produce.

    ``label_sets`` maps assessor names to :class:`~judging.agreement.labels.Labels`, qrels,
    ``{topic: {docno: grade}}`` or (topic, docno, grade) triples. Negative grades: see
    :func:`~judging.agreement.labels.align`. ``bootstrap`` > 0 adds topic-bootstrap CIs; pair i
    (in :func:`assessor_pairs` order) draws from ``default_rng([seed, i])``, the group from
    ``default_rng([seed, number of pairs])``, so one pair's CI does not depend on the others.
    The runs are evaluated on each assessor's labels as qrels, negative grades included.
    """
    if len(label_sets) < 2:
        raise ValueError("agreement needs at least two assessors")
    if bootstrap < 0:
        raise ValueError("the number of bootstrap resamples cannot be negative")
    sources: dict[str, Labels | Qrels] = {
        name: s if isinstance(s, Qrels) else as_labels(s) for name, s in label_sets.items()
    }
    ratings = align(sources, negative=negative)
    cats = tuple(int(x) for x in scale) if scale is not None else None
    pairs = [
        pair_agreement(
            ratings,
            a,
            b,
            threshold=threshold,
            scale=cats,
            resamples=bootstrap,
            rng=np.random.default_rng([seed, i]),
            confidence=confidence,
        )
        for i, (a, b) in enumerate(assessor_pairs(ratings.assessors))
    ]
    group = None
    if len(ratings.assessors) >= 3:
        group = group_agreement(
            ratings,
            scale=cats,
            resamples=bootstrap,
            rng=np.random.default_rng([seed, len(pairs)]),
            confidence=confidence,
        )
    systems = None
    if runs is not None:
        qrels = {
            name: s if isinstance(s, Qrels) else labels_to_qrels(s, path=name) for name, s in sources.items()
        }
        systems = system_rankings(qrels, runs, measures=measures, options=options)
    return AgreementReport(
        assessors=ratings.assessors,
        judged=dict(zip(ratings.assessors, ratings.judged.sum(axis=0).tolist(), strict=True)),
        topics=ratings.topics,
        threshold=threshold,
        negative=negative,
        confidence=confidence,
        pairs=pairs,
        group=group,
        bootstrap=BootstrapSettings(bootstrap, seed, confidence) if bootstrap > 0 else None,
        systems=systems,
        scale=cats,
    )


# --------------------------------------------------------------------------- JSON


def _num(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def kappa_dict(k: Kappa) -> dict[str, float | None]:
    return {name: _num(v) for name, v in k._asdict().items()}


def binary_dict(b: Binary) -> dict[str, Any]:
    """The binarized block: ``matrix`` rows a, columns b, index 0 = grade < threshold, 1 = ≥ threshold."""
    return {
        "threshold": b.threshold,
        "labels": [f"< {b.threshold}", f">= {b.threshold}"],
        "matrix": np.asarray(b.counts, dtype=np.int64).tolist(),
        "items": b.n,
        "p_o": _num(b.p_o),
        "cohen": kappa_dict(b.cohen),
        "pooled": kappa_dict(b.pooled),
        "ac1": kappa_dict(b.ac1),
    }


def table_dict(t: TableAgreement) -> dict[str, Any]:
    """One table's statistics; ``matrix`` rows are assessor a, columns b, in ``labels`` order;
    ``binary``: the same table binarized at the report's threshold (:func:`binary_dict`)."""
    return {
        "labels": list(t.labels),
        "matrix": np.asarray(t.counts, dtype=np.int64).tolist(),
        "items": t.n,
        "p_o": _num(t.p_o),
        "cohen": kappa_dict(t.cohen),
        "linear": kappa_dict(t.linear),
        "quadratic": kappa_dict(t.quadratic),
        "pooled": kappa_dict(t.pooled),
        "ac1": kappa_dict(t.ac1),
        "alpha_nominal": _num(t.alpha_nominal),
        "alpha_ordinal": _num(t.alpha_ordinal),
        "overlap": {
            "intersection": t.overlap.intersection,
            "union": t.overlap.union,
            "value": _num(t.overlap.value),
        },
        "binary": binary_dict(t.binary),
    }


def estimate_dict(e: Estimate) -> dict[str, Any]:
    return {
        "value": _num(e.value),
        "se": _num(e.se),
        "ci_low": _num(e.ci_low),
        "ci_high": _num(e.ci_high),
        "items": e.items,
        "method": e.method,
        "p_o": _num(e.p_o),
        "p_e": _num(e.p_e),
    }


def null_test_dict(t: NullTest) -> dict[str, Any]:
    return {"value": _num(t.value), "se0": _num(t.se0), "z": _num(t.z), "p": _num(t.p), "method": t.method}


def pair_inference_dict(i: PairInference) -> dict[str, Any]:
    """SEs of pooled κ / AC1 / AC2, z tests of κ, PABAK and the binarized prevalence block."""
    return {
        "pooled": estimate_dict(i.pooled),
        "ac1": estimate_dict(i.ac1),
        "ac2_linear": estimate_dict(i.ac2_linear),
        "ac2_quadratic": estimate_dict(i.ac2_quadratic),
        "cohen_test": null_test_dict(i.cohen_test),
        "linear_test": null_test_dict(i.linear_test),
        "quadratic_test": null_test_dict(i.quadratic_test),
        "pabak": _num(i.pabak),
        "binary": {
            "prevalence_index": _num(i.binary.prevalence_index),
            "bias_index": _num(i.binary.bias_index),
            "pabak": _num(i.binary.pabak),
            "paradox": i.binary.paradox,
            "pooled": estimate_dict(i.binary_pooled),
            "ac1": estimate_dict(i.binary_ac1),
        },
        "alpha_interval": _num(i.alpha_interval),
        "alpha_ratio": _num(i.alpha_ratio),
    }


def group_inference_dict(i: GroupInference) -> dict[str, Any]:
    return {
        "fleiss_complete": estimate_dict(i.fleiss_complete),
        "ac1_complete": estimate_dict(i.ac1_complete),
        "fleiss_missing": estimate_dict(i.fleiss_missing),
        "ac1_missing": estimate_dict(i.ac1_missing),
        **{
            name: estimate_dict(e)
            for name, e in (
                ("ac2_linear", i.ac2_linear),
                ("ac2_quadratic", i.ac2_quadratic),
                ("fleiss_linear", i.fleiss_linear),
                ("fleiss_quadratic", i.fleiss_quadratic),
            )
            if e is not None
        },
        "fleiss_test": null_test_dict(i.fleiss_test),
        "missing_items": i.missing_items,
        "conger": _num(i.conger),
        "light": _num(i.light),
        "light_pairs": i.light_pairs,
        "alpha_interval": _num(i.alpha_interval),
        "alpha_ratio": _num(i.alpha_ratio),
    }


def pooled_dict(p: Pooled) -> dict[str, Any]:
    return {
        "concatenated": _num(p.concatenated),
        "de_vries": None if p.de_vries is None else _num(p.de_vries),
        "mean_per_topic": _num(p.mean_per_topic),
        "topics": p.topics,
        "ci": {r: [_num(i.low), _num(i.high)] for r, i in p.ci.items()},
    }


def report_as_dict(report: AgreementReport, *, per_topic: bool = True) -> dict[str, Any]:
    """The report as JSON-ready data: non-finite numbers become None. ``summary`` comes first: the
    table that leads every report (:mod:`judging.agreement.summary_table`)."""
    out: dict[str, Any] = {
        "summary": [summary_dict(row) for row in summary_rows(report)],
        "assessors": list(report.assessors),
        "judged": report.judged,
        "topics": len(report.topics),
        "threshold": report.threshold,
        "negative_grades": report.negative,
        "scale": None if report.scale is None else list(report.scale),
        "confidence": report.confidence,
        "bootstrap": None
        if report.bootstrap is None
        else {"resamples": report.bootstrap.resamples, "seed": report.bootstrap.seed},
        "pairs": [],
        "group": None,
        "systems": None,
        "conventions": conventions(
            scale=report.scale,
            negative=report.negative,
            threshold=report.threshold,
            bootstrap=0 if report.bootstrap is None else report.bootstrap.resamples,
            confidence=report.confidence,
        ),
    }
    for p in report.pairs:
        pair: dict[str, Any] = {
            "a": p.a,
            "b": p.b,
            "labels": list(p.labels),
            "items": p.items,
            "only_a": p.only_a,
            "only_b": p.only_b,
            "overall": table_dict(p.overall),
            "pooled": {stat: pooled_dict(v) for stat, v in p.pooled.items()},
        }
        if p.inference is not None:
            pair["inference"] = pair_inference_dict(p.inference)
        if per_topic:
            pair["per_topic"] = {t: table_dict(s) for t, s in p.per_topic.items()}
        out["pairs"].append(pair)
    g = report.group
    if g is not None:
        out["group"] = {
            "assessors": list(g.assessors),
            "labels": list(g.labels),
            "items": g.items,
            "pairable": g.pairable,
            "single": g.single,
            "fleiss": kappa_dict(g.fleiss),
            "pooled": {stat: pooled_dict(v) for stat, v in g.pooled.items()},
        }
        if g.inference is not None:
            out["group"]["inference"] = group_inference_dict(g.inference)
        if per_topic:
            out["group"]["per_topic"] = {
                t: {
                    "items": s.items,
                    "pairable": s.pairable,
                    "fleiss": kappa_dict(s.fleiss),
                    "alpha_nominal": _num(s.alpha_nominal),
                    "alpha_ordinal": _num(s.alpha_ordinal),
                }
                for t, s in g.per_topic.items()
            }
    s = report.systems
    if s is not None:
        out["systems"] = {
            "runs": list(s.runs),
            "measures": list(s.measures),
            "topics": s.topics,
            "means": {
                a: {m: {r: _num(v) for r, v in runs.items()} for m, runs in by_m.items()}
                for a, by_m in s.means.items()
            },
            "correlations": [
                {
                    "measure": c.measure,
                    "a": c.a,
                    "b": c.b,
                    "topics": c.topics,
                    "runs": c.runs,
                    "tau_b": _num(c.tau_b),
                    "tau_ap_ab": _num(c.tau_ap_ab),
                    "tau_ap_ba": _num(c.tau_ap_ba),
                    "tau_ap_b": _num(c.tau_ap_b),
                    "spearman": _num(c.spearman),
                    "rbo": _num(c.rbo),
                    "rbo_min": _num(c.rbo_min),
                    "rbo_residual": _num(c.rbo_residual),
                    "swap_rate_min": _num(c.swap_min),
                    "swap_rate_mean": _num(c.swap_mean),
                }
                for c in s.correlations
            ],
        }
    return out
