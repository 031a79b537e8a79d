"""HTTP basic authentication for scripts that cannot be turned against a browser that knows the password.

DRF checks CSRF only for session authentication. A browser that holds basic credentials for the
site (a proxy prompt, a ``user:pass@host`` link) would send them with a form another site posts,
so a request that carries a browser's marks (``Origin``, ``Sec-Fetch-Site`` or ``Referer``: older
browsers and some privacy settings send a Referer without an Origin) must pass the same CSRF check
as a session. Scripts (curl, requests) send none of them and are unaffected.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.authentication import BasicScheme
from rest_framework.authentication import BasicAuthentication, SessionAuthentication
from rest_framework.request import Request

SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")
BROWSER_MARKS = ("HTTP_ORIGIN", "HTTP_SEC_FETCH_SITE", "HTTP_REFERER")


class ScriptBasicAuthentication(BasicAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        result = super().authenticate(request)
        if result is None or request.method in SAFE_METHODS:
            return result
        meta = request._request.META
        if any(meta.get(mark) for mark in BROWSER_MARKS):
            SessionAuthentication().enforce_csrf(request)  # raises PermissionDenied (403)
        return result


class ScriptBasicScheme(BasicScheme):
    """The OpenAPI schema's description of it: plain HTTP basic authentication."""

    target_class = "workbench.authentication.ScriptBasicAuthentication"
