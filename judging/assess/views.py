"""The assessor's pages: my assignments, and the judging page of one assignment.

The judging page works as plain HTML forms (one submit button per grade) and assess.js turns it
into a keyboard-driven page that saves each judgment through the API the moment it is given. The
form and the API save through the same service, :func:`judging.services.judgment_save`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns.errors import CampaignDataError
from campaigns.inputs import validated
from campaigns.models import Campaign
from campaigns.views import access_as_http, organizer_page
from judging.assess.inputs import GuidelinesInput, JudgmentInput
from judging.assess.selectors import assessor_assignment, assessor_assignments, judging_page
from judging.models import Assignment
from judging.reports.selectors import adjudication_links
from judging.services import assignment_deal, judgment_save
from judging.services.guidelines import campaign_guidelines_set

View = Callable[..., HttpResponseBase]


def assessor_page(view: View) -> View:
    """Log-in required; the assignment from the URL's ``pk``, 404 unless it is the user's own."""

    @login_required
    @wraps(view)
    def wrapped(request: HttpRequest, pk: int, *args: Any, **kwargs: Any) -> HttpResponseBase:
        with access_as_http():
            assignment = assessor_assignment(user=request.user, pk=pk)
        return view(request, assignment, *args, **kwargs)

    return wrapped


def _position(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _page(assignment: Assignment, position: int | None = None) -> str:
    """The judging page's URL, at the document in ``position`` when given."""
    page = reverse("judging:assess", args=[assignment.pk])
    return f"{page}?item={position}" if position else page


def _urls(assignment: Assignment) -> dict[str, str]:
    """Where the page's script reads and saves."""
    document = reverse("judging_api:assess_document", args=[assignment.pk, 1])
    return {
        "state": reverse("judging_api:assess_state", args=[assignment.pk]),
        "judge": reverse("judging_api:assess_judge", args=[assignment.pk]),
        "next": reverse("judging_api:assess_next", args=[assignment.pk]),
        "document": document[: -len("1/")],
        "page": _page(assignment),
    }


# ---------------------------------------------------------------------------------------- pages


@login_required
@require_GET
def assess_home(request: HttpRequest) -> HttpResponse:
    context = {
        "rows": assessor_assignments(user=request.user),
        "adjudications": adjudication_links(user=request.user),
    }
    return render(request, "judging/assess_home.html", context)


@assessor_page
@require_GET
def assess(request: HttpRequest, assignment: Assignment) -> HttpResponse:
    context = judging_page(assignment=assignment, wanted=_position(request.GET.get("item")))
    context["state"]["urls"] = _urls(assignment)
    return render(request, "judging/assess.html", context)


@assessor_page
@require_POST
def assess_judge(request: HttpRequest, assignment: Assignment) -> HttpResponseBase:
    """The form fallback of the judging page: save, then show the next document (POST-redirect-GET)."""
    try:
        data = validated(JudgmentInput(data=request.POST))
        saved = judgment_save(assessor=request.user, assignment=assignment, **data)  # type: ignore[arg-type]
    except CampaignDataError as exc:
        messages.error(request, "; ".join(exc.problems))
        return redirect(_page(assignment, _position(request.POST.get("position"))))
    return redirect(_page(assignment, saved.following.position if saved.following else None))


@assessor_page
@require_POST
def assess_next(request: HttpRequest, assignment: Assignment) -> HttpResponseBase:
    """The form fallback of asking a queue assignment's queue for its next document."""
    try:
        answer = assignment_deal(assessor=request.user, assignment=assignment)  # type: ignore[arg-type]
    except CampaignDataError as exc:
        messages.error(request, "; ".join(exc.problems))
        return redirect(_page(assignment))
    return redirect(_page(assignment, answer.following.position if answer.following else None))


# ---------------------------------------------------------------------------- the organizer's


@organizer_page
@require_http_methods(["GET", "POST"])
def guidelines(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    """The campaign's assessor guidelines, which the judging page shows beside the topic."""
    errors: list[str] = []
    text = campaign.guidelines
    if request.method == "POST":
        text = request.POST.get("guidelines", "")
        try:
            data = validated(GuidelinesInput(data=request.POST))
            campaign_guidelines_set(campaign=campaign, **data)
        except CampaignDataError as exc:
            errors = exc.problems
        else:
            messages.success(request, "guidelines saved")
            return redirect("judging:guidelines", slug=campaign.slug)
    context = {"campaign": campaign, "guidelines": text, "errors": errors}
    return render(request, "judging/assess_guidelines.html", context, status=400 if errors else 200)
