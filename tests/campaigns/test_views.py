"""The kernel's organizer pages, driven as an organizer would: the campaign list, creating a
campaign, and the imports (topics, runs, their validation alone)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Run, Topic
from jobs.models import Job
from tests.campaigns.conftest import demo_dir, demo_run_paths, demo_runs, follow_job, result, upload

pytestmark = pytest.mark.django_db


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
    assert job.status == Job.Status.DONE and job.result == {
        "created": 5,
        "updated": 0,
        "unchanged": 0,
        "changed": [],
    }
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


def test_reimporting_topics_lists_the_replaced_texts_on_the_job_page(web: Client, campaign: Campaign) -> None:
    url = reverse("campaigns:import", args=[campaign.slug])

    def send(name: str, text: bytes) -> Job:
        return follow_job(web, web.post(url, {"what": "topics", "files": SimpleUploadedFile(name, text)}))

    send("a.tsv", b"1\tfirst\n2\tsecond\n")
    job = send("b.tsv", b"1\tfirst\n2\tsecond, revised\tnow with a description\n")
    assert job.result == {
        "created": 0,
        "updated": 1,
        "unchanged": 1,
        "changed": [{"topic": "2", "fields": ["title", "description"], "file": "b.tsv"}],
    }
    page = web.get(reverse("jobs:job", args=[job.id])).content.decode()
    assert "The text of 1 topic(s) already in the campaign was replaced" in page
    assert "<li>2: title, description (from b.tsv)</li>" in page
    assert Topic.objects.get(campaign=campaign, number="2").title == "second, revised"
