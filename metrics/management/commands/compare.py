"""``manage.py compare``: significance tests, Tukey HSD and rank correlations between runs, on files."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from engine.cli import COMPARE_HELP, UsageError, add_compare_arguments, run_compare


class Command(BaseCommand):
    help = COMPARE_HELP
    # Pure file work: no system checks, no database.
    requires_system_checks = ()
    requires_migrations_checks = False

    def add_arguments(self, parser: ArgumentParser) -> None:
        add_compare_arguments(parser)

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            run_compare(opts, self.stdout, self.stderr)
        except UsageError as exc:
            raise CommandError(str(exc), returncode=2) from exc
