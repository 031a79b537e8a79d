"""``manage.py import_documents CAMPAIGN FILE...``: store the documents assessors will read."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from campaigns.errors import CampaignDataError
from campaigns.management.importing import (
    add_campaign_arguments,
    add_progress_argument,
    campaign_for,
    progress_bars,
    refusal,
)
from campaigns.services import documents_import
from trec import FormatError, read_mq_prel, read_prel, read_qrels
from trec.documents import DOCUMENT_FORMATS

POOL_FORMATS = ("qrels", "prel", "mq")


def pool_docnos(paths: list[str], fmt: str) -> set[str]:
    """The docnos of pool files as build_pool writes them (qrels, sample_eval prel, Million Query prel)."""
    needed: set[str] = set()
    for path in paths:
        pool = (
            read_qrels(path) if fmt == "qrels" else (read_prel if fmt == "prel" else read_mq_prel)(path).qrels
        )
        needed.update(d.decode() for d in pool.docnos.tolist())
    return needed


class Command(BaseCommand):
    help = (
        "Import documents (TREC <DOC> SGML with <DOCNO>, <TEXT> and <HEADLINE>/<TITLE>; JSON lines with "
        "docno/id and text/contents; TSV 'docno<TAB>text' or 'docno<TAB>title<TAB>text'). With --pool, "
        "only the documents the pools hold are stored. Documents without text are reported."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        add_campaign_arguments(parser)
        parser.add_argument(
            "files", nargs="+", metavar="FILE", help="collection files (gzip is read transparently)"
        )
        parser.add_argument("--format", dest="fmt", choices=DOCUMENT_FORMATS, default="auto")
        parser.add_argument(
            "--pool",
            action="append",
            default=[],
            metavar="POOL",
            help="a pool file (as written by build_pool): store only its documents; repeatable",
        )
        parser.add_argument("--pool-format", choices=POOL_FORMATS, default="qrels")
        add_progress_argument(parser)

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            needed = pool_docnos(opts["pool"], opts["pool_format"]) if opts["pool"] else None
        except FormatError as exc:
            raise CommandError(str(exc), returncode=2) from exc
        try:
            with transaction.atomic(), progress_bars(self.stderr, opts["progress"]) as bars:
                campaign = campaign_for(opts)
                result = documents_import(
                    campaign=campaign, paths=opts["files"], fmt=opts["fmt"], needed=needed, progress=bars
                )
        except CampaignDataError as exc:
            raise refusal(exc, self.stderr, "import_documents") from exc
        for what, docnos in (
            ("with no text (not stored)", result.without_text),
            ("needed but in none of the files", result.not_found),
            ("listed more than once (the first was kept)", result.duplicates),
        ):
            if docnos:
                shown = ", ".join(docnos[:10]) + (", ..." if len(docnos) > 10 else "")
                self.stderr.write(f"import_documents: warning: {len(docnos)} documents {what}: {shown}")
        if result.not_utf8:
            shown = ", ".join(result.not_utf8[:10]) + (", ..." if len(result.not_utf8) > 10 else "")
            self.stderr.write(
                f"import_documents: warning: {len(result.not_utf8)} documents held bytes that are not "
                f"UTF-8, stored as U+FFFD ({result.replacements} in all): {shown}"
            )
        self.stdout.write(
            f"campaign '{campaign.slug}': {result.stored} documents stored, {result.already_stored} already "
            f"stored, {result.not_needed} not needed by the pools"
        )
