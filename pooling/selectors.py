"""Reads of stored pools: their rankings, documents and core selections."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from django.db.models import Count, Q, QuerySet

from campaigns.errors import CampaignDataError, CampaignNotFound
from campaigns.models import Campaign, Topic
from campaigns.selectors import campaign_qrels_sets, campaign_rankings, campaign_runs, documents_missing
from jobs.models import Job
from pooling.models import Pool, PoolDocument
from pooling.spec import PoolSpec
from pooling.strategies import PoolSelection, StratumCount, machine_strata, stratum_key
from trec import RankedRun
from trec.grouping import offsets_from_sorted_codes

# ---------------------------------------------------------------------------------------- pools


def pool_rankings(
    *, campaign: Campaign, spec: PoolSpec, progress: Callable[[str, int, int], None] | None = None
) -> tuple[list[RankedRun], list[str] | None]:
    """The campaign's runs cut to the depth ``spec`` reads, and the tags it pools (None: all).

    Only the pooled runs are read when the spec chooses by group; diagnostics read all of them.
    """
    runs = list(campaign_runs(campaign=campaign))
    if not runs:
        raise CampaignDataError(f"campaign '{campaign.slug}' has no runs to pool yet")
    groups = {r.tag: r.group.name for r in runs if r.group is not None}
    priorities = {r.tag: r.priority for r in runs}
    try:
        include = spec.included([r.tag for r in runs], groups, priorities)
    except ValueError as exc:
        raise CampaignDataError(str(exc)) from exc
    chosen = runs if include is None else [r for r in runs if r.tag in set(include)]
    ranked = campaign_rankings(runs=chosen, depth=spec.deepest(), progress=progress)
    return ranked, include


def campaign_pools(*, campaign: Campaign) -> QuerySet[Pool]:
    return Pool.objects.filter(campaign=campaign).order_by("-created_at")


def pool_get(*, campaign: Campaign, pk: int) -> Pool:
    pool = Pool.objects.filter(campaign=campaign, pk=pk).first()
    if pool is None:
        raise CampaignNotFound(f"campaign '{campaign.slug}' has no pool {pk}")
    return pool


def pool_strata(*, pool: Pool) -> list[StratumCount]:
    """Per stratum of the pool's design (its documents over every topic, and those drawn to judge),
    in the design's order: e.g. a pool sampled by a machine's grades, g2, g1, g0, then ungraded."""
    rows = (
        PoolDocument.objects.filter(pool=pool)
        .values("stratum")
        .annotate(candidates=Count("docno"), judge=Count("docno", filter=Q(sampled=True)))
        .order_by()
    )
    found = {r["stratum"]: StratumCount(r["stratum"], r["candidates"], r["judge"]) for r in rows}
    # a stratum of the design where no candidate fell is counted too (no ungraded document: 0)
    for label in _design_strata(pool):
        found.setdefault(label, StratumCount(label, 0, 0))
    return sorted(found.values(), key=lambda c: stratum_key(c.stratum))


def _design_strata(pool: Pool) -> list[str]:
    """The strata a pool's design defines, whether or not a candidate fell in each."""
    try:
        spec = PoolSpec.from_dict(pool.spec)
    except (ValueError, TypeError):
        return []
    if spec.strategy == "machine" and spec.grades:
        return machine_strata(spec.grades)
    if spec.strategy == "stratified":
        return [str(i + 1) for i in range(len(spec.strata))]
    return []


DIAGNOSTICS_JOB = "pool_diagnostics"


def pool_diagnostics_jobs(*, pool: Pool, limit: int = 5) -> list[Job]:
    """The pool's diagnostics reports, newest first (running and failed ones too): its page links
    them, so a report is found from the pool it belongs to and not only from its job's page."""
    jobs = Job.objects.filter(campaign_id=pool.campaign_id, kind=DIAGNOSTICS_JOB, params__pool=pool.pk)
    return list(jobs.order_by("-created_at")[:limit])


def pool_built(*, pool: Pool) -> dict[str, Any]:
    """What a pool build job keeps as its result: the draft pool, its size, its count per stratum."""
    return {
        "pool": pool.pk,
        "name": pool.name,
        "documents": pool.document_count,
        "topics": len(pool.sizes),
        "strata": [c._asdict() for c in pool_strata(pool=pool)],
    }


def pool_overview(*, pool: Pool) -> dict[str, Any]:
    """What a pool's page shows: its size per topic (topics in byte order, with the universe a
    sampling design drew from) and the judgments its diagnostics may use."""
    sizes = [
        (topic, s["judge"], s["universe"])
        for topic, s in sorted(pool.sizes.items(), key=lambda x: x[0].encode())
    ]
    return {
        "campaign": pool.campaign,
        "pool": pool,
        "sizes": sizes,
        "largest": max((universe for _, _, universe in sizes), default=0),
        "sampled": any(judge != universe for _, judge, universe in sizes),
        "strata": pool_strata(pool=pool),
        "diagnostics": pool_diagnostics_jobs(pool=pool),
        "qrels_sets": campaign_qrels_sets(campaign=pool.campaign),
    }


def pool_documents_without_text(*, pool: Pool) -> list[str]:
    """The pool's documents to judge that have no stored text (assessors would see none)."""
    docnos = PoolDocument.objects.filter(pool=pool, sampled=True).values_list("docno", flat=True).distinct()
    return documents_missing(campaign=pool.campaign, docnos=set(docnos))


def pool_as_core(*, pool: Pool) -> PoolSelection:
    """A stored pool as the strategies' Pool: topics in byte order, documents in judging order."""
    rows = list(
        PoolDocument.objects.filter(pool=pool)
        .order_by("topic__number", "position")
        .values_list("topic__number", "docno", "sampled", "stratum", "iprob")
    )
    topics = tuple(dict.fromkeys(r[0] for r in rows))
    index = {t: i for i, t in enumerate(topics)}
    codes = np.array([index[r[0]] for r in rows], dtype=np.int64)
    return PoolSelection(
        strategy=pool.strategy,
        topics=topics,
        offsets=offsets_from_sorted_codes(codes, len(topics)),
        docnos=np.array([r[1].encode() for r in rows], dtype="S") if rows else np.zeros(0, "S1"),
        sampled=np.array([r[2] for r in rows], dtype=bool),
        strata=np.array([r[3].encode() for r in rows], dtype="S") if rows else np.zeros(0, "S1"),
        iprobs=np.array([r[4] for r in rows], dtype=np.float64),
        params=dict(pool.spec),
    )


def pool_topic_documents(*, pool: Pool, topic: Topic) -> list[str]:
    """The documents of one topic to judge, in judging order."""
    rows = PoolDocument.objects.filter(pool=pool, topic=topic, sampled=True).order_by("position")
    return list(rows.values_list("docno", flat=True))


def pools_needed_docnos(*, campaign: Campaign) -> set[str]:
    """Every docno some pool of the campaign may put before an assessor (the documents to store)."""
    rows = PoolDocument.objects.filter(pool__campaign=campaign, sampled=True)
    return set(rows.values_list("docno", flat=True).distinct())
