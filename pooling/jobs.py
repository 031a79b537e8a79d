"""Pooling's background jobs: imports, pool builds and diagnostics, each one service call.

The pages and the API enqueue these; a job's result is plain JSON that the job page renders.
"""

from __future__ import annotations

from typing import Any

from jobs.models import Job
from jobs.registry import Progress, register
from pooling.errors import CampaignDataError, ImportRefused
from pooling.models import Campaign, Pool, QrelsSet
from pooling.reports import diagnostics_report
from pooling.selectors import pools_needed_docnos, runs_check
from pooling.services import (
    documents_import,
    pool_build,
    qrels_set_import,
    runs_import,
    topics_import,
)
from pooling.spec import PoolSpec
from pooling.validation import RunReport, Severity

SHOWN = 200  # docnos listed in a result; the counts are always complete


def job_campaign(job: Job) -> Campaign:
    """The campaign a job works on (every pooling, judging and metrics job has one)."""
    if job.campaign is None:
        raise CampaignDataError("the job lost its campaign")
    return job.campaign


def _files(job: Job) -> tuple[list[str], list[str]]:
    files = job.params.get("files", [])
    if not files:
        raise CampaignDataError("no file was uploaded")
    return [f[0] for f in files], [f[1] for f in files]


def report_json(report: RunReport) -> dict[str, Any]:
    return {
        "file": report.path,
        "tag": report.tag,
        "lines": report.lines,
        "topics": len(report.topics),
        "ok": report.ok,
        "errors": report.render(Severity.ERROR),
        "warnings": report.render(Severity.WARNING),
    }


@register("topics_import", result_template="pooling/results/topics_import.html")
def topics_import_job(job: Job, progress: Progress) -> dict[str, Any]:
    paths, names = _files(job)
    totals = {"created": 0, "updated": 0, "unchanged": 0}
    for path, name in zip(paths, names, strict=True):
        try:
            result = topics_import(
                campaign=job_campaign(job), path=path, fmt=job.params.get("format", "auto"), progress=progress
            )
        except ImportRefused as exc:
            raise ImportRefused([p.replace(path, name) for p in exc.problems]) from exc
        totals["created"] += result.created
        totals["updated"] += result.updated
        totals["unchanged"] += result.unchanged
    return totals


@register("runs_import", result_template="pooling/results/runs_import.html")
def runs_import_job(job: Job, progress: Progress) -> dict[str, Any]:
    campaign = job_campaign(job)
    paths, names = _files(job)
    if job.params.get("validate_only"):
        reports = runs_check(campaign=campaign, paths=paths, filenames=names, progress=progress)
        return {"validate_only": True, "reports": [report_json(r) for r in reports], "imported": []}
    try:
        result = runs_import(
            campaign=campaign,
            paths=paths,
            filenames=names,
            group=job.params.get("group") or None,
            priority=job.params.get("priority"),
            progress=progress,
        )
    except ImportRefused as exc:
        exc.result = {  # type: ignore[attr-defined]
            "validate_only": False,
            "reports": [report_json(r) for r in exc.reports],
            "imported": [],
        }
        raise
    return {
        "validate_only": False,
        "reports": [report_json(r) for r in result.reports],
        "imported": [
            {"tag": r.tag, "documents": r.document_count, "topics": r.topic_count} for r in result.runs
        ],
    }


@register("documents_import", result_template="pooling/results/documents_import.html")
def documents_import_job(job: Job, progress: Progress) -> dict[str, Any]:
    campaign = job_campaign(job)
    paths, names = _files(job)
    needed = pools_needed_docnos(campaign=campaign) if job.params.get("only_needed") else None
    try:
        result = documents_import(
            campaign=campaign,
            paths=paths,
            fmt=job.params.get("format", "auto"),
            needed=needed,
            progress=progress,
        )
    except ImportRefused as exc:
        problems = exc.problems
        for path, name in zip(paths, names, strict=True):
            problems = [p.replace(path, name) for p in problems]
        raise ImportRefused(problems) from exc
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
        "only_needed": needed is not None,
    }


@register("qrels_import", result_template="pooling/results/qrels_import.html")
def qrels_import_job(job: Job, progress: Progress) -> dict[str, Any]:
    paths, names = _files(job)
    progress("reading judgments", 0, 1)
    qrels_set = qrels_set_import(
        campaign=job_campaign(job), path=paths[0], name=job.params.get("name", ""), filename=names[0]
    )
    progress("reading judgments", 1, 1)
    return {
        "id": qrels_set.pk,
        "name": qrels_set.name,
        "lines": qrels_set.line_count,
        "topics": qrels_set.topic_count,
        "relevant": qrels_set.relevant_count,
    }


@register("pool_build", result_template="pooling/results/pool_build.html")
def pool_build_job(job: Job, progress: Progress) -> dict[str, Any]:
    try:
        spec = PoolSpec.from_dict(job.params["spec"])
    except (ValueError, TypeError) as exc:
        raise CampaignDataError(str(exc)) from exc
    pool = pool_build(
        campaign=job_campaign(job), name=job.params["name"], spec=spec, user=job.created_by, progress=progress
    )
    return {"pool": pool.pk, "name": pool.name, "documents": pool.document_count, "topics": len(pool.sizes)}


@register("pool_diagnostics", result_template="pooling/results/pool_diagnostics.html")
def pool_diagnostics_job(job: Job, progress: Progress) -> dict[str, Any]:
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
