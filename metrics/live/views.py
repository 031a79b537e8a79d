"""Pages of the live estimates (refreshed by polling) and the reusability report on the judgments so far.

Organizers only: the estimates name runs and count relevant documents per topic. Inputs are shared
with the API (:mod:`metrics.live.inputs`), and so are the operations (:mod:`metrics.live.services`).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from campaigns.errors import CampaignDataError
from campaigns.models import Campaign
from campaigns.views import organizer_page
from engine.estimates import DESIGNS, INTERVALS
from judging.consensus import RULES
from metrics.live.charts import live_chart_svg
from metrics.live.inputs import JobInput, LiveInput, parsed
from metrics.live.reusability import NOT_REUSABLE, reuse_choices
from metrics.live.selectors import inline_lines, live_state
from metrics.live.services import live_leaderboard_enqueue, reusability_report_enqueue
from pooling.diagnostics import DEFAULT_MEASURES


@organizer_page
def live_page(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    data, errors = parsed(LiveInput, request.GET)
    state = live_state(campaign=campaign, pool=data["pool"], rule=data["rule"], confidence=data["confidence"])
    status = 400 if errors or (state.problems and not state.waiting) else 200
    report = state.report
    return render(
        request,
        "metrics/live.html",
        {
            "campaign": campaign,
            "pools": state.pools,
            "pool_id": report["pool"]["id"] if report else data["pool"],
            "rules": RULES,
            "params": data,
            "errors": errors + state.problems,
            "report": report,
            "chart": live_chart_svg(report) if report else "",
            "designs": DESIGNS,
            "intervals": INTERVALS,
            "inline_lines": inline_lines(),
            "refresh_ms": data["refresh"] * 1000,
        },
        status=status,
    )


@organizer_page
@require_POST
def live_leaderboard_start(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    data, errors = parsed(JobInput, request.POST)
    if not errors:
        try:
            job = live_leaderboard_enqueue(
                campaign=campaign,
                user=request.user,  # type: ignore[arg-type]
                pool=data["pool"],
                rule=data["rule"],
            )
        except CampaignDataError as exc:
            errors = exc.problems
        else:
            return redirect("jobs:job", job_id=job.id)
    return HttpResponse("\n".join(errors), status=400, content_type="text/plain")


@organizer_page
@require_http_methods(["GET", "POST"])
def reuse_page(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    """GET shows the form and the latest reports; POST starts a report (a job)."""
    data, errors = parsed(JobInput, request.POST if request.method == "POST" else request.GET)
    if request.method == "POST" and not errors:
        try:
            job = reusability_report_enqueue(
                campaign=campaign,
                user=request.user,  # type: ignore[arg-type]
                pool=data["pool"],
                rule=data["rule"],
            )
        except CampaignDataError as exc:
            errors = exc.problems
        else:
            return redirect("jobs:job", job_id=job.id)
    choices = reuse_choices(campaign=campaign, pool=data["pool"])
    return render(
        request,
        "metrics/reuse.html",
        {
            "campaign": campaign,
            "pools": choices.pools,
            "pool": choices.pool,
            "rules": RULES,
            "params": data,
            "errors": errors,
            "measures": DEFAULT_MEASURES,
            "not_reusable": NOT_REUSABLE,
            "jobs": choices.jobs,
        },
        status=400 if errors else 200,
    )
