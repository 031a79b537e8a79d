"""The answers for refusals outside any view (a locked-out login, a server error), and the
client's address that django-axes and the per-address throttle (workbench.throttling) count
failed logins by.

Pages get a styled page that says what happened and where to go; paths under ``/api/`` get the
API's one error shape, ``{"errors": [...]}``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader

from campaigns.accounts.selectors import login_address_locked


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def _minutes() -> int:
    return int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)


def _address_locked(request: Any) -> bool:
    return bool(login_address_locked(address=client_address(request)))


def _locked_reason(*, address_locked: bool) -> str:
    minutes = _minutes()
    if address_locked:
        return (
            f"too many failed logins from this address, whatever the username "
            f"({settings.WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT} within {minutes} minutes): logins and "
            f"API tokens from it are refused for up to {minutes} minutes"
        )
    return (
        f"too many failed logins for this account from this address: "
        f"logging in is refused for {minutes} minutes after the last failed attempt"
    )


def login_locked_out_reason(request: Any) -> str:
    """Why a login is refused: the address's lock (any usernames) when it holds, else the account's."""
    return _locked_reason(address_locked=_address_locked(request))


def login_locked_out(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """django-axes' AXES_LOCKOUT_CALLABLE: too many failed logins for this username from this address,
    or from this address whatever the username (workbench.throttling)."""
    address_locked = _address_locked(request)
    why = _locked_reason(address_locked=address_locked)
    if _is_api(request):
        return JsonResponse({"errors": [why]}, status=429)
    context = {
        "why": why,
        "minutes": _minutes(),
        "address_locked": address_locked,
        "address": client_address(request),
    }
    return render(request, "registration/locked_out.html", context, status=429)


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
