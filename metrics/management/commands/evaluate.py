"""``manage.py evaluate``: a drop-in for trec_eval (and sample_eval.pl with --prel) on files, no database."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from engine.cli import EVALUATE_HELP, UsageError, add_evaluate_arguments, run_evaluate


class Command(BaseCommand):
    help = EVALUATE_HELP
    # Pure file work: no system checks, no database.
    requires_system_checks = []  # noqa: RUF012 - Django's own attribute
    requires_migrations_checks = False

    def add_arguments(self, parser: ArgumentParser) -> None:
        add_evaluate_arguments(parser)

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            run_evaluate(opts, self.stdout, self.stderr)
        except UsageError as exc:
            raise CommandError(str(exc), returncode=2) from exc
