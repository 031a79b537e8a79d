"""The home page in a real browser: login required, keyboard-only login, the demo campaign's leaderboard."""

from __future__ import annotations

import io
import re

from django.contrib.auth import get_user_model
from django.core.management import call_command
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.browser.conftest import LogIn

DEMO_RUNS = {"bm25", "bm25_rm3", "dense_retriever", "random_baseline"}
LOGIN_ERROR = "Your username and password didn't match. Please try again."


def test_anonymous_visitor_is_sent_to_the_login_page(page: Page) -> None:
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Log in")
    expect(page.locator(".leaderboard")).to_have_count(0)


def test_keyboard_only_login_lands_on_the_demo_leaderboard(page: Page, live_server: LiveServer) -> None:
    call_command("workbench_demo", stdout=io.StringIO())  # organizer / organizer-demo
    page.goto("/")
    # The username field has focus on arrival (autofocus), so the keyboard alone is enough.
    expect(page.locator("#id_username")).to_be_focused()
    page.keyboard.type("organizer")
    page.keyboard.press("Tab")
    expect(page.locator("#id_password")).to_be_focused()
    page.keyboard.type("organizer-demo")
    with page.expect_navigation():
        page.keyboard.press("Enter")

    expect(page).to_have_url(f"{live_server.url}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Leaderboards")
    expect(page.get_by_role("heading", level=2)).to_have_text("Demo collection")
    expect(page.locator("header")).to_contain_text("organizer")
    board = page.locator("#leaderboard-demo")
    expect(board).to_contain_text("bm25")
    header = [h.strip(" ▼▲") for h in board.locator("thead th").all_inner_texts()]
    assert header == ["Run", "bpref", "infAP", "AP", "nDCG@10", "P@10", "judged@10"]
    rows = board.locator("tbody tr")
    expect(rows).to_have_count(len(DEMO_RUNS))
    runs = rows.locator("td:first-child").all_inner_texts()
    assert set(runs) == DEMO_RUNS
    assert runs[-1] == "random_baseline"  # sorted by AP, best first
    for i in range(rows.count()):
        values = rows.nth(i).locator("td").all_inner_texts()[1:]
        assert len(values) == len(header) - 1
        assert all(re.fullmatch(r"\d\.\d{4}", v) for v in values), values
    aps = [float(rows.nth(i).locator("td").nth(3).inner_text()) for i in range(rows.count())]
    assert aps == sorted(aps, reverse=True)
    # the chart beside it: one bar per run, in the same order
    bars = page.locator("#chart-demo rect.chart-bar")
    expect(bars).to_have_count(len(DEMO_RUNS))
    assert [bars.nth(i).get_attribute("data-label") for i in range(len(runs))] == runs


def test_wrong_password_shows_the_form_error(page: Page) -> None:
    get_user_model().objects.create_user("org", password="pw-organizer-1")
    page.goto("/accounts/login/")
    page.fill("#id_username", "org")
    page.fill("#id_password", "not-the-password")
    with page.expect_navigation():
        page.click("form button[type=submit]")
    expect(page.locator(".errors")).to_have_text(LOGIN_ERROR)
    expect(page).to_have_url(re.compile(r"/accounts/login/$"))
    expect(page.locator("#id_username")).to_have_value("org")
    expect(page.locator("#id_password")).to_have_value("")
    expect(page.locator(".leaderboard")).to_have_count(0)


def test_log_in_fixture_signs_a_user_in_and_out(page: Page, log_in: LogIn) -> None:
    get_user_model().objects.create_user("org", password="pw-organizer-1", is_staff=True)
    log_in(page, "org", "pw-organizer-1")
    # organizing no campaign, they have no leaderboard to see
    expect(page.locator("main")).to_contain_text("You organize no campaign")
    expect(page.locator(".leaderboard")).to_have_count(0)
    expect(page.locator("header")).to_contain_text("org")
    with page.expect_navigation():
        page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Log in")
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/$"))
