"""The organizer's side of the disagreement queue and of a pool sampled by a machine's grades, in a
real browser, clicking only what the pages offer: from the campaign page to the queue filtered to
the disagreements a machine causes, the rule that decides which go to people; the machine's page
previews the count per stratum at the depth it graded, the pool's page shows them and links its
diagnostics. Screenshots at 1366 and 390 px go to WORKBENCH_SCREENSHOTS (default
/tmp/workbench-screenshots)."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from playwright.sync_api import Page, expect

from campaigns.models import Campaign
from campaigns.services import membership_add
from judging.models import AdjudicationSettings, Assignment, MachineJudge
from judging.services import judgment_record
from pooling.models import Pool
from tests.browser.conftest import LogIn
from tests.judging.assess.fixtures import assign
from tests.llm.fake_llm import FakeLLM, Reply

SHOTS = Path(os.environ.get("WORKBENCH_SCREENSHOTS", "/tmp/workbench-screenshots"))
WIDTHS = {"wide": 1366, "phone": 390}


def shots(page: Page, name: str) -> None:
    """The page at both widths (full length), then back to the wide one."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(SHOTS / f"orgqueue-{name}-{label}.png"), full_page=True)
    page.set_viewport_size({"width": WIDTHS["wide"], "height": 900})


def _demo_with_disagreements() -> tuple[Campaign, dict[str, str]]:
    """The demo campaign; alice and bob (people) and llm (a machine) judge topic 401's first four
    documents: one disagreement between people, two that only the machine causes (against two
    people who agree, and against alice alone), one agreement."""
    call_command("workbench_demo", stdout=io.StringIO())
    campaign = Campaign.objects.get(slug="demo")
    pool = Pool.objects.get(campaign=campaign, name="depth-10")
    users = {}
    for name in ("alice", "bob", "llm"):
        users[name] = get_user_model().objects.create_user(name, password="pw-queue-1")
        membership_add(campaign=campaign, user=users[name], roles=["assessor"])
    MachineJudge.objects.create(campaign=campaign, user=users["llm"], model="fake")
    assign(campaign, pool, list(users.values()), topic="401", k=3)
    mine = {n: Assignment.objects.get(pool=pool, assessor=u, topic__number="401") for n, u in users.items()}
    docnos = list(mine["alice"].items.order_by("docno").values_list("docno", flat=True))[:4]
    cases = {"people": docnos[0], "majority": docnos[1], "alice alone": docnos[2], "agreed": docnos[3]}
    grades = {
        "people": {"alice": 0, "bob": 2, "llm": 2},
        "majority": {"alice": 1, "bob": 1, "llm": 2},
        "alice alone": {"alice": 0, "llm": 2},
        "agreed": {"alice": 1, "bob": 1, "llm": 1},
    }
    for case, votes in grades.items():
        for name, grade in votes.items():
            judgment_record(assessor=users[name], assignment=mine[name], docno=cases[case], grade=grade)
    return campaign, cases


def test_the_organizer_reaches_the_queue_filtered_to_machine_disagreements_from_the_campaign_page(
    page: Page, log_in: LogIn
) -> None:
    campaign, cases = _demo_with_disagreements()
    log_in(page, "organizer", "organizer-demo")
    page.locator("header").get_by_role("link", name="Campaigns").click()
    page.get_by_role("link", name=campaign.name, exact=True).click()
    step = page.locator("#step-adjudication")
    expect(step.locator(".step-summary")).to_have_text("3 open, 0 decided")
    expect(step).to_contain_text("1 open between people (0 decided)")
    shots(page, "campaign")

    step.get_by_role("link", name="2 open machine vs people (0 decided)").click()  # the one click
    expect(page.locator("h1")).to_have_text("Disagreements to adjudicate")
    expect(page.locator("#kind-filter")).to_have_value("machine")
    expect(page.locator("#queue-open-human")).to_have_text("1")
    expect(page.locator("#queue-open-machine")).to_have_text("2")
    assert sorted(_listed(page)) == sorted([cases["majority"], cases["alice alone"]])
    expect(page.locator("#adj-count")).to_have_text("2")
    expect(page.locator("#adj-votes")).to_contain_text("machine")  # the one on the screen
    shots(page, "queue-machine")

    # people only, from the page's own filter
    page.select_option("#kind-filter", "human")
    page.locator("#queue-filter").get_by_role("button", name="Show").click()
    expect(page.locator("#adj-count")).to_have_text("1")
    expect(page.locator("#adj-item")).to_have_attribute("data-docno", cases["people"])
    assert _listed(page) == [cases["people"]]

    # the rule: only where the machine differs from two or more people who agree
    page.locator("#machine-rule-change").click()
    expect(page.locator("h1")).to_have_text("Which disagreements go to people")
    expect(page.locator("#rule-all .open")).to_have_text("2")
    expect(page.locator("#rule-human_majority .open")).to_have_text("1")
    shots(page, "settings")
    page.locator("#rule-human_majority input").check()
    page.locator("#machine-rule-save").click()
    expect(page.locator(".messages")).to_contain_text("only where a machine")
    assert AdjudicationSettings.objects.get(campaign=campaign).machine_rule == "human_majority"
    page.locator("nav.crumbs").get_by_role("link", name=campaign.name).click()
    expect(step.locator(".step-summary")).to_have_text("2 open, 0 decided")
    step.get_by_role("link", name="1 open machine vs people (0 decided)").click()
    expect(page.locator("#adj-count")).to_have_text("1")
    expect(page.locator("#adj-item")).to_have_attribute("data-docno", cases["majority"])
    expect(page.locator("#machine-rule")).to_contain_text("two or more people who agree")


