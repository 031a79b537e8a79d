"""One-time login links in a real browser: the organizer walks from the home page to People and adds
three assessors at once, each with a login link (shown once, with a CSV download); an assessor, in a
browser of their own, opens their link, presses "Start judging as ...", lands on their assignments and
chooses a password on My account; the same link opened again is refused with the time it was used.
Screenshots go to WORKBENCH_SCREENSHOTS (default /tmp/workbench-screenshots)."""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer

from campaigns.accounts.models import LoginLink
from campaigns.models import Campaign
from judging.services import assignments_create
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.browser.conftest import TIMEOUT_MS, LogIn, flush_csp_reports, watch_csp_violations
from tests.conftest import PASSWORD

SHOTS = Path(os.environ.get("WORKBENCH_SCREENSHOTS", "/tmp/workbench-screenshots"))


def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"links-{name}.png"), full_page=True)


def test_an_organizer_adds_assessors_with_links_and_one_starts_judging_by_hers(
    page: Page, log_in: LogIn, browser: Browser, live_server: LiveServer, loaded: Campaign, organizer: Any
) -> None:
    pool = pool_commit(pool=pool_build(campaign=loaded, name="d5", spec=PoolSpec("depth", depth=5)))
    log_in(page, organizer.username, PASSWORD)  # lands on the home page

    # from the home page to People, through the links the pages offer
    page.locator("header").get_by_role("link", name="Campaigns").click()
    page.get_by_role("link", name="TREC demo").first.click()
    page.locator("#step-people .step-action a").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("People of TREC demo")
    many = page.locator("#add-many")
    many.get_by_label("Usernames (and e-mail addresses)").fill(
        "amy amy@example.org\nben\ncleo, cleo@example.org"
    )
    _shot(page, "1-people-box")
    with page.expect_navigation():
        many.get_by_role("button", name="Create the accounts and their login links").click()
    expect(page.locator(".messages")).to_contain_text("3 accounts created, each with a one-time login link")
    rows = page.locator("#links-table tbody tr")
    expect(rows).to_have_count(3)
    links = {
        name: page.locator(f"#link-{name} code.login-link").inner_text() for name in ("amy", "ben", "cleo")
    }
    assert all(re.fullmatch(rf"{live_server.url}/accounts/link/wbl_[\w-]+/", link) for link in links.values())
    with page.expect_download() as download:
        page.get_by_role("button", name="Download CSV").click()
    assert download.value.suggested_filename == "trec-demo-login-links.csv"
    saved = Path(download.value.path()).read_text(encoding="utf-8")
    table = list(csv.reader(io.StringIO(saved)))
    assert table[0] == ["username", "email", "login_link", "expires"]
    assert {r[0]: (r[1], r[2]) for r in table[1:]} == {
        "amy": ("amy@example.org", links["amy"]),
        "ben": ("", links["ben"]),
        "cleo": ("cleo@example.org", links["cleo"]),
    }
    expect(page.locator("#member-amy .link-status")).to_contain_text("not used yet")
    _shot(page, "2-links-shown-once")
    assessors = list(User.objects.filter(username__in=links).order_by("username"))
    assignments_create(campaign=loaded, pool=pool, assessors=assessors)

    # amy, in a browser of her own: opening the link logs nobody in, the button does
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(TIMEOUT_MS)
    violations = watch_csp_violations(context)
    amy = context.new_page()
    amy.goto(links["amy"])
    expect(amy.get_by_role("heading", level=1)).to_have_text("Start judging as amy")
    assert LoginLink.objects.get(user__username="amy").used_at is None
    _shot(amy, "3-start-judging")
    with amy.expect_navigation():
        amy.get_by_role("button", name="Start judging as amy").click()
    expect(amy.get_by_role("heading", name="My assignments")).to_be_visible()
    expect(amy.locator(".messages")).to_contain_text("Welcome, amy: you are logged in until")
    expect(amy.locator("table.assignments tbody tr").first).to_be_visible()
    _shot(amy, "4-landed-on-assignments")

    # offered, not forced: she chooses a password from the message's link
    amy.locator(".messages").get_by_role("link", name="Choose a password").click()
    expect(amy.get_by_role("heading", level=1)).to_have_text("Choose a password")
    amy.get_by_label("New password", exact=True).fill("amy-own-pass-1")
    amy.get_by_label("New password again").fill("amy-own-pass-1")
    _shot(amy, "5-choose-a-password")
    with amy.expect_navigation():
        amy.get_by_role("button", name="Set my password").click()
    expect(amy.locator(".messages")).to_contain_text("Your password is set")
    assert User.objects.get(username="amy").check_password("amy-own-pass-1")

    # the same link a second time, in yet another browser: refused, saying when it was used
    used_at = timezone.localtime(LoginLink.objects.get(user__username="amy").used_at)
    second = browser.new_context(base_url=live_server.url)
    second_violations = watch_csp_violations(second)
    again = second.new_page()
    again.goto(links["amy"])
    expect(again.get_by_role("heading", level=1)).to_have_text("This login link was used already")
    expect(again.locator("#link-refused")).to_contain_text(f"This link was used at {used_at:%H:%M} (UTC)")
    expect(again.locator("#link-refused")).to_contain_text("Log in with your password, or ask your organizer")
    _shot(again, "6-link-used")

    # the organizer's page now says it was used
    page.reload()
    expect(page.locator("#member-amy .link-status")).to_contain_text("used")
    expect(page.locator("#links")).to_have_count(0)  # shown once
    _shot(page, "7-people-after")
    for p in (amy, again):
        flush_csp_reports(p)
    context.close()
    second.close()
    assert not violations and not second_violations, violations + second_violations
