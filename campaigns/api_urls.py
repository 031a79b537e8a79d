"""REST API routes of campaigns, their imports and jobs (mounted under /api/ in the "api" namespace)."""

from django.urls import path

from campaigns import apis
from campaigns.job_pages.apis import JobDetailApi

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
]
