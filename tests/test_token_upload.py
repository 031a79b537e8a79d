"""A script uploads a 50 MB run to the demo campaign with an API token (issue 10's done-when)."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from campaigns.accounts.services import api_token_create
from campaigns.models import Campaign, Run
from campaigns.stored_runs import run_lines

pytestmark = pytest.mark.django_db

SIZE = 50 * 1024**2


def fifty_megabyte_run(path: Path, topics: list[str]) -> int:
    """A valid TREC run of ~50 MB over ``topics``: long docnos (as some collections have), ranked."""
    pad = "x" * 90
    per_topic = SIZE // len(topics) // 135 + 1  # the lines are 136-137 bytes
    with path.open("w") as out:
        for t in topics:
            out.writelines(
                f"{t} Q0 DOC-{t}-{pad}-{r:07d} {r} {per_topic - r}.5 scripted\n"
                for r in range(1, per_topic + 1)
            )
    return per_topic


def test_a_script_uploads_a_50_mb_run_with_a_token(tmp_path: Path) -> None:
    call_command("workbench_demo", stdout=io.StringIO())
    demo = Campaign.objects.get(slug="demo")
    topics = sorted(demo.topics.values_list("number", flat=True))
    path = tmp_path / "scripted.run"
    per_topic = fifty_megabyte_run(path, topics)
    assert path.stat().st_size >= SIZE
    # deep runs are allowed in this campaign (the default limit is 1000 documents per topic)
    Campaign.objects.filter(pk=demo.pk).update(max_docs_per_topic=per_topic)
    _, token = api_token_create(user=get_user_model().objects.get(username="organizer"), name="uploader")

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    started = time.monotonic()
    with path.open("rb") as upload:
        answer = api.post("/api/campaigns/demo/runs/import/", {"files": [upload]}, format="multipart")
    assert answer.status_code == 202, answer.content[:500]
    job = api.get(answer.json()["url"])
    assert job.status_code == 200 and job.json()["status"] == "done", job.content[:1000]
    run = Run.objects.get(campaign=demo, tag="scripted")
    assert len(run_lines(run.pk).scores) == per_topic * len(topics)
    assert time.monotonic() - started < 600
