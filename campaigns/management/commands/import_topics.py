"""``manage.py import_topics CAMPAIGN FILE``: add (or update) a campaign's topics."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from campaigns.errors import CampaignDataError
from campaigns.management.importing import add_campaign_arguments, campaign_for, refusal
from campaigns.services import topics_import
from trec.topics import TOPIC_FORMATS


class Command(BaseCommand):
    help = (
        "Import topics (TREC <top> blocks, TSV 'qid<TAB>title[<TAB>description<TAB>narrative]' or JSON "
        "lines) into a campaign. Existing topics are updated, none removed. Exit code 2 on a bad file."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        add_campaign_arguments(parser)
        parser.add_argument("file", metavar="FILE", help="the topics file (gzip is read transparently)")
        parser.add_argument("--format", dest="fmt", choices=TOPIC_FORMATS, default="auto")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            with transaction.atomic():
                campaign = campaign_for(opts)
                result = topics_import(campaign=campaign, path=opts["file"], fmt=opts["fmt"])
        except CampaignDataError as exc:
            raise refusal(exc, self.stderr, "import_topics") from exc
        self.stdout.write(
            f"campaign '{campaign.slug}': {result.created} topics created, {result.updated} updated, "
            f"{result.unchanged} unchanged"
        )
