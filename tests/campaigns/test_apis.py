"""The REST API of campaigns and their imports, as a script of an organizer would use it; and that
it answers a refusal with the page's sentences."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns.models import Campaign
from jobs.models import Job
from tests.campaigns.conftest import api_job as job
from tests.campaigns.conftest import api_problems, page_problems
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def test_basic_auth_works_for_scripts(organizer: Any, campaign: Campaign) -> None:
    import base64

    client = APIClient()
    token = base64.b64encode(f"{organizer.username}:{PASSWORD}".encode()).decode()
    client.credentials(HTTP_AUTHORIZATION=f"Basic {token}")
    response = client.get("/api/campaigns/")
    assert response.status_code == 200
    assert [c["slug"] for c in response.data] == [campaign.slug]
    assert response.data[0]["roles"] == ["organizer"]


def test_a_refused_import_job_carries_the_report(api: APIClient, loaded: Campaign) -> None:
    bad = SimpleUploadedFile("bad.run", b"401 Q0 d1 1 inf bad\n")
    failed = job(
        api, api.post(f"/api/campaigns/{loaded.slug}/runs/import/", {"files": [bad]}, format="multipart")
    )
    assert failed["status"] == "failed"
    assert failed["errors"][0].startswith("bad.run:1:")
    assert failed["result"]["reports"][0]["file"] == "bad.run"


# ------------------------------------------------------------- the API refuses as the page does


def test_creating_a_campaign_refuses_the_same_slugs_with_the_same_sentences(
    web: Client, api: APIClient, campaign: Campaign
) -> None:
    for slug in ("has spaces", campaign.slug):
        on_page = page_problems(web.post(reverse("campaigns:campaigns"), {"slug": slug}))
        by_api = api_problems(api.post("/api/campaigns/create/", {"slug": slug}, format="json"))
        assert on_page == by_api and len(on_page) == 1, slug
    assert Campaign.objects.count() == 1


def test_creating_a_campaign_without_the_permission_is_403_on_both(assessor: Any) -> None:
    web, api = Client(), APIClient()
    for client in (web, api):
        assert client.login(username=assessor.username, password=PASSWORD)
    assert web.post(reverse("campaigns:campaigns"), {"slug": "mine"}).status_code == 403
    refused = api.post("/api/campaigns/create/", {"slug": "mine"}, format="json")
    assert refused.status_code == 403
    assert refused.data == {"errors": ["creating campaigns needs the organizer permission"]}
    assert not Campaign.objects.filter(slug="mine").exists()


@pytest.mark.parametrize(
    ("what", "endpoint", "data", "problem"),
    [
        ("topics", "topics/import", {}, "files: This list may not be empty."),
        (
            "topics",
            "topics/import",
            {"format": "xml", "files": [b"x"]},
            'format: "xml" is not a valid choice.',
        ),
        ("runs", "runs/import", {"priority": "0", "files": [b"x"]}, "priority"),
        ("qrels", "judgments/import", {"files": [b"x", b"y"]}, "judgments are imported one file at a time"),
    ],
)
def test_an_import_is_refused_with_the_same_sentences_on_the_page_and_the_api(
    web: Client,
    api: APIClient,
    campaign: Campaign,
    what: str,
    endpoint: str,
    data: dict[str, Any],
    problem: str,
) -> None:
    def post() -> dict[str, Any]:
        uploads = [SimpleUploadedFile(f"f{i}.txt", b) for i, b in enumerate(data.get("files", []))]
        return {k: v for k, v in data.items() if k != "files"} | {"files": uploads}

    on_page = page_problems(
        web.post(reverse("campaigns:import", args=[campaign.slug]), {"what": what} | post())
    )
    by_api = api_problems(api.post(f"/api/campaigns/{campaign.slug}/{endpoint}/", post(), format="multipart"))
    assert on_page == by_api and len(on_page) == 1 and problem in on_page[0]
    assert not Job.objects.exists()


def test_an_unknown_import_is_named_on_the_page(web: Client, campaign: Campaign) -> None:
    response = web.post(
        reverse("campaigns:import", args=[campaign.slug]),
        {"what": "pools", "files": SimpleUploadedFile("x", b"x")},
    )
    assert response.context["errors"] == {
        "form": ["unknown import 'pools' (one of topics, runs, documents, qrels)"]
    }
    assert not Job.objects.exists()
