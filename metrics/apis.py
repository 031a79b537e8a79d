"""The evaluation REST API (under /api/metrics/); its inputs are the pages' (:mod:`metrics.inputs`).

One view per operation, organizers only (404 to non-members, 403 to other roles). Evaluating and
comparing are background jobs: they answer 202 with the job to poll (``GET /api/jobs/<id>/``); a
comparison already computed with the same parameters answers 200 with its result at once.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns.api_errors import ErrorsOut
from campaigns.apis import CampaignApi, job_json
from campaigns.errors import CampaignNotFound
from jobs.models import Job
from judging.consensus import RULES
from metrics.downloads import FILE_FORMATS, evaluation_file
from metrics.evaluations import campaign_evaluations, evaluation_get
from metrics.inputs import (
    SignificanceInput,
    SourceInput,
    parse_significance,
    parse_source,
    parse_source_choice,
)
from metrics.leaderboards import Leaderboard, leaderboard, source_board
from metrics.models import Evaluation
from metrics.runs import run_summary
from metrics.services import evaluation_enqueue, significance_enqueue
from metrics.sources import KINDS, source_dict

# ------------------------------------------------------------------ response shapes (the schema)


class SourceOut(serializers.Serializer):
    kind = serializers.ChoiceField(choices=KINDS)
    rule = serializers.CharField()
    assessor = serializers.CharField(allow_null=True)
    qrels_set = serializers.IntegerField(allow_null=True)
    pool = serializers.IntegerField(allow_null=True)


class EvaluationOut(serializers.Serializer):
    id = serializers.IntegerField()
    source = SourceOut()  # type: ignore[assignment]  # a field, popped by the metaclass
    source_label = serializers.CharField()
    design = serializers.ChoiceField(choices=Evaluation.Design.choices)
    measures = serializers.ListField(child=serializers.CharField())
    runs = serializers.IntegerField()
    topics = serializers.IntegerField()
    judged = serializers.IntegerField()
    unjudged = serializers.IntegerField()
    relevant = serializers.IntegerField()
    seconds = serializers.FloatField()
    created_at = serializers.DateTimeField()
    created_by = serializers.CharField(allow_null=True)


class LeaderboardRowOut(serializers.Serializer):
    run = serializers.CharField()
    result = serializers.IntegerField(help_text="id of the run's scores: GET .../runs/<result>/")
    values = serializers.DictField(child=serializers.FloatField(allow_null=True))


class LeaderboardOut(EvaluationOut):
    sort = serializers.CharField()
    unavailable = serializers.ListField(
        child=serializers.CharField(), help_text="measures the judgments' design cannot estimate"
    )
    rows = LeaderboardRowOut(many=True)


class LatestOut(serializers.Serializer):
    source = SourceOut()  # type: ignore[assignment]  # a field, popped by the metaclass
    evaluation = LeaderboardOut(allow_null=True)
    pending_job = serializers.CharField(allow_null=True, help_text="a queued or running evaluation's job id")


class TopicOut(serializers.Serializer):
    topic = serializers.CharField()
    value = serializers.FloatField(allow_null=True)
    median = serializers.FloatField(allow_null=True)
    best = serializers.FloatField(allow_null=True)
    best_runs = serializers.ListField(child=serializers.CharField())
    values = serializers.DictField(child=serializers.FloatField(allow_null=True))


class RunOut(serializers.Serializer):
    evaluation = serializers.IntegerField()
    run = serializers.CharField()
    measure = serializers.CharField()
    summary = serializers.DictField(child=serializers.FloatField(allow_null=True))
    ranks = serializers.DictField(child=serializers.IntegerField(allow_null=True))
    runs = serializers.IntegerField()
    missing_topics = serializers.ListField(child=serializers.CharField())
    topics = TopicOut(many=True)
    recall = serializers.ListField(child=serializers.FloatField())
    precision = serializers.ListField(child=serializers.FloatField(allow_null=True))
    median_precision = serializers.ListField(child=serializers.FloatField(allow_null=True))


class JobOut(serializers.Serializer):
    job = serializers.UUIDField()
    status = serializers.ChoiceField(choices=Job.Status.choices)
    url = serializers.CharField()


class SignificanceOut(JobOut):
    result = serializers.DictField(
        help_text="params, and the comparison in `manage.py compare --format json`'s shape"
    )


SOURCE_PARAMETERS = [
    OpenApiParameter("kind", str, enum=list(KINDS), description="whose labels count"),
    OpenApiParameter("rule", str, enum=[r for r in RULES if r != "adjudicated"]),
    OpenApiParameter("assessor", str, description="username, with kind=assessor"),
    OpenApiParameter("qrels_set", int, description="imported judgments' id, with kind=qrels"),
    OpenApiParameter("pool", int, description="keep this pool's unjudged documents as such (rel -1)"),
]


def _evaluation_json(e: Evaluation) -> dict[str, Any]:
    return {
        "id": e.pk,
        "source": e.source,
        "source_label": e.source_label,
        "design": e.design,
        "measures": e.measures,
        "runs": e.run_count,
        "topics": e.topic_count,
        "judged": e.judged_count,
        "unjudged": e.unjudged_count,
        "relevant": e.relevant_count,
        "seconds": e.seconds,
        "created_at": e.created_at,
        "created_by": e.created_by.username if e.created_by else None,
    }


def _leaderboard_json(e: Evaluation, board: Leaderboard) -> dict[str, Any]:
    names = [c.name for c in board.columns]
    return _evaluation_json(e) | {
        "sort": board.sort,
        "unavailable": board.missing,
        "rows": [
            {"run": r.tag, "result": r.result, "values": dict(zip(names, r.values, strict=True))}
            for r in board.rows
        ],
    }


def _evaluation(campaign: Any, pk: int) -> Evaluation:
    try:
        return evaluation_get(campaign=campaign, pk=pk)
    except CampaignNotFound as exc:
        raise exceptions.NotFound(str(exc)) from exc


# -------------------------------------------------------------------------------------- views


class EvaluationListApi(CampaignApi):
    @extend_schema(
        responses=EvaluationOut(many=True), summary="The campaign's stored evaluations, newest first"
    )
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        rows = [_evaluation_json(e) for e in campaign_evaluations(campaign=campaign)]
        return Response(EvaluationOut(rows, many=True).data)


class EvaluateApi(CampaignApi):
    @extend_schema(
        request=SourceInput,
        responses={202: JobOut, 400: ErrorsOut},
        summary="Evaluate every run against a judgment source, in the background",
    )
    def post(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        source = parse_source(request.data)
        job = evaluation_enqueue(campaign=campaign, source=source, user=request.user)  # type: ignore[arg-type]
        return Response(JobOut(job_json(job)).data, status=status.HTTP_202_ACCEPTED)


class EvaluationLatestApi(CampaignApi):
    @extend_schema(
        parameters=[*SOURCE_PARAMETERS, OpenApiParameter("sort", str, description="measure to rank by")],
        responses={200: LatestOut, 400: ErrorsOut},
        summary="The last finished evaluation of a source (default: the page's default source)",
    )
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        source = parse_source_choice(request.query_params)
        shown = source_board(campaign=campaign, source=source, sort=request.query_params.get("sort"))
        latest, board, pending = shown.evaluation, shown.board, shown.pending
        out = {
            "source": source_dict(shown.source),
            "evaluation": _leaderboard_json(latest, board) if latest and board else None,
            "pending_job": str(pending.id) if pending else None,
        }
        return Response(LatestOut(out).data)


class EvaluationDetailApi(CampaignApi):
    @extend_schema(
        parameters=[OpenApiParameter("sort", str, description="measure to rank by (default map)")],
        responses=LeaderboardOut,
        summary="A stored evaluation as a leaderboard: every run's mean values, best first",
    )
    def get(self, request: Request, slug: str, pk: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        evaluation = _evaluation(campaign, pk)
        board = leaderboard(evaluation=evaluation, sort=request.query_params.get("sort"))
        return Response(LeaderboardOut(_leaderboard_json(evaluation, board)).data)


class EvaluationRunApi(CampaignApi):
    @extend_schema(
        parameters=[OpenApiParameter("measure", str, description="the per-topic measure (default map)")],
        responses=RunOut,
        summary="One run's per-topic values against each topic's median and best run, and its P-R curve",
    )
    def get(self, request: Request, slug: str, pk: int, result: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        evaluation = _evaluation(campaign, pk)
        try:
            report = run_summary(
                evaluation=evaluation, result_pk=result, measure=request.query_params.get("measure")
            )
        except CampaignNotFound as exc:
            raise exceptions.NotFound(str(exc)) from exc
        names = [c.name for c in report.columns]
        out = {
            "evaluation": evaluation.pk,
            "run": report.result.tag,
            "measure": report.measure,
            "summary": dict(zip(names, report.summary, strict=True)),
            "ranks": dict(zip(names, report.ranks, strict=True)),
            "runs": report.run_count,
            "missing_topics": report.result.missing_topics,
            "topics": [
                {
                    "topic": t.topic,
                    "value": t.value,
                    "median": t.median,
                    "best": t.best,
                    "best_runs": t.best_runs,
                    "values": dict(zip(names, t.values, strict=True)),
                }
                for t in report.topics
            ],
            "recall": [i / 10 for i in range(11)],
            "precision": report.curve,
            "median_precision": report.median_curve,
        }
        return Response(RunOut(out).data)


class EvaluationExportApi(CampaignApi):
    @extend_schema(
        parameters=[
            OpenApiParameter("format", str, enum=list(FILE_FORMATS), description="default trec"),
            OpenApiParameter("run", str, description="only this run (repeatable)", many=True),
        ],
        responses={
            (200, "text/plain"): OpenApiResponse(
                OpenApiTypes.STR, description="`manage.py evaluate -q` output"
            ),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="run,measure,topic,value"),
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT),
        },
        summary="The evaluation as trec_eval-format text, CSV or JSON",
    )
    def get(self, request: Request, slug: str, pk: int) -> HttpResponse:
        campaign = self.organizer_campaign(request, slug)
        evaluation = _evaluation(campaign, pk)
        tags = request.query_params.getlist("run") or None
        file = evaluation_file(
            evaluation=evaluation, fmt=request.query_params.get("format", "trec"), tags=tags
        )
        response = HttpResponse(file.body, content_type=file.content_type)
        response["Content-Disposition"] = f'attachment; filename="{file.filename}"'
        return response


class SignificanceApi(CampaignApi):
    @extend_schema(
        request=SignificanceInput,
        responses={200: SignificanceOut, 202: JobOut, 400: ErrorsOut},
        summary="Compare every pair of runs with one paired test and a correction",
        description=(
            "202 with the job when it has to be computed (its result then holds the matrix); "
            "200 with the result when these exact parameters were computed before."
        ),
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        evaluation = _evaluation(campaign, pk)
        params = parse_significance(request.data, evaluation)
        job = significance_enqueue(evaluation=evaluation, params=params, user=request.user)  # type: ignore[arg-type]
        if job.status == Job.Status.DONE:
            return Response(SignificanceOut(job_json(job) | {"result": job.result}).data)
        if job.status == Job.Status.FAILED:
            return Response({"errors": job.errors}, status=status.HTTP_400_BAD_REQUEST)
        return Response(JobOut(job_json(job)).data, status=status.HTTP_202_ACCEPTED)
