"""Each run's lines once more as one block of arrays (campaigns.models.RunArrays).

On PostgreSQL the block is stored uncompressed (STORAGE EXTERNAL): numbers and docnos compress
poorly, and pglz would cost more time than the bytes it saves, on every write and read.
"""

from typing import Any

import django.db.models.deletion
from django.db import migrations, models


def uncompressed(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE campaigns_runarrays ALTER COLUMN data SET STORAGE EXTERNAL")


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0003_rundocument_without_rowid"),
    ]

    operations = [
        migrations.CreateModel(
            name="RunArrays",
            fields=[
                (
                    "run",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="arrays",
                        serialize=False,
                        to="campaigns.run",
                    ),
                ),
                ("data", models.BinaryField()),
            ],
        ),
        migrations.RunPython(uncompressed, migrations.RunPython.noop, elidable=False),
    ]
