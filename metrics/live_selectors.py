"""Reads behind the live-estimates page and the reusability report: the campaign's judgments so far.

Judgments are the consensus of the stored labels under a rule, with the pool's documents nobody has
graded as pooled-but-unjudged (:mod:`metrics.sources`). Per topic, the pool's strata are counted
and handed to :mod:`engine.estimates` with the design the topic was judged under (how its
assignments order the documents); the runs are scored on the same judgments, and the reusability
report is :func:`pooling.diagnostics.leave_out_reusability` on them. Results are plain JSON.

The live report is computed in the request and cached per (pool, rule, confidence, state of the
judgments and runs), so a page polling every few seconds costs a few aggregate queries until a
judgment arrives. Scoring the runs reads every run line from the database: measured on SQLite,
0.75 s for 10 runs × 50 topics × 1000 lines (reading ~1.4 µs a line, bpref/infAP/P@10 ~7 ms a run),
and the estimates 0.1-0.3 s for a 50-topic pool of 15,000-23,000 documents; so above
``WORKBENCH_LIVE_INLINE_LINES`` run lines (default 500,000, about a second) the leaderboard is left
to a background job (:data:`LEADERBOARD_JOB`) and the page shows its latest result with its date.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Max, Sum
from django.utils import timezone

from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, Topic
from campaigns.selectors import campaign_rankings, campaign_runs
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
from engine.evaluate import Judgments, evaluate_run
from engine.measures.base import EvalOptions
from engine.names import parse_measures
from jobs.models import Job
from judging.models import Adjudication, Assignment, AssignmentItem, Judgment
from metrics.sources import JudgmentSource, SourcedJudgments, source_judgments
from pooling.diagnostics import DEFAULT_MEASURES, leave_out_reusability
from pooling.models import Pool
from pooling.reports import all_grouped, reusability_json
from pooling.selectors import pool_as_core
from pooling.spec import PoolSpec

ProgressCallback = Callable[[str, int, int], None]

LIVE_MEASURES = ("bpref", "infAP", "P.10")
SAMPLED_MEASURES = (("xinfAP", "prel"), ("statAP", "mq"))  # measure, the design it reads
REUSE_JOB = "live_reusability"
LEADERBOARD_JOB = "live_leaderboard"
INLINE_LINES = 500_000
CACHE_SECONDS = 600
NOT_REUSABLE = (
    "xinfAP and statAP are left out: pooling.diagnostics.leave_out_reusability works on qrels and "
    "refuses sampled judgments (prels), and removing a run's documents from a stratified sample "
    "would also change the strata's sampling rates, which it does not model."
)


def _quiet(phase: str, done: int, total: int, /) -> None:
    return None


def _num(x: float | None, digits: int = 6) -> float | None:
    return None if x is None or math.isnan(x) else round(float(x), digits)


# ------------------------------------------------------------------------------------ pools


def live_pools(*, campaign: Campaign) -> list[Pool]:
    """The committed pools, newest first: the ones judging can be under way on."""
    return list(
        Pool.objects.filter(campaign=campaign, status=Pool.Status.COMMITTED).order_by("-committed_at", "-pk")
    )


def live_pool(*, campaign: Campaign, pk: int | None) -> Pool:
    """Pool ``pk``, or by default the newest committed pool with assignments (else the newest)."""
    pools = live_pools(campaign=campaign)
    if pk is not None:
        for pool in pools:
            if pool.pk == pk:
                return pool
        raise CampaignDataError(f"campaign '{campaign.slug}' has no committed pool {pk}")
    if not pools:
        raise CampaignDataError(
            f"campaign '{campaign.slug}' has no committed pool yet: judging has not started"
        )
    assigned = set(Assignment.objects.filter(pool__in=pools).values_list("pool_id", flat=True))
    return next((p for p in pools if p.pk in assigned), pools[0])


# ------------------------------------------------------------------------------------ state


def judgments_version(*, campaign: Campaign) -> str:
    """Changes whenever a judgment or an adjudication is recorded or changed."""
    j = Judgment.objects.filter(campaign=campaign).aggregate(n=Count("pk"), last=Max("updated_at"))
    a = Adjudication.objects.filter(campaign=campaign).aggregate(n=Count("pk"), last=Max("decided_at"))
    stamp = [
        j["n"],
        j["last"].timestamp() if j["last"] else 0,
        a["n"],
        a["last"].timestamp() if a["last"] else 0,
    ]
    return "-".join(str(x) for x in stamp)


def _runs_state(campaign: Campaign) -> tuple[str, int]:
    r = campaign_runs(campaign=campaign).aggregate(
        n=Count("pk"), last=Max("imported_at"), lines=Sum("document_count")
    )
    lines = int(r["lines"] or 0)
    return f"{r['n']}-{r['last'].timestamp() if r['last'] else 0}-{lines}", lines


def inline_lines() -> int:
    return int(getattr(settings, "WORKBENCH_LIVE_INLINE_LINES", INLINE_LINES))


# ------------------------------------------------------------------------------------ designs


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
        "r_hat": _num(e.r_hat, 3),
        "se": None if e.variance is None or e.r_hat is None else _num(math.sqrt(e.variance), 3),
        "low": _num(e.low, 3),
        "high": _num(e.high, 3),
        "unjudged_relevant": {"estimate": _num(un, 3), "low": _num(un_low, 3), "high": _num(un_high, 3)},
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


# ------------------------------------------------------------------------------------ leaderboard


def _measures(sampled: bool) -> list[Any]:
    measures = parse_measures(list(LIVE_MEASURES))
    if sampled:
        for name, design in SAMPLED_MEASURES:
            measures += parse_measures([name], design=design)
    return measures


def leaderboard(
    *, campaign: Campaign, sourced: SourcedJudgments, progress: ProgressCallback | None = None
) -> dict[str, Any]:
    """Every stored run scored on the judgments so far, best first (xinfAP when sampled, else infAP)."""
    stored = list(campaign_runs(campaign=campaign).select_related("group"))
    runs = campaign_rankings(runs=stored, depth=None, progress=progress)
    measures = _measures(sourced.sampled)
    names = [m.measure_name() for m in measures]  # output names: P.10 prints as P_10
    sort = "xinfAP" if sourced.sampled else "infAP"
    rows: list[dict[str, Any]] = []
    for i, (record, run) in enumerate(zip(stored, runs, strict=True)):
        summary = evaluate_run(sourced.judgments, run, measures).summary
        rows.append(
            {
                "run": run.name,
                "group": record.group.name if record.group is not None else "",
                "values": {name: _num(summary[name]) for name in names},
            }
        )
        if progress is not None:
            progress("scoring runs", i + 1, len(runs))
    rows.sort(key=lambda r: (-(r["values"].get(sort) or 0.0), r["run"]))
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
        row["scores"] = [row["values"].get(n) for n in names]  # in column order
    return {"measures": names, "sort": sort, "rows": rows, "deferred": False}


def _latest_leaderboard_job(campaign: Campaign, pool: Pool, rule: str) -> Job | None:
    return (
        Job.objects.filter(campaign=campaign, kind=LEADERBOARD_JOB, params__pool=pool.pk, params__rule=rule)
        .order_by("-created_at")
        .first()
    )


def live_source(*, campaign: Campaign, pool: Pool, rule: str) -> SourcedJudgments:
    return source_judgments(
        campaign=campaign, source=JudgmentSource(kind="consensus", rule=rule, pool=pool.pk)
    )


# ------------------------------------------------------------------------------------ the report


def live_report(
    *, campaign: Campaign, pool: Pool, rule: str = "majority", confidence: float = 0.95
) -> dict[str, Any]:
    """Everything the live page shows, as JSON: per-topic estimates, the total, the leaderboard."""
    version = judgments_version(campaign=campaign)
    runs_state, lines = _runs_state(campaign)
    inline = lines <= inline_lines()
    key = (
        f"live:{campaign.pk}:{campaign.created_at.timestamp()}:{pool.pk}:{pool.queue_version}:{rule}:"
        f"{confidence}:{version}:{runs_state}:{inline}"
    )
    report: dict[str, Any] | None = cache.get(key)
    if report is None:
        level = EvalOptions().level
        sourced = live_source(campaign=campaign, pool=pool, rule=rule)
        topics, overall = topic_estimates(pool=pool, sourced=sourced, level=level, confidence=confidence)
        board = (
            leaderboard(campaign=campaign, sourced=sourced)
            if inline
            else {"measures": [], "sort": "", "rows": [], "deferred": True}
        )
        board["lines"] = lines
        report = {
            "campaign": campaign.slug,
            "pool": {
                "id": pool.pk,
                "name": pool.name,
                "strategy": pool.strategy,
                "sampled": sourced.sampled,
                "adaptive": pool.adaptive,
            },
            "source": sourced.source.describe(),
            "rule": rule,
            "confidence": confidence,
            "level": level,
            "version": version,
            "computed_at": timezone.now().isoformat(),
            "topics": topics,
            "overall": overall,
            "leaderboard": board,
        }
        cache.set(key, report, CACHE_SECONDS)
    if not inline:
        report = dict(report, leaderboard=_deferred_board(report["leaderboard"], campaign, pool, rule))
    return report


def _deferred_board(board: dict[str, Any], campaign: Campaign, pool: Pool, rule: str) -> dict[str, Any]:
    """Too many run lines to score in the request: the latest leaderboard job's result, if any."""
    job = _latest_leaderboard_job(campaign, pool, rule)
    out = dict(board)
    out["job"] = None
    if job is not None:
        out["job"] = {"id": str(job.id), "status": job.status, "created_at": job.created_at.isoformat()}
        if job.status == Job.Status.DONE and job.result:
            out.update({k: job.result[k] for k in ("measures", "sort", "rows") if k in job.result})
            out["as_of"] = job.result.get("version")
    return out


