"""Where a request's large uploads wait, and the removal of what stopped processes left behind.

Django spools an upload larger than ``FILE_UPLOAD_MAX_MEMORY_SIZE`` to a temporary file and deletes
it when the request ends; a process killed during the request (a gunicorn worker past its timeout,
a restart) never deletes it. The workbench keeps these files in a folder of its own,
``FILE_UPLOAD_TEMP_DIR`` (``WORKBENCH_UPLOAD_DIR/incoming``, 0700), not the system's temporary
folder, so that each web server and each worker removes the stale ones when it starts. A file is
stale once nothing has written to it for ``WORKBENCH_UPLOAD_STALE_SECONDS``: an upload in progress
is written chunk by chunk, and the request that reads it ends long before (gunicorn's ``--timeout``),
so a neighbour process's upload is never taken.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files import uploadhandler

log = logging.getLogger(__name__)

SHOWN = 10  # names listed in the log line; the count is complete


def upload_temp_dir() -> Path:
    """``FILE_UPLOAD_TEMP_DIR``, created (0700: uploads are the organizers' files) when missing."""
    folder = Path(settings.FILE_UPLOAD_TEMP_DIR)
    if not folder.is_dir():
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def stale_seconds() -> float:
    return float(settings.WORKBENCH_UPLOAD_STALE_SECONDS)


class TemporaryFileUploadHandler(uploadhandler.TemporaryFileUploadHandler):
    """Django's handler, into :func:`upload_temp_dir` (made again if someone removed it)."""

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        upload_temp_dir()
        super().new_file(*args, **kwargs)


def upload_temp_files_remove(*, older_than: float | None = None) -> list[str]:
    """Remove the files of :func:`upload_temp_dir` nothing wrote to for ``older_than`` seconds
    (default ``WORKBENCH_UPLOAD_STALE_SECONDS``); their names, which are logged."""
    folder = upload_temp_dir()
    limit = stale_seconds() if older_than is None else older_than
    now = time.time()
    removed: list[str] = []
    for entry in folder.iterdir():
        try:
            if entry.is_file() and now - entry.stat().st_mtime >= limit:
                entry.unlink()
                removed.append(entry.name)
        except FileNotFoundError:  # another process starting removed it first
            continue
    if removed:
        shown = ", ".join(sorted(removed)[:SHOWN]) + (", ..." if len(removed) > SHOWN else "")
        log.warning(
            "removed %d stale upload file(s) from %s (unchanged for %d s or more): %s",
            len(removed),
            folder,
            int(limit),
            shown,
        )
    return removed
