"""``manage.py simulate_pool``: replays a pooling strategy against complete judgments, no database."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from pooling.cli import SIMULATE_HELP, UsageError, add_simulate_arguments, run_simulate


class Command(BaseCommand):
    help = SIMULATE_HELP
    # Pure file work: no system checks, no database.
    requires_system_checks = []  # noqa: RUF012 - Django's own attribute
    requires_migrations_checks = False

    def add_arguments(self, parser: ArgumentParser) -> None:
        add_simulate_arguments(parser)

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            run_simulate(opts, self.stdout, self.stderr)
        except UsageError as exc:
            raise CommandError(str(exc), returncode=2) from exc
