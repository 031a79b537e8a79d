"""A run's docnos are unique per topic by validation, no longer by an index (see RunDocument).

The constraint is dropped with SQL of its own on each database: on SQLite it is part of the
table's definition, and Django's schema editor would rebuild the table without the WITHOUT ROWID
clause of migration 0003; this rebuilds it with that migration's helper, clause kept.
"""

from __future__ import annotations

import importlib
from typing import Any

from django.db import migrations

NAME = "pooling_rundocument_unique_docno"
CONSTRAINT = f'CONSTRAINT "{NAME}" UNIQUE ("run_id", "topic_id", "docno")'
rebuild_table = importlib.import_module("campaigns.migrations.0003_rundocument_without_rowid").rebuild_table


def drop(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE pooling_rundocument DROP CONSTRAINT IF EXISTS {NAME}")
    else:
        rebuild_table(schema_editor, lambda sql: sql.replace(f", {CONSTRAINT}", ""))


def restore(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"ALTER TABLE pooling_rundocument ADD CONSTRAINT {NAME} UNIQUE (run_id, topic_id, docno)"
        )
    else:
        rebuild_table(
            schema_editor,
            lambda sql: (
                sql
                if CONSTRAINT in sql
                else sql.replace('"topic_id" bigint NOT NULL', f'"topic_id" bigint NOT NULL, {CONSTRAINT}', 1)
            ),
        )


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0004_runarrays"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.RemoveConstraint(model_name="rundocument", name=NAME)],
            database_operations=[migrations.RunPython(drop, restore, elidable=False)],
        ),
    ]
