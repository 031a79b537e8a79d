"""``manage.py jobs_worker``: django-tasks-db's ``db_worker`` that also fails interrupted jobs.

It runs the tasks as ``db_worker`` does (same options), and before it starts, then every few seconds
on a thread of its own, fails the jobs whose worker stopped (:func:`jobs.services.jobs_interrupted_fail`).
When it starts it also removes what stopped processes left of uploads
(:func:`jobs.services.uploads_stale_remove`), and lowers its own CPU priority (niceness ``--nice``,
default ``WORKBENCH_WORKER_NICE``, 10): on a machine that also serves the judging pages, an evaluation,
import or machine judge then takes only the CPU the web processes leave, and saves keep their pace.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.db import connection
from django_tasks_db.management.commands.db_worker import Command as DbWorkerCommand

from jobs.execution import WORKER
from jobs.services import jobs_interrupted_fail, uploads_stale_remove

log = logging.getLogger(__name__)


def lower_priority(niceness: int) -> int:
    """Run this process at ``niceness`` at least (never raising its priority: starting twice in one
    process does not add up); its niceness now."""
    return os.nice(max(0, niceness - os.nice(0)))


def _check(every: float, stop: threading.Event) -> None:
    while not stop.wait(every):
        try:
            jobs_interrupted_fail()
        except Exception:  # a database outage: the next pass tries again
            log.exception("could not check for interrupted jobs")
        finally:
            connection.close()  # this thread's own connection; none left idle between passes


class Command(DbWorkerCommand):
    help = (
        "Run background jobs (imports, pool builds, evaluations): django-tasks-db's db_worker, which "
        "also marks failed the jobs of workers that stopped. On PostgreSQL start any number, on any "
        "number of machines."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--check-every",
            type=float,
            default=5.0,
            help="seconds between looks for jobs whose worker stopped (default: %(default)s)",
        )
        parser.add_argument(
            "--nice",
            type=int,
            default=None,
            help="the worker's niceness (0-19), a lower CPU priority than the web processes' so that "
            "requests come first (default: WORKBENCH_WORKER_NICE, 10; 0 leaves it)",
        )
        # reloading on a code change would kill the job running at that moment
        parser.set_defaults(reload=False, worker_id=WORKER)

    def handle(self, *args: Any, **options: Any) -> None:
        every = options.pop("check_every")
        step = options.pop("nice")
        niceness = lower_priority(settings.WORKBENCH_WORKER_NICE if step is None else min(19, max(0, step)))
        log.info("jobs worker at niceness %d", niceness)
        failed = jobs_interrupted_fail()
        if failed:
            log.warning("%d interrupted job(s) marked failed", failed)
        uploads_stale_remove()  # after the failing above: those jobs' folders are gone already
        stop = threading.Event()
        checker = threading.Thread(target=_check, args=(every, stop), name="jobs-check", daemon=True)
        checker.start()
        # db_worker installs its own handlers; give the caller's back (call_command in tests)
        handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)}
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
            for sig, handler in handlers.items():
                signal.signal(sig, handler)
