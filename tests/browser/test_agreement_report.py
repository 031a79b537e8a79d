"""The agreement report in a real browser: an organizer goes from the campaign page to "Compute
agreement", asks for the system rankings too, and finds the answer first: the summary table (each
pair and the group, κ, weighted κ, AC1 and α with their CIs, the κ paradox flag) above collapsed
details, which open on a click to the coefficients with their SEs, the conventions legend and the
ranking correlations (tau_AP,b, Spearman, RBO, swap rates). At a phone's width the summary table
scrolls inside its container, never the page."""

from __future__ import annotations

import io
import os
import re
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


def _three_assessors_judge_the_demo_pool() -> Campaign:
    """alice and bob judge the first topics of the demo's depth-10 pool, disagreeing now and then;
    carol judges topic 401 too, so the report has three pairs and a group."""
    call_command("workbench_demo", stdout=io.StringIO())
    campaign = Campaign.objects.get(slug="demo")
    pool = Pool.objects.get(campaign=campaign, name="depth-10")
    users = {
        n: get_user_model().objects.create_user(n, password="pw-agree-1") for n in ("alice", "bob", "carol")
    }
    for user in users.values():
        membership_add(campaign=campaign, user=user, roles=["assessor"])
    for topic in ("401", "402", "403"):
        judges = list(users.values()) if topic == "401" else [users["alice"], users["bob"]]
        by_name = assign(campaign, pool, judges, topic=topic, k=len(judges))
        docnos = list(by_name["alice"].items.order_by("docno").values_list("docno", flat=True))
        for i, docno in enumerate(docnos):
            grades = {
                "alice": i % 3,
                "bob": (i % 3) if i % 4 else (2 - i % 3),
                "carol": (i % 3) if i % 5 else 0,
            }
            for user in judges:
                a = Assignment.objects.get(pool=pool, assessor=user, topic__number=topic)
                judgment_record(assessor=user, assignment=a, docno=docno, grade=grades[user.username])
    return campaign


def test_an_organizer_reads_the_summary_first_then_opens_the_details(page: Page, log_in: LogIn) -> None:
    _three_assessors_judge_the_demo_pool()
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, "organizer", "organizer-demo")
    page.goto("/campaigns/demo/")
    page.get_by_role("link", name="Compute agreement").click()
    page.locator("input[name='runs']").check()
    page.get_by_role("button", name="Compute").click()
    expect(page.locator("#job-result")).to_be_visible(timeout=30_000)

    # the answer first: the report's first table is the summary, above every details element
    summary = page.locator("#agreement-summary")
    expect(summary).to_be_visible()
    assert page.locator("#job-result table").first.get_attribute("id") == "agreement-summary"
    rows = summary.locator("tbody tr")
    expect(rows).to_have_count(4)  # three pairs, then the group
    expect(rows.nth(0).locator("th")).to_have_text("alice – bob")
    expect(rows.nth(3).locator("th")).to_have_text("All 3 assessors")
    header = summary.locator("thead")
    for column in (
        "Items",
        "κ",
        "Weighted κ (linear)",
        "Gwet AC1",
        "Krippendorff α (ordinal)",
        "κ paradox",
    ):
        expect(header).to_contain_text(column)
    # every coefficient with its interval (the page's default bootstrap gives α one too)
    for stat in ("cohen", "linear", "ac1", "alpha_ordinal"):
        expect(rows.nth(0).locator(f"td[data-stat='{stat}'] .ci")).to_have_text(
            re.compile(r"^\[-?\d\.\d{4}, -?\d\.\d{4}\]$")
        )
    first_details = page.locator("#job-result details").first
    assert summary.bounding_box()["y"] < first_details.bounding_box()["y"]  # type: ignore[index]

    # everything else is collapsed
    details = page.locator("#job-result details")
    assert details.count() >= 5  # conventions, three pairs, the group, the rankings
    assert all(not d.evaluate("el => el.open") for d in details.all())
    expect(page.locator("#inference-alice-bob")).to_be_hidden()
    expect(page.locator("#tau-table")).to_be_hidden()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "agreement-1366.png"), full_page=True)

    # and opens on a click
    page.locator("#agreement-conventions-details > summary").click()
    expect(page.locator("#agreement-conventions")).to_contain_text(
        "weigh grades by their position on the scale 0,1,2"
    )
    page.locator("#details-alice-bob > summary").click()
    expect(page.locator("#inference-alice-bob")).to_be_visible()
    expect(page.locator("#prevalence-alice-bob")).to_be_visible()
    page.locator("#systems-details > summary").click()
    tau = page.locator("#tau-table thead")
    for column in ("τ_AP,b", "Spearman ρ", "RBO", "Swap rate min / mean"):
        expect(tau).to_contain_text(column)
    expect(page.locator("#tau-table tbody tr").first).to_contain_text("[")  # an RBO range
    page.screenshot(path=str(SHOTS / "agreement-1366-open.png"), full_page=True)

    # a phone: the table scrolls in its container, the report does not
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    expect(summary).to_be_visible()
    wrap = page.locator(".summary-wrap")
    assert wrap.evaluate("el => el.scrollWidth > el.clientWidth")
    # (the site's header is the page's business: the report itself must fit)
    report = page.locator("#job-result")
    assert report.evaluate(
        "el => el.scrollWidth <= el.clientWidth && el.getBoundingClientRect().right <= 390"
    )
    page.screenshot(path=str(SHOTS / "agreement-390.png"), full_page=True)
    # scrolled to its end, the assessors' column stays in view beside the last columns
    wrap.scroll_into_view_if_needed()
    wrap.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
    first_cell = rows.nth(0).locator("th")
    assert first_cell.evaluate(
        "el => el.getBoundingClientRect().left >= 0 && el.getBoundingClientRect().right <= 390"
    )
    expect(rows.nth(0).locator("td").last).to_be_in_viewport()
    wrap.screenshot(path=str(SHOTS / "agreement-390-scrolled.png"))
