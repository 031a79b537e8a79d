"""Routes of the assessor's pages (under /judging/) and API (under /api/judging/)."""

from django.urls import URLPattern, path

from judging import assess_apis, assess_views

page_patterns: list[URLPattern] = [
    path("", assess_views.assess_home, name="assess_home"),
    path("assignments/<int:pk>/", assess_views.assess, name="assess"),
    path("assignments/<int:pk>/judge/", assess_views.assess_judge, name="assess_judge"),
]
api_patterns: list[URLPattern] = [
    path("assignments/<int:pk>/", assess_apis.AssignmentStateApi.as_view(), name="assess_state"),
    path(
        "assignments/<int:pk>/items/<int:position>/",
        assess_apis.AssignmentDocumentApi.as_view(),
        name="assess_document",
    ),
    path("assignments/<int:pk>/judgments/", assess_apis.JudgmentRecordApi.as_view(), name="assess_judge"),
]
