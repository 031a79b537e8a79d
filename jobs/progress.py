"""Progress of running jobs, readable while the work's own transaction is still open.

An import of 5M lines writes inside one transaction, so progress written to the job's row there
would stay invisible until the end, and on SQLite no other connection may write while the import
holds the lock. The work therefore reports to a small file in the job's folder, replaced atomically,
which the pages read on the same machine (where SQLite's web server and worker both run), and, on
PostgreSQL, to the job's row through the job's own side connection about once a second, for web
servers on other machines.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jobs.models import Job

log = logging.getLogger(__name__)
PROGRESS_FILE = "progress.json"
FILE_EVERY = 0.2  # seconds between rewrites of the file (a new phase is written at once)
ROW_EVERY = 1.0  # seconds between writes of the job's row (PostgreSQL)


@dataclass(frozen=True)
class Reading:
    phase: str
    done: int
    total: int


def read(folder: Path) -> Reading | None:
    """The last progress the job wrote to its folder, if it runs (or ran) on this machine."""
    try:
        data = json.loads((folder / PROGRESS_FILE).read_text(encoding="utf-8"))
        return Reading(str(data["phase"]), int(data["done"]), int(data["total"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _row_write(side: Any, job_id: uuid.UUID, reading: Reading) -> None:
    # SKIP LOCKED: if the work itself holds the job's row, skip this reading rather than wait on it
    table = Job._meta.db_table
    try:
        with side.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} SET phase = %s, done = %s, total = %s WHERE id = ("
                f"SELECT id FROM {table} WHERE id = %s AND status = %s FOR UPDATE SKIP LOCKED)",
                [reading.phase[:100], reading.done, reading.total, job_id, Job.Status.RUNNING],
            )
    except Exception:  # progress is a courtesy (reported from another thread, say): the work goes on
        log.debug("job %s: progress not written to its row", job_id, exc_info=True)


class Reporter:
    """The progress callback a job function receives; :attr:`last` is what it was told last."""

    def __init__(self, job_id: uuid.UUID, folder: Path, side: Any = None) -> None:
        self.job_id = job_id
        self.folder = folder
        self.side = side  # PostgreSQL: a connection of the job's own, in autocommit
        self.last: Reading | None = None
        self._file_at = 0.0
        self._row_at = 0.0

    def __call__(self, phase: str, done: int, total: int, /) -> None:
        reading = Reading(phase, int(done), int(total))
        new_phase = self.last is None or self.last.phase != phase
        self.last = reading
        now = time.monotonic()
        if new_phase or now - self._file_at >= FILE_EVERY or done >= total:
            self._file_at = now
            self._file_write(reading)
        if self.side is not None and (not self._row_at or now - self._row_at >= ROW_EVERY):
            self._row_at = now
            _row_write(self.side, self.job_id, reading)

    def _file_write(self, reading: Reading) -> None:
        target = self.folder / PROGRESS_FILE
        partial = self.folder / f".{PROGRESS_FILE}.{os.getpid()}"
        try:
            partial.write_text(json.dumps(reading.__dict__), encoding="utf-8")
            os.replace(partial, target)  # readers see the old reading or the new one, never half
        except OSError:
            pass  # progress is a courtesy: the work goes on without it
