"""The assignments form in a real browser, by keyboard: the assessors and topics are checkable
lists with a filter and "Select all shown" (JavaScript from a static file, under the strict CSP),
and the form comes back with every value after creating assignments; at a desktop's width and a
phone's (nothing wider than the screen)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import Page, expect

from campaigns.models import Campaign
from campaigns.services import membership_add
from judging.models import Assignment
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.browser.conftest import LogIn
from tests.conftest import PASSWORD

SHOTS = Path(os.environ.get("WORKBENCH_SCREENSHOTS", "/tmp/workbench-screenshots"))


@pytest.mark.parametrize("width", [1366, 390])
def test_deal_by_keyboard_with_filter_and_select_all_and_the_form_keeps_its_values(
    page: Page, log_in: LogIn, loaded: Campaign, organizer: Any, width: int
) -> None:
    for name in ("alice", "bob", "carol", "dave"):
        user = get_user_model().objects.create_user(name, password=PASSWORD)
        membership_add(campaign=loaded, user=user, roles=["assessor"])
    pool = pool_commit(pool=pool_build(campaign=loaded, name="d5", spec=PoolSpec("depth", depth=5)))
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, organizer.username, PASSWORD)
    page.goto(reverse("judging:assignments", args=[loaded.slug]))
    assessors, topics = page.locator("#assessors"), page.locator("#topics")
    expect(assessors.locator("[data-count]")).to_have_text("none checked: choose at least one")

    # keyboard only: from the pool to the assessors' filter, narrow it, select what is shown
    page.focus("#pool")
    page.keyboard.press("Tab")
    expect(assessors.locator("[data-filter]")).to_be_focused()
    page.keyboard.type("bo")
    page.keyboard.press("Enter")  # filters; never sends the form
    expect(assessors.locator("label[data-item]:visible")).to_have_count(1)
    page.keyboard.press("Tab")
    expect(assessors.get_by_role("button", name="Select all shown")).to_be_focused()
    page.keyboard.press("Space")
    expect(assessors.locator("[data-count]")).to_have_text("1 of 4 checked · 1 shown")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Escape")  # clears the filter: every assessor again
    expect(assessors.locator("label[data-item]:visible")).to_have_count(4)
    for _ in range(3):  # Select all shown, None, the first checkbox (alice)
        page.keyboard.press("Tab")
    expect(assessors.locator('input[value="alice"]')).to_be_focused()
    page.keyboard.press("Space")
    expect(assessors.locator("[data-count]")).to_have_text("2 of 4 checked")
    assert not Assignment.objects.exists()

    topics.locator("[data-filter]").fill("402")
    topics.get_by_role("button", name="Select all shown").click()
    expect(topics.locator("[data-count]")).to_have_text("1 of 5 checked · 1 shown")
    page.fill("#k", "2")
    page.select_option("#order", "docno")
    page.fill("#seed", "5")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"assignments-form-{width}.png"), full_page=True)
    page.get_by_role("button", name="Create assignments").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")

    expect(page.locator(".messages")).to_contain_text("2 assignment(s) created")
    made = Assignment.objects.filter(pool=pool)
    assert sorted((a.assessor.username, a.topic.number, a.order) for a in made) == [
        ("alice", "402", "docno"),
        ("bob", "402", "docno"),
    ]
    # every value as it was sent: k is not back to 1
    expect(assessors.locator("input:checked")).to_have_count(2)
    expect(topics.locator("input:checked")).to_have_count(1)
    expect(topics.locator('input[value="402"]')).to_be_checked()
    expect(page.locator("#k")).to_have_value("2")
    expect(page.locator("#order")).to_have_value("docno")
    expect(page.locator("#seed")).to_have_value("5")
    expect(assessors.locator("[data-count]")).to_have_text("2 of 4 checked")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(SHOTS / f"assignments-kept-{width}.png"), full_page=True)
