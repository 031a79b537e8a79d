"""Organizer pages: campaigns, imports with validation, pool building with a preview, diagnostics.

Each view parses input (through :mod:`pooling.inputs`), calls one service, selector or job, and
renders. Long work runs as a background job whose page shows its progress.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from jobs.models import Job
from jobs.services import job_enqueue
from pooling import access, exports
from pooling.errors import CampaignDataError
from pooling.inputs import (
    CampaignCreateInput,
    DiagnosticsInput,
    DocumentsImportInput,
    PoolBuildInput,
    QrelsImportInput,
    RunsImportInput,
    TopicsImportInput,
    form_problems,
)
from pooling.models import Campaign, Document, Membership, Pool, Topic
from pooling.selectors import campaign_pools, campaign_qrels_sets, campaign_runs, pool_get
from pooling.services import campaign_create, membership_add, pool_commit, pool_discard
from pooling.strategies import ADAPTIVE, FUSIONS, STRATEGIES

ORGANIZER = Membership.Role.ORGANIZER

View = Callable[..., HttpResponseBase]


@contextmanager
def access_as_http() -> Iterator[None]:
    """A page's answer to an access refusal: 404 to non-members, 403 to members without the role."""
    try:
        yield
    except access.NotVisible as exc:
        raise Http404(str(exc)) from exc
    except access.AccessDenied as exc:
        raise PermissionDenied(str(exc)) from exc


def page_campaign(request: HttpRequest, slug: str, *roles: str) -> Campaign:
    with access_as_http():
        return access.campaign_for(request.user, slug, *roles)


def campaign_page(*roles: str) -> Callable[[View], View]:
    """Log-in required; the view gets the campaign of the URL's ``slug`` if the user holds one of
    ``roles`` in it (404 to non-members, 403 to members without the role)."""

    def decorate(view: View) -> View:
        @login_required
        @wraps(view)
        def wrapped(request: HttpRequest, slug: str, *args: Any, **kwargs: Any) -> HttpResponseBase:
            return view(request, page_campaign(request, slug, *roles), *args, **kwargs)

        return wrapped

    return decorate


organizer_page = campaign_page(ORGANIZER)


def _pool(campaign: Campaign, pk: int) -> Pool:
    try:
        return pool_get(campaign=campaign, pk=pk)
    except CampaignDataError as exc:
        raise Http404(str(exc)) from exc


# ------------------------------------------------------------------------------------ campaigns


@login_required
@require_http_methods(["GET", "POST"])
def campaign_list(request: HttpRequest) -> HttpResponse:
    errors: list[str] = []
    can_create = access.can_create_campaign(request.user)
    if request.method == "POST":
        if not can_create:
            raise PermissionDenied("creating campaigns needs the organizer permission")
        form = CampaignCreateInput(data=request.POST)
        if form.is_valid():
            try:
                campaign = campaign_create(
                    slug=form.validated_data["slug"],
                    name=form.validated_data.get("name", ""),
                    description=form.validated_data.get("description", ""),
                )
                membership_add(campaign=campaign, user=request.user, roles=[ORGANIZER])  # type: ignore[arg-type]
                return redirect("pooling:campaign", slug=campaign.slug)
            except CampaignDataError as exc:
                errors = exc.problems
        else:
            errors = form_problems(form)
    campaigns = access.visible_campaigns(request.user).annotate(
        n_topics=Count("topics", distinct=True), n_runs=Count("runs", distinct=True)
    )
    rows = [(c, sorted(access.roles(request.user, c))) for c in campaigns]
    return render(
        request,
        "pooling/campaign_list.html",
        {"rows": rows, "can_create": can_create, "errors": errors, "form": request.POST},
    )


@organizer_page
def campaign_detail(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    return render(
        request,
        "pooling/campaign_detail.html",
        {
            "campaign": campaign,
            "topics": Topic.objects.filter(campaign=campaign).order_by("number"),
            "runs": campaign_runs(campaign=campaign),
            "pools": campaign_pools(campaign=campaign),
            "qrels_sets": campaign_qrels_sets(campaign=campaign),
            "document_count": Document.objects.filter(campaign=campaign).count(),
            "jobs": Job.objects.filter(campaign=campaign).order_by("-created_at")[:10],
            "members": Membership.objects.filter(campaign=campaign).select_related("user").order_by("role"),
        },
    )


# -------------------------------------------------------------------------------------- imports

IMPORTS = {
    "topics": (TopicsImportInput, "topics_import", "topics"),
    "runs": (RunsImportInput, "runs_import", "runs"),
    "documents": (DocumentsImportInput, "documents_import", "documents"),
    "qrels": (QrelsImportInput, "qrels_import", "judgments"),
}


@organizer_page
@require_http_methods(["GET", "POST"])
def campaign_import(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        what = request.POST.get("what", "")
        if what not in IMPORTS:
            errors["form"] = [f"unknown import '{what}'"]
        else:
            input_class, kind, noun = IMPORTS[what]
            data = request.POST.copy()
            data.setlist("files", request.FILES.getlist("files"))  # type: ignore[arg-type]
            form = input_class(data=data)
            if form.is_valid():
                params = {k: v for k, v in form.validated_data.items() if k != "files"}
                verb = "validate" if params.get("validate_only") else "import"
                files = form.validated_data["files"]
                job = job_enqueue(
                    kind=kind,
                    title=f"{verb} {len(files)} {noun} file(s) into {campaign.slug}",
                    campaign=campaign,
                    user=request.user,  # type: ignore[arg-type]
                    params=params,
                    files=files,
                )
                return redirect("jobs:job", job_id=job.id)
            errors[what] = form_problems(form)
    return render(request, "pooling/import.html", {"campaign": campaign, "errors": errors})


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
    return redirect("pooling:campaign", slug=campaign.slug)


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
