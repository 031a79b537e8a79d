"""Validated input of the organizer pages and the REST API: one serializer per operation, shared.

The pages post ordinary forms and the API posts JSON or multipart; both go through these, so a
parameter means the same thing and is refused with the same sentence on either edge. They only
validate and convert; the services do the work.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from trec.documents import DOCUMENT_FORMATS
from trec.topics import TOPIC_FORMATS


def form_problems(serializer: serializers.Serializer) -> list[str]:
    """A refused input's problems, one line each: ``field: problem``, or the problem alone for the
    whole input; what the pages list and the API returns as ``{"errors": [...]}``."""
    out = []
    for field, problems in serializer.errors.items():
        for problem in problems if isinstance(problems, list) else [problems]:
            out.append(str(problem) if field == "non_field_errors" else f"{field}: {problem}")
    return out


class FormInput(serializers.Serializer):
    """Takes a page's form post as well as API JSON: a QueryDict becomes a dict (lists for list
    fields), and an empty string in a non-text field means 'not given', as untouched inputs post it."""

    def to_internal_value(self, data: Any) -> Any:
        if hasattr(data, "getlist"):
            data = {
                k: data.getlist(k) if isinstance(self.fields.get(k), serializers.ListField) else data.get(k)
                for k in data
            }
        if isinstance(data, dict):
            data = {
                k: v
                for k, v in data.items()
                if not (v == "" and not isinstance(self.fields.get(k), serializers.CharField))
            }
        return super().to_internal_value(data)


class FilesInput(FormInput):
    files = serializers.ListField(child=serializers.FileField(), allow_empty=False)


class TopicsImportInput(FilesInput):
    format = serializers.ChoiceField(choices=TOPIC_FORMATS, default="auto")


class RunsImportInput(FilesInput):
    group = serializers.CharField(max_length=100, required=False, allow_blank=True)
    priority = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    validate_only = serializers.BooleanField(default=False)


class DocumentsImportInput(FilesInput):
    format = serializers.ChoiceField(choices=DOCUMENT_FORMATS, default="auto")
    only_needed = serializers.BooleanField(default=False)


class QrelsImportInput(FilesInput):
    name = serializers.CharField(max_length=100, required=False, allow_blank=True)


class CampaignCreateInput(FormInput):
    slug = serializers.SlugField(max_length=100)
    name = serializers.CharField(max_length=200, required=False, allow_blank=True)
    description = serializers.CharField(required=False, allow_blank=True)