def leaderboard_result(
    *, campaign: Campaign, pool: Pool, rule: str, progress: ProgressCallback | None = None
) -> dict[str, Any]:
    """The leaderboard job's result: the runs scored now, with the judgments' version it saw."""
    version = judgments_version(campaign=campaign)
    sourced = live_source(campaign=campaign, pool=pool, rule=rule)
    board = leaderboard(campaign=campaign, sourced=sourced, progress=progress)
    board.update({"pool": pool.pk, "rule": rule, "version": version, "source": sourced.source.describe()})
    return board


# ------------------------------------------------------------------------------------ reusability


def reuse_depths(*, pool: Pool, max_docs: int) -> dict[str, int]:
    """How deep each pooled run contributed (runs the pool did not take are absent: not pooled).

    A depth pool's per-run depths; otherwise the deepest rank the strategy read (whole runs, i.e.
    the campaign's longest allowed ranking, when it reads them all).
    """
    spec = PoolSpec.from_dict(pool.spec)
    if spec.strategy == "depth":
        return {tag: spec.run_depths.get(tag, spec.pool_depth) for tag in pool.runs}
    deepest = spec.deepest() or max_docs
    return {tag: deepest for tag in pool.runs}


def reusability_report(
    *, campaign: Campaign, pool: Pool, rule: str = "majority", progress: ProgressCallback | None = None
) -> dict[str, Any]:
    """Leave-one-run-out and leave-one-group-out on the judgments so far, for every leaderboard
    measure the diagnostics support (:data:`pooling.diagnostics.DEFAULT_MEASURES`)."""
    progress = progress or _quiet
    progress("reading judgments", 0, 1)
    version = judgments_version(campaign=campaign)
    sourced = live_source(campaign=campaign, pool=pool, rule=rule)
    # the plain qrels view: judged grades and rel -1 for every pooled document not judged
    judgments = Judgments(sourced.judgments.qrels)
    stored = list(campaign_runs(campaign=campaign).select_related("group"))
    if not stored:
        raise CampaignDataError(f"campaign '{campaign.slug}' has no runs to leave out")
    runs = campaign_rankings(runs=stored, depth=None, progress=progress)
    groups = {r.tag: r.group.name for r in stored if r.group is not None}
    depth = reuse_depths(pool=pool, max_docs=campaign.max_docs_per_topic)
    measures = list(DEFAULT_MEASURES)
    out: dict[str, Any] = {
        "pool": {"id": pool.pk, "name": pool.name, "strategy": pool.strategy, "sampled": sourced.sampled},
        "source": sourced.source.describe(),
        "rule": rule,
        "version": version,
        "judged": int(np.count_nonzero(judgments.qrels.rels >= 0)),
        "measures": measures,
        "depth": depth,
        "skipped": NOT_REUSABLE if sourced.sampled else "",
    }
    try:
        progress("leave-one-run-out", 0, 1)
        out["run"] = reusability_json(leave_out_reusability(runs, judgments, measures=measures, depth=depth))
        progress("leave-one-run-out", 1, 1)
        if groups:
            progress("leave-one-group-out", 0, 1)
            by_group = leave_out_reusability(
                runs, judgments, measures=measures, depth=depth, groups=all_grouped(runs, groups)
            )
            out["group"] = reusability_json(by_group)
            progress("leave-one-group-out", 1, 1)
    except ValueError as exc:
        raise CampaignDataError(str(exc)) from exc
    return out


def reuse_jobs(*, campaign: Campaign, limit: int = 10) -> list[Job]:
    return list(Job.objects.filter(campaign=campaign, kind=REUSE_JOB).order_by("-created_at")[:limit])
