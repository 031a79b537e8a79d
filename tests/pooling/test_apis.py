"""The REST API of pools, as a script of an organizer would use it, from an empty campaign to an
exported pool; and that it answers a refusal with the pool pages' sentences."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns.models import Campaign, Run
from jobs.models import Job
from pooling.models import Pool
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from pooling.strategies import depth_pool
from tests.campaigns.conftest import api_job as job
from tests.campaigns.conftest import api_problems, demo_dir, demo_run_paths, demo_runs, files, page_problems

pytestmark = pytest.mark.django_db


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
    assert response.status_code == 400 and response.data["errors"][0].startswith("strata: ")
    response = api.post(
        f"/api/campaigns/{loaded.slug}/pools/build/",
        {"name": "s", "strategy": "depth", "depth": -1},
        format="json",
    )
    assert response.status_code == 400 and response.data["errors"][0].startswith("depth: ")
    response = api.post(
        f"/api/campaigns/{loaded.slug}/pools/build/",
        {"name": "s", "strategy": "take", "run_depths": {"bm25": 3}},
        format="json",
    )
    assert response.status_code == 400 and "depth strategy only" in str(response.data)
    assert not Pool.objects.filter(campaign=loaded).exists()


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


# -------------------------------------------------------- the API refuses as the pool pages do


@pytest.mark.parametrize(
    "data",
    [
        {"name": "s", "strategy": "stratified", "strata": "10,x"},
        {"name": "s", "strategy": "depth", "depth": "-1"},
        {"name": "s", "strategy": "take", "run_depths": "bm25=3"},
        {"name": "", "strategy": "nope"},
    ],
)
def test_a_pool_build_is_refused_with_the_same_sentences_on_the_page_and_the_api(
    web: Client, api: APIClient, loaded: Campaign, data: dict[str, str]
) -> None:
    on_page = page_problems(web.post(reverse("pooling:pool_new", args=[loaded.slug]), data))
    by_api = api_problems(api.post(f"/api/campaigns/{loaded.slug}/pools/build/", data, format="json"))
    assert on_page == by_api and on_page
    assert not Job.objects.exists()


@pytest.mark.parametrize(
    ("operation", "problem"),
    [
        ("commit", "pool 'p' is already committed"),
        ("discard", "pool 'p' is committed: judging relies on it, it cannot be discarded"),
    ],
)
def test_a_committed_pool_refuses_commit_and_discard_alike(
    web: Client, api: APIClient, loaded: Campaign, operation: str, problem: str
) -> None:
    pool = pool_commit(pool=pool_build(campaign=loaded, name="p", spec=PoolSpec("depth", depth=2)))
    on_page = page_problems(web.post(reverse(f"pooling:pool_{operation}", args=[loaded.slug, pool.pk])))
    by_api = api_problems(api.post(f"/api/campaigns/{loaded.slug}/pools/{pool.pk}/{operation}/"))
    assert on_page == by_api == [problem]
    assert Pool.objects.get(pk=pool.pk).status == Pool.Status.COMMITTED


def test_an_unknown_export_format_is_400_with_the_same_sentence(
    web: Client, api: APIClient, loaded: Campaign
) -> None:
    pool = pool_build(campaign=loaded, name="p", spec=PoolSpec("depth", depth=2))
    page = web.get(reverse("pooling:pool_export", args=[loaded.slug, pool.pk]) + "?format=xml")
    assert page.status_code == 400
    by_api = api_problems(api.get(f"/api/campaigns/{loaded.slug}/pools/{pool.pk}/export/?format=xml"))
    assert [page.content.decode()] == by_api == ["unknown pool format 'xml' (one of qrels, prel, mq)"]


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"qrels_set": "999"}, "campaign 'trec-demo' has no judgments 999"),
        ({"ks": "5,a"}, "ks: expected numbers separated by commas, found '5,a'"),
    ],
)
def test_diagnostics_are_refused_with_the_same_sentences_on_the_page_and_the_api(
    web: Client, api: APIClient, loaded: Campaign, data: dict[str, str], problem: str
) -> None:
    pool = pool_build(campaign=loaded, name="p", spec=PoolSpec("depth", depth=2))
    response = web.post(reverse("pooling:pool_diagnostics", args=[loaded.slug, pool.pk]), data)
    assert response["Location"] == reverse("pooling:pool", args=[loaded.slug, pool.pk])
    by_api = api_problems(api.post(f"/api/campaigns/{loaded.slug}/pools/{pool.pk}/diagnostics/", data))
    assert page_problems(response) == by_api == [problem]
    assert not Job.objects.exists()
