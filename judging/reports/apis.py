"""REST API of adjudication, the agreement report and the exports: one view per operation.

Inputs are :mod:`judging.reports.inputs`, shared with the pages (:mod:`judging.reports.views`),
and each operation is one service or selector, the same the page calls. Readers of adjudication
and agreement are the campaign's adjudicators and organizers; exports are the organizers', except
the final labels (consensus, adjudicated, binary), which adjudicators may read too. Assessors get
403, people with no role 404.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns import access
from campaigns.apis import CampaignApi, JobAcceptedOut, documented, job_accepted
from judging.consensus import MACHINE_RULES
from judging.exports import export_roles
from judging.models import Adjudication
from judging.reports.downloads import export_download
from judging.reports.inputs import (
    AdjudicationQueueInput,
    AdjudicationSettingsInput,
    AgreementInput,
    DecisionInput,
    ExportInput,
)
from judging.reports.selectors import (
    LABELS_HIDDEN,
    READERS,
    AdjudicationRow,
    QueueCount,
    adjudication_queue,
    agreement_result,
    campaign_agreement,
    final_labels_hidden,
    machine_rule_counts,
    machine_rule_get,
)
from judging.services import adjudication_decide, adjudication_settings_set, agreement_report_start


def decision_json(d: Adjudication) -> dict[str, Any]:
    return {
        "grade": d.grade,
        "adjudicator": d.adjudicator.username,
        "note": d.note,
        "decided_at": d.decided_at.isoformat(),
    }


def _count_json(count: QueueCount) -> dict[str, int]:
    return {"open": count.open, "decided": count.decided}


def _row_json(row: AdjudicationRow) -> dict[str, Any]:
    return {
        "topic": row.topic,
        "docno": row.docno,
        "distance": row.distance,
        "kind": row.kind,
        "votes": [
            {"assessor": name, "grade": grade, "cant_judge": grade is None} for name, grade in row.votes
        ],
        "decision": None if row.decision is None else decision_json(row.decision),
    }


class AdjudicationQueueApi(CampaignApi):
    """``GET``: the disagreements, largest grade distance first
    (``?show=open|decided|all&kind=all|human|machine&topic=``), with the open and decided counts in
    all and per kind (``human``: people's grades differ; ``machine``: only a machine's does), and the
    campaign's ``machine_rule`` (which of the machine's go to people)."""

    @extend_schema(
        parameters=[AdjudicationQueueInput],
        responses={200: OpenApiTypes.OBJECT},
        operation_id="adjudication_queue",
    )
    def get(self, request: Request, slug: str) -> Response:
        campaign = access.campaign_for(request.user, slug, *READERS)
        form = AdjudicationQueueInput(data=request.query_params)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        queue = adjudication_queue(
            campaign=campaign,
            show=data["show"],
            topic=data["topic"] or None,
            kind=data["kind"],
            viewer=request.user,
        )
        return Response(
            {
                "open": queue.open,
                "decided": queue.decided,
                "kinds": {k: _count_json(c) for k, c in queue.by_kind.items()},
                "machine_rule": queue.machine_rule,
                "rows": [_row_json(r) for r in queue.rows],
            }
        )


class AdjudicationDecideApi(CampaignApi):
    """``POST {topic, docno, grade, note}``: record or change the final grade of a document."""

    @documented(request=DecisionInput, operation_id="adjudication_decide")
    def post(self, request: Request, slug: str) -> Response:
        campaign = access.campaign_for(request.user, slug, *READERS)
        form = DecisionInput(data=request.data)
        form.is_valid(raise_exception=True)
        decision = adjudication_decide(
            adjudicator=request.user,  # type: ignore[arg-type]
            campaign=campaign,
            **form.validated_data,
        )
        body = {"topic": form.validated_data["topic"], "docno": decision.docno}
        return Response(body | decision_json(decision))


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
        data = form.validated_data
        job = agreement_report_start(
            campaign=campaign,
            user=request.user,  # type: ignore[arg-type]
            params=data["params"],
            decimals=data["decimals"],
        )
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
        if final_labels_hidden(campaign=campaign, user=request.user):
            raise access.AccessDenied(LABELS_HIDDEN)
        form = ExportInput(data=request.query_params)
        form.is_valid(raise_exception=True)
        return export_download(campaign=campaign, kind=kind, data=form.validated_data)


class AdjudicationSettingsApi(CampaignApi):
    """``GET``: the campaign's machine rule, and per rule the disagreements only a machine causes
    that it would send to people (open and decided); ``PUT {machine_rule}``: choose the rule.
    Organizers only."""

    def _answer(self, campaign: Any) -> Response:
        counts = machine_rule_counts(campaign=campaign)
        return Response(
            {
                "machine_rule": machine_rule_get(campaign=campaign),
                "rules": {
                    name: {"description": text} | _count_json(counts[name])
                    for name, text in MACHINE_RULES.items()
                },
            }
        )

    @documented(operation_id="adjudication_settings")
    def get(self, request: Request, slug: str) -> Response:
        return self._answer(self.organizer_campaign(request, slug))

    @documented(request=AdjudicationSettingsInput, operation_id="adjudication_settings_set")
    def put(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        form = AdjudicationSettingsInput(data=request.data)
        form.is_valid(raise_exception=True)
        adjudication_settings_set(campaign=campaign, machine_rule=form.validated_data["machine_rule"])
        return self._answer(campaign)
