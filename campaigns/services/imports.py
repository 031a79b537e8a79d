"""Writes of campaign data: topics, runs and documents. Every service is atomic.

Imports validate before they write, and a refused or failed import raises inside its transaction,
so nothing of it remains and nothing stored before is touched. Run lines are the bulk of a
campaign (5M for 100 runs x 50 topics x 1000 documents): each run is stored as one block of the
arrays its file was parsed into (``RunArrays``), one row per run on every database.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from campaigns.errors import CampaignDataError, ImportRefused
from campaigns.models import Campaign, Document, Group, Run, Topic
from campaigns.selectors import campaign_taken_tags, documents_stored
from campaigns.stored_runs import arrays_blob, block_write
from campaigns.validation import (
    DOCNO_MAX_LENGTH,
    TOPIC_ID_CHECKS,
    CheckedRun,
    Code,
    RunReport,
    Severity,
    check_run,
)
from trec import FormatError, RankedRun, read_topics
from trec.documents import DocumentReader
from trec.io import PathLike
from trec.progress import ProgressCallback, quiet_progress

# ------------------------------------------------------------------------------------------- topics


@dataclass(frozen=True)
class TopicImportResult:
    created: int
    updated: int
    unchanged: int
    # the topics whose text this import replaced, each with the fields that changed, in file order
    changed: dict[str, list[str]] = field(default_factory=dict)


TOPIC_FIELDS = ("title", "description", "narrative")


@transaction.atomic
def topics_import(
    *, campaign: Campaign, path: PathLike, fmt: str = "auto", progress: ProgressCallback | None = None
) -> TopicImportResult:
    """Add the file's topics to the campaign and update changed texts, which the result lists;
    topics are never removed (runs and judgments refer to them). Topic ids must be plain tokens
    (:data:`~campaigns.validation.TOPIC_ID_CHECKS`): refused with file:line otherwise."""
    progress = progress or quiet_progress
    try:
        topics = read_topics(path, fmt)
    except FormatError as exc:
        raise ImportRefused(str(exc)) from exc
    problems = [
        f"{path}:{t.line}: {problem}"
        for check in TOPIC_ID_CHECKS
        for t in topics
        if (problem := check(t.number)) is not None
    ]
    if problems:
        raise ImportRefused(problems)
    existing = {t.number: t for t in Topic.objects.filter(campaign=campaign)}
    created: list[Topic] = []
    updated: list[Topic] = []
    changed: dict[str, list[str]] = {}
    for t in topics:
        old = existing.get(t.number)
        if old is None:
            created.append(
                Topic(
                    campaign=campaign,
                    number=t.number,
                    title=t.title,
                    description=t.description,
                    narrative=t.narrative,
                )
            )
            continue
        fields = [f for f in TOPIC_FIELDS if getattr(old, f) != getattr(t, f)]
        if fields:
            for f in fields:
                setattr(old, f, getattr(t, f))
            updated.append(old)
            changed[t.number] = fields
    Topic.objects.bulk_create(created)
    Topic.objects.bulk_update(updated, list(TOPIC_FIELDS))
    progress("importing topics", len(topics), len(topics))
    return TopicImportResult(len(created), len(updated), len(topics) - len(created) - len(updated), changed)


# --------------------------------------------------------------------------------------------- runs


@dataclass(frozen=True)
class RunImportResult:
    runs: list[Run]
    reports: list[RunReport]  # one per file, in order, warnings included


def _checked_runs(paths: Sequence[PathLike], **options: object) -> Iterator[CheckedRun]:
    """Check the files in order, reading the next one on a thread while the caller stores this one.

    Parsing is numpy work that releases the GIL, storing mostly waits on the database, so the two
    overlap; at most two parsed runs are held at a time.
    """
    if not paths:
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-check") as pool:
        pending = pool.submit(check_run, paths[0], **options)  # type: ignore[arg-type]
        for i in range(len(paths)):
            checked = pending.result()
            if i + 1 < len(paths):
                pending = pool.submit(check_run, paths[i + 1], **options)  # type: ignore[arg-type]
            yield checked


def runs_import(
    *,
    campaign: Campaign,
    paths: Sequence[PathLike],
    group: str | None = None,
    priority: int | None = None,
    max_docs: int | None = None,
    submitted_at: datetime | None = None,
    filenames: Sequence[str] | None = None,
    progress: ProgressCallback | None = None,
) -> RunImportResult:
    """Validate and store run files, all or none.

    ``group``: the participating team's name (created when new). ``priority``: the first file's
    judging priority within the group, the next files counting up; by default after the group's
    existing runs. ``max_docs``: documents allowed per topic (default: the campaign's limit).
    ``filenames``: the names to record when ``paths`` are temporary copies of uploads.
    Every file is checked even after one fails, so the refusal reports all their problems.
    """
    progress = progress or quiet_progress
    topic_pks = dict(Topic.objects.filter(campaign=campaign).values_list("number", "id"))
    if not topic_pks:
        raise ImportRefused(
            f"campaign '{campaign.slug}' has no topics yet: import its topics before its runs"
        )
    names = list(filenames) if filenames is not None else [Path(p).name for p in paths]
    if len(names) != len(paths):
        raise CampaignDataError("one file name is needed per run file")
    taken = campaign_taken_tags(campaign=campaign)
    limit = campaign.max_docs_per_topic if max_docs is None else max_docs
    stamp = submitted_at or timezone.now()
    with transaction.atomic():
        group_obj = Group.objects.get_or_create(campaign=campaign, name=group)[0] if group else None
        next_priority = _first_priority(group_obj, priority, len(paths))
        runs: list[Run] = []
        reports: list[RunReport] = []
        refused = False
        # the checking thread gets its own copy: tags of this batch are added here as files pass
        checked_runs = _checked_runs(paths, topics=topic_pks.keys(), max_docs=limit, taken_tags=dict(taken))
        for done, (name, checked) in enumerate(zip(names, checked_runs, strict=True)):
            report = checked.report
            if filenames is not None:
                report.shown_as(name)
            reports.append(report)
            if report.ok and report.tag in taken:  # a tag used twice within this batch
                report.add(Code.TAG_TAKEN, report.tag_line, f"tag '{report.tag}' {taken[report.tag]}")
            refused = refused or not report.ok or checked.run is None
            if not refused:
                assert checked.run is not None
                run = Run.objects.create(
                    campaign=campaign,
                    tag=report.tag,
                    group=group_obj,
                    priority=next_priority,
                    original_filename=name[:255],
                    submitted_at=stamp,
                    topic_count=len(checked.run.topics),
                    document_count=len(checked.run),
                    warnings=report.render(Severity.WARNING),
                )
                _store_lines(run, checked.run, topic_pks)
                runs.append(run)
                next_priority += 1
            if report.tag:
                taken[report.tag] = f"is also the tag of {name}"
            progress("importing runs", done + 1, len(paths))
        if refused:
            raise ImportRefused([line for r in reports for line in r.render()], reports)
    return RunImportResult(runs, reports)


def run_import(
    *,
    campaign: Campaign,
    path: PathLike,
    group: str | None = None,
    priority: int | None = None,
    max_docs: int | None = None,
    submitted_at: datetime | None = None,
    filename: str | None = None,
    progress: ProgressCallback | None = None,
) -> Run:
    """Validate and store one run file (see :func:`runs_import`)."""
    result = runs_import(
        campaign=campaign,
        paths=[path],
        group=group,
        priority=priority,
        max_docs=max_docs,
        submitted_at=submitted_at,
        filenames=None if filename is None else [filename],
        progress=progress,
    )
    return result.runs[0]


def _first_priority(group: Group | None, priority: int | None, count: int) -> int:
    if group is None:
        return priority or 1
    if priority is None:
        top = Run.objects.filter(group=group).aggregate(top=Max("priority"))["top"]
        return (top or 0) + 1
    if priority < 1:
        raise ImportRefused("a run's priority is 1 (judged first) or more")
    clash = Run.objects.filter(group=group, priority__gte=priority, priority__lt=priority + count)
    if clash.exists():
        taken = ", ".join(f"{r.tag} ({r.priority})" for r in clash.order_by("priority"))
        raise ImportRefused(f"group '{group.name}' already has runs at those priorities: {taken}")
    return priority


def _store_lines(run: Run, ranked: RankedRun, topic_pks: dict[str, int]) -> None:
    """Store a run's lines as its block: the parsed arrays (``ranked`` is in canonical order)."""
    topic_ids = np.array([topic_pks[t] for t in ranked.topics], dtype=np.int64)
    block_write(run.pk, arrays_blob(topic_ids, np.diff(ranked.offsets), ranked.docnos, ranked.scores))


# ---------------------------------------------------------------------------------------- documents


@dataclass(frozen=True)
class DocumentImportResult:
    stored: int
    already_stored: int  # needed and already in the campaign: left as they were
    not_needed: int  # read but in no pool
    duplicates: list[str]  # docnos read twice (the first was kept)
    without_text: list[str]  # docnos read with no text: not stored
    not_found: list[str]  # needed docnos in no file and not stored before
    # stored documents that held bytes that are not UTF-8, each as 'docno (file:line)', and how
    # many such byte sequences they held in all, each stored as U+FFFD
    not_utf8: list[str] = field(default_factory=list)
    replacements: int = 0


DOCUMENT_BATCH = 2_000


def _file_size(path: PathLike) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0  # the reader reports the file as unreadable


@transaction.atomic
def documents_import(
    *,
    campaign: Campaign,
    paths: Sequence[PathLike],
    fmt: str = "auto",
    needed: Collection[str] | None = None,
    progress: ProgressCallback | None = None,
) -> DocumentImportResult:
    """Store the documents assessors will read: only the ``needed`` docnos (what the pools hold)
    when given, else every document. Documents already stored are kept as they are; a document
    without text is not stored but reported, so a later file can supply it. Bytes that are not
    UTF-8 are stored as U+FFFD and the result lists the documents that held some; a NUL byte
    refuses the import (docs/formats.md#bytes-and-encodings). Progress counts the documents read,
    of an estimate (from the bytes read) of how many the files hold."""
    progress = progress or quiet_progress
    wanted = None if needed is None else set(needed)
    existing = documents_stored(campaign=campaign, docnos=wanted)
    sizes = [_file_size(p) for p in paths]
    total, before = sum(sizes), 0
    seen: set[str] = set()
    duplicates: list[str] = []
    without_text: list[str] = []
    batch: list[Document] = []
    not_utf8: list[str] = []
    stored = already = not_needed = read = replacements = 0

    def counted(at: int) -> None:
        # documents read of the documents the files hold, estimated from how far into them we are
        estimate = read * total // at if at else read
        progress("importing documents", read, max(read, estimate))

    for path, size in zip(paths, sizes, strict=True):
        reader = DocumentReader(path, fmt)
        try:
            for doc in reader:
                read += 1
                if wanted is not None and doc.docno not in wanted:
                    not_needed += 1
                    continue
                if doc.docno in seen:
                    duplicates.append(doc.docno)
                    continue
                seen.add(doc.docno)
                if doc.docno in existing:
                    already += 1
                elif not doc.text:
                    without_text.append(doc.docno)
                elif len(doc.docno) > DOCNO_MAX_LENGTH:
                    raise FormatError(
                        str(path), doc.line, f"docno is longer than {DOCNO_MAX_LENGTH} characters"
                    )
                else:
                    batch.append(Document(campaign=campaign, docno=doc.docno, title=doc.title, text=doc.text))
                    if doc.replaced:
                        not_utf8.append(f"{doc.docno} ({path}:{doc.line})")
                        replacements += doc.replaced
                if len(batch) >= DOCUMENT_BATCH:
                    stored += len(Document.objects.bulk_create(batch))
                    batch = []
                    counted(before + min(reader.position, size))
        except FormatError as exc:
            raise ImportRefused(str(exc)) from exc
        before += size
        counted(before)
    progress("importing documents", read, read)
    stored += len(Document.objects.bulk_create(batch))
    not_found = sorted(wanted - seen - existing) if wanted is not None else []
    return DocumentImportResult(
        stored, already, not_needed, duplicates, without_text, not_found, not_utf8, replacements
    )
