"""The interactive API reference: Swagger UI over the OpenAPI schema (``/api/schema/``), served by
the workbench itself under its Content-Security-Policy.

drf-spectacular's own Swagger page starts Swagger UI from an inline ``<script>`` (or, split, from
a script the view renders) and styles the page with an inline ``<style>``; both break the site's
policy. This view keeps drf-spectacular's view (the schema's URL, Swagger UI's settings, the CSRF
header's name) with a template of the site's: the init script is a static file
(``workbench/api_reference.js``) that reads those values from ``data-`` attributes, and Swagger UI's
files come from the drf-spectacular-sidecar package as static files (no CDN). Swagger UI's
stylesheet draws its icons as ``data:`` images, the one allowance its responses add to the policy.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.utils.csp import CSP, build_policy
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularSwaggerView
from rest_framework.request import Request
from rest_framework.response import Response


def api_reference_policy() -> str:
    """The site's policy plus ``data:`` images (Swagger UI's stylesheet); scripts and styles stay 'self'."""
    return build_policy({**settings.SECURE_CSP, "img-src": [CSP.SELF, "data:"]})


class ApiReference(SpectacularSwaggerView):
    template_name = "api_reference.html"
    title = "API reference"

    @extend_schema(exclude=True)  # a page about the schema, not an operation of it
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        response = super().get(request, *args, **kwargs)
        # set on the response, the CSP middleware keeps it instead of the site-wide policy
        response.headers[str(CSP.HEADER_ENFORCE)] = api_reference_policy()
        # drf-spectacular opens the page to other windows for OAuth2 pop-ups, which the workbench
        # has none of: the site's Cross-Origin-Opener-Policy (SecurityMiddleware) applies
        del response.headers["Cross-Origin-Opener-Policy"]
        return response


# a page of the site for people with an account (linked from My account), sent to log in first
api_reference = login_required(ApiReference.as_view())
