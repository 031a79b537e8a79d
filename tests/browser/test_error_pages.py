"""The 403 and 404 pages in a real browser (strict CSP): Back returns to the page before, the
log-out form in the text logs out; at a desktop's width and a phone's."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from campaigns.models import Campaign
from tests.browser.conftest import LogIn
from tests.conftest import PASSWORD

SHOTS = Path(os.environ.get("WORKBENCH_SCREENSHOTS", "/tmp/workbench-screenshots"))


@pytest.mark.parametrize("width", [1366, 390])
def test_back_and_log_out_from_the_refusals(
    page: Page, log_in: LogIn, campaign: Campaign, assessor: Any, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    log_in(page, assessor.username, PASSWORD)
    page.goto(reverse("judging:assess_home"))
    answer = page.goto("/campaigns/no-such-campaign/")
    assert answer is not None and answer.status == 404
    expect(page.locator("#who")).to_contain_text(f"You are logged in as {assessor.username}")
    # nothing wider than the phone's screen
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"error-404-{width}.png"), full_page=True)
    page.locator(".error-page").get_by_role("link", name="Back").click()
    expect(page).to_have_url(re.compile(re.escape(reverse("judging:assess_home")) + "$"))

    answer = page.goto(reverse("campaigns:import", args=[campaign.slug]))
    assert answer is not None and answer.status == 403
    expect(page.locator(".error-page")).to_contain_text("organizer, assessor and adjudicator")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(SHOTS / f"error-403-{width}.png"), full_page=True)
    with page.expect_navigation():
        page.locator("#who").get_by_role("button", name="Log out").click()
    expect(page.locator("#id_username")).to_be_visible()  # the login page
    page.goto(reverse("judging:assess_home"))
    expect(page.locator("#id_username")).to_be_visible()  # logged out: sent to log in
