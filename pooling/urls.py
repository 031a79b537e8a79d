"""Organizer pages of campaigns and pools."""

from django.urls import path

from pooling import views

app_name = "pooling"
urlpatterns = [
    path("", views.campaign_list, name="campaigns"),
    path("<slug:slug>/", views.campaign_detail, name="campaign"),
    path("<slug:slug>/import/", views.campaign_import, name="import"),
    path("<slug:slug>/pools/new/", views.pool_new, name="pool_new"),
    path("<slug:slug>/pools/<int:pk>/", views.pool_detail, name="pool"),
    path("<slug:slug>/pools/<int:pk>/commit/", views.pool_commit_view, name="pool_commit"),
    path("<slug:slug>/pools/<int:pk>/discard/", views.pool_discard_view, name="pool_discard"),
    path("<slug:slug>/pools/<int:pk>/export/", views.pool_export, name="pool_export"),
    path("<slug:slug>/pools/<int:pk>/diagnostics/", views.pool_diagnostics, name="pool_diagnostics"),
]