def _listed(page: Page) -> list[str]:
    """The disagreements of the view on the adjudication page (its script's state)."""
    return page.evaluate(
        "JSON.parse(document.getElementById('adjudicate-state').textContent).items.map((i) => i.docno)"
    )


def _answer(request: dict[str, Any], n: int) -> Reply:
    passage = request["messages"][-1]["content"].split("Passage: ", 1)[-1]
    return Reply(f"M: 2\nT: 2\n##final score: {len(passage) % 4}")


def test_the_machine_page_previews_each_stratum_and_the_pool_page_shows_them_and_its_diagnostics(
    page: Page, log_in: LogIn, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    call_command("workbench_demo", stdout=io.StringIO())
    campaign = Campaign.objects.get(slug="demo")
    d10 = Pool.objects.get(campaign=campaign, name="depth-10")
    user = get_user_model().objects.create_user("llm-judge", password="pw-queue-1")
    membership_add(campaign=campaign, user=user, roles=["assessor"])
    monkeypatch.setenv("WORKBENCH_JUDGE_API_KEY", "sk-test")
    with FakeLLM(_answer) as server:
        settings.WORKBENCH_JUDGE_ENDPOINTS = {
            "fake": {"base_url": server.base_url, "key_env": "WORKBENCH_JUDGE_API_KEY", "allow_private": True}
        }
        judge = MachineJudge.objects.create(
            campaign=campaign, user=user, endpoint="fake", model="fake-1", requests_per_minute=6000
        )
        for topic in sorted(d10.sizes):
            assign(campaign, d10, [user], topic=topic, k=1)
        log_in(page, "organizer", "organizer-demo")
        page.locator("header").get_by_role("link", name="Campaigns").click()
        page.get_by_role("link", name=campaign.name, exact=True).click()
        page.get_by_role("link", name="Manage people").click()
        page.locator("#machine-llm-judge").get_by_role("link", name="Open").click()
        page.get_by_role("button", name="Judge its assignments now").click()
        expect(page.locator("#machine-run-state")).to_contain_text("done", timeout=30_000)
        page.go_back()
        page.reload()

    # the depth starts at the pool it graded (depth-10), and the preview counts each stratum
    expect(page.locator("#p-depth")).to_have_value("10")
    expect(page.locator("#graded-depth")).to_contain_text("depth-10 (to depth 10)")
    page.locator("#machine-pool-preview").click()
    expect(page.locator("#preview-documents")).to_be_visible()
    ungraded = int(page.locator('#machine-preview tr[data-stratum="ungraded"] .candidates').inner_text())
    graded = sum(
        int(page.locator(f'#machine-preview tr[data-stratum="g{g}"] .candidates').inner_text())
        for g in (0, 1, 2)
    )
    assert (graded, ungraded) == (d10.document_count, 0)  # it graded every candidate at depth 10
    shots(page, "machine-preview")
    page.fill("#p-name", "llm sample")
    page.get_by_role("button", name="Build the sample pool").click()
    expect(page.locator("#built-strata")).to_be_visible(timeout=30_000)
    shots(page, "pool-built")
    page.locator("#pool-link").click()
    expect(page.locator('#pool-strata tr[data-stratum="ungraded"] .candidates')).to_have_text(str(ungraded))
    page.get_by_role("button", name="Run diagnostics").click()
    expect(page.locator("#job-result")).to_be_visible(timeout=30_000)
    page.go_back()
    page.reload()
    expect(page.locator("#diagnostics-reports")).to_contain_text("Latest report of")
    shots(page, "pool")
    page.locator("#diagnostics-reports a").first.click()
    expect(page.locator("#job-result h2")).to_contain_text("Diagnostics of pool llm sample")
    assert judge.pk
