"""Pooling's background jobs: pool builds, diagnostics and the documents a pool needs, each one
service call. A job's result is plain JSON that the job page renders.
"""

from __future__ import annotations

from typing import Any

from campaigns.errors import CampaignDataError, ImportRefused
from campaigns.jobs import SHOWN, job_campaign, job_files
from campaigns.models import QrelsSet
from campaigns.services import documents_import
from jobs.models import Job
from jobs.registry import register
from pooling.models import Pool
from pooling.reports import diagnostics_report
from pooling.selectors import pool_built, pools_needed_docnos
from pooling.services import pool_build
from pooling.spec import PoolSpec
from trec.progress import ProgressCallback


@register("documents_import", result_template="pooling/results/documents_import.html")
def documents_import_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    campaign = job_campaign(job)
    paths, names = job_files(job, parsed=False)  # documents are read in batches
    # "only what the pools need" before any pool exists would drop every document: store them all
    no_pool = bool(job.params.get("only_needed")) and not Pool.objects.filter(campaign=campaign).exists()
    needed = pools_needed_docnos(campaign=campaign) if job.params.get("only_needed") and not no_pool else None
    try:
        result = documents_import(
            campaign=campaign,
            paths=paths,
            fmt=job.params.get("format", "auto"),
            needed=needed,
            progress=progress,
        )
    except ImportRefused as exc:
        raise ImportRefused([_named(p, paths, names) for p in exc.problems]) from exc
    return {
        "stored": result.stored,
        "already_stored": result.already_stored,
        "not_needed": result.not_needed,
        "duplicates": len(result.duplicates),
        "duplicates_shown": result.duplicates[:SHOWN],
        "without_text": len(result.without_text),
        "without_text_shown": result.without_text[:SHOWN],
        "not_found": len(result.not_found),
        "not_found_shown": result.not_found[:SHOWN],
        # stored with U+FFFD for bytes that are not UTF-8 (docs/formats.md#bytes-and-encodings)
        "not_utf8": len(result.not_utf8),
        "not_utf8_shown": [_named(d, paths, names) for d in result.not_utf8[:SHOWN]],
        "replacements": result.replacements,
        "only_needed": needed is not None,
        "no_pool": no_pool,
    }


def _named(text: str, paths: list[str], names: list[str]) -> str:
    """``text`` naming each upload by its own name rather than its stored path."""
    for path, name in zip(paths, names, strict=True):
        text = text.replace(path, name)
    return text


@register("pool_build", result_template="pooling/results/pool_build.html")
def pool_build_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    try:
        spec = PoolSpec.from_dict(job.params["spec"])
    except (ValueError, TypeError) as exc:
        raise CampaignDataError(str(exc)) from exc
    pool = pool_build(
        campaign=job_campaign(job), name=job.params["name"], spec=spec, user=job.created_by, progress=progress
    )
    return pool_built(pool=pool)


@register("pool_diagnostics", result_template="pooling/results/pool_diagnostics.html")
def pool_diagnostics_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    campaign = job_campaign(job)
    pool = Pool.objects.filter(campaign=campaign, pk=job.params["pool"]).first()
    if pool is None:
        raise CampaignDataError("the pool was discarded before its diagnostics ran")
    qrels_set = None
    if job.params.get("qrels_set"):
        qrels_set = QrelsSet.objects.filter(campaign=campaign, pk=job.params["qrels_set"]).first()
        if qrels_set is None:
            raise CampaignDataError("those judgments are no longer stored")
    return diagnostics_report(
        pool=pool,
        qrels_set=qrels_set,
        measures=job.params.get("measures") or None,
        ks=job.params.get("ks") or (10,),
        progress=progress,
    )
