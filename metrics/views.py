"""Metrics pages (server-rendered)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from metrics.selectors import demo_leaderboard


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "metrics/home.html", {"board": demo_leaderboard()})
