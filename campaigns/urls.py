"""Organizer pages of campaigns: the list, the overview and the imports."""

from django.urls import path

from campaigns import views

app_name = "campaigns"
urlpatterns = [
    path("", views.campaign_list, name="campaigns"),
    path("<slug:slug>/", views.campaign_detail, name="campaign"),
    path("<slug:slug>/import/", views.campaign_import, name="import"),
]
