"""The judging page on a slow network and on a phone (issue 10).

Grade keys typed while the next document is still on its way wait for it and judge it when it
arrives: every key ends up as a stored judgment of the document it was typed for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer

from campaigns.services import campaign_create, membership_add
from judging.models import Assignment, Judgment
from tests.browser.conftest import TIMEOUT_MS, LogIn
from tests.judging.assess.fixtures import assign, demo_pool

PASSWORD = "assessor-password-1"
SLOW_MS = 700  # each request's added latency: the next document is still loading when the keys come
SHOTS = Path("/tmp/workbench-screenshots")


def _assignment(username: str) -> tuple[Any, Assignment]:
    user = get_user_model().objects.create_user(username, password=PASSWORD)
    campaign = campaign_create(slug="slow-judging", name="Slow judging")
    membership_add(campaign=campaign, user=user, roles=["assessor"])
    return user, assign(campaign, demo_pool(campaign), [user])[username]


def _slow_network(page: Page) -> None:
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": SLOW_MS, "downloadThroughput": -1, "uploadThroughput": -1},
    )


def test_keys_pressed_while_documents_load_all_become_judgments(page: Page, log_in: LogIn) -> None:
    user, assignment = _assignment("quinn")
    docnos = list(assignment.items.order_by("position").values_list("docno", flat=True))
    grades = [2, 0, 1, 2, 1]
    assert len(docnos) > len(grades)
    log_in(page, "quinn", PASSWORD)
    page.goto(f"/judging/assignments/{assignment.pk}/")
    expect(page.locator("#doc-docno")).to_have_text(docnos[0])
    _slow_network(page)
    for grade in grades:  # as fast as a person who knows the scale by heart
        page.keyboard.press(str(grade))
    state = page.locator("#save-state")
    expect(state).not_to_have_text("All judgments saved")  # keys are waiting: not "saved"
    expect(page.locator("#doc-docno")).to_have_text(docnos[len(grades)], timeout=4 * TIMEOUT_MS)
    expect(state).to_have_attribute("data-state", "saved", timeout=4 * TIMEOUT_MS)
    expect(state).to_have_attribute("data-pending", "0")
    stored = {j.docno: j.grade for j in Judgment.objects.filter(assessor=user)}
    assert stored == dict(zip(docnos, grades, strict=False))


def test_keys_wait_for_a_document_delayed_by_the_server(page: Page, log_in: LogIn) -> None:
    """The same with a route handler holding one document back until the keys are in."""
    user, assignment = _assignment("rosa")
    docnos = list(assignment.items.order_by("position").values_list("docno", flat=True))
    held: list[Any] = []
    page.route("**/items/2/", lambda route: held.append(route))
    log_in(page, "rosa", PASSWORD)
    page.goto(f"/judging/assignments/{assignment.pk}/")
    expect(page.locator("#doc-docno")).to_have_text(docnos[0])
    for key in ("1", "2", "x"):
        page.keyboard.press(key)
    expect(page.locator("#doc-docno")).to_have_text(docnos[1])  # shown, its text still loading
    expect(page.locator("#save-state")).to_contain_text("2 grades waiting for the document")
    page.wait_for_timeout(300)
    assert set(Judgment.objects.filter(assessor=user).values_list("docno", flat=True)) <= {docnos[0]}
    for route in held:
        route.continue_()
    expect(page.locator("#doc-docno")).to_have_text(docnos[3])
    expect(page.locator("#save-state")).to_have_attribute("data-state", "saved")
    rows = {j.docno: (j.grade, j.cant_judge) for j in Judgment.objects.filter(assessor=user)}
    assert rows == {docnos[0]: (1, False), docnos[1]: (2, False), docnos[2]: (None, True)}


def test_on_a_phone_the_document_shows_without_scrolling_past_the_topic(
    browser: Browser, live_server: LiveServer, log_in: LogIn
) -> None:
    _, assignment = _assignment("sam")
    context = browser.new_context(base_url=live_server.url, viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        log_in(page, "sam", PASSWORD)
        page.goto(f"/judging/assignments/{assignment.pk}/")
        text = page.locator("#doc-text")
        expect(text).to_be_visible()
        box = text.bounding_box()
        assert box is not None and box["y"] < 844 - 100, box  # at least a few lines of it on screen
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / "assess-390.png"))
        wide = page.evaluate(
            "Array.from(document.querySelectorAll('body *'))"
            ".filter((e) => e.getBoundingClientRect().right > 391)"
            ".map((e) => e.tagName + '#' + e.id + '.' + e.className).slice(0, 8)"
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, (
            wide
        )  # nothing wider than the phone
    finally:
        context.close()
