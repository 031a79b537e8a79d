"""Helpers of the campaign and pool tests: the demo collection (from tests/conftest.py), the
organizer's browser and script clients, uploads, jobs, and the refusals of either edge as lines."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from rest_framework.test import APIClient

from jobs.models import Job
from tests.conftest import PASSWORD, demo_dir, demo_run_paths, demo_runs

__all__ = ["demo_dir", "demo_run_paths", "demo_runs"]


@pytest.fixture
def web(organizer: Any) -> Client:
    client = Client()
    assert client.login(username=organizer.username, password=PASSWORD)
    return client


@pytest.fixture
def api(organizer: Any) -> APIClient:
    client = APIClient()
    client.credentials()  # session or basic auth: basic here, as a script would
    assert client.login(username=organizer.username, password=PASSWORD)
    return client


def upload(path: Path | str, name: str | None = None) -> SimpleUploadedFile:
    p = Path(str(path))
    return SimpleUploadedFile(name or p.name, p.read_bytes())


def files(*paths: Path) -> list[SimpleUploadedFile]:
    return [upload(p) for p in paths]


def result(job: Job) -> dict[str, Any]:
    assert job.result is not None, job.errors
    return job.result


def follow_job(web: Client, response: Any) -> Job:
    """The pages answer a started job with a redirect to its page; jobs run inside the request in tests."""
    assert response.status_code == 302, getattr(response, "content", b"")[:500]
    match = re.search(r"/jobs/([0-9a-f-]+)/", response["Location"])
    assert match, response["Location"]
    return Job.objects.get(pk=match.group(1))


def api_job(api: APIClient, response: Any) -> dict[str, Any]:
    """The API answers a started job with 202 and where to poll it; the poll's answer."""
    assert response.status_code == 202, response.content
    status = api.get(response.data["url"])
    assert status.status_code == 200
    return status.data


def api_problems(response: Any) -> list[str]:
    """An API refusal as the lines a page lists: domain errors as they are, a malformed field as
    ``field: problem`` (what ``campaigns.inputs.form_problems`` makes of the same serializer)."""
    assert response.status_code == 400, response.content
    data = response.data
    if set(data) == {"errors"}:
        return [str(e) for e in data["errors"]]
    return [
        str(p) if field == "non_field_errors" else f"{field}: {p}"
        for field, problems in data.items()
        for p in problems
    ]


def page_problems(response: Any) -> list[str]:
    """The refusal lines a page shows: its form's error list, else the messages it left for the
    page it redirected to."""
    if response.status_code == 302:
        return [str(m) for m in get_messages(response.wsgi_request) if m.level_tag == "error"]
    errors = response.context["errors"]
    return [line for lines in errors.values() for line in lines] if isinstance(errors, dict) else list(errors)


# ------------------------------------------------------------------------------------ migrations


def migrate_to(targets: Sequence[tuple[str, str | None]]) -> MigrationExecutor:
    """Migrate the test database to ``targets`` (forward or back); the executor, whose loader gives
    the historical models at any node (``executor.loader.project_state(nodes).apps``)."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor


def latest_migrations() -> list[tuple[str, str]]:
    """Every app's last migration: where a migration test puts the database back."""
    return MigrationExecutor(connection).loader.graph.leaf_nodes()
