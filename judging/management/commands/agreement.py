"""``manage.py agreement``: inter-assessor agreement from qrels files, no database."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from judging.cli import AGREEMENT_HELP, UsageError, add_agreement_arguments, run_agreement


class Command(BaseCommand):
    help = AGREEMENT_HELP
    # Pure file work: no system checks, no database.
    requires_system_checks = []  # noqa: RUF012 - Django's own attribute
    requires_migrations_checks = False

    def add_arguments(self, parser: ArgumentParser) -> None:
        add_agreement_arguments(parser)

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            run_agreement(opts, self.stdout, self.stderr)
        except UsageError as exc:
            raise CommandError(str(exc), returncode=2) from exc
