"""Reads behind the live-estimates page: the committed pools, the state of the judgments, the report.

Judgments are the consensus of the stored labels under a rule, with the pool's documents nobody has
graded as pooled-but-unjudged (:mod:`metrics.sources`); the estimates are
:mod:`metrics.live.estimates`', and the runs are scored on the same judgments. Results are plain JSON.

The live report is computed in the request and cached per (pool, rule, confidence, state of the
judgments and runs), so a page polling every few seconds costs a few aggregate queries until a
judgment arrives (the cache is a memo of a read, not state: the GET stays a read). Scoring the runs
reads every run line from the database: measured on SQLite,
0.75 s for 10 runs × 50 topics × 1000 lines (reading ~1.4 µs a line, bpref/infAP/P@10 ~7 ms a run),
and the estimates 0.1-0.3 s for a 50-topic pool of 15,000-23,000 documents; so above
``WORKBENCH_LIVE_INLINE_LINES`` run lines (default 500,000, about a second) the leaderboard is left
to a background job (:data:`LEADERBOARD_JOB`) and the page shows its latest result with its date.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Max, Sum
from django.utils import timezone

from campaigns.errors import CampaignDataError
from campaigns.models import Campaign
from campaigns.selectors import campaign_rankings, campaign_runs
from engine.evaluate import evaluate_run
from engine.measures.base import EvalOptions
from engine.names import parse_measures
from jobs.models import Job
from judging.models import Adjudication, Assignment, Judgment
from metrics.live.estimates import rounded, topic_estimates
from metrics.sources import JudgmentSource, SourcedJudgments, source_judgments
from pooling.models import Pool
from trec.progress import ProgressCallback

LIVE_MEASURES = ("bpref", "infAP", "P.10")
SAMPLED_MEASURES = (("xinfAP", "prel"), ("statAP", "mq"))  # measure, the design it reads
LEADERBOARD_JOB = "live_leaderboard"
INLINE_LINES = 500_000
CACHE_SECONDS = 600


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


# ------------------------------------------------------------------------------------ leaderboard


def _measures(sampled: bool) -> list[Any]:
    measures = parse_measures(list(LIVE_MEASURES))
    if sampled:
        for name, design in SAMPLED_MEASURES:
            measures += parse_measures([name], design=design)
    return measures


def live_leaderboard(
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
                "values": {name: rounded(summary[name]) for name in names},
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
            live_leaderboard(campaign=campaign, sourced=sourced)
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


def live_leaderboard_result(
    *, campaign: Campaign, pool: Pool, rule: str, progress: ProgressCallback | None = None
) -> dict[str, Any]:
    """The leaderboard job's result: the runs scored now, with the judgments' version it saw."""
    version = judgments_version(campaign=campaign)
    sourced = live_source(campaign=campaign, pool=pool, rule=rule)
    board = live_leaderboard(campaign=campaign, sourced=sourced, progress=progress)
    board.update({"pool": pool.pk, "rule": rule, "version": version, "source": sourced.source.describe()})
    return board


def live_estimates(*, campaign: Campaign, pool: int | None, rule: str, confidence: float) -> dict[str, Any]:
    """The live report of pool ``pool`` (default: the newest committed pool with assignments)."""
    chosen = live_pool(campaign=campaign, pk=pool)
    return live_report(campaign=campaign, pool=chosen, rule=rule, confidence=confidence)


@dataclass
class LiveState:
    """What the live page shows: the pools to choose from, and the report or why there is none."""

    pools: list[Pool]
    report: dict[str, Any] | None
    problems: list[str]
    waiting: bool  # no committed pool yet and none asked for: news, not a bad request


def live_state(*, campaign: Campaign, pool: int | None, rule: str, confidence: float) -> LiveState:
    pools = live_pools(campaign=campaign)
    try:
        report = live_estimates(campaign=campaign, pool=pool, rule=rule, confidence=confidence)
    except CampaignDataError as exc:  # a pool that is not there, labels the rule cannot read
        return LiveState(pools, None, exc.problems, waiting=not pools and pool is None)
    return LiveState(pools, report, [], waiting=False)
