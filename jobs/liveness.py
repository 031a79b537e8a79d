"""Whether the process running a job is still alive: a lock that dies with the process.

A running job holds a lock for as long as its process lives, and the operating system or the
database releases it however the process ends (``kill -9`` included), so a job whose lock is free
while its row says "running" was interrupted:

- SQLite (one machine): ``flock`` on a file in the job's folder; the kernel drops it with the
  process's last file descriptor.
- PostgreSQL (any number of machines): a session advisory lock, held on a connection of its own;
  the server drops it when the session ends. TCP keepalives on that session make the server notice
  within about a minute a machine that vanished without closing it (power loss, network cut).

Checking takes the lock for an instant and gives it back: a read, never a write.
"""

from __future__ import annotations

import fcntl
import os
import uuid
from pathlib import Path
from typing import Any

from django.db import connection, connections

LOCK_FILE = ".running"
# seconds of silence before the server probes, between probes, and probes lost before it gives up
KEEPALIVE = (20, 10, 3)


def _key(job_id: uuid.UUID) -> int:
    """The advisory lock's bigint key: the job id's first 64 bits (signed)."""
    return int.from_bytes(job_id.bytes[:8], "big", signed=True)


def _lock_path(folder: Path) -> Path:
    return folder / LOCK_FILE


class Holder:
    """``with Holder(job_id, folder):`` holds the job's lock (and, on PostgreSQL, a connection of its
    own, :attr:`side`, which the progress reporter also writes through: it commits at once whatever
    the work's own transaction is doing)."""

    def __init__(self, job_id: uuid.UUID, folder: Path) -> None:
        self.job_id = job_id
        self.folder = folder
        self.fd: int | None = None
        self.side: Any = None

    def __enter__(self) -> Holder:
        if connection.vendor == "postgresql":
            side = connections.create_connection(connection.alias)
            try:
                with side.cursor() as cursor:
                    idle, interval, count = KEEPALIVE
                    cursor.execute(
                        f"SET tcp_keepalives_idle = {idle}; SET tcp_keepalives_interval = {interval}; "
                        f"SET tcp_keepalives_count = {count}"
                    )
                    cursor.execute("SELECT pg_advisory_lock(%s)", [_key(self.job_id)])
            except BaseException:
                side.close()
                raise
            self.side = side
        else:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.fd = os.open(_lock_path(self.folder), os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(self.fd, fcntl.LOCK_EX)  # checkers hold it only for an instant
        return self

    def __exit__(self, *exc: object) -> None:
        if self.side is not None:
            self.side.close()  # ends the session, which releases the advisory lock
            self.side = None
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def job_held(job_id: uuid.UUID, folder: Path) -> bool:
    """True while a live process holds the job's lock."""
    if connection.vendor == "postgresql":
        key = _key(job_id)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
            (taken,) = cursor.fetchone()
            if taken:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
        return not taken
    try:
        fd = os.open(_lock_path(folder), os.O_RDWR)
    except FileNotFoundError:
        return False  # the job's folder is gone: nobody holds it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also releases the lock if we got it
    return False
