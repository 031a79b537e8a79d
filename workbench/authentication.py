"""How scripts authenticate: API tokens, and HTTP basic authentication that cannot be turned against a
browser that knows the password.

A token (``Authorization: Token <token>``, made on the "My account" page) is checked with one
SHA-256 digest lookup; basic authentication hashes the password on every call (slow on purpose),
and its failures count towards django-axes' login lockout like the login form's. Failed tokens and
passwords also count per address across usernames (workbench.throttling).

DRF checks CSRF only for session authentication. A browser that holds basic credentials for the
site (a proxy prompt, a ``user:pass@host`` link) would send them with a form another site posts,
so a request that carries a browser's marks (``Origin``, ``Sec-Fetch-Site`` or ``Referer``: older
browsers and some privacy settings send a Referer without an Origin) must pass the same CSRF check
as a session. Scripts (curl, requests) send none of them and are unaffected.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.authentication import BasicScheme
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import (
    BasicAuthentication,
    SessionAuthentication,
    TokenAuthentication,
    get_authorization_header,
)
from rest_framework.exceptions import APIException, AuthenticationFailed
from rest_framework.request import Request

from campaigns.accounts.services import api_token_use
from workbench.errors import login_locked_out_reason
from workbench.throttling import address_failure_counts, address_is_locked, throttling_on

SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")
BROWSER_MARKS = ("HTTP_ORIGIN", "HTTP_SEC_FETCH_SITE", "HTTP_REFERER")


class LoginLockedOut(APIException):
    status_code = 429
    default_detail = "too many failed logins"
    default_code = "locked_out"


class ScriptBasicAuthentication(BasicAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        try:
            result = super().authenticate(request)
        except AuthenticationFailed:
            # django-axes marks the request it was given (DRF's, so its middleware does not see it)
            if getattr(request, "axes_locked_out", False):
                raise LoginLockedOut(login_locked_out_reason(request)) from None
            raise
        if result is None or request.method in SAFE_METHODS:
            return result
        meta = request._request.META
        if any(meta.get(mark) for mark in BROWSER_MARKS):
            SessionAuthentication().enforce_csrf(request)  # raises PermissionDenied (403)
        return result


class ScriptBasicScheme(BasicScheme):
    """The OpenAPI schema's description of it: plain HTTP basic authentication."""

    target_class = "workbench.authentication.ScriptBasicAuthentication"


class ApiTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <token>``; browsers never send it on their own, so no CSRF check.

    A wrong or malformed token counts as a failed login of its address (workbench.throttling): at
    WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT within the cool-off the address is refused (429), valid
    tokens too, until fewer fall within it. django-axes' per-username count does not apply (no username).
    """

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        words = get_authorization_header(request).split()
        if not words or words[0].lower() != self.keyword.lower().encode() or not throttling_on():
            return super().authenticate(request)
        if address_is_locked(request):
            raise LoginLockedOut(login_locked_out_reason(request))
        try:
            return super().authenticate(request)
        except AuthenticationFailed:
            if address_failure_counts(request):
                raise LoginLockedOut(login_locked_out_reason(request)) from None
            raise

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        row = api_token_use(token=key)
        if row is None:
            raise AuthenticationFailed("invalid or revoked API token")
        return row.user, row


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """The OpenAPI schema's description of it."""

    target_class = "workbench.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": 'An API token from the "My account" page, sent as `Token wbt_...`',
        }
