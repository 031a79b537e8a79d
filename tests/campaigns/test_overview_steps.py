"""The campaign overview as a guided workflow: each step's state and next action, the results the
steps produced, and a failed job's problems shown as text."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign
from jobs.models import Job
from judging.services import assignments_create
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def web(organizer: Any) -> Client:
    client = Client()
    assert client.login(username=organizer.username, password=PASSWORD)
    return client


STEP = re.compile(
    r'<li id="step-(\w+)" class="([^"]*)" data-state="([^"]*)">(.*?)(?=<li id="step-|</ol>)', re.S
)


def steps(web: Client, campaign: Campaign) -> tuple[dict[str, str], str, dict[str, str]]:
    """Each step's state, the current step's key, and each step's HTML."""
    html = web.get(reverse("campaigns:campaign", args=[campaign.slug])).content.decode()
    found = STEP.findall(html)
    current = [key for key, cls, _, _ in found if "current" in cls.split()]
    assert len(current) <= 1
    return {k: state for k, _, state, _ in found}, (current or [""])[0], {k: body for k, _, _, body in found}


def test_the_steps_follow_the_campaign_from_nothing_to_assignments(
    web: Client, campaign: Campaign, assessor: Any
) -> None:
    states, current, soup = steps(web, campaign)
    assert list(states) == [
        "topics", "runs", "documents", "pool", "people", "assignments", "judging", "adjudication",
        "agreement", "evaluation",
    ]  # fmt: skip
    assert set(states.values()) == {"not started", "done"} and current == "topics"
    assert 'href="/campaigns/trec-demo/import/#import-topics">Import topics</a>' in soup["topics"]

    from campaigns.services import runs_import, topics_import
    from tests.conftest import demo_dir, demo_run_paths

    topics_import(campaign=campaign, path=demo_dir() / "topics.txt")
    runs_import(campaign=campaign, paths=demo_run_paths())
    states, current, _ = steps(web, campaign)
    # documents are optional: the next step is the pool
    assert (states["topics"], states["runs"], states["documents"], current) == (
        "done", "done", "not started", "pool",
    )  # fmt: skip
    draft = pool_build(campaign=campaign, name="d3", spec=PoolSpec("depth", depth=3))
    states, current, soup = steps(web, campaign)
    assert states["pool"] == "in progress" and "Review and commit &#x27;d3&#x27;" in soup["pool"]
    pool = pool_commit(pool=draft)
    states, current, soup = steps(web, campaign)
    # people are there already (alice): the next step is assigning
    assert (states["pool"], states["people"], current) == ("done", "done", "assignments")
    assert "0 of 5 pooled topics assigned" in soup["assignments"]
    from campaigns.models import Topic

    assignments_create(
        campaign=campaign, pool=pool, assessors=[assessor], topics=list(Topic.objects.filter(number="401"))
    )
    states, current, soup = steps(web, campaign)
    assert states["assignments"] == "in progress" and "1 of 5" in soup["assignments"]
    assert states["judging"] == "not started"


def test_agreement_and_diagnostics_reports_are_listed_on_the_campaign(
    web: Client, loaded: Campaign, organizer: Any
) -> None:
    pool_commit(pool=pool_build(campaign=loaded, name="d3", spec=PoolSpec("depth", depth=3)))
    done = {"campaign": loaded, "created_by": organizer, "status": Job.Status.DONE}
    agreement = Job.objects.create(kind="agreement_report", title="Agreement of alice and bob", **done)
    diagnostics = Job.objects.create(kind="pool_diagnostics", title="Diagnostics of d3", **done)
    states, _, soup = steps(web, loaded)
    assert (
        f'<a href="{reverse("jobs:job", args=[agreement.id])}">Agreement of alice and bob ('
        in soup["agreement"]
    )
    assert f'<a href="{reverse("jobs:job", args=[diagnostics.id])}">Diagnostics of d3 (' in soup["pool"]
    assert states["agreement"] == "done"


def test_a_failed_jobs_problems_are_text_not_template_code(
    web: Client, campaign: Campaign, organizer: Any
) -> None:
    job = Job.objects.create(
        kind="topics_import",
        title="Import topics",
        campaign=campaign,
        created_by=organizer,
        status=Job.Status.FAILED,
        errors=["line 3: no topic number", "line 9: duplicate topic 401"],
    )
    html = web.get(reverse("jobs:job", args=[job.id])).content.decode()
    box = html.split('<ul class="findings">')[1].split("</ul>")[0]
    assert re.findall(r'<li class="error">([^<]*)</li>', box) == [
        "line 3: no topic number",
        "line 9: duplicate topic 401",
    ]
    assert "{{" not in html and "join:" not in html
