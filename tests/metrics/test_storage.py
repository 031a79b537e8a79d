"""How PostgreSQL stores an evaluation's rows (migration metrics/0003)."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction

pytestmark = pytest.mark.django_db


def _server_has_lz4() -> bool:
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("CREATE TEMPORARY TABLE lz4_probe (x text COMPRESSION lz4)")
            transaction.set_rollback(True)
    except DatabaseError:
        return False
    return True


def test_per_topic_values_are_compressed_with_lz4_where_the_server_has_it() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL column setting; SQLite stores JSON as text")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname, attcompression FROM pg_attribute "
            "WHERE attrelid = 'metrics_evaluationrun'::regclass AND attname IN ('per_topic', 'summary')"
        )
        methods = dict(cursor.fetchall())
    assert methods["summary"] in ("", "\x00")  # the server's default: only per_topic is set
    assert methods["per_topic"] == ("l" if _server_has_lz4() else methods["summary"])
