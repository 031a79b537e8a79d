"""Routes of adjudication, the agreement report and the exports (included by judging/urls.py and api_urls.py).

Pages under /judging/ (namespace ``judging``), the API under /api/judging/ (``judging_api``).
"""

from django.urls import URLPattern, path

from judging.reports import apis, views

page_patterns: list[URLPattern] = [
    path("campaigns/<slug:slug>/adjudication/", views.adjudication, name="adjudication"),
    path(
        "campaigns/<slug:slug>/adjudication/decide/",
        views.adjudication_decide_page,
        name="adjudication_decide",
    ),
    path(
        "campaigns/<slug:slug>/adjudication/withdraw/",
        views.adjudication_withdraw_page,
        name="adjudication_withdraw",
    ),
    path(
        "campaigns/<slug:slug>/adjudication/settings/",
        views.adjudication_settings,
        name="adjudication_settings",
    ),
    path("campaigns/<slug:slug>/agreement/", views.agreement, name="agreement"),
    path("campaigns/<slug:slug>/exports/", views.exports, name="exports"),
    path("campaigns/<slug:slug>/exports/<slug:kind>/", views.export, name="export"),
]
api_patterns: list[URLPattern] = [
    path("campaigns/<slug:slug>/adjudication/", apis.AdjudicationQueueApi.as_view(), name="adjudication"),
    path(
        "campaigns/<slug:slug>/adjudication/decide/",
        apis.AdjudicationDecideApi.as_view(),
        name="adjudication_decide",
    ),
    path(
        "campaigns/<slug:slug>/adjudication/item/",
        apis.AdjudicationItemApi.as_view(),
        name="adjudication_item",
    ),
    path(
        "campaigns/<slug:slug>/adjudication/withdraw/",
        apis.AdjudicationWithdrawApi.as_view(),
        name="adjudication_withdraw",
    ),
    path(
        "campaigns/<slug:slug>/adjudication/settings/",
        apis.AdjudicationSettingsApi.as_view(),
        name="adjudication_settings",
    ),
    path("campaigns/<slug:slug>/agreement/", apis.AgreementApi.as_view(), name="agreement"),
    path(
        "campaigns/<slug:slug>/agreement/report/",
        apis.AgreementReportApi.as_view(),
        name="agreement_report",
    ),
    path("campaigns/<slug:slug>/exports/<slug:kind>/", apis.ExportApi.as_view(), name="export"),
]
