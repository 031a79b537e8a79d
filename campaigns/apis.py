"""The REST API of campaigns and their imports, and the helpers every app's API shares.

Long operations answer 202 with the job to poll (``GET /api/jobs/<id>/``). Domain errors are 400
with ``{"errors": [...]}``, one line each; a campaign the caller has no role in is 404, a role
that does not allow the operation 403.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.fields import empty
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns import access
from campaigns.inputs import (
    CampaignCreateInput,
    DocumentsImportInput,
    FilesInput,
    QrelsImportInput,
    RunsImportInput,
    TopicsImportInput,
    with_files,
)
from campaigns.models import Campaign, Membership
from campaigns.sections import campaign_sections_json
from campaigns.selectors import campaign_overview, campaign_runs, campaigns_listed
from campaigns.services import campaign_create, campaign_import_enqueue
from jobs.models import Job

ORGANIZER = Membership.Role.ORGANIZER


class JobAcceptedOut(serializers.Serializer):
    job = serializers.UUIDField()
    status = serializers.CharField()
    url = serializers.CharField(help_text="poll it: GET /api/jobs/<id>/")


class CampaignOut(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    max_docs_per_topic = serializers.IntegerField()
    roles = serializers.ListField(child=serializers.CharField(), help_text="the caller's roles in it")


class CampaignRunOut(serializers.Serializer):
    tag = serializers.CharField()
    group = serializers.CharField(allow_null=True)
    priority = serializers.IntegerField()
    file = serializers.CharField(allow_blank=True, help_text="the uploaded file's name")
    submitted_at = serializers.DateTimeField()
    topics = serializers.IntegerField()
    documents = serializers.IntegerField()
    warnings = serializers.ListField(child=serializers.CharField())


def documented(
    *,
    request: Any = None,
    ok: Any = OpenApiTypes.OBJECT,
    status_code: int = 200,
    operation_id: str | None = None,
) -> Any:
    """The schema of an operation: its input and its answer (a list endpoint: ``ok=ItemOut(many=True)``).

    Its refusals (400, 403, 404 as ``{"errors": [...]}``) every operation documents through
    :class:`campaigns.api_errors.ErrorsSchema`.
    """
    return extend_schema(request=request, responses={status_code: ok}, operation_id=operation_id)


class CampaignApi(APIView):
    """An API view on a campaign. The domain's errors become HTTP in :mod:`campaigns.api_errors`:
    not visible 404, wrong role 403, refused 400, each ``{"errors": [...]}``."""

    def organizer_campaign(self, request: Request, slug: str) -> Campaign:
        return access.campaign_for(request.user, slug, ORGANIZER)


def job_json(job: Job) -> dict[str, Any]:
    """What an operation that started a job answers: the job, its status, where to poll it."""
    return {"job": str(job.id), "status": job.status, "url": f"/api/jobs/{job.id}/"}


def job_accepted(job: Job) -> Response:
    return Response(job_json(job), status=status.HTTP_202_ACCEPTED)


def campaign_json(campaign: Campaign, roles: list[str]) -> dict[str, Any]:
    return {
        "slug": campaign.slug,
        "name": campaign.name,
        "description": campaign.description,
        "max_docs_per_topic": campaign.max_docs_per_topic,
        "roles": roles,
    }


class CampaignListApi(CampaignApi):
    @documented(ok=CampaignOut(many=True), operation_id="campaigns_list")
    def get(self, request: Request) -> Response:
        return Response([campaign_json(c, roles) for c, roles in campaigns_listed(user=request.user)])


class CampaignCreateApi(CampaignApi):
    @documented(request=CampaignCreateInput, ok=CampaignOut, status_code=201, operation_id="campaigns_create")
    def post(self, request: Request) -> Response:
        data = CampaignCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        campaign = campaign_create(**data.validated_data, organizer=request.user)  # type: ignore[arg-type]
        return Response(campaign_json(campaign, [ORGANIZER]), status=status.HTTP_201_CREATED)


class CampaignDetailApi(CampaignApi):
    @documented(operation_id="campaign_detail")
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        overview = campaign_overview(campaign=campaign)
        out = campaign_json(campaign, sorted(access.roles(request.user, campaign)))
        out["topics"] = overview["topics"].count()
        out["runs"] = overview["runs"].count()
        out["documents"] = overview["document_count"]
        out |= campaign_sections_json(campaign)
        out["judgments"] = [
            {"id": q.pk, "name": q.name, "lines": q.line_count, "topics": q.topic_count}
            for q in overview["qrels_sets"]
        ]
        return Response(out)


class RunListApi(CampaignApi):
    @documented(ok=CampaignRunOut(many=True), operation_id="campaign_runs")
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        return Response(
            [
                {
                    "tag": r.tag,
                    "group": r.group.name if r.group else None,
                    "priority": r.priority,
                    "file": r.original_filename,
                    "submitted_at": r.submitted_at.isoformat(),
                    "topics": r.topic_count,
                    "documents": r.document_count,
                    "warnings": r.warnings,
                }
                for r in campaign_runs(campaign=campaign)
            ]
        )


class _ImportApi(CampaignApi):
    """An import endpoint: the page's import of the same ``what``, answered with the job to poll."""

    what = ""
    input_class: type[FilesInput] = FilesInput
    fixed: dict[str, Any] = {}  # noqa: RUF012 - per-subclass constants

    def get_serializer_class(self) -> type[Any]:
        """The upload's input, for the schema (each import documents its own fields)."""
        return self.input_class

    @documented(request=empty, ok=JobAcceptedOut, status_code=202)  # the request: get_serializer_class
    def post(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        form = self.input_class(data=with_files(request.data, request.FILES))
        form.is_valid(raise_exception=True)
        options = form.validated_data | self.fixed
        job = campaign_import_enqueue(campaign=campaign, user=request.user, what=self.what, **options)  # type: ignore[arg-type]
        return job_accepted(job)


class TopicsImportApi(_ImportApi):
    what, input_class = "topics", TopicsImportInput


class RunsValidateApi(_ImportApi):
    what, input_class = "runs", RunsImportInput
    fixed = {"validate_only": True}  # noqa: RUF012


class RunsImportApi(_ImportApi):
    what, input_class = "runs", RunsImportInput
    fixed = {"validate_only": False}  # noqa: RUF012


class DocumentsImportApi(_ImportApi):
    what, input_class = "documents", DocumentsImportInput


class QrelsImportApi(_ImportApi):
    what, input_class = "qrels", QrelsImportInput
