"""A run's lines are stored once, as its block of arrays (RunArrays): the line rows go.

Forward: every run without a block (imported before migration 0004) gets one, built from its
rows in (topic, rank) order, the canonical order they were stored in; a run with no rows gets an
empty block, so that every run has one. Then the rows' table is dropped. One run's rows are read
at a time, in chunks, so memory stays bounded by the largest run.

Backward: the table comes back (clustered on its key on SQLite, as migration 0003 made it) and
is filled from the blocks, so a downgrade loses nothing either.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
from django.db import migrations

from campaigns.stored_runs import arrays_blob, lines_from_block

cluster = importlib.import_module("campaigns.migrations.0003_rundocument_without_rowid").cluster

CHUNK = 50_000  # rows fetched or written at a time


def blocks_from_rows(apps: Any, schema_editor: Any) -> None:
    Run = apps.get_model("campaigns", "Run")
    RunArrays = apps.get_model("campaigns", "RunArrays")
    RunDocument = apps.get_model("campaigns", "RunDocument")
    alias = schema_editor.connection.alias
    pending = list(Run.objects.using(alias).filter(arrays__isnull=True).values_list("pk", flat=True))
    for run_pk in pending:
        rows = (
            RunDocument.objects.using(alias)
            .filter(run_id=run_pk)
            .order_by("topic_id", "rank")
            .values_list("topic_id", "docno", "score")
        )
        topics: list[int] = []
        docnos: list[bytes] = []
        scores: list[float] = []
        for topic_id, docno, score in rows.iterator(chunk_size=CHUNK):
            topics.append(topic_id)
            docnos.append(docno.encode())
            scores.append(score)
        topic_ids, counts = np.unique(np.array(topics, dtype=np.int64), return_counts=True)
        block = arrays_blob(
            topic_ids,
            counts,
            np.array(docnos, dtype=bytes) if docnos else np.zeros(0, "S1"),
            np.array(scores, dtype=np.float64),
        )
        RunArrays.objects.using(alias).create(run_id=run_pk, data=block)


def rows_from_blocks(apps: Any, schema_editor: Any) -> None:
    RunArrays = apps.get_model("campaigns", "RunArrays")
    RunDocument = apps.get_model("campaigns", "RunDocument")
    alias = schema_editor.connection.alias
    for run_pk in list(RunArrays.objects.using(alias).values_list("run_id", flat=True)):
        data = RunArrays.objects.using(alias).values_list("data", flat=True).get(run_id=run_pk)
        lines = lines_from_block(bytes(data))
        starts = np.cumsum(lines.counts) - lines.counts
        topic_of_line = np.repeat(lines.topic_ids, lines.counts).tolist()
        rank_of_line = (np.arange(len(lines.scores)) - np.repeat(starts, lines.counts) + 1).tolist()
        docnos = [d.decode() for d in lines.docnos.tolist()]
        scores = lines.scores.tolist()
        for a in range(0, len(scores), CHUNK):
            RunDocument.objects.using(alias).bulk_create(
                RunDocument(run_id=run_pk, topic_id=t, rank=r, docno=d, score=s)
                for t, r, d, s in zip(
                    topic_of_line[a : a + CHUNK],
                    rank_of_line[a : a + CHUNK],
                    docnos[a : a + CHUNK],
                    scores[a : a + CHUNK],
                    strict=True,
                )
            )


def recluster(apps: Any, schema_editor: Any) -> None:
    """Backward, once the table is back: SQLite's copy clustered on its key again (0003)."""
    cluster(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0005_rundocument_docno_by_validation"),
    ]

    operations = [
        migrations.RunPython(blocks_from_rows, rows_from_blocks, elidable=False),
        migrations.RunPython(migrations.RunPython.noop, recluster, elidable=False),
        migrations.DeleteModel(name="RunDocument"),
    ]
