"""Routes of the judging app's report pages and API (included by judging/urls.py)."""

from django.urls import URLPattern

page_patterns: list[URLPattern] = []
api_patterns: list[URLPattern] = []
