"""The agreement report in a real browser: an organizer goes from the campaign page to "Compute
agreement", asks for the system rankings too, and reads the coefficients with their SEs, the
conventions legend and the ranking correlations (tau_AP,b, Spearman, RBO, swap rates)."""

from __future__ import annotations

import io
import os
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management import call_command
from playwright.sync_api import Page, expect

from campaigns.models import Campaign
from campaigns.services import membership_add
from judging.models import Assignment
from judging.services import judgment_record
from pooling.models import Pool
from tests.browser.conftest import LogIn
from tests.judging.assess.fixtures import assign

SHOTS = Path(os.environ.get("WORKBENCH_SCREENSHOTS", "/tmp/workbench-screenshots"))


def _two_assessors_judge_the_demo_pool() -> Campaign:
    """alice and bob judge the first topics of the demo's depth-10 pool, disagreeing now and then."""
    call_command("workbench_demo", stdout=io.StringIO())
    campaign = Campaign.objects.get(slug="demo")
    pool = Pool.objects.get(campaign=campaign, name="depth-10")
    users = [get_user_model().objects.create_user(n, password="pw-agree-1") for n in ("alice", "bob")]
    for user in users:
        membership_add(campaign=campaign, user=user, roles=["assessor"])
    for topic in ("401", "402", "403"):
        by_name = assign(campaign, pool, users, topic=topic, k=2)
        docnos = list(by_name["alice"].items.order_by("docno").values_list("docno", flat=True))
        for i, docno in enumerate(docnos):
            grades = {"alice": i % 3, "bob": (i % 3) if i % 4 else (2 - i % 3)}
            for user in users:
                a = Assignment.objects.get(pool=pool, assessor=user, topic__number=topic)
                judgment_record(assessor=user, assignment=a, docno=docno, grade=grades[user.username])
    return campaign


def test_an_organizer_reads_coefficients_conventions_and_ranking_correlations(
    page: Page, log_in: LogIn
) -> None:
    _two_assessors_judge_the_demo_pool()
    log_in(page, "organizer", "organizer-demo")
    page.goto("/campaigns/demo/")
    page.get_by_role("link", name="Compute agreement").click()
    page.locator("input[name='runs']").check()
    page.get_by_role("button", name="Compute").click()
    expect(page.locator("#job-result")).to_be_visible(timeout=30_000)
    # the campaign's scale is known, so the legend says weights follow its positions
    expect(page.locator("#agreement-conventions")).to_contain_text(
        "weigh grades by their position on the scale 0,1,2"
    )
    expect(page.locator("#inference-alice-bob")).to_be_visible()
    expect(page.locator("#prevalence-alice-bob")).to_be_visible()
    header = page.locator("#tau-table thead")
    for column in ("τ_AP,b", "Spearman ρ", "RBO", "Swap rate min / mean"):
        expect(header).to_contain_text(column)
    expect(page.locator("#tau-table tbody tr").first).to_contain_text("[")  # an RBO range
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "agreement.png"), full_page=True)
