"""The reusability report on the judgments so far: would the pool judge a run fairly that it left out?

:func:`pooling.diagnostics.leave_out_reusability` on the live judgments (:mod:`metrics.live.selectors`),
leaving out each run and each group; a background job (:data:`REUSE_JOB`) computes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from campaigns.errors import CampaignDataError
from campaigns.models import Campaign
from campaigns.selectors import campaign_rankings, campaign_runs
from engine.evaluate import Judgments
from jobs.models import Job
from metrics.live.selectors import judgments_version, live_pool, live_pools, live_source
from pooling.diagnostics import DEFAULT_MEASURES, leave_out_reusability
from pooling.models import Pool
from pooling.reports import all_grouped, pool_run_depths, reusability_json
from pooling.spec import PoolSpec
from trec.progress import ProgressCallback, quiet_progress

REUSE_JOB = "live_reusability"
NOT_REUSABLE = (
    "xinfAP and statAP are left out: pooling.diagnostics.leave_out_reusability works on qrels and "
    "refuses sampled judgments (prels), and removing a run's documents from a stratified sample "
    "would also change the strata's sampling rates, which it does not model."
)


def reusability_report(
    *, campaign: Campaign, pool: Pool, rule: str = "majority", progress: ProgressCallback | None = None
) -> dict[str, Any]:
    """Leave-one-run-out and leave-one-group-out on the judgments so far, for every leaderboard
    measure the diagnostics support (:data:`pooling.diagnostics.DEFAULT_MEASURES`)."""
    progress = progress or quiet_progress
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
    depth = pool_run_depths(pool=pool, spec=PoolSpec.from_dict(pool.spec))
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


@dataclass
class ReuseChoices:
    """What the reusability page offers: the committed pools, the one chosen, the latest reports."""

    pools: list[Pool]
    pool: Pool | None  # None when there is no committed pool, or ``pool`` is not one
    jobs: list[Job]


def reuse_choices(*, campaign: Campaign, pool: int | None) -> ReuseChoices:
    try:
        chosen: Pool | None = live_pool(campaign=campaign, pk=pool)
    except CampaignDataError:
        chosen = None
    return ReuseChoices(live_pools(campaign=campaign), chosen, reuse_jobs(campaign=campaign))
