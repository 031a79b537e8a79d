"""The REST API of campaigns and their imports, and the helpers every app's API shares.

Long operations answer 202 with the job to poll (``GET /api/jobs/<id>/``). Domain errors are 400
with ``{"errors": [...]}``, one line each; a campaign the caller has no role in is 404, a role
that does not allow the operation 403.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns import access
from campaigns.errors import CampaignDataError
from campaigns.inputs import (
    CampaignCreateInput,
    DocumentsImportInput,
    QrelsImportInput,
    RunsImportInput,
    TopicsImportInput,
)
from campaigns.models import Campaign, Document, Membership
from campaigns.sections import campaign_sections_json
from campaigns.selectors import campaign_qrels_sets, campaign_runs
from campaigns.services import campaign_create, membership_add
from jobs.models import Job
from jobs.services import job_enqueue

ORGANIZER = Membership.Role.ORGANIZER


class JobAcceptedOut(serializers.Serializer):
    job = serializers.UUIDField()
    status = serializers.CharField()
    url = serializers.CharField(help_text="poll it: GET /api/jobs/<id>/")


class ErrorsOut(serializers.Serializer):
    errors = serializers.ListField(child=serializers.CharField(), help_text="one line per problem")  # type: ignore[assignment]


def documented(
    *,
    request: Any = None,
    ok: Any = OpenApiTypes.OBJECT,
    status_code: int = 200,
    operation_id: str | None = None,
) -> Any:
    """The schema of an operation: its input, its answer, and the domain refusals every one has."""
    return extend_schema(
        request=request,
        responses={status_code: ok, 400: ErrorsOut, 403: OpenApiTypes.OBJECT, 404: OpenApiTypes.OBJECT},
        operation_id=operation_id,
    )


class CampaignApi(APIView):
    """Maps the domain's errors to HTTP: not visible 404, wrong role 403, refused 400."""

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, access.NotVisible):
            exc = exceptions.NotFound(str(exc))
        elif isinstance(exc, access.AccessDenied):
            exc = exceptions.PermissionDenied(str(exc))
        elif isinstance(exc, CampaignDataError):
            return Response({"errors": exc.problems}, status=status.HTTP_400_BAD_REQUEST)
        return super().handle_exception(exc)

    def organizer_campaign(self, request: Request, slug: str) -> Campaign:
        return access.campaign_for(request.user, slug, ORGANIZER)



def job_json(job: Job) -> dict[str, Any]:
    """What an operation that started a job answers: the job, its status, where to poll it."""
    return {"job": str(job.id), "status": job.status, "url": f"/api/jobs/{job.id}/"}


def job_accepted(job: Job) -> Response:
    return Response(job_json(job), status=status.HTTP_202_ACCEPTED)


def _campaign_json(campaign: Campaign, roles: frozenset[str]) -> dict[str, Any]:
    return {
        "slug": campaign.slug,
        "name": campaign.name,
        "description": campaign.description,
        "max_docs_per_topic": campaign.max_docs_per_topic,
        "roles": sorted(roles),
    }


class CampaignListApi(CampaignApi):
    @documented(operation_id="campaigns_list")
    def get(self, request: Request) -> Response:
        campaigns = access.visible_campaigns(request.user).order_by("slug")
        return Response([_campaign_json(c, access.roles(request.user, c)) for c in campaigns])


class CampaignCreateApi(CampaignApi):
    @documented(request=CampaignCreateInput, status_code=201, operation_id="campaigns_create")
    def post(self, request: Request) -> Response:
        if not access.can_create_campaign(request.user):
            raise exceptions.PermissionDenied("creating campaigns needs the organizer permission")
        data = CampaignCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        campaign = campaign_create(
            slug=data.validated_data["slug"],
            name=data.validated_data.get("name", ""),
            description=data.validated_data.get("description", ""),
        )
        membership_add(campaign=campaign, user=request.user, roles=[ORGANIZER])  # type: ignore[arg-type]
        return Response(_campaign_json(campaign, frozenset([ORGANIZER])), status=status.HTTP_201_CREATED)


class CampaignDetailApi(CampaignApi):
    @documented(operation_id="campaign_detail")
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        out = _campaign_json(campaign, access.roles(request.user, campaign))
        out["topics"] = campaign.topics.count()
        out["runs"] = campaign_runs(campaign=campaign).count()
        out["documents"] = Document.objects.filter(campaign=campaign).count()
        out |= campaign_sections_json(campaign)
        out["judgments"] = [
            {"id": q.pk, "name": q.name, "lines": q.line_count, "topics": q.topic_count}
            for q in campaign_qrels_sets(campaign=campaign)
        ]
        return Response(out)


class RunListApi(CampaignApi):
    @documented(operation_id="campaign_runs")
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
    input_class: type[Any]

    def get_serializer_class(self) -> type[Any]:
        """The upload's input, for the schema (each import documents its own fields)."""
        return self.input_class

    kind = ""
    noun = ""
    fixed: dict[str, Any] = {}  # noqa: RUF012 - per-subclass constants

    @documented(ok=JobAcceptedOut, status_code=202)
    def post(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        data = request.data.copy() if hasattr(request.data, "copy") else dict(request.data)
        if hasattr(data, "setlist"):
            data.setlist("files", request.FILES.getlist("files"))
        form = self.input_class(data=data)
        form.is_valid(raise_exception=True)
        params = {k: v for k, v in form.validated_data.items() if k != "files"} | self.fixed
        files = form.validated_data["files"]
        job = job_enqueue(
            kind=self.kind,
            title=f"{self.noun} ({len(files)} file(s)) into {campaign.slug}",
            campaign=campaign,
            user=request.user,  # type: ignore[arg-type]
            params=params,
            files=files,
        )
        return job_accepted(job)


class TopicsImportApi(_ImportApi):
    input_class, kind, noun = TopicsImportInput, "topics_import", "import topics"


class RunsValidateApi(_ImportApi):
    input_class, kind, noun = RunsImportInput, "runs_import", "validate runs"
    fixed = {"validate_only": True}  # noqa: RUF012


class RunsImportApi(_ImportApi):
    input_class, kind, noun = RunsImportInput, "runs_import", "import runs"
    fixed = {"validate_only": False}  # noqa: RUF012


class DocumentsImportApi(_ImportApi):
    input_class, kind, noun = DocumentsImportInput, "documents_import", "import documents"


class QrelsImportApi(_ImportApi):
    input_class, kind, noun = QrelsImportInput, "qrels_import", "import judgments"




