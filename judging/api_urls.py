"""Judging API routes (namespace ``judging_api``)."""

from django.urls import URLPattern

from judging import machines, views
from judging.assess import urls as assess_urls
from judging.reports import urls as report_urls

app_name = "judging_api"
urlpatterns: list[URLPattern] = [
    *views.api_patterns,
    *machines.api_patterns,
    *assess_urls.api_patterns,
    *report_urls.api_patterns,
]
