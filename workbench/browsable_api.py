"""DRF's browsable API pages under the workbench's Content-Security-Policy.

The pages' templates (DRF's own) set a few ``style=""`` attributes (a float, a border), so their
responses carry the site's policy plus the one allowance they need, ``style-src-attr
'unsafe-inline'``: scripts stay ``'self'``, ``<style>`` elements stay refused. The pygments
stylesheet DRF would inline in a ``<style>`` element colours Markdown descriptions, which the
workbench does not render (no ``markdown`` package), so it is left out.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.csp import CSP, build_policy
from rest_framework import renderers


def browsable_api_policy() -> str:
    return build_policy({**settings.SECURE_CSP, "style-src-attr": [CSP.UNSAFE_INLINE]})


class BrowsableAPIRenderer(renderers.BrowsableAPIRenderer):
    def get_context(self, data: Any, accepted_media_type: Any, renderer_context: Any) -> dict[str, Any]:
        context = super().get_context(data, accepted_media_type, renderer_context)
        context["code_style"] = None
        return context

    def render(self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None) -> Any:
        response = (renderer_context or {}).get("response")
        if response is not None:
            # set on the response, the CSP middleware keeps it instead of the site-wide policy
            response.headers[str(CSP.HEADER_ENFORCE)] = browsable_api_policy()
        return super().render(data, accepted_media_type, renderer_context)
