"""Inserting many rows at once without the ORM's per-object cost (pooled documents)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any, cast

import numpy as np
from django.db import connection
from django.db.models import Field, Model

BATCH = 100_000


def columns_of(model: type[Model], fields: Sequence[str]) -> tuple[str, str]:
    """The quoted table name and column list of ``fields`` (field names, foreign keys included)."""
    meta = model._meta
    names = [str(cast(Field, meta.get_field(f)).column) for f in fields]
    quote = connection.ops.quote_name
    return quote(str(meta.db_table)), ", ".join(quote(n) for n in names)


def rows_insert(model: type[Model], fields: Sequence[str], rows: Iterable[tuple[Any, ...]]) -> None:
    """INSERT ``rows`` (tuples in ``fields`` order) with one executemany per batch.

    Rows may be a lazy iterator; a batch at a time is materialized. About ten times faster than
    ``bulk_create`` for hundreds of thousands of rows (no model instances, no per-row SQL building).
    """
    table, columns = columns_of(model, fields)
    sql = f"INSERT INTO {table} ({columns}) VALUES ({', '.join(['%s'] * len(fields))})"
    it = iter(rows)
    with connection.cursor() as cursor:
        while batch := list(islice(it, BATCH)):
            cursor.executemany(sql, batch)


def docnos_as_text(docnos: np.ndarray) -> list[str]:
    """Fixed-width docnos as str (validation guaranteed UTF-8): tolist() drops the padding."""
    return list(map(bytes.decode, docnos.tolist()))
