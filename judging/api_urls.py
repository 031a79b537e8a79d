"""Judging API routes (namespace ``judging_api``)."""

from django.urls import URLPattern

from judging import assess_urls, report_urls, views

app_name = "judging_api"
urlpatterns: list[URLPattern] = [*views.api_patterns, *assess_urls.api_patterns, *report_urls.api_patterns]
