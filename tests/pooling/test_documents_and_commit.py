"""Documents and pools in either order: documents imported before any pool are kept, and
committing a pool whose documents have no stored text says how many."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Document
from jobs.models import Job
from pooling.models import Pool
from pooling.services import pool_build
from pooling.spec import PoolSpec
from tests.campaigns.conftest import demo_dir, follow_job, result, upload

pytestmark = pytest.mark.django_db


def import_documents(web: Client, campaign: Campaign) -> Job:
    return follow_job(
        web,
        web.post(
            reverse("campaigns:import", args=[campaign.slug]),
            {"what": "documents", "only_needed": "true", "files": upload(demo_dir() / "documents.tsv")},
        ),
    )


def test_documents_imported_before_any_pool_are_all_stored_and_the_page_says_why(
    web: Client, loaded: Campaign
) -> None:
    job = import_documents(web, loaded)
    assert job.status == Job.Status.DONE, job.errors
    read = len((demo_dir() / "documents.tsv").read_text().splitlines())
    assert result(job)["stored"] == Document.objects.filter(campaign=loaded).count() == read
    assert result(job)["no_pool"] and result(job)["not_needed"] == 0
    page = web.get(reverse("jobs:job", args=[job.id])).content.decode()
    assert "The campaign has no pool yet, so every document read was stored" in page


def test_once_a_pool_exists_only_its_documents_are_stored(web: Client, loaded: Campaign) -> None:
    pool = pool_build(campaign=loaded, name="d3", spec=PoolSpec("depth", depth=3))
    job = import_documents(web, loaded)
    assert not result(job)["no_pool"]
    assert Document.objects.filter(campaign=loaded).count() == pool.document_count


def commit_messages(web: Client, campaign: Campaign, pool: Pool) -> list[tuple[str, str]]:
    response = web.post(reverse("pooling:pool_commit", args=[campaign.slug, pool.pk]))
    return [(m.level_tag, str(m)) for m in get_messages(response.wsgi_request)]


def test_committing_a_pool_without_stored_text_warns_with_the_count(web: Client, loaded: Campaign) -> None:
    pool = pool_build(campaign=loaded, name="d3", spec=PoolSpec("depth", depth=3))
    some = sorted(set(pool.documents.values_list("docno", flat=True)))
    Document.objects.create(campaign=loaded, docno=some[0], text="stored")
    assert commit_messages(web, loaded, pool) == [
        ("success", "pool 'd3' committed: it is ready to judge"),
        (
            "warning",
            f"{len(some) - 1} of its documents have no stored text: assessors cannot read them until "
            "you import them (Import, documents)",
        ),
    ]


def test_committing_a_pool_whose_documents_are_stored_does_not_warn(web: Client, loaded: Campaign) -> None:
    pool = pool_build(campaign=loaded, name="d3", spec=PoolSpec("depth", depth=3))
    import_documents(web, loaded)
    assert commit_messages(web, loaded, pool) == [("success", "pool 'd3' committed: it is ready to judge")]
