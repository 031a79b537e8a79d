"""Uploads of real sizes through the import page and the API: a request over Django's in-memory
limit spools its files to disk, and they must still arrive (on SQLite and PostgreSQL); the upload
and decompressed-size caps refuse a file by its name and store nothing."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns.models import Campaign, Run, RunArrays, Topic
from campaigns.stored_runs import run_lines
from jobs.models import Job
from jobs.uploads import TemporaryFileUploadHandler
from tests.campaigns.conftest import api_job, api_problems, follow_job, result

pytestmark = pytest.mark.django_db

TOPICS = [f"{n:03d}" for n in range(1, 51)]


@pytest.fixture
def fifty(campaign: Campaign) -> Campaign:
    Topic.objects.bulk_create(Topic(campaign=campaign, number=n, title=f"topic {n}") for n in TOPICS)
    return campaign


def trec_run(tag: str, docs: int = 1000) -> bytes:
    """A normal TREC run: 50 topics x ``docs`` lines (2.6 MB at 1000)."""
    return "".join(
        f"{t} Q0 DOCUMENT-{t}-{tag[:8]:0>8}-{r:08d} {r} {1000 - r / 1000:.6f} {tag}\n"
        for t in TOPICS
        for r in range(1, docs + 1)
    ).encode()


def big_run() -> SimpleUploadedFile:
    data = trec_run("big")
    assert len(data) > 2_621_440  # over FILE_UPLOAD_MAX_MEMORY_SIZE: Django spools it to disk
    return SimpleUploadedFile("big.run", data)


def small_runs(n: int = 40) -> list[SimpleUploadedFile]:
    runs = [SimpleUploadedFile(f"r{i:02d}.run", trec_run(f"r{i:02d}", docs=30)) for i in range(n)]
    assert sum(r.size or 0 for r in runs) > 2_621_440  # the request as a whole is spooled
    return runs


def page_post(web: Client, campaign: Campaign, data: dict[str, Any]) -> Any:
    return web.post(reverse("campaigns:import", args=[campaign.slug]), data)


def test_a_normal_trec_run_uploads_through_the_api(api: APIClient, fifty: Campaign) -> None:
    response = api.post(
        f"/api/campaigns/{fifty.slug}/runs/import/", {"files": [big_run()]}, format="multipart"
    )
    done = api_job(api, response)
    assert done["status"] == "done", done["errors"]
    assert len(run_lines(Run.objects.get(tag="big").pk).scores) == 50_000


def test_a_normal_trec_run_uploads_through_the_page(web: Client, fifty: Campaign) -> None:
    job = follow_job(web, page_post(web, fifty, {"what": "runs", "files": [big_run()]}))
    assert job.status == Job.Status.DONE, job.errors
    assert len(run_lines(Run.objects.get(tag="big").pk).scores) == 50_000


@pytest.mark.parametrize("through", ["page", "api"])
def test_a_large_upload_is_spooled_to_the_workbench_s_own_folder(
    web: Client, api: APIClient, fifty: Campaign, monkeypatch: pytest.MonkeyPatch, through: str
) -> None:
    """Not the system's temporary folder: there a killed server's half upload would stay forever
    (the folder's stale files are removed at start: tests/jobs/test_stale_uploads.py)."""
    spooled: list[Path] = []
    complete = TemporaryFileUploadHandler.file_complete

    def recorded(self: TemporaryFileUploadHandler, file_size: int) -> Any:
        spooled.append(Path(self.file.temporary_file_path()))
        return complete(self, file_size)

    monkeypatch.setattr(TemporaryFileUploadHandler, "file_complete", recorded)
    if through == "page":
        job = follow_job(web, page_post(web, fifty, {"what": "runs", "files": [big_run()]}))
        assert job.status == Job.Status.DONE, job.errors
    else:
        response = api.post(
            f"/api/campaigns/{fifty.slug}/runs/import/", {"files": [big_run()]}, format="multipart"
        )
        assert api_job(api, response)["status"] == "done"
    assert [p.parent for p in spooled] == [Path(settings.WORKBENCH_UPLOAD_DIR) / "incoming"]
    assert spooled[0].parent.stat().st_mode & 0o777 == 0o700
    assert not spooled[0].exists()  # the request's end removed it


def test_forty_runs_in_one_request_upload_through_the_api(api: APIClient, fifty: Campaign) -> None:
    response = api.post(
        f"/api/campaigns/{fifty.slug}/runs/import/", {"files": small_runs(), "group": "g"}, format="multipart"
    )
    done = api_job(api, response)
    assert done["status"] == "done", done["errors"]
    assert Run.objects.filter(campaign=fifty).count() == 40


def test_forty_runs_in_one_request_upload_through_the_page(web: Client, fifty: Campaign) -> None:
    job = follow_job(web, page_post(web, fifty, {"what": "runs", "files": small_runs(), "group": "g"}))
    assert job.status == Job.Status.DONE, job.errors
    assert len(result(job)["imported"]) == 40


def test_a_validation_only_upload_of_a_large_run_works_too(api: APIClient, fifty: Campaign) -> None:
    response = api.post(
        f"/api/campaigns/{fifty.slug}/runs/validate/", {"files": [big_run()]}, format="multipart"
    )
    done = api_job(api, response)
    assert done["result"]["reports"][0]["ok"]
    assert not Run.objects.exists()


# ----------------------------------------------------------------------------------------- caps


def test_a_gzip_bomb_is_refused_by_name_and_nothing_is_stored(
    api: APIClient, web: Client, fifty: Campaign, settings: Any
) -> None:
    settings.WORKBENCH_MAX_PARSED_BYTES = 1_000_000
    bomb = gzip.compress(trec_run("bomb"), compresslevel=9)  # 2.6 MB of run lines
    assert len(bomb) < 500_000
    response = api.post(
        f"/api/campaigns/{fifty.slug}/runs/import/",
        {"files": [SimpleUploadedFile("bomb.run.gz", bomb)]},
        format="multipart",
    )
    done = api_job(api, response)
    assert done["status"] == "failed"
    assert done["errors"] == [
        "bomb.run.gz: is larger than 1000000 bytes decompressed,"
        " over the server's limit (WORKBENCH_MAX_PARSED_BYTES)"
    ]
    job = follow_job(
        web, page_post(web, fifty, {"what": "runs", "files": [SimpleUploadedFile("bomb.run.gz", bomb)]})
    )
    assert job.errors == done["errors"]
    assert not Run.objects.exists() and not RunArrays.objects.exists()


@pytest.mark.parametrize(
    ("what", "setting"),
    [
        ("topics", "WORKBENCH_MAX_PARSED_BYTES"),
        ("qrels", "WORKBENCH_MAX_PARSED_BYTES"),
        ("documents", "WORKBENCH_MAX_DECOMPRESSED_BYTES"),
    ],
)
def test_every_import_checks_the_decompressed_size(
    web: Client, fifty: Campaign, settings: Any, what: str, setting: str
) -> None:
    """Documents are read in batches: only the general limit applies to them."""
    settings.WORKBENCH_MAX_PARSED_BYTES = 1000 if setting == "WORKBENCH_MAX_PARSED_BYTES" else 10**9
    settings.WORKBENCH_MAX_DECOMPRESSED_BYTES = 1000 if setting != "WORKBENCH_MAX_PARSED_BYTES" else 10**9
    bomb = gzip.compress(b"x" * 5000)
    job = follow_job(web, page_post(web, fifty, {"what": what, "files": [SimpleUploadedFile("in.gz", bomb)]}))
    assert job.errors == [
        f"in.gz: is larger than 1000 bytes decompressed, over the server's limit ({setting})"
    ]


def test_documents_are_not_held_to_the_limit_of_parsed_files(
    web: Client, fifty: Campaign, settings: Any
) -> None:
    settings.WORKBENCH_MAX_PARSED_BYTES = 10
    docs = SimpleUploadedFile("docs.tsv", b"d1\ta document with some text\n")
    job = follow_job(web, page_post(web, fifty, {"what": "documents", "files": [docs]}))
    assert job.status == Job.Status.DONE, job.errors


def test_an_upload_over_the_size_cap_is_refused_by_name(
    api: APIClient, web: Client, fifty: Campaign, settings: Any
) -> None:
    settings.WORKBENCH_MAX_UPLOAD_BYTES = 100
    refused = api.post(
        f"/api/campaigns/{fifty.slug}/runs/import/",
        {
            "files": [
                SimpleUploadedFile("ok.run", b"001 Q0 d 1 1 t\n"),
                SimpleUploadedFile("huge.run", b"x" * 101),
            ]
        },
        format="multipart",
    )
    line = "files: huge.run is 101 bytes, over the upload limit of 100 bytes"
    assert api_problems(refused) == [line]
    on_page = page_post(web, fifty, {"what": "runs", "files": [SimpleUploadedFile("huge.run", b"x" * 101)]})
    assert on_page.context["errors"] == {"runs": [line]}
    assert not Job.objects.exists()


@pytest.mark.parametrize("what", ["topics", "runs", "documents", "qrels"])
def test_an_empty_upload_is_refused_by_name(api: APIClient, web: Client, fifty: Campaign, what: str) -> None:
    endpoint = {"topics": "topics/import", "runs": "runs/import", "documents": "documents/import"}.get(
        what, "judgments/import"
    )
    refused = api.post(
        f"/api/campaigns/{fifty.slug}/{endpoint}/",
        {"files": [SimpleUploadedFile("empty.txt", b"")]},
        format="multipart",
    )
    assert api_problems(refused) == ["files: empty.txt is empty"]
    on_page = page_post(web, fifty, {"what": what, "files": [SimpleUploadedFile("empty.txt", b"")]})
    assert on_page.context["errors"] == {what: ["files: empty.txt is empty"]}
    assert not Job.objects.exists()
