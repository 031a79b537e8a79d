"""The summary table that leads every agreement report (docs/agreement.md#the-summary-table).

One row per assessor pair and one for all assessors together (three or more): the items they
share, percent agreement, κ, weighted κ, Gwet's AC1 and Krippendorff's α, each with its confidence
interval, and the κ paradox flag. Every value is one the report already holds (the pair's
concatenated table, the group's missing-data coefficients), picked here once so that the page,
the JSON, the text report and the API lead with the same table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from judging.agreement.inference import Estimate, kappa_paradox
from judging.agreement.tables import Kappa

if TYPE_CHECKING:
    from judging.agreement.report import GroupReport, PairReport
    from judging.agreement.summary import AgreementReport

SUMMARY_WEIGHTS = "linear"  # the weighted κ of the table; quadratic is in the details
SUMMARY_ALPHA = "alpha_ordinal"  # grades are ordered; nominal, interval and ratio are in the details
GROUP = "all"  # the a and b of the group's row
ASYMPTOTIC_COHEN = "asymptotic (Fleiss, Cohen & Everitt 1969)"
ASYMPTOTIC_GWET = "asymptotic (Gwet 2014)"


class SummaryStat(NamedTuple):
    """One coefficient of a row: ``statistic`` is its report key; the CI is NaN, and
    ``ci_method`` empty, when there is no interval (α without a bootstrap)."""

    statistic: str
    value: float
    ci_low: float
    ci_high: float
    ci_method: str


@dataclass(frozen=True)
class SummaryRow:
    """A pair (``kind`` "pair": Cohen's κ, weighted κ, AC1 of the pair's concatenated table) or the
    group (``kind`` "group", a = b = "all": Fleiss' κ, weighted Fleiss' κ and AC1 with Gwet's
    missing-data rule, on the items judged by two or more). ``paradox`` lists where the κ paradox
    holds (:func:`~judging.agreement.inference.kappa_paradox`): "kappa" for this row's κ,
    "binary" for the pair's κ of the labels binarized at the threshold (when that is another table)."""

    kind: str
    a: str
    b: str
    assessors: tuple[str, ...]
    items: int
    p_o: float
    kappa: SummaryStat
    weighted_kappa: SummaryStat
    ac1: SummaryStat
    alpha: SummaryStat
    paradox: tuple[str, ...]


def _from_kappa(name: str, k: Kappa, method: str) -> SummaryStat:
    return SummaryStat(name, k.value, k.ci_low, k.ci_high, method)


def _from_estimate(name: str, e: Estimate | None) -> SummaryStat:
    nan = float("nan")
    if e is None:
        return SummaryStat(name, nan, nan, nan, "")
    return SummaryStat(name, e.value, e.ci_low, e.ci_high, ASYMPTOTIC_GWET)


def _alpha(report: PairReport | GroupReport, resamples: int) -> SummaryStat:
    """α of the concatenated reading (every shared item once) with its topic-bootstrap interval:
    none over a single topic, where every resample is that topic and the interval a point."""
    pooled = report.pooled[SUMMARY_ALPHA]
    nan = float("nan")
    low, high = pooled.ci.get("concatenated", (nan, nan))
    if len(report.per_topic) < 2 or not (math.isfinite(low) and math.isfinite(high)):
        return SummaryStat(SUMMARY_ALPHA, pooled.concatenated, nan, nan, "")
    return SummaryStat(
        SUMMARY_ALPHA, pooled.concatenated, low, high, f"topic bootstrap ({resamples} resamples)"
    )


def _already_binary(p: PairReport, threshold: int) -> bool:
    """The pair's table is its own binarized table: two categories, split by the threshold."""
    return len(p.labels) == 2 and p.labels[0] < threshold <= p.labels[1]


def _pair_row(p: PairReport, threshold: int, resamples: int) -> SummaryRow:
    t = p.overall
    paradox = ["kappa"] if kappa_paradox(t.cohen.p_o, t.cohen.p_e) else []
    if p.inference is not None and p.inference.binary.paradox and not _already_binary(p, threshold):
        paradox.append("binary")
    ac1 = p.inference.ac1 if p.inference is not None else None
    return SummaryRow(
        kind="pair",
        a=p.a,
        b=p.b,
        assessors=(p.a, p.b),
        items=p.items,
        p_o=t.p_o,
        kappa=_from_kappa("cohen", t.cohen, ASYMPTOTIC_COHEN),
        weighted_kappa=_from_kappa(SUMMARY_WEIGHTS, getattr(t, SUMMARY_WEIGHTS), ASYMPTOTIC_COHEN),
        ac1=_from_estimate("ac1", ac1) if ac1 is not None else _from_kappa("ac1", t.ac1, ""),
        alpha=_alpha(p, resamples),
        paradox=tuple(paradox),
    )


def _group_row(g: GroupReport, resamples: int) -> SummaryRow:
    i = g.inference
    fleiss = i.fleiss_missing if i is not None else None
    nan = float("nan")
    p_o = fleiss.p_o if fleiss is not None else nan
    p_e = fleiss.p_e if fleiss is not None else nan
    return SummaryRow(
        kind="group",
        a=GROUP,
        b=GROUP,
        assessors=g.assessors,
        items=g.pairable,
        p_o=p_o,
        kappa=_from_estimate("fleiss", fleiss),
        weighted_kappa=_from_estimate(
            f"fleiss_{SUMMARY_WEIGHTS}", getattr(i, f"fleiss_{SUMMARY_WEIGHTS}", None)
        ),
        ac1=_from_estimate("ac1", i.ac1_missing if i is not None else None),
        alpha=_alpha(g, resamples),
        paradox=("kappa",) if kappa_paradox(p_o, p_e) else (),
    )


def summary_rows(report: AgreementReport) -> list[SummaryRow]:
    """The pairs in :func:`~judging.agreement.report.assessor_pairs` order, then the group."""
    resamples = report.bootstrap.resamples if report.bootstrap is not None else 0
    rows = [_pair_row(p, report.threshold, resamples) for p in report.pairs]
    if report.group is not None:
        rows.append(_group_row(report.group, resamples))
    return rows


def _num(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _stat_dict(s: SummaryStat) -> dict[str, Any]:
    ci = [_num(s.ci_low), _num(s.ci_high)] if math.isfinite(s.ci_low) and math.isfinite(s.ci_high) else None
    return {"statistic": s.statistic, "value": _num(s.value), "ci": ci, "ci_method": s.ci_method or None}


def summary_dict(row: SummaryRow) -> dict[str, Any]:
    """One row as JSON: every coefficient ``{statistic, value, ci: [low, high] | null, ci_method}``."""
    return {
        "kind": row.kind,
        "a": row.a,
        "b": row.b,
        "assessors": list(row.assessors),
        "items": row.items,
        "p_o": _num(row.p_o),
        "kappa": _stat_dict(row.kappa),
        "weighted_kappa": _stat_dict(row.weighted_kappa),
        "ac1": _stat_dict(row.ac1),
        "alpha": _stat_dict(row.alpha),
        "paradox": bool(row.paradox),
        "paradox_in": list(row.paradox),
    }
