"""REST API of the live estimates and the reusability report: one view per operation.

``GET live/`` answers the live report now (``?pool=&rule=&confidence=&chart=1``; ``chart`` adds the
server-rendered SVG the page swaps in). The reusability report and, for campaigns too large to score
in the request, the leaderboard run as jobs: 202 with the job to poll (``GET /api/jobs/<id>/``).
Organizers only: assessors and adjudicators 403, people with no role in the campaign 404.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns.apis import CampaignApi, JobAcceptedOut, documented, job_accepted
from metrics.live.charts import live_chart_svg
from metrics.live.inputs import JobInput, LiveInput
from metrics.live.selectors import live_estimates
from metrics.live.services import live_leaderboard_enqueue, reusability_report_enqueue


class LiveEstimatesApi(CampaignApi):
    """``GET``: per topic judged, found, R̂ with its interval and design; the total; the leaderboard."""

    @extend_schema(
        parameters=[LiveInput], responses={200: OpenApiTypes.OBJECT}, operation_id="live_estimates"
    )
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        form = LiveInput(data=request.query_params)
        form.is_valid(raise_exception=True)
        data: dict[str, Any] = form.validated_data
        report = live_estimates(
            campaign=campaign, pool=data["pool"], rule=data["rule"], confidence=data["confidence"]
        )
        if data["chart"]:
            report = dict(report, chart=live_chart_svg(report))
        return Response(report)


class LiveLeaderboardApi(CampaignApi):
    """``POST {pool, rule}``: score every run on the judgments so far, as a job."""

    @documented(request=JobInput, ok=JobAcceptedOut, status_code=202, operation_id="live_leaderboard")
    def post(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        form = JobInput(data=request.data)
        form.is_valid(raise_exception=True)
        job = live_leaderboard_enqueue(
            campaign=campaign,
            user=request.user,  # type: ignore[arg-type]
            pool=form.validated_data["pool"],
            rule=form.validated_data["rule"],
        )
        return job_accepted(job)


class ReuseReportApi(CampaignApi):
    """``POST {pool, rule}``: leave-one-run-out and leave-one-group-out on the judgments so far, as a job."""

    @documented(request=JobInput, ok=JobAcceptedOut, status_code=202, operation_id="reuse_report")
    def post(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        form = JobInput(data=request.data)
        form.is_valid(raise_exception=True)
        job = reusability_report_enqueue(
            campaign=campaign,
            user=request.user,  # type: ignore[arg-type]
            pool=form.validated_data["pool"],
            rule=form.validated_data["rule"],
        )
        return job_accepted(job)
