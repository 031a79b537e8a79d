"""A bounded schemathesis run: every API operation, as an organizer and as an assessor, against the schema.

Each operation gets a few generated requests (path parameters pointing at a seeded campaign's
pool, assignment and evaluation, so the requests reach the views rather than 404) through the
WSGI application in this thread, inside the test's transaction. Checks: no server error, and
every answer's status code, content type and body are what the schema documents.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from metrics.services import evaluation_enqueue
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD
from tests.metrics.test_leaderboard_pages import evaluate_reference, reference_source

pytestmark = pytest.mark.django_db

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
# per operation and persona: enough to reach each view's refusals, bounded in time (more: the variable)
EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "6"))


@pytest.fixture
def wsgi_app() -> Iterator[Any]:
    """The project's WSGI application, keeping the test's connection (what Django's test client does)."""
    from django.core.wsgi import get_wsgi_application

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _basic(user: Any) -> dict[str, str]:
    token = base64.b64encode(f"{user.username}:{PASSWORD}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def _seeded(campaign: Any, organizer: Any, assessor: Any) -> dict[str, Any]:
    """A pool, an assignment, an evaluation and a job to point the generated requests at."""
    from judging.services import assignments_create

    pool = pool_commit(pool=pool_build(campaign=campaign, name="d5", spec=PoolSpec("depth", depth=5)))
    (assignment,) = assignments_create(
        campaign=campaign, pool=pool, assessors=[assessor], topics=[campaign.topics.order_by("number")[0]]
    )
    evaluation = evaluate_reference(campaign, organizer)
    job = evaluation_enqueue(campaign=campaign, source=reference_source(campaign), user=organizer)
    return {
        "slug": campaign.slug,
        "pk": pool.pk,
        "id": pool.pk,
        "result": evaluation.results.order_by("pk")[0].pk,
        "kind": "consensus",
        "position": 1,
        "job_id": str(job.id),
        "evaluation": evaluation,
        "assignment": assignment,
    }


def _path_parameters(path: str, seed: dict[str, Any]) -> dict[str, Any]:
    """The seeded objects' keys for the parameters of this operation's path."""
    values = dict(seed)
    if "/evaluations/" in path:
        values["id"] = values["pk"] = seed["evaluation"].pk
    if "/assignments/" in path:
        values["id"] = values["pk"] = seed["assignment"].pk
    names = {p.strip("{}") for p in path.split("/") if p.startswith("{")}
    return {name: values[name] for name in names if name in values}


def _run(schema: Any, headers: dict[str, str], seed: dict[str, Any], persona: str) -> list[str]:
    failures: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        strategy = operation.as_strategy(path_parameters=_path_parameters(operation.path, seed))

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            derandomize=True,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(case=strategy)
        def check(case: Any) -> None:
            try:
                case.call_and_validate(headers=headers, checks=CHECKS)
            except (Exception, BaseExceptionGroup) as exc:  # every failure is collected, reported together
                failures.append(f"{persona} {case.operation.label}: {' '.join(str(exc).split())[:500]}")

        check()
    return sorted(set(failures))


def test_every_operation_answers_what_the_schema_says(
    loaded: Any, organizer: Any, assessor: Any, wsgi_app: Any, settings: Any
) -> None:
    from drf_spectacular.drainage import GENERATOR_STATS

    # one declared judge endpoint, so machine assessors can be made; it resolves nowhere (.invalid)
    settings.WORKBENCH_JUDGE_ENDPOINTS = {"public": {"base_url": "https://judge.invalid/v1"}}

    # through the WSGI application too: the test client would reconnect close_old_connections
    with GENERATOR_STATS.silence():
        schema = schemathesis.openapi.from_wsgi(
            "/api/schema/", wsgi_app, headers={"Accept": "application/vnd.oai.openapi+json"}
        )
    seed = _seeded(loaded, organizer, assessor)
    failures = _run(schema, _basic(organizer), seed, "organizer")
    failures += _run(schema, _basic(assessor), seed, "assessor")
    assert not failures, "\n".join(failures)
