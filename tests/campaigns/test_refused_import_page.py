"""A refused import's job page: each error listed once, in the error style (not a full progress
bar nor the blue of a message), and each run file's lines counted as read, refused and accepted."""

from __future__ import annotations

import html
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign
from jobs.models import Job
from tests.campaigns.conftest import follow_job

pytestmark = pytest.mark.django_db

BROKEN = (
    b"401 Q0 d1 1 0.5 broken\n"
    b"401 Q0 d2 2 abc broken\n"  # 2: not a score
    b"401 Q0 d3 3\n"  # 3: four columns (read, though it never becomes a row)
    b"999 Q0 d4 1 0.2 broken\n"  # 4: not a campaign topic
)


def _page(web: Client, job: Job) -> str:
    return html.unescape(web.get(reverse("jobs:job", args=[job.id])).content.decode())


def _import(web: Client, campaign: Campaign, what: str, *files: SimpleUploadedFile, **fields: str) -> Job:
    url = reverse("campaigns:import", args=[campaign.slug])
    job = follow_job(web, web.post(url, {"what": what, "files": list(files), **fields}))
    assert job.status == Job.Status.FAILED
    return job


def _refused_box(page: str) -> str:
    match = re.search(r'<section class="card refused" id="job-errors">(.*?)</section>', page, re.S)
    assert match, "no refused box in the error style"
    return match.group(1)


def test_a_refused_run_import_lists_each_error_once_and_counts_its_lines(
    web: Client, loaded: Campaign
) -> None:
    fresh = SimpleUploadedFile("fresh.run", b"401 Q0 d1 1 0.5 fresh\n401 Q0 d2 2 0.4 fresh\n")
    broken = SimpleUploadedFile("broken.run", BROKEN)
    job = _import(web, loaded, "runs", fresh, broken, validate_only="false")
    page = _page(web, job)
    errors = [line for line in job.errors if ": error: " in line]
    assert [line.split(":")[1] for line in errors] == ["2", "3", "4"]
    for line in job.errors:  # errors and warnings, each once
        assert page.count(line) == 1, line
    box = _refused_box(page)
    assert "Nothing of this job was stored" in box and "broken.run" in box and "fresh.run" not in box
    assert "<progress" not in page  # no bar filled to the end over a refusal
    rows = dict(
        re.findall(
            r'<tr class="file[^"]*"><td>(?:<a [^>]*>)?([^<]+)(?:</a>)?</td>((?:<td[^>]*>.*?</td>)+)</tr>',
            page,
            re.S,
        )
    )
    cells = {name: re.findall(r"<td[^>]*>([^<]*)</td>", row) for name, row in rows.items()}
    # tag, read, refused, accepted
    assert cells["broken.run"][:4] == ["broken", "4", "3", "1"]
    assert cells["fresh.run"][:4] == ["fresh", "2", "0", "2"]


def test_validating_only_counts_the_lines_too(web: Client, loaded: Campaign) -> None:
    url = reverse("campaigns:import", args=[loaded.slug])
    broken = SimpleUploadedFile("broken.run", BROKEN)
    job = follow_job(web, web.post(url, {"what": "runs", "validate_only": "true", "files": [broken]}))
    assert job.status == Job.Status.DONE
    (report,) = job.result["reports"]  # type: ignore[index]
    assert (report["lines"], report["refused_lines"], report["accepted_lines"]) == (4, 3, 1)
    page = _page(web, job)
    assert "job-errors" not in page
    assert page.count("broken.run:2: error:") == 1


@pytest.mark.parametrize(
    ("what", "upload", "fields", "problem"),
    [
        ("qrels", SimpleUploadedFile("bad.qrels", b"401 0 d1 1\n401 0 d2\n"), {}, "bad.qrels:2:"),
        ("topics", SimpleUploadedFile("bad.tsv", b"401\tok\n402\n"), {"format": "tsv"}, "bad.tsv:2:"),
    ],
)
def test_a_refused_judgments_or_topics_import_shows_its_error_once_in_the_error_style(
    web: Client, loaded: Campaign, what: str, upload: SimpleUploadedFile, fields: dict[str, str], problem: str
) -> None:
    job = _import(web, loaded, what, upload, **fields)
    page = _page(web, job)
    (line,) = job.errors
    assert line.startswith(problem) and page.count(line) == 1
    assert line in _refused_box(page) and "<progress" not in page


def test_a_finished_job_keeps_its_bar(web: Client, campaign: Campaign) -> None:
    url = reverse("campaigns:import", args=[campaign.slug])
    topics = SimpleUploadedFile("t.tsv", b"401\tone\n")
    job = follow_job(web, web.post(url, {"what": "topics", "format": "tsv", "files": [topics]}))
    assert job.status == Job.Status.DONE
    page = _page(web, job)
    assert "<progress" in page and "job-errors" not in page


def test_the_error_count_counts_the_errors_past_the_listed_ones(web: Client, loaded: Campaign) -> None:
    from campaigns.validation import LISTED_PER_CODE

    n = LISTED_PER_CODE + 5
    bad = "".join(f"401 Q0 d{i} {i} nan many\n" for i in range(1, n + 1)).encode()
    job = _import(web, loaded, "runs", SimpleUploadedFile("many.run", bad), validate_only="false")
    page = " ".join(_page(web, job).split())
    assert f"many.run</a> ({n} errors)" in page and f"{n} error(s)</span>" in page
    assert "... and 5 more like the above" in page
