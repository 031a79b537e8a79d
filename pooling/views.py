"""Organizer pages of pools: build with a preview, inspect, commit, discard, export, diagnose.

Each view parses input (through :mod:`pooling.inputs`), calls one service or selector, and
renders. Long work runs as a background job whose page shows its progress.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from campaigns.errors import CampaignDataError
from campaigns.inputs import (
    form_problems,
)
from campaigns.models import Campaign
from campaigns.selectors import campaign_qrels_sets, campaign_runs
from campaigns.views import organizer_page
from jobs.services import job_enqueue
from pooling import exports
from pooling.inputs import DiagnosticsInput, PoolBuildInput
from pooling.models import Pool
from pooling.selectors import pool_get
from pooling.services import pool_commit, pool_discard
from pooling.strategies import ADAPTIVE, FUSIONS, STRATEGIES


def _pool(campaign: Campaign, pk: int) -> Pool:
    try:
        return pool_get(campaign=campaign, pk=pk)
    except CampaignDataError as exc:
        raise Http404(str(exc)) from exc


# ------------------------------------------------------------------------------------ campaigns


# -------------------------------------------------------------------------------------- imports


# ---------------------------------------------------------------------------------------- pools


@organizer_page
@require_http_methods(["GET", "POST"])
def pool_new(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    errors: list[str] = []
    if request.method == "POST":
        form = PoolBuildInput(data=request.POST)
        if form.is_valid():
            data = form.validated_data
            job = job_enqueue(
                kind="pool_build",
                title=f"build pool '{data['name']}' ({data['spec'].strategy}) of {campaign.slug}",
                campaign=campaign,
                user=request.user,  # type: ignore[arg-type]
                params={"name": data["name"], "spec": data["spec"].as_dict()},
            )
            return redirect("jobs:job", job_id=job.id)
        errors = form_problems(form)
    return render(
        request,
        "pooling/pool_new.html",
        {
            "campaign": campaign,
            "errors": errors,
            "form": request.POST,
            "strategies": STRATEGIES,
            "fusions": FUSIONS,
            "adaptive": ADAPTIVE,
            "run_count": campaign_runs(campaign=campaign).count(),
        },
    )


@organizer_page
def pool_detail(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponse:
    pool = _pool(campaign, pk)
    sizes = [
        (topic, s["judge"], s["universe"])
        for topic, s in sorted(pool.sizes.items(), key=lambda x: x[0].encode())
    ]
    largest = max((s[2] for s in sizes), default=0)
    return render(
        request,
        "pooling/pool_detail.html",
        {
            "campaign": campaign,
            "pool": pool,
            "sizes": sizes,
            "largest": largest,
            "sampled": any(judge != universe for _, judge, universe in sizes),
            "qrels_sets": campaign_qrels_sets(campaign=campaign),
        },
    )


@organizer_page
@require_POST
def pool_commit_view(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponse:
    pool = _pool(campaign, pk)
    try:
        pool_commit(pool=pool)
        messages.success(request, f"pool '{pool.name}' committed: it is ready to judge")
    except CampaignDataError as exc:
        messages.error(request, "; ".join(exc.problems))
    return redirect("pooling:pool", slug=campaign.slug, pk=pool.pk)


@organizer_page
@require_POST
def pool_discard_view(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponse:
    pool = _pool(campaign, pk)
    try:
        pool_discard(pool=pool)
    except CampaignDataError as exc:
        messages.error(request, "; ".join(exc.problems))
        return redirect("pooling:pool", slug=campaign.slug, pk=pool.pk)
    messages.success(request, f"draft pool '{pool.name}' discarded")
    return redirect("campaigns:campaign", slug=campaign.slug)


@organizer_page
def pool_export(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponse:
    pool = _pool(campaign, pk)
    fmt = request.GET.get("format", "qrels")
    try:
        body, filename = exports.pool_file(pool=pool, fmt=fmt)
    except ValueError as exc:
        return HttpResponse(str(exc), status=400, content_type="text/plain")
    response = HttpResponse(body, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@organizer_page
@require_POST
def pool_diagnostics(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponseBase:
    pool = _pool(campaign, pk)
    form = DiagnosticsInput(data=request.POST)
    if not form.is_valid():
        for problem in form_problems(form):
            messages.error(request, problem)
        return redirect("pooling:pool", slug=campaign.slug, pk=pool.pk)
    job = job_enqueue(
        kind="pool_diagnostics",
        title=f"diagnostics of pool '{pool.name}' of {campaign.slug}",
        campaign=campaign,
        user=request.user,  # type: ignore[arg-type]
        params=diagnostics_params(pool, form.validated_data),
    )
    return redirect("jobs:job", job_id=job.id)


def diagnostics_params(pool: Pool, data: dict[str, Any]) -> dict[str, Any]:
    measures = [m for m in (data.get("measures") or "").replace(",", " ").split() if m]
    return {
        "pool": pool.pk,
        "qrels_set": data.get("qrels_set"),
        "measures": measures,
        "ks": list(data.get("ks") or (10,)),
    }
