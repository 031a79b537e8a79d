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


def test_values_that_are_not_finite_are_stored_as_null_and_the_others_exactly() -> None:
    """jsonb holds neither NaN nor infinities: evaluated_json writes them as null, per topic and
    in the summary, and every finite value as the same float (integers as floats too)."""
    from types import SimpleNamespace

    import numpy as np

    from engine.evaluate import RunResult
    from metrics.evaluations import Evaluated
    from metrics.services import evaluated_json

    finite = np.array([0.1, 1 / 3, 2.0**-60])
    result = RunResult(
        run="r",
        topics=["1", "2", "3"],
        per_topic={
            "map": finite,
            "num_rel": np.array([1, 2, 3], dtype=np.int64),
            "odd": np.array([np.nan, np.inf, 0.5]),
        },
        summary={"map": float(finite.mean()), "num_rel": 6.0, "odd": -np.inf},
        names=["map", "num_rel", "odd"],
    )
    evaluated = Evaluated(
        sourced=SimpleNamespace(sampled=False),  # type: ignore[arg-type]
        measures=["map", "num_rel", "odd"],
        specs=["map"],
        integer=["num_rel"],
        runs=[SimpleNamespace(pk=7)],  # type: ignore[list-item]
        results=[result],
        topic_count=3,
        judged_count=3,
        unjudged_count=0,
        relevant_count=1,
        seconds=0.0,
    )
    (row,) = evaluated_json(evaluated)["runs"]
    assert row["per_topic"] == {"map": finite.tolist(), "num_rel": [1.0, 2.0, 3.0], "odd": [None, None, 0.5]}
    assert all(type(v) is float for v in row["per_topic"]["num_rel"])
    assert row["summary"] == {"map": float(finite.mean()), "num_rel": 6.0, "odd": None}
    assert (row["run"], row["tag"], row["topics"]) == (7, "r", ["1", "2", "3"])
