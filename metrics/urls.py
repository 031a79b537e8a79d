"""Metrics pages: the home leaderboards, and a campaign's evaluation pages (namespace ``evaluation``)."""

from django.urls import include, path

from metrics import views
from metrics.live import urls as live_urls

evaluation_patterns = [
    path("", views.leaderboard_page, name="leaderboard"),
    path("evaluate/", views.evaluate, name="evaluate"),
    path("<int:pk>/runs/<int:result>/", views.run_page, name="run"),
    path("<int:pk>/significance/", views.significance_page, name="significance"),
    path("<int:pk>/download/", views.download, name="download"),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("campaigns/<slug:slug>/evaluation/", include((evaluation_patterns, "evaluation"))),
    *live_urls.page_patterns,
]
