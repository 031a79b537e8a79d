"""Judging pages under /judging/ (namespace ``judging``); the API is in judging/api_urls.py."""

from django.urls import URLPattern

from judging import machines, views
from judging.assess import urls as assess_urls
from judging.reports import urls as report_urls

app_name = "judging"
urlpatterns: list[URLPattern] = [
    *views.page_patterns,
    *machines.page_patterns,
    *assess_urls.page_patterns,
    *report_urls.page_patterns,
]
