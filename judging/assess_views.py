"""The assessor's pages: my assignments, and the judging page of one assignment.

The judging page works as plain HTML forms (one submit button per grade) and assess.js turns it
into a keyboard-driven page that saves each judgment through the API the moment it is given.
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
from django.views.decorators.http import require_GET, require_POST

from campaigns.errors import CampaignDataError
from campaigns.inputs import form_problems
from campaigns.views import access_as_http
from judging.assess_apis import JudgmentInput, queue_top_up
from judging.assess_selectors import (
    assessor_assignment,
    assessor_assignments,
    assignment_item,
    assignment_state,
    item_document,
    judgment_target,
)
from judging.models import Assignment
from judging.services import campaign_scale, judgment_record

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


# ---------------------------------------------------------------------------------------- pages


@login_required
@require_GET
def assess_home(request: HttpRequest) -> HttpResponse:
    return render(request, "judging/assess_home.html", {"rows": assessor_assignments(user=request.user)})


@assessor_page
@require_GET
def assess(request: HttpRequest, assignment: Assignment) -> HttpResponse:
    done, wanted_by_queue = False, None
    try:
        done, wanted_by_queue = queue_top_up(assignment)
    except CampaignDataError as exc:
        messages.error(request, "; ".join(exc.problems))
        done = True
    grades = campaign_scale(campaign=assignment.campaign)
    state = assignment_state(assignment=assignment, grades=grades, done=done)
    items = state["items"]
    positions = [i["position"] for i in items]
    wanted = _position(request.GET.get("item"))
    if wanted in positions:
        index = positions.index(wanted)
    elif wanted_by_queue is not None:
        index = positions.index(wanted_by_queue.position)
    else:  # the first document still to judge, or the end when all are judged
        index = next((n for n, i in enumerate(items) if not i["judged"]), len(items))
    current = None
    if index < len(items):
        item = assignment_item(assignment=assignment, position=items[index]["position"])
        current = item_document(assignment=assignment, item=item)
    document_url = reverse("judging_api:assess_document", args=[assignment.pk, 1])
    state |= {
        "index": index,
        "urls": {
            "state": reverse("judging_api:assess_state", args=[assignment.pk]),
            "judge": reverse("judging_api:assess_judge", args=[assignment.pk]),
            "document": document_url[: -len("1/")],
            "page": reverse("judging:assess", args=[assignment.pk]),
        },
    }
    judged = state["progress"]["judged"]
    total = state["progress"]["total"]
    return render(
        request,
        "judging/assess.html",
        {
            "assignment": assignment,
            "campaign": assignment.campaign,
            "topic": assignment.topic,
            "scale": grades,
            "state": state,
            "current": current,
            "position": index + 1,
            "count": len(items),
            "previous": items[index - 1]["position"] if index > 0 else None,
            "following": items[index + 1]["position"] if index + 1 < len(items) else None,
            "judged": judged,
            "total": total,
            "percent": round(100 * judged / total) if total else 100,
            "done": done,
        },
    )


@assessor_page
@require_POST
def assess_judge(request: HttpRequest, assignment: Assignment) -> HttpResponseBase:
    """The form fallback of the judging page: save, then show the next document (POST-redirect-GET)."""
    page = reverse("judging:assess", args=[assignment.pk])
    form = JudgmentInput(data=request.POST)
    if not form.is_valid():
        messages.error(request, "; ".join(form_problems(form)))
        return redirect(page)
    data = form.validated_data
    try:
        item = judgment_target(assignment, data)
        judgment_record(
            assessor=request.user,  # type: ignore[arg-type]
            assignment=assignment,
            docno=item.docno,
            grade=None if data["cant_judge"] else data.get("grade"),
            cant_judge=data["cant_judge"],
            comment=data["comment"],
            active_ms=data["active_ms"],
        )
    except CampaignDataError as exc:
        messages.error(request, "; ".join(exc.problems))
        where = data.get("position")
        return redirect(f"{page}?item={where}" if where else page)
    following = (
        assignment.items.filter(position__gt=item.position).order_by("position").first()
        if assignment.order != Assignment.Order.QUEUE
        else None
    )
    return redirect(f"{page}?item={following.position}" if following else page)
