"""Routes of the live-estimates and reusability pages (included by metrics/urls.py and metrics/api_urls.py).

Pages at the site root (``live_*``/``reuse_*`` names), the API under /api/metrics/ (``metrics_api``).
"""

from django.urls import URLPattern, path

from metrics.live import apis, views

page_patterns: list[URLPattern] = [
    path("campaigns/<slug:slug>/live/", views.live_page, name="live_estimates"),
    path("campaigns/<slug:slug>/live/leaderboard/", views.live_leaderboard_start, name="live_leaderboard"),
    path("campaigns/<slug:slug>/reusability/", views.reuse_page, name="reuse_report"),
]
api_patterns: list[URLPattern] = [
    path("campaigns/<slug:slug>/live/", apis.LiveEstimatesApi.as_view(), name="live_estimates"),
    path(
        "campaigns/<slug:slug>/live/leaderboard/",
        apis.LiveLeaderboardApi.as_view(),
        name="live_leaderboard",
    ),
    path("campaigns/<slug:slug>/reusability/", apis.ReuseReportApi.as_view(), name="reuse_report"),
]
