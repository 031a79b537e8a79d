"""My account in a real browser: create an API token, see it once (with a copy button), revoke it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import Page, expect

from campaigns.accounts.models import ApiToken
from campaigns.models import Campaign
from tests.browser.conftest import LogIn
from tests.conftest import PASSWORD

SHOTS = Path(os.environ.get("WORKBENCH_SCREENSHOTS", "/tmp/workbench-screenshots"))


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"account-{name}.png"), full_page=True)


def test_create_see_once_copy_and_revoke_a_token(page: Page, log_in: LogIn) -> None:
    user = get_user_model().objects.create_user("carla", password="pw-carla-1")
    log_in(page, "carla", "pw-carla-1")
    page.get_by_role("link", name="My account").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("My account")
    expect(page.get_by_text("No API tokens yet.")).to_be_visible()

    page.fill("#id_token_name", "nightly upload")
    with page.expect_navigation():
        page.get_by_role("button", name="Create token").click()
    shown = page.locator("#new-token-value")
    expect(shown).to_be_visible()
    token = shown.input_value()
    assert token.startswith("wbt_") and len(token) > 40
    row = ApiToken.objects.get(user=user)
    assert token.startswith(row.prefix) and token not in (row.digest, row.prefix)
    expect(page.locator("table.tokens tbody tr")).to_have_count(1)
    _shot(page, "1-created")

    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.get_by_role("button", name="Copy").click()
    expect(page.locator("#copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == token

    page.reload()  # shown once: gone on the next view, the row stays with its prefix only
    expect(page.locator("#new-token-value")).to_have_count(0)
    assert token not in page.content()
    expect(page.locator("table.tokens")).to_contain_text("nightly upload")
    expect(page.locator("table.tokens")).to_contain_text(f"{row.prefix}…")
    _shot(page, "2-listed")

    with page.expect_navigation():
        page.get_by_role("button", name="Revoke").click()
    expect(page.locator(".messages")).to_contain_text("revoked")
    expect(page.get_by_text("No API tokens yet.")).to_be_visible()
    assert not ApiToken.objects.exists()
    _shot(page, "3-revoked")


def test_error_pages_are_styled_in_the_browser(page: Page, log_in: LogIn) -> None:
    get_user_model().objects.create_user("dora", password="pw-dora-1")
    log_in(page, "dora", "pw-dora-1")
    answer = page.goto("/campaigns/no-such-campaign/")
    assert answer is not None and answer.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
    expect(page.get_by_role("link", name="My account")).to_be_visible()
    _shot(page, "4-404")


def test_a_403_says_why(page: Page, log_in: LogIn, campaign: Campaign, assessor: Any) -> None:
    log_in(page, assessor.username, PASSWORD)
    answer = page.goto(reverse("campaigns:import", args=[campaign.slug]))
    assert answer is not None and answer.status == 403
    expect(page.get_by_role("heading", level=1)).to_have_text("You are not allowed to do this")
    expect(page.locator(".why")).to_have_text("This needs the organizer role in campaign 'trec-demo'.")
    _shot(page, "5-403")


def test_a_locked_login_says_so(page: Page, settings: Any) -> None:
    settings.AXES_ENABLED = True
    get_user_model().objects.create_user("erin", password="pw-erin-1")
    page.goto(reverse("login"))
    for i in range(settings.AXES_FAILURE_LIMIT):
        page.fill("#id_username", "erin")
        page.fill("#id_password", f"wrong-{i}")
        with page.expect_navigation():
            page.click("form button[type=submit]")
        if i < settings.AXES_FAILURE_LIMIT - 1:
            expect(page.locator(".errors")).to_be_visible()
    expect(page.get_by_role("heading", level=1)).to_have_text("Logging in is locked for now")
    _shot(page, "6-locked")


def test_the_header_fits_a_phone_on_every_plain_page(page: Page, log_in: LogIn, campaign: Campaign) -> None:
    """At 390 px the header's links wrap below the brand instead of widening the page (they made
    every plain page 525 px wide): the campaign list and My account fit, with every link visible."""
    get_user_model().objects.create_user("a-long-username-for-a-phone", password="pw-phone-1")
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, "a-long-username-for-a-phone", "pw-phone-1")
    for link in ("Campaigns", "My account"):
        page.get_by_role("link", name=link).first.click()
        for name in ("My assignments", "Campaigns", "My account"):
            expect(page.locator("header").get_by_role("link", name=name)).to_be_in_viewport()
        expect(page.locator("header").get_by_role("button", name="Log out")).to_be_in_viewport()
        _shot(page, f"390-{link.replace(' ', '-').lower()}")
        wide = page.evaluate(
            "Array.from(document.querySelectorAll('body *'))"
            ".filter((e) => e.getBoundingClientRect().right > 391)"
            ".map((e) => e.tagName + '#' + e.id + '.' + e.className).slice(0, 8)"
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, (link, wide)
