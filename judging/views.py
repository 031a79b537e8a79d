"""Organizer pages of judging: the scale and the assignments."""

from __future__ import annotations

from django.urls import URLPattern

page_patterns: list[URLPattern] = []
api_patterns: list[URLPattern] = []
