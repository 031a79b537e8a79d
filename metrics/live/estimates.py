"""Live estimates of the relevant documents in a pool, per topic, from the judgments so far.

Per topic, the pool's strata are counted and handed to :mod:`engine.estimates` with the design the
topic was judged under (how its assignments order the documents). Results are plain JSON.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from campaigns.models import Topic
from engine.estimates import (
    DESIGNS,
    INTERVALS,
    Estimate,
    Stratum,
    design_estimate,
    lower_bound,
    strata_from_prel,
    total,
)
from judging.models import Assignment, AssignmentItem, Judgment
from metrics.sources import SourcedJudgments
from pooling.models import Pool
from pooling.selectors import pool_as_core


def rounded(x: float | None, digits: int = 6) -> float | None:
    """A number for JSON: rounded, and None for a missing or NaN one."""
    return None if x is None or math.isnan(x) else round(float(x), digits)


def _design(*, sampled: bool, orders: set[str], complete: bool, outside: int = 0) -> tuple[str, str]:
    """Which estimate a topic gets, and why (see :mod:`engine.estimates`)."""
    if complete:
        if sampled:
            return "stratified", "the whole sample is judged"
        return "census", "every pooled document is judged"
    if outside:
        return "none", (
            f"{outside} of its judged documents were judged outside this pool's assignments (another "
            "pool, another order): the judged set is not this pool's random sample, so relevant found "
            "is a lower bound"
        )
    if orders == {Assignment.Order.RANDOM}:
        if sampled:
            return "stratified", (
                "the sample is judged in a seeded random order: within each stratum the judged "
                "documents are a simple random sample"
            )
        return (
            "srs",
            "judged in a seeded random order: the judged documents are a simple random sample of the pool",
        )
    if not orders:
        return "none", "no assignment of this pool covers the topic: nothing is judged through it yet"
    if Assignment.Order.QUEUE in orders:
        return "none", (
            "judged through an adaptive queue, which picks the documents most likely to be relevant "
            "first: the judged set is not a probability sample, so relevant found is only a lower bound"
        )
    if orders == {Assignment.Order.DOCNO}:
        return "none", (
            "judged in docno order: which documents come first depends on their docnos, not on a "
            "random draw, so the judged set is not a probability sample; relevant found is a lower bound"
        )
    return "none", (
        f"assessors judge it in different orders ({', '.join(sorted(orders))}): the judged set is not "
        "one probability sample; relevant found is a lower bound"
    )


def _estimate_json(e: Estimate) -> dict[str, Any]:
    un, un_low, un_high = e.unjudged_relevant
    return {
        "design": e.design,
        "interval": e.interval,
        "interval_text": INTERVALS.get(e.interval, e.interval),
        "pooled": e.population,
        "judged": e.judged,
        "unjudged": e.unjudged,
        "found": e.found,
        "r_hat": rounded(e.r_hat, 3),
        "se": None if e.variance is None or e.r_hat is None else rounded(math.sqrt(e.variance), 3),
        "low": rounded(e.low, 3),
        "high": rounded(e.high, 3),
        "unjudged_relevant": {
            "estimate": rounded(un, 3),
            "low": rounded(un_low, 3),
            "high": rounded(un_high, 3),
        },
    }


def _judged_outside(*, pool: Pool, prel_topics: Any) -> dict[str, int]:
    """Per topic, pooled documents graded in the store but not through this pool's assignments."""
    mine: set[tuple[str, str]] = set()
    assigned = AssignmentItem.objects.filter(assignment__pool=pool).values_list(
        "assignment__assessor_id", "assignment__topic__number", "docno"
    )
    graded = set(
        Judgment.objects.filter(campaign_id=pool.campaign_id, grade__isnull=False).values_list(
            "assessor_id", "topic__number", "docno"
        )
    )
    for assessor, topic, docno in assigned:
        if (assessor, topic, docno) in graded:
            mine.add((topic, docno))
    out: dict[str, int] = {}
    q = prel_topics
    for t, topic in enumerate(q.topics):
        a, b = int(q.offsets[t]), int(q.offsets[t + 1])
        for docno, rel in zip(q.docnos[a:b].tolist(), q.rels[a:b].tolist(), strict=True):
            if rel >= 0 and (topic, docno.decode()) not in mine:
                out[topic] = out.get(topic, 0) + 1
    return out


def topic_estimates(
    *, pool: Pool, sourced: SourcedJudgments, level: int, confidence: float
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per topic of the pool: its strata, design and estimate; and the total over estimated topics."""
    core = pool_as_core(pool=pool)
    prel = core.to_prel(sourced.judgments.qrels)  # every pooled document, graded if sampled and judged
    per_topic = strata_from_prel(prel, level=level)
    sampled = sourced.sampled
    codes = np.repeat(np.arange(len(core.topics)), np.diff(core.offsets))
    to_judge = np.bincount(codes[core.sampled], minlength=len(core.topics))
    orders: dict[str, set[str]] = {}
    for topic, order in (
        Assignment.objects.filter(pool=pool).values_list("topic__number", "order").order_by().distinct()
    ):
        orders.setdefault(topic, set()).add(order)
    titles = dict(Topic.objects.filter(campaign=pool.campaign).values_list("number", "title"))
    outside = _judged_outside(pool=pool, prel_topics=prel.qrels)
    rows: list[dict[str, Any]] = []
    estimated: dict[str, list[Stratum]] = {}
    for i, topic in enumerate(core.topics):
        strata = per_topic.get(topic, [])
        judged = sum(s.judged for s in strata)
        design, reason = _design(
            sampled=sampled,
            orders=orders.get(topic, set()),
            complete=judged == int(to_judge[i]),
            outside=outside.get(topic, 0),
        )
        if design == "srs":
            one = [
                Stratum(
                    "all", *(sum(getattr(s, f) for s in strata) for f in ("population", "judged", "relevant"))
                )
            ]
            estimate = design_estimate(one, design="srs", confidence=confidence)
            used = one
        elif design in ("stratified", "census"):
            estimate = design_estimate(strata, design=design, confidence=confidence)
            used = strata
        else:
            estimate = lower_bound(strata, confidence=confidence)
            used = []
        if estimate.r_hat is not None and used:
            estimated[topic] = used
        rows.append(
            {
                "topic": topic,
                "title": titles.get(topic, ""),
                "design_text": DESIGNS.get(estimate.design, estimate.design),
                "reason": reason,
                "orders": sorted(orders.get(topic, set())),
                "to_judge": int(to_judge[i]),
                "strata": [s._asdict() for s in strata],
                **_estimate_json(estimate),
            }
        )
    overall = total(estimated, confidence=confidence)
    found_all = sum(r["found"] for r in rows)
    summary = {
        "topics": len(rows),
        "estimated_topics": len(estimated),
        "pooled": sum(r["pooled"] for r in rows),
        "to_judge": sum(r["to_judge"] for r in rows),
        "judged": sum(r["judged"] for r in rows),
        "found": found_all,
        "found_elsewhere": found_all - overall.found,
        "estimate": _estimate_json(overall),
    }
    return rows, summary
