"""Organizer pages of the kernel: the campaign list, a campaign's overview, and the imports; and
the page decorators every app shares.

Each view parses input (through :mod:`campaigns.inputs`), calls one service or selector, and
renders; a domain refusal is listed on the form. Imports run as background jobs whose page shows
their progress.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_safe

from campaigns import access
from campaigns.errors import CampaignDataError
from campaigns.inputs import IMPORT_INPUTS, CampaignCreateInput, FilesInput, validated, with_files
from campaigns.models import Campaign, Membership
from campaigns.selectors import campaign_overview, campaigns_listed
from campaigns.services import campaign_create, campaign_import_enqueue

ORGANIZER = Membership.Role.ORGANIZER


View = Callable[..., HttpResponseBase]


@contextmanager
def refusals_as_messages(request: HttpRequest) -> Iterator[None]:
    """A domain refusal becomes the page's error messages, one per problem."""
    try:
        yield
    except CampaignDataError as exc:
        for problem in exc.problems:
            messages.error(request, problem)


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
def campaign_list(request: HttpRequest) -> HttpResponseBase:
    errors: list[str] = []
    if request.method == "POST":
        try:
            with access_as_http():
                data = validated(CampaignCreateInput(data=request.POST))
                campaign = campaign_create(**data, organizer=request.user)  # type: ignore[arg-type]
            return redirect("campaigns:campaign", slug=campaign.slug)
        except CampaignDataError as exc:
            errors = exc.problems
    context = {
        "rows": campaigns_listed(user=request.user),
        "can_create": access.can_create_campaign(request.user),
        "errors": errors,
        "form": request.POST,
    }
    return render(request, "campaigns/campaign_list.html", context)


@organizer_page
@require_safe
def campaign_detail(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    return render(request, "campaigns/campaign_detail.html", campaign_overview(campaign=campaign))


@organizer_page
@require_http_methods(["GET", "POST"])
def campaign_import(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    errors: dict[str, list[str]] = {}
    if request.method == "POST":
        what = request.POST.get("what", "")
        form = IMPORT_INPUTS.get(what, FilesInput)(data=with_files(request.POST, request.FILES))
        try:
            job = campaign_import_enqueue(
                campaign=campaign,
                user=request.user,  # type: ignore[arg-type]
                what=what,
                **validated(form),
            )
            return redirect("jobs:job", job_id=job.id)
        except CampaignDataError as exc:
            errors[what if what in IMPORT_INPUTS else "form"] = exc.problems
    return render(request, "campaigns/import.html", {"campaign": campaign, "errors": errors})
