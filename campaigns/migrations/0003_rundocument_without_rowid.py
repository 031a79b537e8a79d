"""SQLite only: the run lines' table becomes a WITHOUT ROWID table, clustered on its primary key.

A rowid table keeps every run line three times (the rows by rowid, the (run, topic, rank) key's
index, the (run, topic, docno) constraint's index); clustered on the key it keeps it twice, which
makes importing 5M lines about twice as fast and reads a run's lines as one range of the table.
Nothing else changes: same columns, constraints, names, rows. PostgreSQL has no rowid: no-op.

Django does not know the clause: a later migration that rebuilds this table on SQLite (altering
one of its fields) recreates it as a rowid table, which stays correct, only slower to import.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.db import migrations

TABLE = "pooling_rundocument"
CLAUSE = " WITHOUT ROWID"


def rebuild_table(schema_editor: Any, transform: Callable[[str], str]) -> None:
    """SQLite: recreate the run lines' table from ``transform(its CREATE TABLE statement)``,
    rows and indexes kept (nothing happens when the statement comes back unchanged)."""
    connection = schema_editor.connection
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = %s", [TABLE])
        row = cursor.fetchone()
        if row is None:
            return
        sql = str(row[0]).rstrip()
        body = transform(sql)
        if body == sql:
            return  # already as wanted
        cursor.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = %s AND sql IS NOT NULL",
            [TABLE],
        )
        indexes = [str(r[0]) for r in cursor.fetchall()]
        new = f"{TABLE}__rebuilt"
        create, n = re.subn(rf'^CREATE TABLE\s+"?{TABLE}"?', f'CREATE TABLE "{new}"', body, count=1)
        if n != 1:
            raise RuntimeError(f"unexpected definition of {TABLE}: {sql[:200]}")
        cursor.execute("PRAGMA table_info(%s)" % TABLE)
        columns = ", ".join(f'"{r[1]}"' for r in cursor.fetchall())
        cursor.execute(create)
        cursor.execute(f'INSERT INTO "{new}" ({columns}) SELECT {columns} FROM "{TABLE}"')
        cursor.execute(f'DROP TABLE "{TABLE}"')
        cursor.execute(f'ALTER TABLE "{new}" RENAME TO "{TABLE}"')
        for index in indexes:
            cursor.execute(index)


def _rebuild(schema_editor: Any, clustered: bool) -> None:
    def transform(sql: str) -> str:
        if sql.upper().endswith(CLAUSE.strip()) == clustered:
            return sql
        return sql[: -len(CLAUSE.strip())].rstrip() if not clustered else sql + CLAUSE

    rebuild_table(schema_editor, transform)


def cluster(apps: Any, schema_editor: Any) -> None:
    _rebuild(schema_editor, clustered=True)


def uncluster(apps: Any, schema_editor: Any) -> None:
    _rebuild(schema_editor, clustered=False)


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0002_campaign_guidelines"),
    ]

    operations = [
        migrations.RunPython(cluster, uncluster, elidable=False),
    ]
