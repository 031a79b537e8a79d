"""A job's page (a progress bar, then its result) and the status the page polls."""

from __future__ import annotations

import uuid

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from campaigns.access import job_for
from jobs import registry
from jobs.models import Job
from jobs.selectors import job_status


def _visible(request: HttpRequest, job_id: uuid.UUID) -> Job:
    job = job_for(request.user, job_id)
    if job is None:
        raise Http404("no such job")
    return job


@login_required
def job_page(request: HttpRequest, job_id: uuid.UUID) -> HttpResponse:
    job = _visible(request, job_id)
    return render(
        request,
        "jobs/job.html",
        {
            "job": job,
            "status": job_status(job=job),
            "result": job.result,
            "result_template": registry.kind(job.kind).result_template,
        },
    )


@login_required
def job_status_json(request: HttpRequest, job_id: uuid.UUID) -> JsonResponse:
    return JsonResponse(job_status(job=_visible(request, job_id)))
