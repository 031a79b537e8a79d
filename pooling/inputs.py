"""Validated input of the organizer pages and the REST API: one serializer per operation, shared.

The pages post ordinary forms and the API posts JSON or multipart; both go through these, so a
parameter means the same thing and is refused with the same sentence on either edge. They only
validate and convert; the services do the work.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from campaigns.inputs import FormInput
from pooling.spec import PoolSpec
from pooling.strategies import STRATEGIES


@extend_schema_field({"oneOf": [{"type": "array", "items": {"type": "number"}}, {"type": "string"}]})
class NumberListField(serializers.Field):
    """Numbers as a JSON list or as a comma-separated string ("10,30,100"); blank means not given."""

    def __init__(self, *, kind: type = float, **kwargs: Any) -> None:
        self.kind = kind
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> tuple[Any, ...] | None:
        items = data.split(",") if isinstance(data, str) else data
        if not isinstance(items, list | tuple):
            raise serializers.ValidationError("expected numbers separated by commas")
        try:
            values = tuple(self.kind(str(x).strip()) for x in items if str(x).strip())
        except ValueError:
            raise serializers.ValidationError(
                f"expected numbers separated by commas, found '{data}'"
            ) from None
        return values or None

    def to_representation(self, value: Any) -> Any:
        return None if value is None else list(value)


@extend_schema_field({"oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]})
class NameListField(serializers.Field):
    """Names as a JSON list or as one string separated by spaces or commas ("map P.10"); blank is none."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> list[str]:
        if isinstance(data, str):
            return data.replace(",", " ").split()
        if isinstance(data, list | tuple) and all(isinstance(x, str) for x in data):
            return [x.strip() for x in data if x.strip()]
        raise serializers.ValidationError("expected names separated by spaces or commas")

    def to_representation(self, value: Any) -> Any:
        return list(value)


@extend_schema_field(
    {"oneOf": [{"type": "object", "additionalProperties": {"type": "integer"}}, {"type": "string"}]}
)
class RunDepthsField(serializers.Field):
    """Per-run depths as a JSON object or lines of ``RUN=K``."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> dict[str, int]:
        if isinstance(data, dict):
            pairs = list(data.items())
        elif isinstance(data, str):
            pairs = []
            for line in data.replace(",", "\n").splitlines():
                if not line.strip():
                    continue
                name, sep, value = line.strip().rpartition("=")
                if not sep or not name:
                    raise serializers.ValidationError(f"expected RUN=K, found '{line.strip()}'")
                pairs.append((name.strip(), value.strip()))
        else:
            raise serializers.ValidationError("expected RUN=K lines or an object of run depths")
        try:
            return {str(k): int(v) for k, v in pairs}
        except (TypeError, ValueError):
            raise serializers.ValidationError("a run's depth is a whole number") from None

    def to_representation(self, value: Any) -> Any:
        return dict(value)


class PoolBuildInput(FormInput):
    name = serializers.CharField(max_length=100)
    strategy = serializers.ChoiceField(choices=STRATEGIES)
    depth = serializers.IntegerField(required=False, allow_null=True, min_value=0)
    run_depths = RunDepthsField()
    runs_per_group = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    order = serializers.ChoiceField(choices=["rank", "docno"], default="rank")
    budget = serializers.IntegerField(required=False, allow_null=True, min_value=0)
    total_budget = serializers.IntegerField(required=False, allow_null=True, min_value=0)
    rrf_k = serializers.FloatField(default=60.0)
    rbp_p = serializers.FloatField(default=0.8, min_value=0.0, max_value=1.0)
    strata = NumberListField(kind=int)
    rates = NumberListField()
    weights = NumberListField()
    rate = serializers.FloatField(required=False, allow_null=True, min_value=0.0, max_value=1.0)
    warmup = serializers.IntegerField(default=0, min_value=0)
    beta = serializers.FloatField(default=0.1)
    level = serializers.IntegerField(default=1, min_value=1)
    seed = serializers.IntegerField(default=0, min_value=0)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        values = {k: v for k, v in attrs.items() if k != "name" and v is not None}
        if values.get("strategy") == "machine":
            raise serializers.ValidationError(
                "a pool sampled by a machine's grades is built from that machine assessor: its page "
                "(People) or POST /api/judging/campaigns/<slug>/machines/<id>/pool/"
            )
        try:
            spec = PoolSpec.from_dict(values)
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from exc
        # what pool_build_enqueue takes: the fields are the spec's
        return {"name": attrs["name"], "spec": spec}


class DiagnosticsInput(FormInput):
    qrels_set = serializers.IntegerField(required=False, allow_null=True)
    measures = NameListField()
    ks = NumberListField(kind=int)
