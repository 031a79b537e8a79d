"""Organizer pages of pools: build, inspect, commit, discard, export and diagnose."""

from django.urls import path

from pooling import views

app_name = "pooling"
urlpatterns = [
    path("<slug:slug>/pools/new/", views.pool_new, name="pool_new"),
    path("<slug:slug>/pools/<int:pk>/", views.pool_detail, name="pool"),
    path("<slug:slug>/pools/<int:pk>/commit/", views.pool_commit_view, name="pool_commit"),
    path("<slug:slug>/pools/<int:pk>/discard/", views.pool_discard_view, name="pool_discard"),
    path("<slug:slug>/pools/<int:pk>/export/", views.pool_export, name="pool_export"),
    path("<slug:slug>/pools/<int:pk>/diagnostics/", views.pool_diagnostics, name="pool_diagnostics"),
]
