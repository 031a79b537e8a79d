"""``manage.py run_jobs``: a worker process for background jobs (with WORKBENCH_JOBS=external)."""

from __future__ import annotations

import time
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand
from django.db import OperationalError, close_old_connections

from jobs.services import job_run, uploads_orphaned_remove


class Command(BaseCommand):
    help = (
        "Run queued background jobs (imports, pool builds, evaluations). Start several on PostgreSQL "
        "to run jobs side by side; with --once, run what is queued and stop."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--once", action="store_true", help="stop when no job is queued")
        parser.add_argument("--poll", type=float, default=2.0, help="seconds between looks when idle")

    def handle(self, *args: Any, **opts: Any) -> None:
        uploads_orphaned_remove()
        while True:
            try:
                job = job_run()
            except OperationalError as exc:  # a locked or restarting database: try again shortly
                self.stderr.write(f"database unavailable ({exc}); retrying")
                close_old_connections()
                time.sleep(opts["poll"])
                continue
            if job is not None:
                self.stdout.write(f"{job.kind} {job.id}: {job.status}")
                continue
            if opts["once"]:
                return
            time.sleep(opts["poll"])
