"""The API's one error shape: every refusal answers ``{"errors": ["line", ...]}``, one line per problem.

DRF's own refusals (validation, authentication, permission, not found, method, media type,
throttling) and the domain's (:mod:`campaigns.errors`, :mod:`campaigns.access`) all pass through
:func:`api_exception_handler` (``REST_FRAMEWORK["EXCEPTION_HANDLER"]``); a path under ``/api/`` that
matches no endpoint gets :func:`api_not_found` instead of the HTML 404 page.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.openapi import AutoSchema
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from campaigns import access
from campaigns.errors import CampaignDataError


class ErrorsOut(serializers.Serializer):
    errors = serializers.ListField(child=serializers.CharField(), help_text="one line per problem")  # type: ignore[assignment]


# the refusals every operation can answer: bad input, a role that does not allow it, no such thing
REFUSALS = ("400", "403", "404")


class ErrorsSchema(AutoSchema):
    """The OpenAPI schema of an operation, its refusals documented in the errors shape."""

    def get_request_serializer(self) -> Any:
        """An input with files is an upload: multipart, the one body that can carry them."""
        serializer = super().get_request_serializer()
        if _uploads(serializer):
            return {"multipart/form-data": serializer}
        return serializer

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        for code in REFUSALS:
            if code not in responses:
                responses[code] = self._get_response_for_code(ErrorsOut, code, direction=direction)
        return responses


def _uploads(serializer: Any) -> bool:
    if isinstance(serializer, type) and issubclass(serializer, serializers.Serializer):
        serializer = serializer()
    if not isinstance(serializer, serializers.Serializer):
        return False
    fields = serializer.fields.values()
    return any(isinstance(getattr(f, "child", f), serializers.FileField) for f in fields)


# DRF's key for errors about the input as a whole, and for a refusal's single message
WHOLE_INPUT_KEYS = ("non_field_errors", "detail")


def error_lines(data: Any, prefix: str = "") -> list[str]:
    """DRF's error detail (a message, a list, a ``{field: [...]}`` tree) as ``field: message`` lines."""
    if isinstance(data, dict):
        lines: list[str] = []
        for key, value in data.items():
            inner = prefix if key in WHOLE_INPUT_KEYS else (f"{prefix}.{key}" if prefix else str(key))
            lines += error_lines(value, inner)
        return lines
    if isinstance(data, list):
        return [line for item in data for line in error_lines(item, prefix)]
    return [f"{prefix}: {data}" if prefix else str(data)]


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, with the domain's errors mapped to HTTP and every body in the errors shape."""
    if isinstance(exc, access.NotVisible):
        exc = exceptions.NotFound(str(exc))
    elif isinstance(exc, access.AccessDenied):
        exc = exceptions.PermissionDenied(str(exc))
    elif isinstance(exc, CampaignDataError):
        return Response({"errors": exc.problems}, status=status.HTTP_400_BAD_REQUEST)
    response = exception_handler(exc, context)
    if response is not None:
        response.data = {"errors": error_lines(response.data) or ["refused"]}
    return response


@csrf_exempt  # it changes nothing; a script's POST gets the 404, not the CSRF failure page
def api_not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    """Any method on a path under ``/api/`` that no endpoint matches."""
    return JsonResponse(
        {"errors": [f"no API endpoint at {request.path} (the schema: /api/schema/)"]},
        status=status.HTTP_404_NOT_FOUND,
    )
