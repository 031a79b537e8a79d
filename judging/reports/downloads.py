"""An export file as an HTTP download: what the exports page and the export API both answer."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse

from campaigns.models import Campaign
from judging.exports import FINAL_LABEL_KINDS, export_file
from judging.reports.selectors import final_labels_withheld

# how many documents the final labels left out for the downloader (qrels have no comment lines)
WITHHELD_HEADER = "X-Workbench-Withheld"


def export_download(*, campaign: Campaign, kind: str, data: dict[str, Any], user: Any) -> HttpResponse:
    """The export ``kind`` with :class:`judging.reports.inputs.ExportInput`'s validated ``data``,
    as ``user`` may read it: the final labels without the documents they still have to judge
    themselves, counted in the :data:`WITHHELD_HEADER` header (and the file's name)."""
    made = export_file(
        campaign=campaign,
        kind=kind,
        assessor=data["assessor"] or None,
        rule=data["rule"],
        threshold=data["threshold"],
        pool=data["pool"] or None,
        withhold=final_labels_withheld(campaign=campaign, user=user),
    )
    content_type = "text/csv" if kind == "csv" else "text/plain"
    response = HttpResponse(made.text, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{made.filename}"'
    if kind in FINAL_LABEL_KINDS:
        response[WITHHELD_HEADER] = str(made.withheld)
    return response
