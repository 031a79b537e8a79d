"""The answers for refusals outside any view (a locked-out login, a server error), and the
client's address that django-axes counts failed logins by.

Pages get a styled page that says what happened and where to go; paths under ``/api/`` get the
API's one error shape, ``{"errors": [...]}``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def login_locked_out_reason() -> str:
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    return (
        f"too many failed logins for this account from this address: "
        f"logging in is refused for {minutes} minutes after the last failed attempt"
    )


def login_locked_out(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """django-axes' AXES_LOCKOUT_CALLABLE: too many failed logins for this username from this address."""
    why = login_locked_out_reason()
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    if _is_api(request):
        return JsonResponse({"errors": [why]}, status=429)
    return render(request, "registration/locked_out.html", {"why": why, "minutes": minutes}, status=429)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: no detail for the visitor (it is in the server log), never the debug page."""
    if _is_api(request):
        return JsonResponse({"errors": ["server error: the workbench's log has the details"]}, status=500)
    # rendered without a request context: whatever failed (a template, the database) is not needed
    return HttpResponse(loader.get_template("500.html").render(), status=500)


def client_address(request: HttpRequest) -> str:
    """AXES_CLIENT_IP_CALLABLE: REMOTE_ADDR, or behind the reverse proxy the address it forwarded."""
    if settings.WORKBENCH_BEHIND_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")[-1].strip()
        if forwarded:
            return forwarded
    return str(request.META.get("REMOTE_ADDR", ""))
