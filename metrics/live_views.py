"""Pages of the live estimates (refreshed by polling) and the reusability report on the judgments so far.

Organizers only: the estimates name runs and count relevant documents per topic. Inputs are shared
with the API (:mod:`metrics.live_apis`), so a parameter means the same on either edge. The chart is
server-rendered SVG (:func:`live_chart_svg`); the page's script asks the API for a fresh one with the
numbers, so first load and refresh draw it with the same code.
"""

from __future__ import annotations

import math
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_http_methods, require_POST
from rest_framework import serializers

from campaigns.errors import CampaignDataError
from campaigns.inputs import FormInput, form_problems
from campaigns.models import Campaign
from campaigns.views import organizer_page
from engine.estimates import DESIGNS, INTERVALS
from judging.consensus import RULES
from metrics.live_jobs import leaderboard_job_enqueue, reuse_job_enqueue
from metrics.live_selectors import (
    NOT_REUSABLE,
    inline_lines,
    live_pool,
    live_pools,
    live_report,
    reuse_jobs,
)
from pooling.diagnostics import DEFAULT_MEASURES
from pooling.models import Pool

REFRESH_SECONDS = 5

# ------------------------------------------------------------------------------------ inputs


class LiveInput(FormInput):
    pool = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1)
    rule = serializers.ChoiceField(choices=RULES, default="majority")
    confidence = serializers.FloatField(default=0.95, min_value=0.5, max_value=0.999)
    refresh = serializers.IntegerField(default=REFRESH_SECONDS, min_value=1, max_value=300)
    chart = serializers.BooleanField(default=False)


class JobInput(FormInput):
    pool = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1)
    rule = serializers.ChoiceField(choices=RULES, default="majority")


def _parsed(cls: type[FormInput], data: Any) -> tuple[dict[str, Any], list[str]]:
    """The validated input, or the defaults with the problems to show."""
    form = cls(data=data)
    if form.is_valid():
        return dict(form.validated_data), []
    blank = cls(data={})
    blank.is_valid(raise_exception=True)
    return dict(blank.validated_data), form_problems(form)


# ------------------------------------------------------------------------------------ the chart

CHART_WIDTH = 760
LABEL_WIDTH = 64
RIGHT_MARGIN = 24
TOP = 34
ROW = 24
BOTTOM = 34


def _nice_step(top: float, ticks: int = 6) -> float:
    """A 1-2-5 step giving at most ``ticks`` intervals up to ``top``."""
    raw = max(top, 1.0) / ticks
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * power >= raw:
            return float(max(m * power, 1))
    return float(10 * power)


def chart_context(report: dict[str, Any]) -> dict[str, Any]:
    """Geometry of the R̂ chart: per topic a bar for relevant found, R̂ as a dot with its interval
    as a whisker, or (no estimate) a dashed line over the logical range found … found + unjudged."""
    topics = report["topics"]
    scale_top = 1.0
    for t in topics:
        scale_top = max(scale_top, float(t["found"]))
        if t["r_hat"] is not None:
            scale_top = max(scale_top, float(t["high"]), float(t["r_hat"]))
    step = _nice_step(scale_top)
    x_max = step * math.ceil(scale_top / step)
    plot = CHART_WIDTH - LABEL_WIDTH - RIGHT_MARGIN

    def x(v: float) -> float:
        return round(LABEL_WIDTH + plot * min(max(v, 0.0), x_max) / x_max, 1)

    rows = []
    for i, t in enumerate(topics):
        estimated = t["r_hat"] is not None
        high = float(t["high"])
        rows.append(
            {
                "topic": t["topic"],
                "design": t["design"],
                "y": TOP + i * ROW,
                "found": t["found"],
                "found_w": round(x(t["found"]) - LABEL_WIDTH, 1),
                "estimated": estimated,
                "r_hat": t["r_hat"],
                "low": t["low"],
                "high": t["high"],
                "x_rhat": x(float(t["r_hat"])) if estimated else None,
                "x_low": x(float(t["low"])),
                "x_high": x(high),
                "clipped": high > x_max,
                "interval": t["interval_text"],
            }
        )
    height = TOP + len(topics) * ROW + BOTTOM
    ticks = []
    v = 0.0
    while v <= x_max + 1e-9:
        ticks.append({"x": x(v), "label": f"{v:g}"})
        v += step
    return {
        "width": CHART_WIDTH,
        "height": height,
        "left": LABEL_WIDTH,
        "right": CHART_WIDTH - RIGHT_MARGIN,
        "axis_y": TOP + len(topics) * ROW + 4,
        "rows": rows,
        "ticks": ticks,
        "confidence": round(100 * float(report["confidence"]), 1),
    }


def live_chart_svg(report: dict[str, Any]) -> str:
    return render_to_string("metrics/live_chart.html", {"chart": chart_context(report)})


# ------------------------------------------------------------------------------------ pages


def _pool_or_none(campaign: Campaign, pk: int | None) -> tuple[Pool | None, list[str]]:
    try:
        return live_pool(campaign=campaign, pk=pk), []
    except CampaignDataError as exc:
        return None, exc.problems


@organizer_page
def live_page(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    data, errors = _parsed(LiveInput, request.GET)
    status = 400 if errors else 200
    pool, problems = _pool_or_none(campaign, data["pool"])
    if pool is None and data["pool"] is not None:
        status = 400  # a pool that is not there; no committed pool at all is only news
    errors += problems
    report = None
    chart = ""
    if pool is not None:
        try:
            report = live_report(
                campaign=campaign, pool=pool, rule=data["rule"], confidence=data["confidence"]
            )
            chart = live_chart_svg(report)
        except CampaignDataError as exc:  # labels the consensus rule cannot read
            errors += exc.problems
            status = 400
    return render(
        request,
        "metrics/live.html",
        {
            "campaign": campaign,
            "pools": live_pools(campaign=campaign),
            "pool": pool,
            "rules": RULES,
            "params": data,
            "errors": errors,
            "report": report,
            "chart": chart,
            "designs": DESIGNS,
            "intervals": INTERVALS,
            "inline_lines": inline_lines(),
            "refresh_ms": data["refresh"] * 1000,
        },
        status=status,
    )


@organizer_page
@require_POST
def live_leaderboard(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    data, errors = _parsed(JobInput, request.POST)
    pool, problems = _pool_or_none(campaign, data["pool"])
    if errors or pool is None:
        return HttpResponse("\n".join(errors + problems), status=400, content_type="text/plain")
    job = leaderboard_job_enqueue(
        campaign=campaign,
        user=request.user,  # type: ignore[arg-type]
        pool=pool,
        rule=data["rule"],
    )
    return redirect("jobs:job", job_id=job.id)


@organizer_page
@require_http_methods(["GET", "POST"])
def reuse_page(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    data, errors = _parsed(JobInput, request.POST if request.method == "POST" else request.GET)
    pool, problems = _pool_or_none(campaign, data["pool"])
    if request.method == "POST":
        errors += problems
        if not errors and pool is not None:
            job = reuse_job_enqueue(
                campaign=campaign,
                user=request.user,  # type: ignore[arg-type]
                pool=pool,
                rule=data["rule"],
            )
            return redirect("jobs:job", job_id=job.id)
    return render(
        request,
        "metrics/reuse.html",
        {
            "campaign": campaign,
            "pools": live_pools(campaign=campaign),
            "pool": pool,
            "rules": RULES,
            "params": data,
            "errors": errors,
            "measures": DEFAULT_MEASURES,
            "not_reusable": NOT_REUSABLE,
            "jobs": reuse_jobs(campaign=campaign),
        },
        status=400 if errors else 200,
    )
