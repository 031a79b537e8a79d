"""Progress of running jobs, readable while the job's own transaction is still open.

A job that imports 5M lines writes inside one transaction, so progress written to its row there
would stay invisible until the end, and on SQLite a second connection could not write at all
while the import holds the lock. Progress therefore goes to this process's memory, which the
pages read when the job runs in the web process (the embedded default), and, on PostgreSQL, to
the job's row through a separate connection at most once a second, for workers in other processes.
"""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from django.db import close_old_connections, connection

from jobs.models import Job

FLUSH_EVERY = 1.0  # seconds between writes of a job's progress to its row


@dataclass(frozen=True)
class Reading:
    phase: str
    done: int
    total: int


_live: dict[uuid.UUID, Reading] = {}
_lock = threading.Lock()
_writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="job-progress")


def live(job_id: uuid.UUID) -> Reading | None:
    with _lock:
        return _live.get(job_id)


def forget(job_id: uuid.UUID) -> None:
    with _lock:
        _live.pop(job_id, None)


def _write(job_id: uuid.UUID, reading: Reading) -> None:
    # runs on the writer thread: its own connection, autocommit, visible at once to other processes
    close_old_connections()
    try:
        Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
            phase=reading.phase[:100], done=reading.done, total=reading.total
        )
    finally:
        connection.close()  # no idle connection left behind (it would block dropping a test database)


class Reporter:
    """The progress callback a job function receives."""

    def __init__(self, job_id: uuid.UUID) -> None:
        self.job_id = job_id
        self.last_flush = 0.0
        self.separate_connection = connection.vendor == "postgresql"

    def __call__(self, phase: str, done: int, total: int, /) -> None:
        reading = Reading(phase, int(done), int(total))
        with _lock:
            _live[self.job_id] = reading
        now = time.monotonic()
        if self.separate_connection and now - self.last_flush >= FLUSH_EVERY:
            self.last_flush = now
            _writer.submit(_write, self.job_id, reading)
