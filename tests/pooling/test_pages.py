"""The organizer pages, driven as an organizer would: import, validate, build, commit, diagnose, export."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Document, QrelsSet, Run, Topic
from jobs.models import Job
from pooling.models import Pool
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD
from tests.pooling.conftest import demo_dir, demo_run_paths, demo_runs
from trec import read_qrels

pytestmark = pytest.mark.django_db


def result(job: Job) -> dict[str, Any]:
    assert job.result is not None, job.errors
    return job.result


@pytest.fixture
def web(organizer: object) -> Client:
    client = Client()
    assert client.login(username=organizer.username, password=PASSWORD)  # type: ignore[attr-defined]
    return client


def upload(path: object, name: str | None = None) -> SimpleUploadedFile:
    from pathlib import Path

    p = Path(str(path))
    return SimpleUploadedFile(name or p.name, p.read_bytes())


def follow_job(web: Client, response: object) -> Job:
    """The import pages answer with a redirect to the job page; jobs run inside the request in tests."""
    assert response.status_code == 302, getattr(response, "content", b"")[:500]  # type: ignore[attr-defined]
    match = re.search(r"/jobs/([0-9a-f-]+)/", response["Location"])  # type: ignore[index]
    assert match, response["Location"]  # type: ignore[index]
    return Job.objects.get(pk=match.group(1))


def test_campaign_list_shows_only_campaigns_with_a_role(web: Client, campaign: Campaign) -> None:
    Campaign.objects.create(slug="secret", name="Someone else's")
    page = web.get(reverse("campaigns:campaigns")).content.decode()
    assert "TREC demo" in page
    assert "Someone else" not in page


def test_organizer_creates_a_campaign_and_becomes_its_organizer(web: Client) -> None:
    response = web.post(reverse("campaigns:campaigns"), {"slug": "robust-2026", "name": "Robust 2026"})
    assert response.status_code == 302
    assert response["Location"] == reverse("campaigns:campaign", args=["robust-2026"])
    assert "Robust 2026" in web.get(response["Location"]).content.decode()


def test_a_bad_campaign_slug_is_explained(web: Client) -> None:
    response = web.post(reverse("campaigns:campaigns"), {"slug": "has spaces"})
    assert response.status_code == 200
    assert "slug" in response.content.decode() and not Campaign.objects.filter(name="has spaces").exists()


def test_import_topics_then_runs_through_the_page(web: Client, campaign: Campaign) -> None:
    url = reverse("campaigns:import", args=[campaign.slug])
    job = follow_job(
        web, web.post(url, {"what": "topics", "format": "auto", "files": upload(demo_dir() / "topics.txt")})
    )
    assert job.status == Job.Status.DONE and job.result == {"created": 5, "updated": 0, "unchanged": 0}
    files = [upload(p) for p in demo_run_paths()]
    job = follow_job(
        web, web.post(url, {"what": "runs", "group": "uni", "validate_only": "false", "files": files})
    )
    assert job.status == Job.Status.DONE, job.errors
    assert sorted(r["tag"] for r in result(job)["imported"]) == sorted(r.name for r in demo_runs())
    assert Run.objects.filter(campaign=campaign, group__name="uni").count() == 4
    page = web.get(reverse("jobs:job", args=[job.id])).content.decode()
    assert "4 run(s) imported" in page


def test_validate_only_reports_errors_with_the_uploaded_name_and_line_and_stores_nothing(
    web: Client, loaded: Campaign
) -> None:
    bad = b"401 Q0 d1 1 0.5 mine\n401 Q0 d1 2 0.4 mine\n999 Q0 d2 1 nan mine\n"
    url = reverse("campaigns:import", args=[loaded.slug])
    job = follow_job(
        web,
        web.post(
            url, {"what": "runs", "validate_only": "true", "files": SimpleUploadedFile("mine.run", bad)}
        ),
    )
    assert job.status == Job.Status.DONE and result(job)["validate_only"]
    report = result(job)["reports"][0]
    assert report["file"] == "mine.run" and not report["ok"]
    assert any(e.startswith("mine.run:2:") and "d1" in e for e in report["errors"])  # the duplicate
    assert any(e.startswith("mine.run:3:") for e in report["errors"])  # unknown topic / NaN score
    page = web.get(reverse("jobs:job", args=[job.id])).content.decode()
    assert "mine.run:2:" in page
    assert not Run.objects.filter(tag="mine").exists()


def test_a_refused_run_import_keeps_what_was_stored(web: Client, loaded: Campaign) -> None:
    before = Run.objects.filter(campaign=loaded).count()
    good = b"401 Q0 d1 1 0.5 fresh\n"
    bad = b"401 Q0 d1 1 0.5 broken\n401 Q0 d2 2 abc broken\n"
    url = reverse("campaigns:import", args=[loaded.slug])
    files = [SimpleUploadedFile("fresh.run", good), SimpleUploadedFile("broken.run", bad)]
    job = follow_job(web, web.post(url, {"what": "runs", "validate_only": "false", "files": files}))
    assert job.status == Job.Status.FAILED
    assert any(line.startswith("broken.run:2:") for line in job.errors)
    assert Run.objects.filter(campaign=loaded).count() == before  # neither file, all four old runs
    page = web.get(reverse("jobs:job", args=[job.id])).content.decode()
    assert "Nothing of this job was stored" in page and "broken.run:2:" in page


def test_a_malformed_topics_file_names_file_and_line(web: Client, campaign: Campaign) -> None:
    url = reverse("campaigns:import", args=[campaign.slug])
    bad = SimpleUploadedFile("topics.tsv", b"51\tfirst\n52\n")
    job = follow_job(web, web.post(url, {"what": "topics", "format": "tsv", "files": bad}))
    assert job.status == Job.Status.FAILED
    assert job.errors and job.errors[0].startswith("topics.tsv:2")
    assert not Topic.objects.filter(campaign=campaign).exists()


def test_an_import_form_without_files_is_refused_on_the_page(web: Client, campaign: Campaign) -> None:
    response = web.post(reverse("campaigns:import", args=[campaign.slug]), {"what": "runs"})
    assert response.status_code == 200
    assert "files" in response.content.decode()
    assert not Job.objects.exists()


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
