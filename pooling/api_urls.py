"""REST API routes of campaigns and pools (mounted under /api/)."""

from django.urls import path

from jobs.apis import JobDetailApi
from pooling import apis

app_name = "api"
urlpatterns = [
    path("jobs/<uuid:job_id>/", JobDetailApi.as_view(), name="job"),
    path("campaigns/", apis.CampaignListApi.as_view(), name="campaigns"),
    path("campaigns/create/", apis.CampaignCreateApi.as_view(), name="campaign_create"),
    path("campaigns/<slug:slug>/", apis.CampaignDetailApi.as_view(), name="campaign"),
    path("campaigns/<slug:slug>/runs/", apis.RunListApi.as_view(), name="runs"),
    path("campaigns/<slug:slug>/topics/import/", apis.TopicsImportApi.as_view(), name="topics_import"),
    path("campaigns/<slug:slug>/runs/validate/", apis.RunsValidateApi.as_view(), name="runs_validate"),
    path("campaigns/<slug:slug>/runs/import/", apis.RunsImportApi.as_view(), name="runs_import"),
    path(
        "campaigns/<slug:slug>/documents/import/", apis.DocumentsImportApi.as_view(), name="documents_import"
    ),
    path("campaigns/<slug:slug>/judgments/import/", apis.QrelsImportApi.as_view(), name="qrels_import"),
    path("campaigns/<slug:slug>/pools/", apis.PoolListApi.as_view(), name="pools"),
    path("campaigns/<slug:slug>/pools/build/", apis.PoolBuildApi.as_view(), name="pool_build"),
    path("campaigns/<slug:slug>/pools/<int:pk>/", apis.PoolDetailApi.as_view(), name="pool"),
    path("campaigns/<slug:slug>/pools/<int:pk>/commit/", apis.PoolCommitApi.as_view(), name="pool_commit"),
    path("campaigns/<slug:slug>/pools/<int:pk>/discard/", apis.PoolDiscardApi.as_view(), name="pool_discard"),
    path("campaigns/<slug:slug>/pools/<int:pk>/export/", apis.PoolExportApi.as_view(), name="pool_export"),
    path(
        "campaigns/<slug:slug>/pools/<int:pk>/diagnostics/",
        apis.PoolDiagnosticsApi.as_view(),
        name="pool_diagnostics",
    ),
]
