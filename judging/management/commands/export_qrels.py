"""``manage.py export_qrels CAMPAIGN --kind ... --output FILE``: the campaign's judgments as a file."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from campaigns.errors import CampaignDataError, CampaignNotFound
from campaigns.selectors import campaign_get
from judging.consensus import RULES
from judging.exports import EXPORT_KINDS, export_file
from trec.io import open_text_out


class Command(BaseCommand):
    help = (
        "Export a campaign's judgments: one assessor's qrels (--kind assessor --assessor NAME), the "
        "consensus under a rule (majority: ties to the lowest grade; median: the lower median; "
        "adjudicated: the decision, else the majority), the adjudicated qrels, qrels binarized at "
        "--threshold, a sample_eval prel or a Million Query prel of a pool with the consensus grades, or "
        "every judgment as CSV. 'Can't judge' and ungraded documents are -1. A '.gz' output is gzipped; "
        "'-' writes to stdout. Refusals exit with code 2."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("campaign", metavar="CAMPAIGN", help="the campaign's slug")
        parser.add_argument("--kind", choices=EXPORT_KINDS, required=True, help="what to export")
        parser.add_argument("--assessor", default=None, help="the assessor's username (--kind assessor)")
        parser.add_argument(
            "--rule", choices=RULES, default="majority", help="consensus rule (default majority)"
        )
        parser.add_argument(
            "--threshold",
            type=int,
            default=1,
            help="--kind binary: relevant = grade >= THRESHOLD (default 1)",
        )
        parser.add_argument(
            "--pool", default=None, help="--kind prel/mq: the pool's name (default: the campaign's only pool)"
        )
        parser.add_argument("--output", required=True, metavar="FILE", help="where to write ('-': stdout)")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            campaign = campaign_get(slug=opts["campaign"])
        except CampaignNotFound as exc:
            raise CommandError(f"export_qrels: no campaign '{opts['campaign']}'", returncode=2) from exc
        try:
            text = export_file(
                campaign=campaign,
                kind=opts["kind"],
                assessor=opts["assessor"],
                rule=opts["rule"],
                threshold=opts["threshold"],
                pool=opts["pool"],
            ).text
        except CampaignDataError as exc:
            raise CommandError(f"export_qrels: {'; '.join(exc.problems)}", returncode=2) from exc
        if opts["output"] == "-":
            self.stdout.write(text, ending="")
            return
        try:
            with open_text_out(opts["output"]) as out:
                out.write(text)
        except OSError as exc:
            raise CommandError(
                f"export_qrels: {opts['output']}: {exc.strerror or exc}", returncode=2
            ) from exc
        lines = text.count("\n")
        self.stderr.write(f"export_qrels: {lines} lines written to {opts['output']}")
