"""Validated input of the assessor's page and API: a judgment, as the form or the JSON gives it."""

from __future__ import annotations

from rest_framework import serializers

from campaigns.inputs import DB_INTEGER_MAX
from campaigns.validation import DOCNO_MAX_LENGTH

COMMENT_MAX = 10_000


class JudgmentInput(serializers.Serializer):
    """``judgment_save``'s arguments: the document (its position, its docno or both), then a grade or
    "can't judge", an optional comment and the active (not idle) milliseconds spent on it; and
    optionally which document to send back with the answer (the next one to read).

    Only the types are checked here; what a judgment may be is the service's to say, so the page,
    the API and any command refuse the same input with the same sentence.
    """

    position = serializers.IntegerField(required=False, min_value=1)
    docno = serializers.CharField(required=False, max_length=DOCNO_MAX_LENGTH, trim_whitespace=False)
    grade = serializers.IntegerField(required=False, allow_null=True)
    cant_judge = serializers.BooleanField(required=False, default=False)
    comment = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=COMMENT_MAX, trim_whitespace=False
    )
    active_ms = serializers.IntegerField(required=False, min_value=0, max_value=DB_INTEGER_MAX, default=0)
    # the position of a document to send back with the answer (one of the two after this one)
    document = serializers.IntegerField(
        required=False, min_value=1, max_value=DB_INTEGER_MAX, allow_null=True
    )


class GuidelinesInput(serializers.Serializer):
    """``campaign_guidelines_set``'s argument: the guidelines as plain text ("" removes them)."""

    guidelines = serializers.CharField(allow_blank=True, trim_whitespace=False, max_length=50_000)
