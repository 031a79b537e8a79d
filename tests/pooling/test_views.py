"""The pool pages, driven as an organizer would: build, preview, commit, discard, export, diagnose;
and the documents and judgments imports that pools use."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Document, QrelsSet
from jobs.models import Job
from pooling.models import Pool
from pooling.spec import PoolSpec
from tests.campaigns.conftest import demo_dir, follow_job, result, upload
from trec import read_qrels

pytestmark = pytest.mark.django_db


def test_build_preview_commit_and_export_a_pool(web: Client, loaded: Campaign) -> None:
    response = web.post(
        reverse("pooling:pool_new", args=[loaded.slug]),
        {"name": "depth-5", "strategy": "depth", "depth": "5", "order": "rank", "seed": "0", "budget": ""},
    )
    job = follow_job(web, response)
    assert job.status == Job.Status.DONE, job.errors
    pool = Pool.objects.get(campaign=loaded, name="depth-5")
    assert pool.status == Pool.Status.DRAFT
    page = web.get(reverse("pooling:pool", args=[loaded.slug, pool.pk])).content.decode()
    # the size of every topic before committing
    for topic, size in pool.sizes.items():
        assert re.search(rf"<td>{topic}</td><td>{size['judge']}</td>", page)
    assert "Commit pool" in page
    web.post(reverse("pooling:pool_commit", args=[loaded.slug, pool.pk]))
    pool.refresh_from_db()
    assert pool.status == Pool.Status.COMMITTED
    export = web.get(reverse("pooling:pool_export", args=[loaded.slug, pool.pk]) + "?format=qrels")
    lines = export.content.decode().splitlines()
    assert len(lines) == pool.document_count and all(line.endswith(" -1") for line in lines)
    prel = web.get(reverse("pooling:pool_export", args=[loaded.slug, pool.pk]) + "?format=prel")
    assert prel.status_code == 200 and len(prel.content.decode().splitlines()) == pool.document_count
    assert (
        web.get(reverse("pooling:pool_export", args=[loaded.slug, pool.pk]) + "?format=xml").status_code
        == 400
    )


def test_the_pool_page_lists_its_parameters_as_a_sentence(web: Client, loaded: Campaign) -> None:
    from pooling.services import pool_build

    pool = pool_build(campaign=loaded, name="by-docno", spec=PoolSpec("depth", depth=7, order="docno"))
    page = web.get(reverse("pooling:pool", args=[loaded.slug, pool.pk])).content.decode()
    # "depth=7 order=docno ." before: a space before the full stop, no comma between them
    assert "Parameters: depth=7, order=docno." in page
    assert " ." not in re.sub(r"\s+", " ", page)
    plain = pool_build(campaign=loaded, name="plain", spec=PoolSpec("depth"))
    page = web.get(reverse("pooling:pool", args=[loaded.slug, plain.pk])).content.decode()
    assert "Parameters: the strategy's defaults." in page and "defaultsdefaults" not in page


def test_pool_form_errors_are_shown_and_nothing_is_built(web: Client, loaded: Campaign) -> None:
    response = web.post(reverse("pooling:pool_new", args=[loaded.slug]), {"name": "t", "strategy": "take"})
    assert response.status_code == 302  # the form is valid; the strategy refuses in the job
    job = follow_job(web, response)
    assert job.status == Job.Status.FAILED and "budget" in job.errors[0]
    response = web.post(reverse("pooling:pool_new", args=[loaded.slug]), {"name": "x", "strategy": "nope"})
    assert response.status_code == 200 and "strategy" in response.content.decode()
    assert not Pool.objects.filter(campaign=loaded).exists()


def test_discarding_a_draft_from_its_page(web: Client, loaded: Campaign) -> None:
    from pooling.services import pool_build

    pool = pool_build(campaign=loaded, name="tmp", spec=PoolSpec("depth", depth=2))
    response = web.post(reverse("pooling:pool_discard", args=[loaded.slug, pool.pk]))
    assert response.status_code == 302 and not Pool.objects.filter(pk=pool.pk).exists()


def test_documents_import_keeps_only_pooled_documents(web: Client, loaded: Campaign) -> None:
    from pooling.services import pool_build

    pool = pool_build(campaign=loaded, name="d3", spec=PoolSpec("depth", depth=3))
    job = follow_job(
        web,
        web.post(
            reverse("campaigns:import", args=[loaded.slug]),
            {"what": "documents", "only_needed": "true", "files": upload(demo_dir() / "documents.tsv")},
        ),
    )
    assert job.status == Job.Status.DONE, job.errors
    assert Document.objects.filter(campaign=loaded).count() == pool.document_count == result(job)["stored"]
    assert result(job)["not_needed"] > 0


def test_diagnostics_with_imported_judgments(web: Client, loaded: Campaign) -> None:
    from pooling.services import pool_build

    job = follow_job(
        web,
        web.post(
            reverse("campaigns:import", args=[loaded.slug]),
            {"what": "qrels", "name": "ref", "files": upload(demo_dir() / "qrels.txt")},
        ),
    )
    qrels = read_qrels(demo_dir() / "qrels.txt")
    qset = QrelsSet.objects.get(campaign=loaded, name="ref")
    assert result(job)["lines"] == qset.line_count == len(qrels.docnos)
    pool = pool_build(campaign=loaded, name="d10", spec=PoolSpec("depth", depth=10))
    job = follow_job(
        web,
        web.post(
            reverse("pooling:pool_diagnostics", args=[loaded.slug, pool.pk]),
            {"qrels_set": str(qset.pk), "measures": "map P.10", "ks": "5,10"},
        ),
    )
    assert job.status == Job.Status.DONE, job.errors
    report = result(job)
    assert report["sizes"]["total"] == pool.document_count
    assert [m["measure"] for m in report["reusability"]["run"]["measures"]] == ["map", "P_10"]
    assert {j["k"] for j in report["judged_at_k"]} == {5, 10}
    assert len(report["contributions"]["run"]) == 4 and "group" in report["contributions"]
    page = web.get(reverse("jobs:job", args=[job.id])).content.decode()
    assert "Leave-one-run-out reusability" in page and "τ_AP" in page and "Contributions by run" in page


def test_reading_the_campaign_and_pool_pages_and_apis_writes_nothing(
    web: Client, api: Any, loaded: Campaign
) -> None:
    from django.apps import apps

    from pooling.services import pool_build

    pool = pool_build(campaign=loaded, name="d3", spec=PoolSpec("depth", depth=3))
    models = [m for app in ("campaigns", "pooling", "jobs") for m in apps.get_app_config(app).get_models()]

    def rows() -> dict[str, int]:
        return {m.__name__: m._default_manager.count() for m in models}

    before = rows()
    slug, pk = loaded.slug, pool.pk
    pages = [
        reverse("campaigns:campaigns"),
        reverse("campaigns:campaign", args=[slug]),
        reverse("campaigns:import", args=[slug]),
        reverse("pooling:pool_new", args=[slug]),
        reverse("pooling:pool", args=[slug, pk]),
        reverse("pooling:pool_export", args=[slug, pk]) + "?format=prel",
    ]
    apis = [
        "/api/campaigns/",
        f"/api/campaigns/{slug}/",
        f"/api/campaigns/{slug}/runs/",
        f"/api/campaigns/{slug}/pools/",
        f"/api/campaigns/{slug}/pools/{pk}/",
        f"/api/campaigns/{slug}/pools/{pk}/export/?format=mq",
    ]
    for url in pages:
        assert web.get(url).status_code == 200, url
    for url in apis:
        assert api.get(url).status_code == 200, url
    assert rows() == before
    # the read-only pages take no post at all
    for url in pages[1:2] + pages[4:]:
        assert web.post(url).status_code == 405, url
