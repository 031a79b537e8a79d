"""A person's own password in a real browser: changed from My account (then logging in with the new
one), and a forgotten one reset through the link e-mailed to them, walked from the login page. Also an
invitation answered from the home page, and the organizer's side of it on the People page."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core import mail
from playwright.sync_api import Page, expect

from campaigns.accounts.models import ApiToken
from campaigns.accounts.services import api_token_create
from campaigns.models import Campaign, Membership
from tests.browser.conftest import LogIn
from tests.conftest import PASSWORD

SHOTS = Path(os.environ.get("WORKBENCH_SCREENSHOTS", "/tmp/workbench-screenshots"))
LINK = re.compile(r"https?://\S+/accounts/password-reset/\S+/")


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"password-{name}.png"), full_page=True)


def _log_out(page: Page) -> None:
    with page.expect_navigation():
        page.get_by_role("button", name="Log out", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Log in")


def test_a_person_changes_their_own_password_from_my_account(page: Page, log_in: LogIn) -> None:
    get_user_model().objects.create_user("carla", password="pw-carla-1")
    log_in(page, "carla", "pw-carla-1")
    page.get_by_role("link", name="My account").click()
    expect(page.locator("#sessions table.sessions tbody tr")).to_have_count(1)
    expect(page.locator("#sessions")).to_contain_text("this browser")
    _shot(page, "1-my-account")

    page.get_by_role("link", name="Change your password").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Change your password")
    page.get_by_label("Your current password").fill("not-my-password")
    page.get_by_label("New password", exact=True).fill("carla-new-pass-2")
    page.get_by_label("New password again").fill("carla-new-pass-2")
    with page.expect_navigation():
        page.get_by_role("button", name="Change my password").click()
    expect(page.locator("ul.errors")).to_contain_text("incorrectly")
    _shot(page, "2-change-refused")

    page.get_by_label("Your current password").fill("pw-carla-1")
    page.get_by_label("New password", exact=True).fill("carla-new-pass-2")
    page.get_by_label("New password again").fill("carla-new-pass-2")
    with page.expect_navigation():
        page.get_by_role("button", name="Change my password").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("My account")  # still logged in
    expect(page.locator(".messages")).to_contain_text("Your password is changed.")
    _shot(page, "3-changed")

    _log_out(page)
    page.fill("#id_username", "carla")
    page.fill("#id_password", "pw-carla-1")
    with page.expect_navigation():
        page.get_by_role("button", name="Log in").click()
    expect(page.locator("p.errors")).to_be_visible()  # the old one no longer works
    log_in(page, "carla", "carla-new-pass-2")
    expect(page.get_by_role("link", name="My account")).to_be_visible()


def test_a_forgotten_password_is_reset_through_the_emailed_link(page: Page, log_in: LogIn) -> None:
    user = get_user_model().objects.create_user("dora", email="dora@example.org", password="pw-dora-1")
    _, token = api_token_create(user=user, name="nightly upload")

    page.goto("/")  # anonymous: sent to log in
    expect(page.get_by_role("heading", level=1)).to_have_text("Log in")
    page.get_by_role("link", name="Forgot your password?").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Forgot your password?")
    page.get_by_label("E-mail address").fill("dora@example.org")
    _shot(page, "4-forgot")
    with page.expect_navigation():
        page.get_by_role("button", name="Send me the link").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Check your e-mail")
    _shot(page, "5-sent")

    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["dora@example.org"]
    found = LINK.search(str(mail.outbox[0].body))
    assert found, mail.outbox[0].body
    page.goto(found.group(0))  # the one address typed: the e-mailed link
    expect(page.get_by_role("heading", level=1)).to_have_text("Choose a new password")
    page.get_by_label("New password", exact=True).fill("dora-new-pass-2")
    page.get_by_label("New password again").fill("dora-new-pass-2")
    _shot(page, "6-choose")
    with page.expect_navigation():
        page.get_by_role("button", name="Set my new password").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your new password is set")
    _shot(page, "7-set")
    assert not ApiToken.objects.filter(user=user).exists()  # revoked with the reset
    del token

    page.get_by_role("link", name="Log in with your new password").click()
    log_in(page, "dora", "dora-new-pass-2")
    expect(page.get_by_role("link", name="My account")).to_be_visible()

    page.goto(found.group(0))  # the link worked once
    expect(page.get_by_role("heading", level=1)).to_have_text("This link does not work")


def test_an_invitation_is_made_on_the_people_page_and_accepted_from_home(
    page: Page, log_in: LogIn, campaign: Campaign, organizer: Any
) -> None:
    invited = get_user_model().objects.create_user("erin", password="pw-erin-1")
    log_in(page, organizer.username, PASSWORD)
    page.goto(f"/judging/campaigns/{campaign.slug}/people/")
    page.get_by_label("invite someone who already has an account").check()
    page.locator("#username").fill("erin")
    with page.expect_navigation():
        page.get_by_role("button", name="Add", exact=True).click()
    expect(page.locator(".messages")).to_contain_text("is invited as assessor")
    expect(page.locator("#invitation-erin")).to_contain_text("assessor")
    _shot(page, "8-people-invited")
    assert not Membership.objects.filter(user=invited).exists()

    _log_out(page)
    log_in(page, "erin", "pw-erin-1")
    banner = page.locator("#invitations")
    expect(banner).to_contain_text("TREC demo")
    _shot(page, "9-home-invited")
    with page.expect_navigation():
        banner.get_by_role("button", name="Accept").click()
    expect(page.locator(".messages")).to_contain_text("You are now assessor in “TREC demo”.")
    assert Membership.objects.filter(user=invited, campaign=campaign, role="assessor").exists()
