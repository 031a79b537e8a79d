"""Inputs of the live pages, shared by the pages and the API so a parameter means the same on either."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from campaigns.inputs import FormInput, form_problems
from judging.consensus import RULES

REFRESH_SECONDS = 5


class LiveInput(FormInput):
    pool = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1)
    rule = serializers.ChoiceField(choices=RULES, default="majority")
    confidence = serializers.FloatField(default=0.95, min_value=0.5, max_value=0.999)
    refresh = serializers.IntegerField(default=REFRESH_SECONDS, min_value=1, max_value=300)
    chart = serializers.BooleanField(default=False)


class JobInput(FormInput):
    pool = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1)
    rule = serializers.ChoiceField(choices=RULES, default="majority")


def parsed(cls: type[FormInput], data: Any) -> tuple[dict[str, Any], list[str]]:
    """The validated input, or the defaults with the problems to show."""
    form = cls(data=data)
    if form.is_valid():
        return dict(form.validated_data), []
    blank = cls(data={})
    blank.is_valid(raise_exception=True)
    return dict(blank.validated_data), form_problems(form)
