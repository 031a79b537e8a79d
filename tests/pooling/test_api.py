"""The REST API of campaigns and pools, as a script of an organizer would use it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from campaigns.models import Campaign, Run
from pooling.models import Pool
from pooling.strategies import depth_pool
from tests.conftest import PASSWORD
from tests.pooling.conftest import demo_dir, demo_run_paths, demo_runs

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(organizer: Any) -> APIClient:
    client = APIClient()
    client.credentials()  # session or basic auth: basic here, as a script would
    assert client.login(username=organizer.username, password=PASSWORD)
    return client


def files(*paths: Path) -> list[SimpleUploadedFile]:
    return [SimpleUploadedFile(p.name, p.read_bytes()) for p in paths]


def job(api: APIClient, response: Any) -> dict[str, Any]:
    assert response.status_code == 202, response.content
    status = api.get(response.data["url"])
    assert status.status_code == 200
    return status.data


def test_basic_auth_works_for_scripts(organizer: Any, campaign: Campaign) -> None:
    import base64

    client = APIClient()
    token = base64.b64encode(f"{organizer.username}:{PASSWORD}".encode()).decode()
    client.credentials(HTTP_AUTHORIZATION=f"Basic {token}")
    response = client.get("/api/campaigns/")
    assert response.status_code == 200
    assert [c["slug"] for c in response.data] == [campaign.slug]
    assert response.data[0]["roles"] == ["organizer"]


def test_a_whole_campaign_through_the_api(api: APIClient) -> None:
    created = api.post("/api/campaigns/create/", {"slug": "api-camp", "name": "API"}, format="json")
    assert created.status_code == 201 and created.data["roles"] == ["organizer"]
    base = "/api/campaigns/api-camp"
    done = job(
        api,
        api.post(f"{base}/topics/import/", {"files": files(demo_dir() / "topics.txt")}, format="multipart"),
    )
    assert done["status"] == "done" and done["result"]["created"] == 5
    report = job(
        api, api.post(f"{base}/runs/validate/", {"files": files(*demo_run_paths())}, format="multipart")
    )
    assert report["result"]["validate_only"] and all(r["ok"] for r in report["result"]["reports"])
    assert not Run.objects.filter(campaign__slug="api-camp").exists()  # validation stores nothing
    imported = job(
        api,
        api.post(
            f"{base}/runs/import/", {"files": files(*demo_run_paths()), "group": "g"}, format="multipart"
        ),
    )
    assert imported["status"] == "done" and len(imported["result"]["imported"]) == 4
    assert len(api.get(f"{base}/runs/").data) == 4
    built = job(
        api, api.post(f"{base}/pools/build/", {"name": "d7", "strategy": "depth", "depth": 7}, format="json")
    )
    assert built["status"] == "done", built["errors"]
    pool_id = built["result"]["pool"]
    detail = api.get(f"{base}/pools/{pool_id}/").data
    expected = depth_pool(demo_runs(), 7).sizes()
    assert {t: s["judge"] for t, s in detail["sizes"].items()} == expected
    assert detail["status"] == "draft"
    assert api.post(f"{base}/pools/{pool_id}/commit/").data["status"] == "committed"
    refused = api.post(f"{base}/pools/{pool_id}/discard/")
    assert refused.status_code == 400 and "cannot be discarded" in refused.data["errors"][0]
    export = api.get(f"{base}/pools/{pool_id}/export/?format=mq")
    assert export.status_code == 200 and len(export.content.decode().splitlines()) == sum(expected.values())
    summary = api.get(f"{base}/").data
    assert summary["topics"] == 5 and summary["runs"] == 4 and summary["pools"][0]["name"] == "d7"


def test_bad_pool_parameters_are_400_with_the_field(api: APIClient, loaded: Campaign) -> None:
    response = api.post(
        f"/api/campaigns/{loaded.slug}/pools/build/",
        {"name": "s", "strategy": "stratified", "strata": "10,x"},
        format="json",
    )
    assert response.status_code == 400 and "strata" in response.data
    response = api.post(
        f"/api/campaigns/{loaded.slug}/pools/build/",
        {"name": "s", "strategy": "depth", "depth": -1},
        format="json",
    )
    assert response.status_code == 400 and "depth" in response.data
    response = api.post(
        f"/api/campaigns/{loaded.slug}/pools/build/",
        {"name": "s", "strategy": "take", "run_depths": {"bm25": 3}},
        format="json",
    )
    assert response.status_code == 400 and "depth strategy only" in str(response.data)
    assert not Pool.objects.filter(campaign=loaded).exists()


def test_a_refused_import_job_carries_the_report(api: APIClient, loaded: Campaign) -> None:
    bad = SimpleUploadedFile("bad.run", b"401 Q0 d1 1 inf bad\n")
    failed = job(
        api, api.post(f"/api/campaigns/{loaded.slug}/runs/import/", {"files": [bad]}, format="multipart")
    )
    assert failed["status"] == "failed"
    assert failed["errors"][0].startswith("bad.run:1:")
    assert failed["result"]["reports"][0]["file"] == "bad.run"


def test_stratified_pool_through_the_api_exports_a_prel_with_strata(api: APIClient, loaded: Campaign) -> None:
    built = job(
        api,
        api.post(
            f"/api/campaigns/{loaded.slug}/pools/build/",
            {"name": "s", "strategy": "stratified", "strata": [5, 20], "rates": "1,0.5", "seed": 3},
            format="json",
        ),
    )
    assert built["status"] == "done", built["errors"]
    text = api.get(
        f"/api/campaigns/{loaded.slug}/pools/{built['result']['pool']}/export/?format=prel"
    ).content
    strata = {line.split()[3] for line in text.decode().splitlines()}
    assert strata == {"1", "2"}
