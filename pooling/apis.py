"""The REST API of pools: one view per operation, the pages' inputs and services.

Long operations answer 202 with the job to poll (``GET /api/jobs/<id>/``). Domain errors are 400
with ``{"errors": [...]}``, one line each; a campaign the caller has no role in is 404, a role
that does not allow the operation 403.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns.apis import CampaignApi, JobAcceptedOut, documented, job_accepted
from campaigns.errors import CampaignDataError
from pooling import exports
from pooling.inputs import DiagnosticsInput, PoolBuildInput
from pooling.models import Pool
from pooling.selectors import campaign_pools, pool_get, pool_strata
from pooling.services import pool_build_enqueue, pool_commit, pool_diagnostics_enqueue, pool_discard


class PoolApi(CampaignApi):
    """A campaign API view that also finds the URL's pool (404 when the campaign has no such pool)."""

    def pool(self, request: Request, slug: str, pk: int) -> Pool:
        campaign = self.organizer_campaign(request, slug)
        try:
            pool = pool_get(campaign=campaign, pk=pk)
        except CampaignDataError as exc:
            raise exceptions.NotFound(str(exc)) from exc
        pool.campaign = campaign  # already read, with the access check
        return pool


class PoolOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    strategy = serializers.CharField()
    spec = serializers.DictField(help_text="the strategy's parameters")
    runs = serializers.ListField(child=serializers.CharField(), help_text="tags of the pooled runs")
    status = serializers.CharField(help_text=" | ".join(Pool.Status.values))
    documents = serializers.IntegerField()
    adaptive = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    committed_at = serializers.DateTimeField(allow_null=True)


class StratumOut(serializers.Serializer):
    stratum = serializers.CharField(help_text="a rank stratum, or a machine's grade g<grade> or ungraded")
    candidates = serializers.IntegerField(help_text="its documents over every topic")
    judge = serializers.IntegerField(help_text="those drawn for judging")


class PoolDetailOut(PoolOut):
    sizes = serializers.DictField(help_text="documents per topic")
    strata = StratumOut(many=True, help_text="per stratum of the design, in its order")


FORMAT_PARAMETER = OpenApiParameter("format", str, enum=["qrels", "prel", "mq"], description="file format")


def pool_json(pool: Pool, *, sizes: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": pool.pk,
        "name": pool.name,
        "strategy": pool.strategy,
        "spec": pool.spec,
        "runs": pool.runs,
        "status": pool.status,
        "documents": pool.document_count,
        "adaptive": pool.adaptive,
        "created_at": pool.created_at.isoformat(),
        "committed_at": pool.committed_at.isoformat() if pool.committed_at else None,
    }
    if sizes:
        out["sizes"] = pool.sizes
        out["strata"] = [c._asdict() for c in pool_strata(pool=pool)]
    return out


class PoolListApi(PoolApi):
    @documented(ok=PoolOut(many=True), operation_id="campaign_pools")
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        return Response([pool_json(p) for p in campaign_pools(campaign=campaign)])


class PoolBuildApi(PoolApi):
    @documented(request=PoolBuildInput, ok=JobAcceptedOut, status_code=202, operation_id="pool_build")
    def post(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        form = PoolBuildInput(data=request.data)
        form.is_valid(raise_exception=True)
        return job_accepted(pool_build_enqueue(campaign=campaign, user=request.user, **form.validated_data))  # type: ignore[arg-type]


class PoolDetailApi(PoolApi):
    @documented(ok=PoolDetailOut, operation_id="pool_detail")
    def get(self, request: Request, slug: str, pk: int) -> Response:
        return Response(pool_json(self.pool(request, slug, pk), sizes=True))


class PoolCommitApi(PoolApi):
    @documented(request=None, ok=PoolOut, operation_id="pool_commit")
    def post(self, request: Request, slug: str, pk: int) -> Response:
        return Response(pool_json(pool_commit(pool=self.pool(request, slug, pk))))


class PoolDiscardApi(PoolApi):
    @documented(request=None, ok=None, status_code=204, operation_id="pool_discard")
    def post(self, request: Request, slug: str, pk: int) -> Response:
        pool_discard(pool=self.pool(request, slug, pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


class PoolExportApi(PoolApi):
    @extend_schema(parameters=[FORMAT_PARAMETER], responses={(200, "text/plain"): OpenApiTypes.STR})
    def get(self, request: Request, slug: str, pk: int) -> HttpResponse:
        return exports.pool_download(
            pool=self.pool(request, slug, pk), fmt=request.GET.get("format", "qrels")
        )


class PoolDiagnosticsApi(PoolApi):
    @documented(request=DiagnosticsInput, ok=JobAcceptedOut, status_code=202, operation_id="pool_diagnostics")
    def post(self, request: Request, slug: str, pk: int) -> Response:
        pool = self.pool(request, slug, pk)
        form = DiagnosticsInput(data=request.data)
        form.is_valid(raise_exception=True)
        return job_accepted(pool_diagnostics_enqueue(pool=pool, user=request.user, **form.validated_data))  # type: ignore[arg-type]
