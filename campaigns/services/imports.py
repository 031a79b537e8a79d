"""Writes of campaign data: topics, runs and documents. Every service is atomic.

Imports validate before they write, and a refused or failed import raises inside its transaction,
so nothing of it remains and nothing stored before is touched. Run lines are the bulk of a
campaign (5M for 100 runs x 50 topics x 1000 documents): they bypass the ORM and go in with
PostgreSQL's binary ``COPY`` or, on SQLite, one ``executemany`` per batch.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

import numpy as np
from django.db import DatabaseError, OperationalError, connection, transaction
from django.db.models import Max
from django.utils import timezone

from campaigns.errors import CampaignDataError, ImportRefused
from campaigns.models import Campaign, Document, Group, Run, RunDocument, Topic
from campaigns.selectors import campaign_taken_tags, documents_stored
from campaigns.services.bulk import columns_of
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
    expected_rows = sum(_file_size(p) for p in paths) // LINE_BYTES
    with transaction.atomic():
        group_obj = Group.objects.get_or_create(campaign=campaign, name=group)[0] if group else None
        next_priority = _first_priority(group_obj, priority, len(paths))
        runs: list[Run] = []
        reports: list[RunReport] = []
        refused = False
        lines = _RunLines(expected_rows)
        try:
            # the checking thread gets its own copy: tags of this batch are added here as files pass
            checked_runs = _checked_runs(
                paths, topics=topic_pks.keys(), max_docs=limit, taken_tags=dict(taken)
            )
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
                    lines.store(run, checked.run, topic_pks)
                    runs.append(run)
                    next_priority += 1
                if report.tag:
                    taken[report.tag] = f"is also the tag of {name}"
                progress("importing runs", done + 1, len(paths))
            if refused:
                raise ImportRefused([line for r in reports for line in r.render()], reports)
            lines.finish()
        finally:
            lines.close()
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


def _file_size(path: PathLike) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0  # the check reports the file as unreadable


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


# Rows per COPY chunk or per SQLite batch: large enough that per-batch overhead vanishes, small
# enough that the Python objects of one batch (SQLite) stay a few tens of MB.
INSERT_BATCH = 100_000
# Rows per SQLite INSERT statement: one multi-row VALUES list binds 4 parameters a row (the run id
# is a literal), far under SQLite's 32766; a statement per row (executemany) costs twice as much.
SQLITE_ROWS_PER_STATEMENT = 1_000
# Page cache of the importing SQLite connection while it writes (KiB, SQLite's negative form):
# the rows are appended at the end of the table and its two indexes, so a modest cache holds
# every page the import touches; the default 2 MB makes SQLite spill pages to the WAL and rewrite them.
SQLITE_IMPORT_CACHE_KIB = 65_536
# PostgreSQL maintains the two indexes of the run lines row by row at about 5 us a line, six times
# what building them afresh costs. An import at least this large, into a table not already larger
# than the import, drops the indexes inside its transaction and rebuilds them after the COPY.
BULK_MIN_ROWS = 500_000
BULK_LOCK_WAIT = "2s"  # wait at most this for the table's exclusive lock, else keep the indexes
BULK_SORT_MEMORY = "512MB"  # the index rebuild's sort memory, for the import's transaction only
LINE_BYTES = 40  # a typical run line's size, to estimate an import's rows from its files
HEAP_ROW_BYTES = 70  # a stored run line's size in PostgreSQL's heap, to estimate the table's rows
_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + b"\x00" * 8  # header with no flags and no extension
_COPY_TRAILER = b"\xff\xff"
RUN_COLUMNS = ("run", "topic", "rank", "docno", "score")


class _RunLines:
    """Writes the lines of an import's runs, in the import's transaction.

    Every run is stored from the arrays of its parsed file (topic ids, ranks, fixed-width docnos,
    scores), with no Python object per line on PostgreSQL (binary COPY built by numpy) and a few
    per line on SQLite (the parameters of multi-row INSERTs). :meth:`finish` must run before the
    transaction commits; an exception instead rolls everything back, index changes included
    (PostgreSQL's DDL is transactional), so a refused or failed import leaves nothing behind.
    """

    def __init__(self, expected_rows: int) -> None:
        self.vendor = connection.vendor
        self.table, self.columns = columns_of(RunDocument, RUN_COLUMNS)
        self.restore: list[str] = []  # PostgreSQL: the statements that rebuild dropped indexes
        self.sqlite_cache: int | None = None
        connection.ensure_connection()
        if self.vendor == "postgresql" and expected_rows >= BULK_MIN_ROWS:
            self.restore = _pg_drop_indexes(self.table, expected_rows)
        elif self.vendor == "sqlite":
            raw = connection.connection
            self.sqlite_cache = int(raw.execute("PRAGMA cache_size").fetchone()[0])
            raw.execute(f"PRAGMA cache_size = {-SQLITE_IMPORT_CACHE_KIB}")

    def store(self, run: Run, ranked: RankedRun, topic_pks: dict[str, int]) -> None:
        """Insert a run's lines at their canonical ranks (``ranked`` is in canonical order)."""
        sizes = np.diff(ranked.offsets)
        topic_ids = np.repeat(np.array([topic_pks[t] for t in ranked.topics], dtype=np.int64), sizes)
        ranks = np.arange(len(ranked), dtype=np.int64) - np.repeat(ranked.offsets[:-1], sizes) + 1
        lines = _Lines(topic_ids, ranks, ranked.docnos, ranked.scores)
        write = _copy_rows if self.vendor == "postgresql" else _insert_rows
        write(self.table, self.columns, run.pk, lines)
        run_ids = np.array([topic_pks[t] for t in ranked.topics], dtype=np.int64)
        block_write(run.pk, arrays_blob(run_ids, sizes, ranked.docnos, ranked.scores))

    def finish(self) -> None:
        """Rebuild what was dropped (every line is in): the indexes check their constraints again."""
        with connection.cursor() as cursor:
            if self.restore:
                # sort the index entries in memory: PostgreSQL's default (64 MB) spills a few
                # million lines to disk; SET LOCAL ends with the import's transaction
                cursor.execute("SELECT set_config('maintenance_work_mem', %s, true)", [BULK_SORT_MEMORY])
            for sql in self.restore:
                cursor.execute(sql)
        self.restore = []

    def close(self) -> None:
        """Give the connection its own page cache back (on success and failure alike)."""
        if self.sqlite_cache is not None:
            with contextlib.suppress(DatabaseError):
                connection.connection.execute(f"PRAGMA cache_size = {self.sqlite_cache}")
            self.sqlite_cache = None


def _pg_drop_indexes(table: str, expected_rows: int) -> list[str]:
    """Drop the run lines' indexes for a bulk load, when that pays and is safe: the statements that
    rebuild them, or none (the indexes are kept).

    It pays when the table holds no more lines than the import brings (rebuilding costs in
    proportion to the whole table). It is safe inside the import's transaction: the exclusive lock
    keeps every other session waiting rather than seeing the table without its indexes, and a
    rollback restores them. A lock not granted within :data:`BULK_LOCK_WAIT` (a long read
    elsewhere) keeps the indexes, as does a foreign key pointing at the table.
    """
    name = table.strip('"')
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_relation_size(%s::regclass)", [name])
        if int(cursor.fetchone()[0]) // HEAP_ROW_BYTES > expected_rows:
            return []
        cursor.execute("SELECT count(*) FROM pg_constraint WHERE confrelid = %s::regclass", [name])
        if int(cursor.fetchone()[0]):
            return []
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = %s::regclass AND contype IN ('p', 'u') ORDER BY contype, conname",
            [name],
        )
        constraints = [(str(n), str(d)) for n, d in cursor.fetchall()]
        cursor.execute(
            "SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i "
            "WHERE i.indrelid = %s::regclass "
            "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid) "
            "ORDER BY 1",
            [name],
        )
        indexes = [(str(n), str(d)) for n, d in cursor.fetchall()]
        quote = connection.ops.quote_name
        try:
            with transaction.atomic():  # a savepoint: a lock refused in time changes nothing
                cursor.execute("SELECT current_setting('lock_timeout')")
                wait = str(cursor.fetchone()[0])
                cursor.execute("SELECT set_config('lock_timeout', %s, true)", [BULK_LOCK_WAIT])
                cursor.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
                cursor.execute("SELECT set_config('lock_timeout', %s, true)", [wait])
                for conname, _ in constraints:
                    cursor.execute(f"ALTER TABLE {table} DROP CONSTRAINT {quote(conname)}")
                for index, _ in indexes:
                    cursor.execute(f"DROP INDEX {index}")
        except OperationalError:
            return []
    return [
        *(f"ALTER TABLE {table} ADD CONSTRAINT {quote(n)} {d}" for n, d in constraints),
        *(d for _, d in indexes),
    ]


