"""Routes of the live-estimates and reusability pages (included by metrics/urls.py and api_urls.py).

Pages at the site root (``live_*``/``reuse_*`` names), the API under /api/metrics/ (``metrics_api``).
"""

from django.urls import URLPattern, path

from metrics import live_apis, live_views

page_patterns: list[URLPattern] = [
    path("campaigns/<slug:slug>/live/", live_views.live_page, name="live_estimates"),
    path("campaigns/<slug:slug>/live/leaderboard/", live_views.live_leaderboard, name="live_leaderboard"),
    path("campaigns/<slug:slug>/reusability/", live_views.reuse_page, name="reuse_report"),
]
api_patterns: list[URLPattern] = [
    path("campaigns/<slug:slug>/live/", live_apis.LiveEstimatesApi.as_view(), name="live_estimates"),
    path(
        "campaigns/<slug:slug>/live/leaderboard/",
        live_apis.LiveLeaderboardApi.as_view(),
        name="live_leaderboard",
    ),
    path("campaigns/<slug:slug>/reusability/", live_apis.ReuseReportApi.as_view(), name="reuse_report"),
]
