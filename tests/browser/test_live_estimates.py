"""An organizer watches the live estimates in Chromium: the SVG chart, then numbers that follow new
judgments without a reload."""

from __future__ import annotations

from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from campaigns.services import campaign_create, membership_add, runs_import, topics_import
from judging.models import Assignment
from judging.services import assignments_create, judgment_record
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.browser.conftest import LogIn
from tests.conftest import demo_dir, demo_run_paths

PASSWORD = "pw-organizer-live-1"


def test_live_page_draws_one_mark_per_topic_and_follows_new_judgments(page: Page, log_in: LogIn) -> None:
    User.objects.create_user("org-live", password=PASSWORD)
    assessor = User.objects.create_user("ann", password=PASSWORD)
    campaign = campaign_create(slug="live-demo", name="Live demo")
    membership_add(campaign=campaign, user=User.objects.get(username="org-live"), roles=["organizer"])
    membership_add(campaign=campaign, user=assessor, roles=["assessor"])
    topics_import(campaign=campaign, path=demo_dir() / "topics.txt")
    runs_import(campaign=campaign, paths=demo_run_paths(), group="demo")
    pool = pool_commit(pool=pool_build(campaign=campaign, name="d5", spec=PoolSpec("depth", depth=5)))
    assignments_create(campaign=campaign, pool=pool, assessors=[assessor], seed=7)
    assignments = {a.topic.number: a for a in Assignment.objects.filter(pool=pool).select_related("topic")}
    for a in assignments.values():  # two documents judged per topic, in the seeded random order
        for docno in a.items.order_by("position").values_list("docno", flat=True)[:2]:
            judgment_record(assessor=assessor, assignment=a, docno=docno, grade=int(docno[-1]) % 3)

    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, "org-live", PASSWORD)
    page.goto("/campaigns/live-demo/live/?refresh=1")
    chart = page.locator("#live-chart svg")
    expect(chart).to_be_visible()
    # a real chart: one group per topic, each with a bar of relevant found, an R̂ dot and its interval
    expect(chart.locator("g.topic")).to_have_count(5)
    expect(chart.locator("g.topic circle.rhat")).to_have_count(5)
    expect(chart.locator("g.topic rect.found")).to_have_count(5)
    expect(chart.locator("g.topic line.ci").first).to_be_attached()
    box = chart.bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 5 * 20
    expect(page.locator("#overall-judged")).to_have_text("10")
    judged_401 = page.locator('#live-topics tr[data-topic="401"] td[data-field="judged"]')
    found_401 = page.locator('#live-topics tr[data-topic="401"] td[data-field="found"]')
    expect(judged_401).to_have_text("2")
    found_before = int(found_401.inner_text())
    page.evaluate("window.liveTestMarker = 'same document'")

    # a judgment arrives through the service, as the assessor's page would record it
    a = assignments["401"]
    judgment_record(assessor=assessor, assignment=a, docno=a.items.get(position=3).docno, grade=2)

    expect(page.locator("#overall-judged")).to_have_text("11", timeout=10_000)
    expect(judged_401).to_have_text("3")
    expect(found_401).to_have_text(str(found_before + 1))
    expect(chart.locator('g.topic[data-topic="401"] title')).to_contain_text(f"found {found_before + 1}")
    expect(page.locator("#live-chart svg g.topic")).to_have_count(5)
    assert page.evaluate("window.liveTestMarker") == "same document"  # updated in place, never reloaded
    assert errors == []
