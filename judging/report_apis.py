"""REST API of adjudication, the agreement report and the exports: one view per operation.

The inputs below are shared with the pages (:mod:`judging.report_views`), so a parameter means the
same and is refused with the same sentence on either edge. Readers of adjudication and agreement
are the campaign's adjudicators and organizers; exports are the organizers', except the final
labels (consensus, adjudicated, binary), which adjudicators may read too. Assessors get 403, people
with no role 404.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns import access
from campaigns.apis import CampaignApi, JobAcceptedOut, documented, job_accepted
from campaigns.inputs import FormInput
from campaigns.models import Campaign
from engine.names import MeasureError, parse_measures
from jobs.models import Job
from jobs.services import job_enqueue
from judging.agreement import DEFAULT_MEASURES
from judging.cli import split_measures
from judging.consensus import RULES
from judging.exports import ADJUDICATOR_KINDS, export_file
from judging.report_selectors import (
    AGREEMENT_JOB,
    QUEUE_VIEWS,
    READERS,
    AgreementParams,
    QueueRow,
    adjudication_queue,
    agreement_result,
    campaign_agreement,
    campaign_topic,
)
from judging.services import adjudication_record

ORGANIZER = access.Role.ORGANIZER
MAX_BOOTSTRAP = 10_000

# --------------------------------------------------------------------------------------- inputs


class AgreementInput(FormInput):
    threshold = serializers.IntegerField(default=1, min_value=1)
    bootstrap = serializers.IntegerField(default=0, min_value=0, max_value=MAX_BOOTSTRAP)
    seed = serializers.IntegerField(default=0, min_value=0)
    confidence = serializers.FloatField(default=0.95, min_value=0.5, max_value=0.999)
    runs = serializers.BooleanField(default=False)
    measures = serializers.CharField(required=False, allow_blank=True)
    decimals = serializers.IntegerField(default=4, min_value=0, max_value=10)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        spec = attrs.get("measures") or ""
        measures = [m for piece in spec.split() for m in split_measures(piece)] or list(DEFAULT_MEASURES)
        try:
            parse_measures(measures)
        except MeasureError as exc:
            raise serializers.ValidationError({"measures": str(exc)}) from exc
        attrs["params"] = AgreementParams(
            threshold=attrs["threshold"],
            bootstrap=attrs["bootstrap"],
            seed=attrs["seed"],
            confidence=attrs["confidence"],
            runs=attrs["runs"],
            measures=tuple(measures),
        )
        return attrs


class DecisionInput(FormInput):
    topic = serializers.CharField(max_length=100)
    docno = serializers.CharField(max_length=200)
    grade = serializers.IntegerField()
    note = serializers.CharField(required=False, allow_blank=True, default="")


class QueueInput(FormInput):
    show = serializers.ChoiceField(choices=QUEUE_VIEWS, default="open")
    topic = serializers.CharField(required=False, allow_blank=True, default="")
    page = serializers.IntegerField(default=1, min_value=1)


class ExportInput(FormInput):
    assessor = serializers.CharField(required=False, allow_blank=True, default="")
    rule = serializers.ChoiceField(choices=RULES, default="majority")
    threshold = serializers.IntegerField(default=1, min_value=1)
    pool = serializers.CharField(required=False, allow_blank=True, default="")


def agreement_job(campaign: Campaign, user: Any, data: dict[str, Any]) -> Job:
    """Enqueue the agreement report (with the run rankings when asked) as a job."""
    params: AgreementParams = data["params"]
    what = "agreement and system rankings" if params.runs else "agreement"
    return job_enqueue(
        kind=AGREEMENT_JOB,
        title=f"{what} of {campaign.slug} (threshold {params.threshold}, bootstrap {params.bootstrap})",
        campaign=campaign,
        user=user,
        params=params.as_dict() | {"decimals": data["decimals"]},
    )


def export_response(campaign: Campaign, kind: str, data: dict[str, Any]) -> HttpResponse:
    body, filename = export_file(
        campaign=campaign,
        kind=kind,
        assessor=data["assessor"] or None,
        rule=data["rule"],
        threshold=data["threshold"],
        pool=data["pool"] or None,
    )
    content_type = "text/csv" if kind == "csv" else "text/plain"
    response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def export_roles(kind: str) -> tuple[str, ...]:
    """Who may download ``kind``: adjudicators the final labels, organizers everything."""
    return READERS if kind in ADJUDICATOR_KINDS else (ORGANIZER,)


# ----------------------------------------------------------------------------------- views


def _row_json(row: QueueRow) -> dict[str, Any]:
    d = row.decision
    return {
        "topic": row.topic,
        "docno": row.docno,
        "distance": row.distance,
        "votes": [
            {"assessor": name, "grade": grade, "cant_judge": grade is None} for name, grade in row.votes
        ],
        "decision": None
        if d is None
        else {
            "grade": d.grade,
            "adjudicator": d.adjudicator.username,
            "note": d.note,
            "decided_at": d.decided_at.isoformat(),
        },
    }


class AdjudicationQueueApi(CampaignApi):
    """``GET``: the disagreements, largest grade distance first (``?show=open|decided|all&topic=``)."""

    @extend_schema(
        parameters=[QueueInput], responses={200: OpenApiTypes.OBJECT}, operation_id="adjudication_queue"
    )
    def get(self, request: Request, slug: str) -> Response:
        campaign = access.campaign_for(request.user, slug, *READERS)
        form = QueueInput(data=request.query_params)
        form.is_valid(raise_exception=True)
        queue = adjudication_queue(
            campaign=campaign, show=form.validated_data["show"], topic=form.validated_data["topic"] or None
        )
        return Response(
            {"open": queue.open, "decided": queue.decided, "rows": [_row_json(r) for r in queue.rows]}
        )


class AdjudicationDecideApi(CampaignApi):
    """``POST {topic, docno, grade, note}``: record or change the final grade of a document."""

    @documented(request=DecisionInput, operation_id="adjudication_decide")
    def post(self, request: Request, slug: str) -> Response:
        campaign = access.campaign_for(request.user, slug, *READERS)
        form = DecisionInput(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        decision = adjudication_record(
            adjudicator=request.user,  # type: ignore[arg-type]
            campaign=campaign,
            topic=campaign_topic(campaign=campaign, number=data["topic"]),
            docno=data["docno"],
            grade=data["grade"],
            note=data["note"],
        )
        return Response(
            {
                "topic": data["topic"],
                "docno": decision.docno,
                "grade": decision.grade,
                "note": decision.note,
                "adjudicator": decision.adjudicator.username,
                "decided_at": decision.decided_at.isoformat(),
            }
        )


class AgreementApi(CampaignApi):
    """``GET ?threshold=&bootstrap=&seed=&confidence=``: the agreement report now, without the
    system rankings (POST to the report endpoint for those: they run as a job)."""

    @extend_schema(
        parameters=[AgreementInput], responses={200: OpenApiTypes.OBJECT}, operation_id="agreement"
    )
    def get(self, request: Request, slug: str) -> Response:
        campaign = access.campaign_for(request.user, slug, *READERS)
        form = AgreementInput(data=request.query_params)
        form.is_valid(raise_exception=True)
        params = replace(form.validated_data["params"], runs=False)
        report = campaign_agreement(campaign=campaign, params=params)
        return Response(agreement_result(report, params, display=False))


class AgreementReportApi(CampaignApi):
    """``POST``: the whole report, with the runs ranked under each assessor when ``runs`` is true;
    202 with the job to poll (``GET /api/jobs/<id>/``)."""

    @documented(request=AgreementInput, ok=JobAcceptedOut, status_code=202, operation_id="agreement_report")
    def post(self, request: Request, slug: str) -> Response:
        campaign = access.campaign_for(request.user, slug, *READERS)
        form = AgreementInput(data=request.data)
        form.is_valid(raise_exception=True)
        job = agreement_job(campaign, request.user, form.validated_data)
        return job_accepted(job)


class ExportApi(CampaignApi):
    """``GET ?assessor=&rule=&threshold=&pool=``: one export file (:mod:`judging.exports`)."""

    @extend_schema(
        parameters=[ExportInput],
        responses={(200, "text/plain"): OpenApiTypes.STR},
        operation_id="judgments_export",
    )
    def get(self, request: Request, slug: str, kind: str) -> HttpResponse:
        campaign = access.campaign_for(request.user, slug, *export_roles(kind))
        form = ExportInput(data=request.query_params)
        form.is_valid(raise_exception=True)
        return export_response(campaign, kind, form.validated_data)
