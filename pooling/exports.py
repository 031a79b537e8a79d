"""A stored pool as a file: qrels with rel -1, a sample_eval prel (strata) or a Million Query prel."""

from __future__ import annotations

import os
import tempfile

from django.http import HttpResponse

from campaigns.errors import CampaignDataError
from pooling.models import Pool
from pooling.selectors import pool_as_core
from trec import write_mq_prel, write_prel, write_qrels

POOL_FORMATS = ("qrels", "prel", "mq")


def pool_file(*, pool: Pool, fmt: str) -> tuple[str, str]:
    """The file's text and a file name for it (reads only)."""
    if fmt not in POOL_FORMATS:
        raise CampaignDataError(f"unknown pool format '{fmt}' (one of {', '.join(POOL_FORMATS)})")
    core = pool_as_core(pool=pool)
    fd, name = tempfile.mkstemp(suffix=f".{fmt}")
    os.close(fd)
    try:
        # the format layer's writers are the one place the file layouts live
        if fmt == "prel":
            write_prel(core.to_prel(), name)
        elif fmt == "mq":
            write_mq_prel(core.to_mq_prel(), name)
        else:
            write_qrels(core.to_qrels(), name)
        with open(name, encoding="utf-8") as f:
            text = f.read()
    finally:
        os.unlink(name)
    slug = "".join(c if c.isalnum() or c in "-_" else "-" for c in pool.name)
    return text, f"{pool.campaign.slug}-{slug}.{fmt}"


def pool_download(*, pool: Pool, fmt: str) -> HttpResponse:
    """The pool's file as a download, for its page and the API alike."""
    body, filename = pool_file(pool=pool, fmt=fmt)
    response = HttpResponse(body, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
