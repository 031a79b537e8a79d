"""Downloads: a stored evaluation as trec_eval text, CSV or JSON, and a comparison as CSV or JSON,
each written by the engine's writer of the command that prints the same (``manage.py evaluate`` and
``manage.py compare``)."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from campaigns.errors import CampaignDataError, CampaignNotFound
from engine.output import Writer, comparison_csv
from metrics.evaluations import evaluation_results
from metrics.models import Evaluation

FILE_FORMATS = {
    "trec": ("text/plain; charset=utf-8", "txt"),
    "csv": ("text/csv; charset=utf-8", "csv"),
    "json": ("application/json", "json"),
}
COMPARISON_FORMATS = ("csv", "json")


@dataclass(frozen=True)
class Download:
    body: str
    content_type: str
    filename: str


def _filename(stem: str, fmt: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in stem)
    return f"{safe}.{FILE_FORMATS[fmt][1]}"


def evaluation_file(
    *, evaluation: Evaluation, fmt: str, tags: Sequence[str] | None = None, per_topic: bool = True
) -> Download:
    """The evaluation as ``manage.py evaluate`` writes it (same writer): with per-topic lines (-q),
    4 decimals, one block per run in tag order, each line led by the run's name when there are several.
    """
    if fmt not in FILE_FORMATS:
        raise CampaignDataError(f"unknown format '{fmt}' (one of {', '.join(FILE_FORMATS)})")
    results = evaluation_results(evaluation=evaluation, tags=tags)
    if tags is not None and not results:
        raise CampaignNotFound(f"evaluation {evaluation.pk} has no run {', '.join(tags)}")
    out = io.StringIO()
    writer = Writer(
        out, fmt, per_topic=per_topic, digits=4, with_run=len(results) > 1, trec_eval_layout=False
    )
    for result in results:
        writer.write(result)
    writer.close(
        {
            "campaign": evaluation.campaign.slug,
            "evaluation": evaluation.pk,
            "source": evaluation.source,
            "source_label": evaluation.source_label,
            "design": evaluation.design,
            "measures": evaluation.specs,
            "created_at": evaluation.created_at.isoformat(),
        }
    )
    stem = "-".join([evaluation.campaign.slug, f"evaluation{evaluation.pk}", *(tags or [])])
    return Download(out.getvalue(), FILE_FORMATS[fmt][0], _filename(stem, fmt))


def significance_file(*, evaluation: Evaluation, result: dict[str, Any], fmt: str) -> Download:
    """A finished comparison (a significance job's result): CSV under ``manage.py compare --format
    csv``'s columns, by the same writer; or the JSON of the parameters and the comparison."""
    if fmt not in COMPARISON_FORMATS:
        raise CampaignDataError(f"unknown format '{fmt}' (one of {', '.join(COMPARISON_FORMATS)})")
    body = comparison_csv(result["comparison"]) if fmt == "csv" else json.dumps(result, indent=1) + "\n"
    stem = f"{evaluation.campaign.slug}-evaluation{evaluation.pk}-significance"
    return Download(body, FILE_FORMATS[fmt][0], _filename(stem, fmt))
