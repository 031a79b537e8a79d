"""Importing judgments (a qrels set): refused whole when it judges topics the campaign lacks."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.errors import ImportRefused
from campaigns.models import Campaign, QrelsSet, Topic
from campaigns.selectors import qrels_set_load
from campaigns.services import qrels_set_import
from jobs.models import Job
from tests.campaigns.conftest import follow_job, upload
from trec import read_qrels
from trec.qrels import read_qrels_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_topics(campaign: Campaign) -> Campaign:
    Topic.objects.bulk_create(Topic(campaign=campaign, number=n, title=n) for n in ("051", "52"))
    return campaign


def test_judgments_for_topics_outside_the_campaign_are_refused_naming_file_and_line(
    tmp_path: Path, two_topics: Campaign
) -> None:
    # '51' is not '051': topic ids are compared as written
    (tmp_path / "last.qrels").write_text("051 0 d1 1\n52 0 d1 0\n51 0 d2 1\n99 0 d3 1\n51 0 d4 0\n")
    with pytest.raises(ImportRefused) as exc:
        qrels_set_import(campaign=two_topics, path=tmp_path / "last.qrels", filename="last.qrels")
    assert exc.value.problems == [
        "last.qrels:3: topic '51' is not a topic of campaign 'trec-demo'",
        "last.qrels:4: topic '99' is not a topic of campaign 'trec-demo'",
    ]
    assert not QrelsSet.objects.exists()


def test_judgments_of_the_campaign_s_topics_are_kept(tmp_path: Path, two_topics: Campaign) -> None:
    (tmp_path / "ok.qrels").write_text("051 0 d1 1\n52 0 d1 0\n")
    qset = qrels_set_import(campaign=two_topics, path=tmp_path / "ok.qrels")
    assert (qset.name, qset.line_count, qset.topic_count) == ("ok", 2, 2)


def test_the_page_names_the_uploaded_file(tmp_path: Path, web: Client, two_topics: Campaign) -> None:
    (tmp_path / "x.qrels").write_text("7 0 d1 1\n")
    job = follow_job(
        web,
        web.post(
            reverse("campaigns:import", args=[two_topics.slug]),
            {"what": "qrels", "files": upload(tmp_path / "x.qrels", "mine.qrels")},
        ),
    )
    assert job.status == Job.Status.FAILED
    assert job.errors == ["mine.qrels:1: topic '7' is not a topic of campaign 'trec-demo'"]


@pytest.mark.parametrize(
    "text",
    [
        "051 0 d1 1\n52 0 d2 0\n52 0 d1 2\n",  # plain: read in memory
        "051\t0\td1\t1\n52 0  d2 0\n52 0 d1 2\n",  # tabs, two spaces: the strict reader's path
    ],
    ids=["plain", "not-plain"],
)
def test_a_stored_set_reads_back_as_its_file_reads(tmp_path: Path, two_topics: Campaign, text: str) -> None:
    (tmp_path / "set.qrels").write_text(text)
    qset = qrels_set_import(campaign=two_topics, path=tmp_path / "set.qrels")
    stored, filed = qrels_set_load(qrels_set=qset), read_qrels(tmp_path / "set.qrels")
    assert list(stored.topics) == list(filed.topics) == ["051", "52"]
    assert stored.docnos.tolist() == filed.docnos.tolist() and stored.rels.tolist() == filed.rels.tolist()
    assert stored.rels.tolist() == [1, 2, 0]  # 52's documents in docno order
    # which way it was read: in memory when plain, else through the strict reader's file
    assert (read_qrels_bytes(bytes(qset.content), "set") is None) == ("\t" in text)
