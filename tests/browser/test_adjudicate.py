"""The adjudication page in a real browser (issues 10 and 28): from logging in to the queue in one
click, then deciding by keyboard at an assessor's speed. Keys queue in the page and are sent in
order, the next disagreement arrives without a reload, a decision can be undone, a key moves to
the next topic; every key lands on the disagreement it was typed for, checked in the database.

alice and bob disagree by two grades (0 against 2) on four documents of topic 401, three of 402
and two of 403, so the queue's order is topic, then docno (one distance).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import OperationalError
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer

from campaigns.models import Campaign
from campaigns.services import campaign_create, membership_add
from judging.models import Adjudication, Assignment, AssignmentItem
from judging.services import assignments_create, judgment_record
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.browser.conftest import TIMEOUT_MS, LogIn
from tests.judging.assess.fixtures import demo_pool, set_text

PASSWORD = "adjudicator-password-1"
SHOTS = Path("/tmp/workbench-screenshots")
PER_TOPIC = {"401": 4, "402": 3, "403": 2}
SLOW_MS = 400  # each request's added latency: the next disagreement is on its way when keys come
Item = tuple[str, str]


def _disagreements(slug: str = "browser-adjudication") -> tuple[Campaign, list[Item]]:
    """alice and bob disagree (0 against 2) on PER_TOPIC documents of each topic; ada adjudicates.
    The items in queue order."""
    users = {n: get_user_model().objects.create_user(n, password=PASSWORD) for n in ("alice", "bob", "ada")}
    campaign = campaign_create(slug=slug, name="Browser adjudication")
    for name in ("alice", "bob"):
        membership_add(campaign=campaign, user=users[name], roles=["assessor"])
    membership_add(campaign=campaign, user=users["ada"], roles=["adjudicator"])
    pool = demo_pool(campaign)
    topics = list(campaign.topics.filter(number__in=PER_TOPIC))
    assignments_create(
        campaign=campaign, pool=pool, assessors=[users["alice"], users["bob"]], topics=topics, k=2
    )
    items: list[Item] = []
    for topic, n in PER_TOPIC.items():
        mine = {a.assessor.username: a for a in Assignment.objects.filter(pool=pool, topic__number=topic)}
        docnos = sorted(mine["alice"].items.values_list("docno", flat=True), key=str.encode)[:n]
        for docno in docnos:
            judgment_record(
                assessor=users["alice"], assignment=mine["alice"], docno=docno, grade=0, comment="alice-says"
            )
            judgment_record(assessor=users["bob"], assignment=mine["bob"], docno=docno, grade=2)
            items.append((topic, docno))
    return campaign, items


def _decided(campaign: Campaign) -> dict[Item, int]:
    rows = Adjudication.objects.filter(campaign=campaign).values_list("topic__number", "docno", "grade")
    return {(t, d): g for t, d, g in rows}


def _wait_for(campaign: Campaign, expected: dict[Item, int], timeout: float = 30.0) -> dict[Item, int] | None:
    """The decisions stored, once they equal ``expected`` or the time is up (then the test fails on
    them): the page saves in the background."""
    end = time.monotonic() + timeout
    while True:
        try:
            found = _decided(campaign)
        except OperationalError:  # SQLite's shared test database is busy with the server's write
            found = None
        if (found == expected or time.monotonic() > end) and found is not None:
            return found
        time.sleep(0.2)


def _slow_network(page: Page) -> None:
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": SLOW_MS, "downloadThroughput": -1, "uploadThroughput": -1},
    )


def _on(page: Page, item: Item) -> None:
    """The disagreement is on the screen with its document (grade keys wait while it loads)."""
    expect(page.locator("#adj-docno")).to_have_text(item[1])
    expect(page.locator("#adj-topic-number")).to_have_text(item[0])
    expect(page.locator("#adjudicate")).not_to_have_class(re.compile(r"\bloading\b"))


def _wait_saved(page: Page) -> None:
    state = page.locator("#save-state")
    expect(state).to_have_attribute("data-state", "saved", timeout=4 * TIMEOUT_MS)
    expect(state).to_have_attribute("data-pending", "0")


def _burst(page: Page, *keys: str) -> None:
    """Keys as fast as the keyboard sends them (a few milliseconds apart)."""
    for key in keys:
        page.keyboard.press(key)


def test_bursts_of_keys_under_latency_each_land_on_their_item(page: Page, log_in: LogIn) -> None:
    campaign, items = _disagreements()
    a1, a2, a3, a4, b1, _b2, _b3, c1, c2 = items
    log_in(page, "ada", PASSWORD)
    page.goto(f"/judging/campaigns/{campaign.slug}/adjudication/")
    _on(page, a1)
    _slow_network(page)
    _burst(page, "2", "1")  # issue 28: today one decision, grade 1, is stored
    _burst(page, "0", "2", "1", "0")  # a3 a4 b1 b2; today one is stored
    _burst(page, "u", "u", "1")  # undo b2, undo b1 (back on b1), decide b1 again
    _burst(page, "t")  # from b2 (402) to the next topic: c1 (403), b3 left open
    _burst(page, "0", "u", "2", "1")  # c1 = 0, undone, c1 = 2, c2 = 1
    expected = {a1: 2, a2: 1, a3: 0, a4: 2, b1: 1, c1: 2, c2: 1}
    assert _wait_for(campaign, expected) == expected
    _wait_saved(page)
    expect(page.locator("#adj-end")).to_be_visible()  # c2 was the last of the list
    expect(page.locator("#adj-item")).to_be_hidden()
    expect(page.locator("#adj-end-text")).to_contain_text("2 disagreements are still open here")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "adjudicate-end.png"))
    assert set(Adjudication.objects.values_list("adjudicator__username", flat=True)) == {"ada"}
    expect(page.locator("#queue-open")).to_have_text("2")  # b2 and b3
    expect(page.locator("#queue-decided")).to_have_text("7")


def test_an_adjudicator_reaches_the_queue_in_one_click_and_sees_topic_labels_and_comments(
    page: Page, log_in: LogIn
) -> None:
    campaign, items = _disagreements()
    log_in(page, "ada", PASSWORD)
    link = page.locator("a.queue-link")
    expect(link).to_have_text("Adjudicate")
    expect(page.locator("#adjudication-browser-adjudication .open")).to_have_text(str(len(items)))
    link.click()  # the one click
    expect(page.locator("h1")).to_have_text("Disagreements to adjudicate")
    _on(page, items[0])
    expect(page.locator("#adj-position")).to_have_text("1")
    expect(page.locator("#adj-count")).to_have_text(str(len(items)))
    statement = page.locator("#adj-statement")
    expect(statement).to_contain_text("pooling bias test collections")
    expect(statement).to_contain_text("How does pooling depth bias")  # the description
    expect(statement).to_contain_text("Relevant documents discuss pool depth")  # the narrative
    votes = page.locator("#adj-votes")
    expect(votes).to_contain_text("alice: 0")
    expect(votes).to_contain_text("bob: 2")
    expect(votes).to_contain_text("alice-says")
    expect(page.locator("#adj-doc-text")).to_contain_text(f"Document {items[0][1]}")
    expect(page.locator("button.grade.current")).to_have_count(0)  # nothing chosen for the adjudicator
    expect(page.locator("#adj-keys")).to_be_visible()  # the keys are on the page, not only in help
    expect(page.locator("#adj-keys")).to_contain_text("undo")

    page.keyboard.press("c")
    expect(page.locator("#adj-note")).to_be_focused()
    page.keyboard.type("half of it 2 1 u t")  # keys typed in the note never decide
    page.keyboard.press("Escape")
    page.keyboard.press("1")
    _on(page, items[1])
    expect(page.locator("#adj-position")).to_have_text("2")
    page.keyboard.press("k")  # back: the decision is shown, and marked
    _on(page, items[0])
    expect(page.locator("button.grade.current")).to_have_attribute("data-grade", "1")
    expect(page.locator("#adj-decision")).to_contain_text("Final grade 1 by ada")
    _wait_saved(page)
    decision = Adjudication.objects.get(campaign=campaign)
    assert (decision.topic.number, decision.docno, decision.grade, decision.note) == (
        *items[0],
        1,
        "half of it 2 1 u t",
    )
    page.keyboard.press("?")
    expect(page.locator("#help")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#help")).to_be_hidden()
    # a reload of the open view: the decided one has left it, the page opens where it was going
    page.reload()
    _on(page, items[1])
    expect(page.locator("#adj-position")).to_have_text("1")
    expect(page.locator("#queue-open")).to_have_text(str(len(items) - 1))


def test_undo_of_a_changed_decision_restores_the_earlier_one(page: Page, log_in: LogIn) -> None:
    campaign, items = _disagreements()
    log_in(page, "ada", PASSWORD)
    page.goto(f"/judging/campaigns/{campaign.slug}/adjudication/?topic=401")
    _on(page, items[0])
    expect(page.locator("#adj-count")).to_have_text("4")  # topic 401 only
    page.keyboard.press("2")
    _on(page, items[1])
    _wait_saved(page)
    _slow_network(page)
    _burst(page, "k", "0", "u")  # back to a1, change it to 0, undo: a1 is 2 again, and on screen
    _on(page, items[0])
    _wait_saved(page)
    assert _decided(campaign) == {items[0]: 2}
    expect(page.locator("button.grade.current")).to_have_attribute("data-grade", "2")
    _burst(page, "u")  # the first decision undone too: nothing decided
    _on(page, items[0])
    assert _wait_for(campaign, {}) == {}
    _wait_saved(page)
    expect(page.locator("button.grade.current")).to_have_count(0)
    # the next topic: the filter follows it, and the position counts in it
    page.keyboard.press("t")
    _on(page, items[4])
    expect(page.locator("#adj-count")).to_have_text("3")
    expect(page.locator("#topic-filter")).to_have_value("402")
    assert page.url.endswith("topic=402") or "topic=402&" in page.url


def test_a_run_of_decisions_is_one_request_each_the_next_item_coming_with_the_save(
    page: Page, log_in: LogIn
) -> None:
    campaign, items = _disagreements()
    for n, (_, docno) in enumerate(items):
        set_text(campaign, docno, f"text of document {n + 1}")
    log_in(page, "ada", PASSWORD)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(f"{r.method} {r.url}") if "/api/judging/" in r.url else None)
    page.goto(f"/judging/campaigns/{campaign.slug}/adjudication/")
    for n in range(5):
        _on(page, items[n])
        expect(page.locator("#adj-doc-text")).to_have_text(f"text of document {n + 1}")
        page.keyboard.press("1")
        _wait_saved(page)
    _on(page, items[5])
    expect(page.locator("#adj-doc-text")).to_have_text("text of document 6")
    reads = [r for r in requests if r.startswith("GET")]
    decides = [r for r in requests if r.startswith("POST") and r.endswith("/adjudication/decide/")]
    # the page reads one item ahead when it opens; every later one came with a decision
    assert len(reads) == 1 and len(decides) == 5 and len(requests) == 6, requests
    assert _decided(campaign) == dict.fromkeys(items[:5], 1)


def test_a_decision_someone_else_made_meanwhile_is_refused_and_shown(page: Page, log_in: LogIn) -> None:
    campaign, items = _disagreements()
    other = get_user_model().objects.create_user("zed", password=PASSWORD)
    membership_add(campaign=campaign, user=other, roles=["adjudicator"])
    log_in(page, "ada", PASSWORD)
    page.goto(f"/judging/campaigns/{campaign.slug}/adjudication/")
    _on(page, items[0])
    topic = campaign.topics.get(number=items[0][0])
    Adjudication.objects.create(campaign=campaign, topic=topic, docno=items[0][1], adjudicator=other, grade=0)
    page.keyboard.press("2")
    state = page.locator("#save-state")
    expect(state).to_have_attribute("data-state", "error")
    expect(state).to_contain_text("already decided by zed")
    assert _decided(campaign) == {items[0]: 0}
    page.keyboard.press("k")  # the page now shows zed's decision
    _on(page, items[0])
    expect(page.locator("#adj-decision")).to_contain_text("Final grade 0 by zed")
    expect(page.locator("button.grade.current")).to_have_count(0)  # not ada's to change
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "adjudicate-refused.png"))


def test_a_decision_lost_to_the_network_is_retried_until_stored(page: Page, log_in: LogIn) -> None:
    campaign, items = _disagreements()
    log_in(page, "ada", PASSWORD)
    page.goto(f"/judging/campaigns/{campaign.slug}/adjudication/")
    _on(page, items[0])
    page.route("**/adjudication/decide/", lambda route: route.abort())  # the connection drops
    page.keyboard.press("2")
    state = page.locator("#save-state")
    expect(state).to_have_attribute("data-state", "retrying")
    expect(state).to_contain_text("1 not saved yet")
    _on(page, items[1])  # the next one came anyway: it was read ahead
    assert not Adjudication.objects.exists()
    page.unroute("**/adjudication/decide/")
    expect(state).to_have_attribute("data-state", "saved", timeout=20_000)
    assert _decided(campaign) == {items[0]: 2}


def test_the_page_on_a_laptop_and_a_phone(browser: Browser, live_server: LiveServer, log_in: LogIn) -> None:
    campaign, items = _disagreements()
    SHOTS.mkdir(exist_ok=True)
    for width, height in ((1366, 900), (390, 844)):
        context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": height})
        try:
            page = context.new_page()
            log_in(page, "ada", PASSWORD)
            page.goto(f"/judging/campaigns/{campaign.slug}/adjudication/")
            _on(page, items[0])
            page.screenshot(path=str(SHOTS / f"adjudicate-{width}.png"))
            page.screenshot(path=str(SHOTS / f"adjudicate-{width}-full.png"), full_page=True)
            wide = page.evaluate(
                "Array.from(document.querySelectorAll('body *'))"
                f".filter((e) => e.getBoundingClientRect().right > {width + 1})"
                ".map((e) => e.tagName + '#' + e.id + '.' + e.className).slice(0, 8)"
            )
            assert page.evaluate("document.documentElement.scrollWidth") <= width, wide
            # the grade buttons and the start of the document are on the first screen
            for selector in ("button.grade >> nth=0", "#adj-doc-text"):
                box = page.locator(selector).bounding_box()
                assert box is not None and box["y"] < height - 60, (width, selector, box)
        finally:
            context.close()


def test_without_script_the_forms_decide_one_item_after_another(
    browser: Browser, live_server: LiveServer, log_in: LogIn
) -> None:
    campaign, items = _disagreements()
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    try:
        page = context.new_page()
        log_in(page, "ada", PASSWORD)
        page.goto(f"/judging/campaigns/{campaign.slug}/adjudication/")
        expect(page.locator("#adj-docno")).to_have_text(items[0][1])
        expect(page.locator("#adj-votes")).to_contain_text("alice-says")
        page.locator("button.grade[data-grade='2']").click()
        expect(page.locator("#adj-docno")).to_have_text(items[1][1])
        expect(page.locator(".messages")).to_contain_text(f"{items[0][1]}: final grade 2")
        page.locator("button.grade[data-grade='1']").click()
        expect(page.locator("#adj-docno")).to_have_text(items[2][1])
        assert _decided(campaign) == {items[0]: 2, items[1]: 1}
        page.goto(f"/judging/campaigns/{campaign.slug}/adjudication/?show=decided&item=2")
        expect(page.locator("#adj-docno")).to_have_text(items[1][1])
        page.locator("#withdraw button").click()  # undo without a script: withdraw the decision
        assert _decided(campaign) == {items[0]: 2}
    finally:
        context.close()


def test_the_exports_page_says_what_an_adjudicator_still_to_judge_gets_left_out(
    browser: Browser, live_server: LiveServer, log_in: LogIn
) -> None:
    """ada adjudicates and also has topic 401 of a second pool to judge: the final labels of its
    documents she has not judged are left out of her downloads, and the page says how many."""
    campaign, items = _disagreements()
    ada = get_user_model().objects.get(username="ada")
    membership_add(campaign=campaign, user=ada, roles=["assessor"])
    second = pool_commit(pool=pool_build(campaign=campaign, name="second", spec=PoolSpec("depth", depth=2)))
    assignments_create(
        campaign=campaign, pool=second, assessors=[ada], topics=[campaign.topics.get(number="401")]
    )
    mine = set(AssignmentItem.objects.filter(assignment__assessor=ada).values_list("docno", flat=True))
    left_out = sorted(d for t, d in items if t == "401" and d in mine)
    assert left_out  # the two pools share documents of 401
    SHOTS.mkdir(exist_ok=True)
    for width, height in ((1366, 900), (390, 844)):
        context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": height})
        try:
            page = context.new_page()
            log_in(page, "ada", PASSWORD)
            page.goto(f"/judging/campaigns/{campaign.slug}/exports/")
            notice = page.locator("#withheld")
            expect(notice).to_contain_text(f"{len(left_out)} documents with a final label are left out")
            page.screenshot(path=str(SHOTS / f"exports-{width}.png"), full_page=True)
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            with page.expect_download() as download:
                page.locator("#export-consensus a").click()
            got = download.value
            assert got.suggested_filename == f"{campaign.slug}-majority-withheld-{len(left_out)}.qrels"
            lines = Path(got.path()).read_text().splitlines()
            assert len(lines) == len(items) - len(left_out)
            assert not any(line.split()[2] in left_out for line in lines)
        finally:
            context.close()
