"""Starting an import job: the one service behind the import page, the API's import endpoints alike."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from campaigns.errors import CampaignDataError, ImportRefused
from campaigns.inputs import IMPORT_INPUTS
from campaigns.models import Campaign, QrelsSet, Topic
from campaigns.services import IMPORTS, campaign_import_enqueue
from jobs.models import Job

pytestmark = pytest.mark.django_db


def upload(name: str, content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content)


def test_the_page_has_a_form_for_every_import_and_no_other() -> None:
    assert set(IMPORT_INPUTS) == set(IMPORTS) == {"topics", "runs", "documents", "qrels"}


def test_a_topics_import_runs_as_a_job_keeping_only_its_own_options(
    campaign: Campaign, organizer: Any
) -> None:
    job = campaign_import_enqueue(
        campaign=campaign,
        user=organizer,
        what="topics",
        files=[upload("t.tsv", b"401\tpooling bias\n")],
        fmt="tsv",
        group="ignored",
    )
    assert job.kind == "topics_import" and job.created_by == organizer and job.campaign == campaign
    assert job.title == "import 1 topics file(s) into trec-demo"
    assert {k: v for k, v in job.params.items() if k != "files"} == {"format": "tsv"}
    assert [name for _, name in job.params["files"]] == ["t.tsv"]
    assert job.status == Job.Status.DONE, job.errors  # run inside the call in tests
    assert Topic.objects.get(campaign=campaign).title == "pooling bias"


def test_validating_runs_says_so_in_the_title_and_the_job(campaign: Campaign, organizer: Any) -> None:
    job = campaign_import_enqueue(
        campaign=campaign,
        user=organizer,
        what="runs",
        files=[upload("a.run", b""), upload("b.run", b"")],
        group="uni",
        priority=2,
        validate_only=True,
    )
    assert job.kind == "runs_import" and job.title == "validate 2 run file(s) into trec-demo"
    assert {k: v for k, v in job.params.items() if k != "files"} == {
        "group": "uni",
        "priority": 2,
        "validate_only": True,
    }


@pytest.mark.parametrize(
    ("what", "names", "refusal", "problem"),
    [
        ("pools", ["x"], CampaignDataError, "unknown import 'pools' (one of topics, runs, documents, qrels)"),
        ("topics", [], ImportRefused, "no file was uploaded"),
        ("qrels", ["a.qrels", "b.qrels"], ImportRefused, "judgments are imported one file at a time"),
    ],
)
def test_an_import_that_cannot_start_is_refused_before_any_job(
    campaign: Campaign, organizer: Any, what: str, names: list[str], refusal: type[Exception], problem: str
) -> None:
    with pytest.raises(refusal) as refused:
        campaign_import_enqueue(
            campaign=campaign, user=organizer, what=what, files=[upload(n, b"401 0 d1 1\n") for n in names]
        )
    assert refused.value.problems == [problem]  # type: ignore[attr-defined]
    assert not Job.objects.exists() and not QrelsSet.objects.exists()
