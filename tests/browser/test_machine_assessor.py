"""A machine assessor, walked in a real browser from the page an organizer lands on: add it on the
People page (choosing the endpoint the operator declared: a real local chat-completions server,
tests/llm/fake_llm.py), give it a
topic on the assignments page, start it, watch the job end with its judgments, and read its
calibration against a human in the agreement report. The API key never shows."""

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
from judging.models import Assignment, Judgment
from judging.services import judgment_record
from pooling.models import Pool
from tests.browser.conftest import LogIn
from tests.judging.assess.fixtures import assign
from tests.llm.fake_llm import FakeLLM, Reply

SHOTS = Path(os.environ.get("WORKBENCH_SCREENSHOTS", "/tmp/workbench-screenshots"))
SECRET = "sk-browser-DO-NOT-LEAK-90ab"


def _answer(request: dict[str, Any], n: int) -> Reply:
    passage = request["messages"][-1]["content"].split("Passage: ", 1)[-1]
    return Reply(f"M: 2\nT: 2\n##final score: {len(passage) % 4}")


def _alice_judges_topic_401() -> Campaign:
    call_command("workbench_demo", stdout=io.StringIO())
    campaign = Campaign.objects.get(slug="demo")
    pool = Pool.objects.get(campaign=campaign, name="depth-10")
    alice = get_user_model().objects.create_user("alice", password="pw-machine-1")
    membership_add(campaign=campaign, user=alice, roles=["assessor"])
    assign(campaign, pool, [alice], topic="401", k=1)
    mine = Assignment.objects.get(pool=pool, assessor=alice, topic__number="401")
    for i, docno in enumerate(mine.items.order_by("docno").values_list("docno", flat=True)):
        judgment_record(assessor=alice, assignment=mine, docno=docno, grade=i % 3)
    return campaign


def test_an_organizer_adds_runs_and_calibrates_a_machine_assessor(
    page: Page, log_in: LogIn, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    monkeypatch.setenv("WORKBENCH_JUDGE_API_KEY", SECRET)
    campaign = _alice_judges_topic_401()
    SHOTS.mkdir(parents=True, exist_ok=True)
    with FakeLLM(_answer) as server:
        settings.WORKBENCH_JUDGE_ENDPOINTS = {
            "local-fake": {
                "base_url": server.base_url,
                "key_env": "WORKBENCH_JUDGE_API_KEY",
                "allow_private": True,
            }
        }
        log_in(page, "organizer", "organizer-demo")
        page.get_by_role("link", name="Campaigns", exact=True).first.click()
        page.get_by_role("link", name=campaign.name, exact=True).click()
        page.screenshot(path=str(SHOTS / "machine-0-campaign.png"), full_page=True)
        page.get_by_role("link", name="Manage people").click()
        page.fill("#m-username", "llm-judge")
        assert page.locator("#m-base-url").count() == 0 and page.locator("#m-key-env").count() == 0
        page.select_option("#m-endpoint", "local-fake")
        page.fill("#m-model", "fake-1")
        page.fill("#m-rpm", "6000")
        page.get_by_role("button", name="Add the machine assessor").click()
        expect(page.locator("h1")).to_contain_text("Machine assessor llm-judge")
        expect(page.locator("#machine-status")).to_contain_text("0 judgments so far")
        page.screenshot(path=str(SHOTS / "machine-1-added.png"), full_page=True)
        assert SECRET not in page.content() and server.base_url not in page.content()

        # no assignments yet: the page says where to give it some
        page.get_by_role("button", name="Judge its assignments now").click()
        expect(page.locator(".messages")).to_contain_text("has no assignments")
        page.get_by_role("link", name="assignments", exact=True).click()
        page.select_option("#pool", label="depth-10 (depth)")
        page.locator('#assessors input[value="llm-judge"]').check()
        page.locator('#topics input[value="401"]').check()
        page.get_by_role("button", name="Create assignments").click()
        expect(page.locator("body")).to_contain_text("1 assignment(s) created")

        page.get_by_role("link", name=campaign.name, exact=True).first.click()
        page.get_by_role("link", name="Manage people").click()
        page.locator("#machine-llm-judge").get_by_role("link", name="Open").click()
        page.get_by_role("button", name="Judge its assignments now").click()
        expect(page.locator("#job-result")).to_be_visible(timeout=30_000)
        expect(page.locator("#job-result")).to_contain_text("llm-judge (fake-1, prompt umbrela-1)")
        expect(page.locator("#machine-run-state")).to_contain_text("done")
        page.screenshot(path=str(SHOTS / "machine-2-judged.png"), full_page=True)
        assert SECRET not in page.content()
        judged = Judgment.objects.filter(assessor__username="llm-judge").count()
        assert judged == len(server.seen) > 0

        page.get_by_role("link", name=campaign.name, exact=True).first.click()
        page.get_by_role("link", name="Compute agreement").click()
        page.get_by_role("button", name="Compute").click()
        expect(page.locator("#agreement-summary")).to_be_visible(timeout=30_000)
        page.locator("#calibration-details > summary").click()  # below the summary, collapsed
        expect(page.locator("#calibration-llm-judge")).to_be_visible()
        expect(page.locator("#calibration-llm-judge")).to_contain_text(
            "llm-judge against the humans' majority (alice)"
        )
        expect(page.locator("#calibration-llm-judge .calibration-matrix")).to_be_visible()
        page.locator("#calibration").screenshot(path=str(SHOTS / "machine-3-calibration.png"))
        assert SECRET not in page.content()

        # then where the humans' judging goes: a pool sampled by the machine's grades
        page.get_by_role("link", name=campaign.name, exact=True).first.click()
        page.get_by_role("link", name="Manage people").click()
        page.locator("#machine-llm-judge").get_by_role("link", name="Open").click()
        expect(page.locator("#machine-strata")).to_contain_text("not graded by it")
        page.fill("#p-name", "llm sample")
        page.fill("#p-depth", "10")
        page.fill("#rate-g0", "0.5")
        page.locator("#machine-pool").screenshot(path=str(SHOTS / "machine-4-sample-form.png"))
        page.get_by_role("button", name="Build the sample pool").click()
        expect(page.locator("#job-result")).to_contain_text("Draft pool llm sample", timeout=30_000)
        page.locator("#pool-link").click()
        expect(page.locator("h1")).to_contain_text("llm sample")
        expect(page.locator("body")).to_contain_text("machine")
        page.screenshot(path=str(SHOTS / "machine-5-sample-pool.png"), full_page=True)
        built = Pool.objects.get(campaign=campaign, name="llm sample")
        strata = set(built.documents.values_list("stratum", flat=True))
        assert "ungraded" in strata and strata & {"g0", "g1", "g2"}
