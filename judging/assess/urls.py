"""Routes of the assessor's pages (under /judging/) and API (under /api/judging/)."""

from django.urls import URLPattern, path

from judging.assess import apis, views

page_patterns: list[URLPattern] = [
    path("", views.assess_home, name="assess_home"),
    path("assignments/<int:pk>/", views.assess, name="assess"),
    path("assignments/<int:pk>/judge/", views.assess_judge, name="assess_judge"),
    path("assignments/<int:pk>/next/", views.assess_next, name="assess_next"),
    path("campaigns/<slug:slug>/guidelines/", views.guidelines, name="guidelines"),
]
api_patterns: list[URLPattern] = [
    path("assignments/<int:pk>/", apis.AssignmentStateApi.as_view(), name="assess_state"),
    path(
        "assignments/<int:pk>/items/<int:position>/",
        apis.AssignmentDocumentApi.as_view(),
        name="assess_document",
    ),
    path("assignments/<int:pk>/judgments/", apis.JudgmentSaveApi.as_view(), name="assess_judge"),
    path("assignments/<int:pk>/next/", apis.AssignmentDealApi.as_view(), name="assess_next"),
]
