"""Writes of external judgments: a qrels file kept as it was, for diagnostics and simulations."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
from django.db import transaction

from campaigns.errors import ImportRefused
from campaigns.models import Campaign, QrelsSet, Topic
from trec import FormatError, read_qrels
from trec.io import PathLike
from trec.qrels import topic_first_lines

LISTED = 20  # unknown topics named one by one; the rest are counted


@transaction.atomic
def qrels_set_import(
    *, campaign: Campaign, path: PathLike, name: str = "", filename: str | None = None
) -> QrelsSet:
    """Keep a qrels file (e.g. last round's judgments) for diagnostics; refused whole if malformed
    or if it judges topics the campaign does not have (each named with its first line)."""
    shown = filename or Path(path).name
    name = (name or Path(shown).stem).strip()[:100]
    if QrelsSet.objects.filter(campaign=campaign, name=name).exists():
        raise ImportRefused(f"campaign '{campaign.slug}' already has judgments named '{name}'")
    try:
        qrels = read_qrels(path)
    except FormatError as exc:
        raise ImportRefused(str(exc).replace(str(path), shown)) from exc
    known = set(Topic.objects.filter(campaign=campaign).values_list("number", flat=True))
    unknown = [t for t in qrels.topics if t not in known]
    if unknown:
        lines = topic_first_lines(path, unknown)
        problems = [
            f"{shown}:{lines.get(t, 0)}: topic '{t[:60]}' is not a topic of campaign '{campaign.slug}'"
            for t in unknown[:LISTED]
        ]
        if len(unknown) > LISTED:
            problems.append(f"{shown}: and {len(unknown) - LISTED} more topics not in the campaign")
        raise ImportRefused(problems)
    raw = Path(path).read_bytes()
    content = raw if raw[:2] == b"\x1f\x8b" else gzip.compress(raw, compresslevel=6)
    return QrelsSet.objects.create(
        campaign=campaign,
        name=name,
        original_filename=shown[:255],
        content=content,
        line_count=len(qrels.docnos),
        topic_count=len(qrels.topics),
        relevant_count=int(np.count_nonzero(qrels.rels >= 1)),
    )
