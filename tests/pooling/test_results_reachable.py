"""Results that background jobs produce are reachable from the step they belong to, for the
organizers who may read them: a pool's diagnostics from the pool's page, the latest documents
import (pooled documents in no file...) from the campaign page's documents step."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign
from pooling.services import pool_build
from pooling.spec import PoolSpec
from tests.campaigns.conftest import demo_dir, follow_job, upload
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_the_pool_page_links_its_own_latest_diagnostics_for_organizers_only(
    web: Client, loaded: Campaign, assessor: Any, adjudicator: Any, outsider: Any
) -> None:
    d3 = pool_build(campaign=loaded, name="d3", spec=PoolSpec("depth", depth=3))
    d5 = pool_build(campaign=loaded, name="d5", spec=PoolSpec("depth", depth=5))
    url = reverse("pooling:pool", args=[loaded.slug, d3.pk])
    assert 'id="diagnostics-none"' in web.get(url).content.decode()
    first = follow_job(
        web, web.post(reverse("pooling:pool_diagnostics", args=[loaded.slug, d3.pk]), {"ks": "10"})
    )
    latest = follow_job(
        web, web.post(reverse("pooling:pool_diagnostics", args=[loaded.slug, d3.pk]), {"ks": "5"})
    )
    other = follow_job(
        web, web.post(reverse("pooling:pool_diagnostics", args=[loaded.slug, d5.pk]), {"ks": "10"})
    )
    html = web.get(url).content.decode()
    reports = html[html.index('id="diagnostics-reports"') :]
    reports = reports[: reports.index("</ul>")]
    job_url = lambda job: reverse("jobs:job", args=[job.id])  # noqa: E731
    assert f'<a href="{job_url(latest)}">Latest report of ' in reports
    assert f'<a href="{job_url(first)}">Report of ' in reports
    assert job_url(other) not in reports  # another pool's
    assert web.get(job_url(latest)).status_code == 200  # the organizer may open it
    for user, status in ((assessor, 403), (adjudicator, 403), (outsider, 404)):
        response = login(user).get(url)
        assert response.status_code == status
        assert job_url(latest) not in response.content.decode()
        assert login(user).get(job_url(latest)).status_code == 404  # nor read the report


def test_the_documents_step_links_the_latest_documents_import(
    web: Client, loaded: Campaign, assessor: Any
) -> None:
    pool_build(campaign=loaded, name="d3", spec=PoolSpec("depth", depth=3))
    job = follow_job(
        web,
        web.post(
            reverse("campaigns:import", args=[loaded.slug]),
            {"what": "documents", "files": upload(demo_dir() / "documents.tsv")},
        ),
    )
    assert job.result is not None
    html = web.get(reverse("campaigns:campaign", args=[loaded.slug])).content.decode()
    step = html[html.index('id="step-documents"') :]
    step = step[: step.index("</li>\n")]
    assert f'<a href="{reverse("jobs:job", args=[job.id])}">Latest documents import (' in step
    assert f"): {job.result['stored']} stored</a>" in step
    response = login(assessor).get(reverse("campaigns:campaign", args=[loaded.slug]))
    assert response.status_code == 403 and reverse("jobs:job", args=[job.id]) not in response.content.decode()
