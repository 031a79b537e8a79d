"""Organizer pages of pools: build with a preview, inspect, commit, discard, export, diagnose.

Each view parses input (through :mod:`pooling.inputs`), calls one service or selector, and
renders; the API calls the same ones. A domain refusal is listed on the form, or shown as a
message on the pool's page. Long work runs as a background job whose page shows its progress.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from campaigns.errors import CampaignDataError
from campaigns.inputs import validated
from campaigns.models import Campaign
from campaigns.selectors import campaign_runs
from campaigns.views import organizer_page, refusals_as_messages
from pooling import exports
from pooling.inputs import DiagnosticsInput, PoolBuildInput
from pooling.models import Pool
from pooling.selectors import pool_documents_without_text, pool_get, pool_overview
from pooling.services import pool_build_enqueue, pool_commit, pool_diagnostics_enqueue, pool_discard
from pooling.strategies import ADAPTIVE, FUSIONS, STRATEGIES

PoolView = Callable[..., HttpResponseBase]


def pool_page(view: PoolView) -> PoolView:
    """An organizer page of the URL's pool: the view gets the pool (404 when the campaign has none)."""

    @organizer_page
    @wraps(view)
    def wrapped(
        request: HttpRequest, campaign: Campaign, pk: int, *args: Any, **kwargs: Any
    ) -> HttpResponseBase:
        try:
            pool = pool_get(campaign=campaign, pk=pk)
        except CampaignDataError as exc:
            raise Http404(str(exc)) from exc
        pool.campaign = campaign  # already read, with the access check
        return view(request, pool, *args, **kwargs)

    return wrapped


def pool_redirect(pool: Pool) -> HttpResponse:
    return redirect("pooling:pool", slug=pool.campaign.slug, pk=pool.pk)


@organizer_page
@require_http_methods(["GET", "POST"])
def pool_new(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    errors: list[str] = []
    if request.method == "POST":
        try:
            data = validated(PoolBuildInput(data=request.POST))
            job = pool_build_enqueue(campaign=campaign, user=request.user, **data)  # type: ignore[arg-type]
            return redirect("jobs:job", job_id=job.id)
        except CampaignDataError as exc:
            errors = exc.problems
    context = {
        "campaign": campaign,
        "errors": errors,
        "form": request.POST,
        # a machine-stratified pool starts from its machine assessor's page, which has its grades
        "strategies": [s for s in STRATEGIES if s != "machine"],
        "fusions": FUSIONS,
        "adaptive": ADAPTIVE,
        "run_count": campaign_runs(campaign=campaign).count(),
    }
    return render(request, "pooling/pool_new.html", context)


@pool_page
@require_safe
def pool_detail(request: HttpRequest, pool: Pool) -> HttpResponse:
    return render(request, "pooling/pool_detail.html", pool_overview(pool=pool))


@pool_page
@require_POST
def pool_commit_view(request: HttpRequest, pool: Pool) -> HttpResponse:
    with refusals_as_messages(request):
        pool_commit(pool=pool)
        messages.success(request, f"pool '{pool.name}' committed: it is ready to judge")
        missing = len(pool_documents_without_text(pool=pool))
        if missing:
            messages.warning(
                request,
                f"{missing} of its documents have no stored text: assessors cannot read them until "
                "you import them (Import, documents)",
            )
    return pool_redirect(pool)


@pool_page
@require_POST
def pool_discard_view(request: HttpRequest, pool: Pool) -> HttpResponse:
    with refusals_as_messages(request):
        pool_discard(pool=pool)
        messages.success(request, f"draft pool '{pool.name}' discarded")
        return redirect("campaigns:campaign", slug=pool.campaign.slug)
    return pool_redirect(pool)


@pool_page
@require_safe
def pool_export(request: HttpRequest, pool: Pool) -> HttpResponse:
    try:
        return exports.pool_download(pool=pool, fmt=request.GET.get("format", "qrels"))
    except CampaignDataError as exc:
        return HttpResponse("\n".join(exc.problems), status=400, content_type="text/plain")


@pool_page
@require_POST
def pool_diagnostics(request: HttpRequest, pool: Pool) -> HttpResponseBase:
    with refusals_as_messages(request):
        data = validated(DiagnosticsInput(data=request.POST))
        job = pool_diagnostics_enqueue(pool=pool, user=request.user, **data)  # type: ignore[arg-type]
        return redirect("jobs:job", job_id=job.id)
    return pool_redirect(pool)
