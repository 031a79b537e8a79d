"""Writes of external judgments: a qrels file kept as it was, for diagnostics and simulations."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
from django.db import transaction

from campaigns.errors import ImportRefused
from campaigns.models import Campaign, QrelsSet, Topic
from campaigns.validation import DOCNO_MAX_LENGTH, TAG_MAX_LENGTH, TOPIC_MAX_LENGTH
from trec import FormatError, read_qrels
from trec.io import PathLike, iter_blocks
from trec.qrels import topic_first_lines
from trec.text import nul_error, printable, utf8_error

LISTED = 20  # unknown topics named one by one; the rest are counted


# the qrels columns that name something, with the longest value a campaign can hold (the widths of
# the runs' and documents' columns); longer is refused with its line (docs/formats.md)
LIMITS = (
    (0, "topic id", TOPIC_MAX_LENGTH),
    (1, "second column", TAG_MAX_LENGTH),
    (2, "docno", DOCNO_MAX_LENGTH),
)
_SEPARATORS = re.compile(rb"[\x00-\x20]+")  # the line formats' separators (docs/formats.md)


def _bytes_check(path: PathLike) -> None:
    """Refuse, with its line, a NUL byte, text that is not UTF-8 or a token over its limit, before
    the reader builds its columns (a token of megabytes would be that wide on every line)."""
    for raw, first_line in iter_blocks(path):
        error = nul_error(path, raw, first_line, "a qrels file") or utf8_error(path, raw, first_line)
        if error is not None:
            raise error
        buf = np.frombuffer(raw, dtype=np.uint8)
        ends = np.r_[np.flatnonzero(buf == 10), len(raw)]
        starts = np.r_[0, ends[:-1] + 1]
        # a line no longer than the smallest limit holds no token over its own
        for k in np.flatnonzero(ends - starts > TOPIC_MAX_LENGTH).tolist():
            tokens = [t for t in _SEPARATORS.split(raw[starts[k] : ends[k]]) if t]
            if not tokens or tokens[0].startswith(b"#"):
                continue
            for col, what, limit in LIMITS:
                if len(tokens) > col and len(tokens[col].decode("utf-8")) > limit:
                    raise FormatError(
                        str(path),
                        first_line + k,
                        f"{what} '{printable(tokens[col])}' is longer than {limit} characters",
                    )


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
        _bytes_check(path)  # docs/formats.md#bytes-and-encodings
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
