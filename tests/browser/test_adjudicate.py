"""The adjudicator's journey in a real browser (issue 10): from logging in to the queue in one
click, then deciding with the keyboard, the topic and every assessor's grade and comment in view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from campaigns.services import campaign_create, membership_add
from judging.models import Adjudication
from judging.services import judgment_record
from tests.browser.conftest import LogIn
from tests.judging.assess.fixtures import assign, demo_pool

PASSWORD = "adjudicator-password-1"
SHOTS = Path("/tmp/workbench-screenshots")


def _disagreements() -> tuple[Any, list[str]]:
    """alice and bob disagree on the first two documents of topic 401; ada adjudicates."""
    users = {n: get_user_model().objects.create_user(n, password=PASSWORD) for n in ("alice", "bob", "ada")}
    campaign = campaign_create(slug="browser-adjudication", name="Browser adjudication")
    for name in ("alice", "bob"):
        membership_add(campaign=campaign, user=users[name], roles=["assessor"])
    membership_add(campaign=campaign, user=users["ada"], roles=["adjudicator"])
    both = assign(campaign, demo_pool(campaign), [users["alice"], users["bob"]], k=2)
    docnos = list(both["alice"].items.order_by("position").values_list("docno", flat=True))[:2]
    for docno, (a, b) in zip(docnos, [(2, 0), (1, 0)], strict=True):
        judgment_record(
            assessor=users["alice"], assignment=both["alice"], docno=docno, grade=a, comment="alice-says"
        )
        judgment_record(assessor=users["bob"], assignment=both["bob"], docno=docno, grade=b)
    return campaign, docnos


def test_an_adjudicator_reaches_the_queue_in_one_click_and_decides_by_keyboard(
    page: Page, log_in: LogIn
) -> None:
    campaign, docnos = _disagreements()
    log_in(page, "ada", PASSWORD)
    link = page.locator("a.queue-link")
    expect(link).to_have_text("Adjudicate")
    expect(page.locator("#adjudication-browser-adjudication .open")).to_have_text("2")
    link.click()  # the one click
    expect(page.locator("h1")).to_have_text("Disagreements to adjudicate")
    card = page.locator("article.disagreement:visible")
    expect(card).to_have_count(1)  # one at a time
    expect(card).to_have_attribute("data-docno", docnos[0])  # distance 2 first
    expect(card.locator(".statement")).to_contain_text("pooling bias test collections")
    expect(card.locator(".votes")).to_contain_text("alice: 2")
    expect(card.locator(".votes")).to_contain_text("alice-says")
    expect(card.locator("button.grade.current")).to_have_count(0)  # nothing chosen for the adjudicator
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "adjudicate.png"), full_page=True)

    page.keyboard.press("c")
    page.keyboard.type("half of it")
    page.keyboard.press("Escape")
    with page.expect_navigation():
        page.keyboard.press("1")
    expect(page.locator("#queue-open")).to_have_text("1")
    expect(page.locator("article.disagreement:visible")).to_have_attribute("data-docno", docnos[1])
    with page.expect_navigation():
        page.keyboard.press("0")
    expect(page.locator("#queue-empty")).to_be_visible()
    decided = {a.docno: (a.grade, a.note) for a in Adjudication.objects.filter(campaign=campaign)}
    assert decided == {docnos[0]: (1, "half of it"), docnos[1]: (0, "")}