class _Lines(NamedTuple):
    """A run's lines to store, in canonical order: one entry per line in each array."""

    topic_ids: np.ndarray
    ranks: np.ndarray
    docnos: np.ndarray
    scores: np.ndarray


def _insert_rows(table: str, columns: str, run_pk: int, lines: _Lines) -> None:
    """SQLite: multi-row INSERTs of :data:`SQLITE_ROWS_PER_STATEMENT` lines, a batch at a time.

    The parameters of a batch are one flat list filled column by column by slice assignment (C
    loops), and the statements go straight to the sqlite3 connection (Django's wrapper would
    rewrite every statement's placeholders); SQLite releases the GIL while it writes, so the next
    file is parsed meanwhile.
    """
    raw = connection.connection
    per = max(1, min(SQLITE_ROWS_PER_STATEMENT, INSERT_BATCH))
    head = f"INSERT INTO {table} ({columns}) VALUES "
    row = f"({int(run_pk)},?,?,?,?)"
    full = head + ",".join([row] * per)
    for a in range(0, len(lines.ranks), INSERT_BATCH):
        b = min(len(lines.ranks), a + INSERT_BATCH)
        params: list[object] = [None] * (4 * (b - a))
        params[0::4] = lines.topic_ids[a:b].tolist()
        params[1::4] = lines.ranks[a:b].tolist()
        params[2::4] = _as_text(lines.docnos[a:b])
        params[3::4] = lines.scores[a:b].tolist()
        for c in range(0, b - a, per):
            d = min(b - a, c + per)
            sql = full if d - c == per else head + ",".join([row] * (d - c))
            raw.execute(sql, params[4 * c : 4 * d])


