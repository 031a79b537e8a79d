"""Organizer pages of the kernel: the campaign list, a campaign's overview, and the imports.

Each view parses input (through :mod:`campaigns.inputs`), calls one service or selector, and
renders. Imports run as background jobs whose page shows their progress.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from campaigns import access
from campaigns.errors import CampaignDataError
from campaigns.inputs import (
    CampaignCreateInput,
    DocumentsImportInput,
    QrelsImportInput,
    RunsImportInput,
    TopicsImportInput,
    form_problems,
)
from campaigns.models import Campaign, Document, Membership, Topic
from campaigns.sections import campaign_sections
from campaigns.selectors import campaign_qrels_sets, campaign_runs
from campaigns.services import campaign_create, membership_add
from jobs.models import Job
from jobs.services import job_enqueue

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
                return redirect("campaigns:campaign", slug=campaign.slug)
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
        "campaigns/campaign_list.html",
        {"rows": rows, "can_create": can_create, "errors": errors, "form": request.POST},
    )


@organizer_page
def campaign_detail(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    return render(
        request,
        "campaigns/campaign_detail.html",
        {
            "campaign": campaign,
            "topics": Topic.objects.filter(campaign=campaign).order_by("number"),
            "runs": campaign_runs(campaign=campaign),
            "sections": campaign_sections(campaign),
            "qrels_sets": campaign_qrels_sets(campaign=campaign),
            "document_count": Document.objects.filter(campaign=campaign).count(),
            "jobs": Job.objects.filter(campaign=campaign).order_by("-created_at")[:10],
            "members": Membership.objects.filter(campaign=campaign).select_related("user").order_by("role"),
        },
    )


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
    return render(request, "campaigns/import.html", {"campaign": campaign, "errors": errors})








