"""Validated input of the report pages and API: one serializer per operation, shared by both edges,
so a parameter means the same and is refused with the same sentence on either."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from campaigns.inputs import DB_INTEGER_MAX, FormInput
from campaigns.validation import DOCNO_MAX_LENGTH
from engine.names import MeasureError, parse_measures
from judging.agreement import DEFAULT_MEASURES
from judging.cli import split_measures
from judging.consensus import MACHINE_RULES, RULES
from judging.reports.selectors import QUEUE_KINDS, QUEUE_VIEWS, AgreementParams

MAX_BOOTSTRAP = 10_000
NOTE_MAX = 10_000


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


class ItemInput(FormInput):
    """A disagreement of the queue: the topic's number and the document."""

    topic = serializers.CharField(max_length=100)
    docno = serializers.CharField(max_length=DOCNO_MAX_LENGTH, trim_whitespace=False)


class DecisionInput(ItemInput):
    """``adjudication_decide``'s arguments: the topic's number, the document, the grade, a note;
    and optionally the disagreement to send back with the answer (the one the page shows next)."""

    grade = serializers.IntegerField()
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=NOTE_MAX)
    next_topic = serializers.CharField(required=False, max_length=100)
    next_docno = serializers.CharField(required=False, max_length=DOCNO_MAX_LENGTH, trim_whitespace=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """``ahead``: (next_topic, next_docno) when both are given."""
        topic, docno = attrs.pop("next_topic", None), attrs.pop("next_docno", None)
        if (topic is None) != (docno is None):
            raise serializers.ValidationError("next_topic and next_docno go together")
        attrs["ahead"] = None if topic is None else (topic, docno)
        return attrs


class WithdrawInput(ItemInput):
    """``adjudication_withdraw``'s arguments: the disagreement and the grade its decision still has."""

    grade = serializers.IntegerField()


class AdjudicationQueueInput(FormInput):
    show = serializers.ChoiceField(choices=QUEUE_VIEWS, default="open")
    kind = serializers.ChoiceField(
        choices=QUEUE_KINDS,
        default="all",
        help_text="human: people's grades differ; machine: only a machine's grade differs from the people's",
    )
    topic = serializers.CharField(required=False, allow_blank=True, default="")
    # the page: which disagreement of the view is on the screen (1 = the first)
    item = serializers.IntegerField(default=1, min_value=1, max_value=DB_INTEGER_MAX)


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
