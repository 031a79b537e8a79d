"""Validated input of the report pages and API: one serializer per operation, shared by both edges,
so a parameter means the same and is refused with the same sentence on either."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from campaigns.inputs import FormInput
from engine.names import MeasureError, parse_measures
from judging.agreement import DEFAULT_MEASURES
from judging.cli import split_measures
from judging.consensus import MACHINE_RULES, RULES
from judging.reports.selectors import QUEUE_KINDS, QUEUE_VIEWS, AgreementParams

MAX_BOOTSTRAP = 10_000


class AgreementInput(FormInput):
    threshold = serializers.IntegerField(default=1, min_value=1)
    bootstrap = serializers.IntegerField(default=0, min_value=0, max_value=MAX_BOOTSTRAP)
    seed = serializers.IntegerField(default=0, min_value=0)
    confidence = serializers.FloatField(default=0.95, min_value=0.5, max_value=0.999)
    runs = serializers.BooleanField(default=False)
    measures = serializers.CharField(required=False, allow_blank=True)
    decimals = serializers.IntegerField(default=4, min_value=0, max_value=10)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """The measures parsed, and ``params``: the report's :class:`AgreementParams`."""
        spec = attrs.get("measures") or ""
        measures = [m for piece in spec.split() for m in split_measures(piece)] or list(DEFAULT_MEASURES)
        try:
            parse_measures(measures)
        except MeasureError as exc:
            raise serializers.ValidationError({"measures": str(exc)}) from exc
        attrs["params"] = AgreementParams(
            threshold=attrs["threshold"],
            bootstrap=attrs["bootstrap"],
            seed=attrs["seed"],
            confidence=attrs["confidence"],
            runs=attrs["runs"],
            measures=tuple(measures),
        )
        return attrs


class DecisionInput(FormInput):
    """``adjudication_decide``'s arguments: the topic's number, the document, the grade, a note."""

    topic = serializers.CharField(max_length=100)
    docno = serializers.CharField(max_length=200)
    grade = serializers.IntegerField()
    note = serializers.CharField(required=False, allow_blank=True, default="")


class AdjudicationQueueInput(FormInput):
    show = serializers.ChoiceField(choices=QUEUE_VIEWS, default="open")
    kind = serializers.ChoiceField(
        choices=QUEUE_KINDS,
        default="all",
        help_text="human: people's grades differ; machine: only a machine's grade differs from the people's",
    )
    topic = serializers.CharField(required=False, allow_blank=True, default="")
    page = serializers.IntegerField(default=1, min_value=1)


class AdjudicationSettingsInput(FormInput):
    machine_rule = serializers.ChoiceField(
        choices=list(MACHINE_RULES.items()),
        help_text="which disagreements only a machine causes go to people: "
        + "; ".join(f"{name}: {text}" for name, text in MACHINE_RULES.items()),
    )


class ExportInput(FormInput):
    assessor = serializers.CharField(required=False, allow_blank=True, default="")
    rule = serializers.ChoiceField(choices=RULES, default="majority")
    threshold = serializers.IntegerField(default=1, min_value=1)
    pool = serializers.CharField(required=False, allow_blank=True, default="")
