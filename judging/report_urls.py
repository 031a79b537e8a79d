"""Routes of adjudication, the agreement report and the exports (included by judging/urls.py and api_urls.py).

Pages under /judging/ (namespace ``judging``), the API under /api/judging/ (``judging_api``).
"""

from django.urls import URLPattern, path

from judging import report_apis, report_views

page_patterns: list[URLPattern] = [
    path("campaigns/<slug:slug>/adjudication/", report_views.adjudication, name="adjudication"),
    path(
        "campaigns/<slug:slug>/adjudication/decide/",
        report_views.adjudication_decide,
        name="adjudication_decide",
    ),
    path("campaigns/<slug:slug>/agreement/", report_views.agreement, name="agreement"),
    path("campaigns/<slug:slug>/exports/", report_views.exports, name="exports"),
    path("campaigns/<slug:slug>/exports/<slug:kind>/", report_views.export, name="export"),
]
api_patterns: list[URLPattern] = [
    path(
        "campaigns/<slug:slug>/adjudication/",
        report_apis.AdjudicationQueueApi.as_view(),
        name="adjudication",
    ),
    path(
        "campaigns/<slug:slug>/adjudication/decide/",
        report_apis.AdjudicationDecideApi.as_view(),
        name="adjudication_decide",
    ),
    path("campaigns/<slug:slug>/agreement/", report_apis.AgreementApi.as_view(), name="agreement"),
    path(
        "campaigns/<slug:slug>/agreement/report/",
        report_apis.AgreementReportApi.as_view(),
        name="agreement_report",
    ),
    path("campaigns/<slug:slug>/exports/<slug:kind>/", report_apis.ExportApi.as_view(), name="export"),
]
