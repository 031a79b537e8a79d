"""At the end of a topic the keyboard carries on: Enter (or →) opens the next assignment (issue 10)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from campaigns.services import campaign_create, membership_add
from judging.models import Judgment
from judging.services import judgment_record
from tests.browser.conftest import LogIn
from tests.judging.assess.fixtures import assign, demo_pool

PASSWORD = "assessor-password-1"


def test_a_key_at_the_end_of_a_topic_opens_the_next_assignment(page: Page, log_in: LogIn) -> None:
    user = get_user_model().objects.create_user("tess", password=PASSWORD)
    campaign = campaign_create(slug="two-topics", name="Two topics")
    membership_add(campaign=campaign, user=user, roles=["assessor"])
    pool = demo_pool(campaign)
    first = assign(campaign, pool, [user], topic="401")["tess"]
    second = assign(campaign, pool, [user], topic="402")["tess"]
    docnos = list(first.items.order_by("position").values_list("docno", flat=True))
    for docno in docnos[:-1]:
        judgment_record(assessor=user, assignment=first, docno=docno, grade=0)
    log_in(page, "tess", PASSWORD)
    page.goto(f"/judging/assignments/{first.pk}/")
    expect(page.locator("#doc-docno")).to_have_text(docnos[-1])  # the one left
    page.keyboard.press("2")
    expect(page.locator("#end-title")).to_have_text("All documents judged")
    expect(page.locator("#next-assignment")).to_contain_text("topic 402")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator("#topic-number, .topic-number").first).to_have_text("402")
    assert (
        page.url.endswith(f"/judging/assignments/{second.pk}/") or f"/assignments/{second.pk}/?" in page.url
    )
    assert Judgment.objects.get(assessor=user, docno=docnos[-1]).grade == 2
