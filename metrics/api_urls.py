"""Metrics API routes (namespace ``metrics_api``, under /api/metrics/)."""

from django.urls import URLPattern, path

from metrics import apis
from metrics.live import urls as live_urls

app_name = "metrics_api"
urlpatterns: list[URLPattern] = [
    path("campaigns/<slug:slug>/evaluations/", apis.EvaluationListApi.as_view(), name="evaluations"),
    path("campaigns/<slug:slug>/evaluations/evaluate/", apis.EvaluateApi.as_view(), name="evaluate"),
    path("campaigns/<slug:slug>/evaluations/latest/", apis.EvaluationLatestApi.as_view(), name="latest"),
    path(
        "campaigns/<slug:slug>/evaluations/<int:pk>/", apis.EvaluationDetailApi.as_view(), name="evaluation"
    ),
    path(
        "campaigns/<slug:slug>/evaluations/<int:pk>/runs/<int:result>/",
        apis.EvaluationRunApi.as_view(),
        name="run",
    ),
    path(
        "campaigns/<slug:slug>/evaluations/<int:pk>/export/",
        apis.EvaluationExportApi.as_view(),
        name="export",
    ),
    path(
        "campaigns/<slug:slug>/evaluations/<int:pk>/significance/",
        apis.SignificanceApi.as_view(),
        name="significance",
    ),
    *live_urls.api_patterns,
]
