"""Validated input of the organizer pages and the REST API: one serializer per operation, shared.

The pages post ordinary forms and the API posts JSON or multipart; both go through these, so a
parameter means the same thing and is refused with the same sentence on either edge. They only
validate and convert; the services do the work.
"""

from __future__ import annotations

from typing import Any

from django.core.files.uploadedfile import UploadedFile
from django.utils.datastructures import MultiValueDict
from rest_framework import serializers

from campaigns import limits
from campaigns.errors import InputRefused
from trec.documents import DOCUMENT_FORMATS
from trec.topics import TOPIC_FORMATS

# the largest whole number every database's integer column holds (PostgreSQL's ``integer``): inputs
# stored in one stop there, so a larger one is refused as input rather than failing the write
DB_INTEGER_MAX = 2**31 - 1


def form_problems(serializer: serializers.Serializer) -> list[str]:
    """A refused input's problems, one line each: ``field: problem``, or the problem alone for the
    whole input; what the pages list and the API returns as ``{"errors": [...]}``."""
    out = []
    for field, problems in serializer.errors.items():
        for problem in problems if isinstance(problems, list) else [problems]:
            out.append(str(problem) if field == "non_field_errors" else f"{field}: {problem}")
    return out


def validated(serializer: serializers.Serializer) -> dict[str, Any]:
    """The input as the serializer validated it; a page's refusal, :class:`InputRefused` with
    :func:`form_problems`, when it is malformed. (The API raises DRF's own error instead, which
    answers the same sentences field by field.)"""
    if not serializer.is_valid():
        raise InputRefused(form_problems(serializer))
    return dict(serializer.validated_data)


def with_files(data: Any, files: MultiValueDict) -> Any:
    """A post's fields with its uploads under ``files``, as the import inputs read them; a JSON
    body has no uploads and is left as it is."""
    if hasattr(data, "getlist"):
        # not ``data.copy()``: that deep-copies, and an upload Django spooled to a temporary file
        # (any request over FILE_UPLOAD_MAX_MEMORY_SIZE) cannot be copied; the lists are enough
        data = MultiValueDict({key: data.getlist(key) for key in data})
        data.setlist("files", files.getlist("files"))
    return data


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
    # empty files are refused below, by name (DRF's own sentence names no file)
    files = serializers.ListField(child=serializers.FileField(allow_empty_file=True), allow_empty=False)

    def validate_files(self, files: list[UploadedFile]) -> list[UploadedFile]:
        """Refuse, naming each, the files that are empty or over the upload limit."""
        cap = limits.max_upload_bytes()
        problems = []
        for upload in files:
            name = upload.name or "upload"
            if not upload.size:
                problems.append(f"{name} is empty")
            elif upload.size > cap:
                problems.append(f"{name} is {upload.size} bytes, over the upload limit of {cap} bytes")
        if problems:
            raise serializers.ValidationError(problems)
        return files


# ``format`` is the field's name on both edges; the services call it ``fmt``
class TopicsImportInput(FilesInput):
    format = serializers.ChoiceField(choices=TOPIC_FORMATS, default="auto", source="fmt")


class RunsImportInput(FilesInput):
    group = serializers.CharField(max_length=100, required=False, allow_blank=True)
    priority = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=DB_INTEGER_MAX
    )
    validate_only = serializers.BooleanField(default=False)


class DocumentsImportInput(FilesInput):
    format = serializers.ChoiceField(choices=DOCUMENT_FORMATS, default="auto", source="fmt")
    only_needed = serializers.BooleanField(default=False)


class QrelsImportInput(FilesInput):
    name = serializers.CharField(max_length=100, required=False, allow_blank=True)


class CampaignCreateInput(FormInput):
    slug = serializers.SlugField(max_length=100)
    name = serializers.CharField(max_length=200, required=False, allow_blank=True)
    description = serializers.CharField(required=False, allow_blank=True)


# the import page's forms, by their ``what``; the API has one endpoint per import
IMPORT_INPUTS: dict[str, type[FilesInput]] = {
    "topics": TopicsImportInput,
    "runs": RunsImportInput,
    "documents": DocumentsImportInput,
    "qrels": QrelsImportInput,
}
