"""``manage.py import_runs CAMPAIGN FILE...``: validate run files and store them, all or none."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from campaigns.errors import CampaignDataError
from campaigns.management.importing import (
    add_campaign_arguments,
    add_progress_argument,
    campaign_for,
    progress_bars,
    refusal,
)
from campaigns.services import runs_import
from campaigns.validation import Severity


class Command(BaseCommand):
    help = (
        "Validate run files ('qid Q0 docno rank score tag') against the campaign's topics and store them. "
        "Any error in any file (duplicates, too many documents per topic, unknown or zero-padded topics, "
        "bad scores, mixed tags...) refuses the whole import with a report naming files and lines, exit "
        "code 2; warnings are listed."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        add_campaign_arguments(parser)
        parser.add_argument("files", nargs="+", metavar="FILE", help="run files (gzip is read transparently)")
        parser.add_argument("--group", default=None, help="the participating group (team) the runs belong to")
        parser.add_argument(
            "--priority",
            type=int,
            default=None,
            help="judging priority of the first file within its group, the next counting up "
            "(default: after the group's runs)",
        )
        parser.add_argument(
            "--max-docs",
            type=int,
            default=None,
            help="documents allowed per topic (default: the campaign's limit, 1000 unless set)",
        )
        add_progress_argument(parser)

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            with transaction.atomic(), progress_bars(self.stderr, opts["progress"]) as bars:
                campaign = campaign_for(opts)
                result = runs_import(
                    campaign=campaign,
                    paths=opts["files"],
                    group=opts["group"],
                    priority=opts["priority"],
                    max_docs=opts["max_docs"],
                    progress=bars,
                )
        except CampaignDataError as exc:
            raise refusal(exc, self.stderr, "import_runs") from exc
        for report in result.reports:
            for line in report.render(Severity.WARNING):
                self.stderr.write(line)
        lines = sum(run.document_count for run in result.runs)
        self.stdout.write(
            f"campaign '{campaign.slug}': {len(result.runs)} runs imported ({lines} ranked documents)"
        )
