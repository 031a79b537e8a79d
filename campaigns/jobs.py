"""The kernel's background jobs: topic, run and qrels imports, each one service call.

A job's result is plain JSON that the job page renders.
"""

from __future__ import annotations

from typing import Any

from campaigns.errors import CampaignDataError, ImportRefused
from campaigns.limits import files_size_check
from campaigns.models import Campaign
from campaigns.selectors import runs_check
from campaigns.services import qrels_set_import, runs_import, topics_import
from campaigns.validation import RunReport, Severity
from jobs.models import Job
from jobs.registry import register
from trec.progress import ProgressCallback

SHOWN = 200  # docnos listed in a result; the counts are always complete


def job_campaign(job: Job) -> Campaign:
    """The campaign a job works on (every pooling, judging and metrics job has one)."""
    if job.campaign is None:
        raise CampaignDataError("the job lost its campaign")
    return job.campaign


def job_files(job: Job, *, parsed: bool = True) -> tuple[list[str], list[str]]:
    """The job's uploads: their paths and their original names; refused, by name, when one
    expands past the size limit (``parsed``: of files read whole in memory; see
    :mod:`campaigns.limits`), before anything parses it."""
    files = job.params.get("files", [])
    if not files:
        raise CampaignDataError("no file was uploaded")
    paths, names = [f[0] for f in files], [f[1] for f in files]
    files_size_check(paths, names, parsed=parsed)
    return paths, names


def report_json(report: RunReport) -> dict[str, Any]:
    return {
        "file": report.path,
        "tag": report.tag,
        "lines": report.lines,  # read, malformed ones included
        "refused_lines": report.refused_lines,
        "accepted_lines": report.accepted_lines,
        "topics": len(report.topics),
        "ok": report.ok,
        "errors": report.render(Severity.ERROR),
        "warnings": report.render(Severity.WARNING),
        # how many, listed or not (the lists stop at LISTED_PER_CODE of a code)
        "error_count": report.counted(Severity.ERROR),
        "warning_count": report.counted(Severity.WARNING),
    }


@register("topics_import", result_template="campaigns/results/topics_import.html")
def topics_import_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    paths, names = job_files(job)
    totals: dict[str, Any] = {"created": 0, "updated": 0, "unchanged": 0, "changed": []}
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
        # which texts an import replaced: the page lists them (the first SHOWN), with the fields
        totals["changed"] += [{"topic": t, "fields": f, "file": name} for t, f in result.changed.items()]
    totals["changed"] = totals["changed"][:SHOWN]
    return totals


@register("runs_import", result_template="campaigns/results/runs_import.html")
def runs_import_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    campaign = job_campaign(job)
    paths, names = job_files(job)
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


@register("qrels_import", result_template="campaigns/results/qrels_import.html")
def qrels_import_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    paths, names = job_files(job)
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
