"""Routes of the judging app's assess pages and API (included by judging/urls.py)."""

from django.urls import URLPattern

page_patterns: list[URLPattern] = []
api_patterns: list[URLPattern] = []
