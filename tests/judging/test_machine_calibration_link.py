"""A machine assessor's calibration against the humans lives in an agreement report (a job): the
machine's page links it, for organizers only."""

# the machine assessors' fixtures are imported from their own tests, which pytest then injects
# ruff: noqa: F811

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign
from jobs.models import Job
from judging.reports.selectors import AgreementParams
from judging.services import agreement_report_start
from tests.conftest import PASSWORD
from tests.judging.test_machine_judges import (  # noqa: F401
    judged_by_both,
    key,
    pool,
    server,
    stocked,
    web,
)

pytestmark = pytest.mark.django_db


def test_the_machine_page_links_its_latest_calibration_for_organizers_only(
    web: Client,
    stocked: Campaign,
    judged_by_both: dict[str, Any],
    organizer: Any,
    assessor: Any,
    adjudicator: Any,
) -> None:
    judge = judged_by_both["judge"]
    url = reverse("judging:machine", args=[stocked.slug, judge.pk])
    assert "No agreement report yet" in web.get(url).content.decode()
    # a report that predates its judgments (no calibration of it) is named as such
    old = Job.objects.create(
        kind="agreement_report", campaign=stocked, created_by=organizer, status=Job.Status.DONE, result={}
    )
    html = web.get(url).content.decode()
    assert f'href="{reverse("jobs:job", args=[old.id])}"' in html and "does not calibrate it" in html
    job = agreement_report_start(campaign=stocked, user=organizer, params=AgreementParams())
    job.refresh_from_db()
    assert job.status == Job.Status.DONE, job.errors
    html = web.get(url).content.decode()
    link = f'<a href="{reverse("jobs:job", args=[job.id])}#calibration-llm" id="latest-calibration-link">'
    assert link in html
    assert 'id="calibration-llm"' in web.get(reverse("jobs:job", args=[job.id])).content.decode()
    for user in (assessor, adjudicator):
        other = Client()
        assert other.login(username=user.username, password=PASSWORD)
        response = other.get(url)
        assert response.status_code == 403 and "#calibration-llm" not in response.content.decode()
