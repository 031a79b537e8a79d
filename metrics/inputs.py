"""Inputs the evaluation pages and the API share: a judgment source and a comparison's parameters.

One serializer each, so a parameter means the same on either edge; ``parse_*`` raise
CampaignDataError with the problems, which the pages list and the API answers with 400.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from campaigns.errors import CampaignDataError
from campaigns.inputs import form_problems
from engine.significance import ALL_TESTS, CI_METHODS, CORRECTIONS, ZERO_METHODS
from judging.consensus import RULES
from metrics.comparisons import SignificanceParams
from metrics.models import Evaluation
from metrics.sources import KINDS, JudgmentSource, source_from_dict


class SourceInput(serializers.Serializer):
    """Which judgments count: ``kind`` and what it needs (rule, assessor, qrels_set), and a pool."""

    kind = serializers.ChoiceField(choices=KINDS, default="consensus")
    rule = serializers.ChoiceField(choices=[r for r in RULES if r != "adjudicated"], default="majority")
    assessor = serializers.CharField(required=False, allow_blank=True, allow_null=True, max_length=150)
    qrels_set = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    pool = serializers.IntegerField(required=False, allow_null=True, min_value=1)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        try:
            attrs["source"] = source_from_dict(attrs)
        except CampaignDataError as exc:
            raise serializers.ValidationError(exc.problems) from exc
        return attrs


def parse_source(data: Any) -> JudgmentSource:
    form = SourceInput(data=data)
    if not form.is_valid():
        raise CampaignDataError(form_problems(form))
    return form.validated_data["source"]


def parse_source_choice(data: Any) -> JudgmentSource | None:
    """The source a query string chooses, or None when it chooses none (the page's default then)."""
    return parse_source(data) if "kind" in data else None


class SignificanceInput(serializers.Serializer):
    measure = serializers.CharField(default="map", max_length=60)
    test = serializers.ChoiceField(choices=ALL_TESTS, default="t")
    correction = serializers.ChoiceField(choices=CORRECTIONS, default="holm")
    seed = serializers.IntegerField(default=0, min_value=0)
    permutations = serializers.IntegerField(default=10_000, min_value=1, max_value=1_000_000)
    alpha = serializers.FloatField(default=0.05, min_value=0.0001, max_value=0.5)
    zero_method = serializers.ChoiceField(choices=ZERO_METHODS, default="wilcox")
    ci = serializers.ChoiceField(choices=CI_METHODS, default="percentile")


def parse_significance(data: Any, evaluation: Evaluation) -> SignificanceParams:
    form = SignificanceInput(data=data)
    if not form.is_valid():
        raise CampaignDataError(form_problems(form))
    return SignificanceParams(evaluation=evaluation.pk, **form.validated_data)
