"""An export file as an HTTP download: what the exports page and the export API both answer."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse

from campaigns.models import Campaign
from judging.exports import export_file


def export_download(*, campaign: Campaign, kind: str, data: dict[str, Any]) -> HttpResponse:
    """The export ``kind`` with :class:`judging.reports.inputs.ExportInput`'s validated ``data``."""
    body, filename = export_file(
        campaign=campaign,
        kind=kind,
        assessor=data["assessor"] or None,
        rule=data["rule"],
        threshold=data["threshold"],
        pool=data["pool"] or None,
    )
    content_type = "text/csv" if kind == "csv" else "text/plain"
    response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
