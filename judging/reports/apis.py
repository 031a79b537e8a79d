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
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns import access
from campaigns.apis import CampaignApi, JobAcceptedOut, documented, job_accepted
from judging.consensus import MACHINE_RULES
from judging.exports import export_roles
from judging.reports.adjudication import (
    adjudication_item,
    decision_json,
    item_json,
    machine_names,
    row_json,
)
from judging.reports.downloads import WITHHELD_HEADER, export_download
from judging.reports.inputs import (
    AdjudicationQueueInput,
    AdjudicationSettingsInput,
    AgreementInput,
    DecisionInput,
    ExportInput,
    ItemInput,
    WithdrawInput,
)
from judging.reports.selectors import (
    READERS,
    AdjudicationRow,
    QueueCount,
    adjudication_queue,
    agreement_result,
    campaign_agreement,
    machine_rule_counts,
    machine_rule_get,
)
from judging.services import (
    adjudication_decide,
    adjudication_settings_set,
    adjudication_withdraw,
    agreement_report_start,
)


class VoteOut(serializers.Serializer):
    assessor = serializers.CharField(help_text="username")
    grade = serializers.IntegerField(allow_null=True, help_text="null: can't judge")
    cant_judge = serializers.BooleanField()
    comment = serializers.CharField(allow_blank=True, required=False)
    machine = serializers.BooleanField(required=False, help_text="a machine assessor (LLM)")


class DecisionOut(serializers.Serializer):
    grade = serializers.IntegerField()
    adjudicator = serializers.CharField(help_text="username")
    note = serializers.CharField(allow_blank=True)
    decided_at = serializers.DateTimeField()


class StatementOut(serializers.Serializer):
    number = serializers.CharField()
    title = serializers.CharField(allow_blank=True)
    description = serializers.CharField(allow_blank=True)
    narrative = serializers.CharField(allow_blank=True)


class QueueRowOut(serializers.Serializer):
    topic = serializers.CharField()
    docno = serializers.CharField()
    distance = serializers.IntegerField(help_text="the largest minus the smallest grade")
    votes = VoteOut(many=True)
    decision = DecisionOut(allow_null=True)


class QueueOut(serializers.Serializer):
    open = serializers.IntegerField()
    decided = serializers.IntegerField()
    rows = QueueRowOut(many=True)


class ItemOut(serializers.Serializer):
    """A disagreement with everything the adjudication page shows of it."""

    topic = serializers.CharField()
    docno = serializers.CharField()
    distance = serializers.IntegerField()
    decision = DecisionOut(allow_null=True)
    votes = VoteOut(many=True, help_text="each assessor's grade and comment")
    title = serializers.CharField(allow_blank=True, help_text="the document's stored title")
    text = serializers.CharField(allow_blank=True, help_text="the document's stored text")
    stored = serializers.BooleanField(help_text="whether the document's text is stored")
    statement = StatementOut(allow_null=True, help_text="the topic")


class DecidedOut(DecisionOut):
    topic = serializers.CharField()
    docno = serializers.CharField()
    previous = serializers.DictField(
        allow_null=True, help_text="your decision it replaced ({grade, note}), null for a first one"
    )
    item = ItemOut(allow_null=True, help_text="the disagreement next_topic/next_docno asked for")


class WithdrawnOut(serializers.Serializer):
    topic = serializers.CharField()
    docno = serializers.CharField()
    withdrawn = serializers.BooleanField()


def _count_json(count: QueueCount) -> dict[str, int]:
    return {"open": count.open, "decided": count.decided}


def _row_json(row: AdjudicationRow) -> dict[str, Any]:
    return row_json(row) | {
        "votes": [
            {"assessor": name, "grade": grade, "cant_judge": grade is None} for name, grade in row.votes
        ],
    }


class AdjudicationQueueApi(CampaignApi):
    """``GET``: the disagreements, largest grade distance first
    (``?show=open|decided|all&kind=all|human|machine&topic=``), with the open and decided counts in
    all and per kind (``human``: people's grades differ; ``machine``: only a machine's does), and the
    campaign's ``machine_rule`` (which of the machine's go to people)."""

    @extend_schema(
        parameters=[AdjudicationQueueInput], responses={200: QueueOut}, operation_id="adjudication_queue"
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


class AdjudicationItemApi(CampaignApi):
    """``GET ?topic=&docno=``: one disagreement of your queue with its document, each assessor's
    grade and comment, the topic and the decision (400 with the reason when it is not in your
    queue: you still have to judge it, or its assessors agree)."""

    @extend_schema(parameters=[ItemInput], responses={200: ItemOut}, operation_id="adjudication_item")
    def get(self, request: Request, slug: str) -> Response:
        campaign = access.campaign_for(request.user, slug, *READERS)
        form = ItemInput(data=request.query_params)
        form.is_valid(raise_exception=True)
        return Response(adjudication_item(campaign=campaign, viewer=request.user, **form.validated_data))


class AdjudicationDecideApi(CampaignApi):
    """``POST {topic, docno, grade, note, next_topic?, next_docno?}``: record or change your final
    grade of a disagreement; with ``next_*``, the answer brings that disagreement along (deciding
    and moving on is one request). Refused (400) when the document is not in your queue or
    someone else decided it."""

    @documented(request=DecisionInput, ok=DecidedOut, operation_id="adjudication_decide")
    def post(self, request: Request, slug: str) -> Response:
        campaign = access.campaign_for(request.user, slug, *READERS)
        form = DecisionInput(data=request.data)
        form.is_valid(raise_exception=True)
        decided = adjudication_decide(
            adjudicator=request.user,  # type: ignore[arg-type]
            campaign=campaign,
            **form.validated_data,
        )
        previous = (
            None if decided.previous is None else dict(zip(("grade", "note"), decided.previous, strict=True))
        )
        ahead = None if decided.ahead is None else item_json(decided.ahead, machine_names(campaign=campaign))
        body = {"topic": form.validated_data["topic"], "docno": decided.decision.docno}
        return Response(body | decision_json(decided.decision) | {"previous": previous, "item": ahead})


class AdjudicationWithdrawApi(CampaignApi):
    """``POST {topic, docno, grade}``: withdraw your decision, which must still be ``grade`` (the
    page's undo of a first decision); the document is open in the queue again."""

    @documented(request=WithdrawInput, ok=WithdrawnOut, operation_id="adjudication_withdraw")
    def post(self, request: Request, slug: str) -> Response:
        campaign = access.campaign_for(request.user, slug, *READERS)
        form = WithdrawInput(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        adjudication_withdraw(adjudicator=request.user, campaign=campaign, **data)  # type: ignore[arg-type]
        return Response({"topic": data["topic"], "docno": data["docno"], "withdrawn": True})


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
        responses={
            (200, "text/plain"): OpenApiResponse(
                OpenApiTypes.STR,
                description=(
                    f"The file. Final labels (consensus, adjudicated, binary, prel, mq) leave out the "
                    f"documents you still have to judge yourself; the {WITHHELD_HEADER} header says how "
                    "many (0: none), and the file name ends '-withheld-N' when any were."
                ),
            )
        },
        operation_id="judgments_export",
    )
    def get(self, request: Request, slug: str, kind: str) -> HttpResponse:
        campaign = access.campaign_for(request.user, slug, *export_roles(kind))
        form = ExportInput(data=request.query_params)
        form.is_valid(raise_exception=True)
        return export_download(campaign=campaign, kind=kind, data=form.validated_data, user=request.user)


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
