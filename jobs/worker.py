"""The embedded worker: one thread in the web process runs queued jobs, so no extra service is needed."""

from __future__ import annotations

import logging
import threading

from django.db import close_old_connections, connection

log = logging.getLogger(__name__)

_wakeup = threading.Event()
_stopping = threading.Event()
_started = threading.Lock()
_thread: threading.Thread | None = None
IDLE_POLL = 5.0  # seconds: also picks up jobs another process queued


def wake() -> None:
    """Make sure the worker thread runs and look for queued jobs now."""
    global _thread
    with _started:
        if _thread is None or not _thread.is_alive():
            _stopping.clear()
            _thread = threading.Thread(target=_loop, name="workbench-jobs", daemon=True)
            _thread.start()
    _wakeup.set()


def stop(timeout: float = 30.0) -> None:
    """Let the running job finish, then end the thread (tests; a server simply exits)."""
    global _thread
    with _started:
        thread, _thread = _thread, None
    if thread is not None:
        _stopping.set()
        _wakeup.set()
        thread.join(timeout)


def _loop() -> None:
    from jobs.services import job_run, jobs_interrupted, uploads_orphaned_remove

    try:
        if jobs_interrupted():
            log.warning("jobs left running by a stopped process were marked failed")
        uploads_orphaned_remove()
    except Exception:
        log.exception("could not clean up interrupted jobs")
    while not _stopping.is_set():
        _wakeup.wait(IDLE_POLL)
        _wakeup.clear()
        if _stopping.is_set():
            break
        try:
            while not _stopping.is_set() and job_run() is not None:
                pass
        except Exception:  # the job itself is recorded failed; this is a database outage
            log.exception("job worker error")
        finally:
            close_old_connections()
            connection.close()