def _as_text(docnos: np.ndarray) -> list[str]:
    """Fixed-width docnos as str (validation guaranteed UTF-8): tolist() drops the padding."""
    return list(map(bytes.decode, docnos.tolist()))


def _copy_rows(table: str, columns: str, run_pk: int, lines: _Lines) -> None:
    sql = f"COPY {table} ({columns}) FROM STDIN (FORMAT BINARY)"
    # Django's cursor wrapper does not expose psycopg's copy(); the cursor it wraps does
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        copy.write(_COPY_SIGNATURE)
        for a in range(0, len(lines.ranks), INSERT_BATCH):
            b = a + INSERT_BATCH
            part = _Lines(*(column[a:b] for column in lines))
            copy.write(_binary_records(run_pk, part))
        copy.write(_COPY_TRAILER)


def _binary_records(run_pk: int, lines: _Lines) -> bytes:
    """Rows in PostgreSQL's binary COPY format, built by numpy rather than row by row in Python.

    A binary row is a field count then (length, big-endian value) per field. The docno is the only
    variable-length field, so rows are built in one fixed-layout record array per docno length;
    the order of rows in a COPY does not matter.
    """
    topic_ids, ranks, docnos, scores = lines
    width = docnos.dtype.itemsize
    chars = np.ascontiguousarray(docnos).view(np.uint8).reshape(len(docnos), width)
    lengths = (chars != 0).sum(axis=1)  # tokens never hold NUL bytes, so this is each docno's length
    parts = []
    for length in np.unique(lengths).tolist():
        rows = np.flatnonzero(lengths == length)
        layout = np.dtype(
            [
                ("fields", ">i2"),
                ("run_len", ">i4"),
                ("run", ">i8"),
                ("topic_len", ">i4"),
                ("topic", ">i8"),
                ("rank_len", ">i4"),
                ("rank", ">i4"),
                ("docno_len", ">i4"),
                ("docno", f"S{length}"),
                ("score_len", ">i4"),
                ("score", ">f8"),
            ]
        )
        rec = np.empty(len(rows), dtype=layout)
        rec["fields"] = 5
        rec["run_len"], rec["run"] = 8, run_pk
        rec["topic_len"], rec["topic"] = 8, topic_ids[rows]
        rec["rank_len"], rec["rank"] = 4, ranks[rows]
        rec["docno_len"], rec["docno"] = length, docnos[rows]
        rec["score_len"], rec["score"] = 8, scores[rows]
        parts.append(rec.tobytes())
    return b"".join(parts)


# ---------------------------------------------------------------------------------------- documents


@dataclass(frozen=True)
class DocumentImportResult:
    stored: int
    already_stored: int  # needed and already in the campaign: left as they were
    not_needed: int  # read but in no pool
    duplicates: list[str]  # docnos read twice (the first was kept)
    without_text: list[str]  # docnos read with no text: not stored
    not_found: list[str]  # needed docnos in no file and not stored before


DOCUMENT_BATCH = 2_000


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
    without text is not stored but reported, so a later file can supply it. Progress counts the
    documents read, of an estimate (from the bytes read) of how many the files hold."""
    progress = progress or quiet_progress
    wanted = None if needed is None else set(needed)
    existing = documents_stored(campaign=campaign, docnos=wanted)
    sizes = [_file_size(p) for p in paths]
    total, before = sum(sizes), 0
    seen: set[str] = set()
    duplicates: list[str] = []
    without_text: list[str] = []
    batch: list[Document] = []
    stored = already = not_needed = read = 0

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
    return DocumentImportResult(stored, already, not_needed, duplicates, without_text, not_found)
