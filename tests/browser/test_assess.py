"""The judging page in a real browser, driven by the keyboard alone after logging in.

The live server runs on a transactional database, so each test creates its campaign in its body.
"""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth import get_user_model
from playwright.sync_api import Dialog, Page, expect

from campaigns.services import campaign_create, membership_add
from judging.models import Assignment, Judgment, JudgmentEvent
from pooling.spec import PoolSpec
from tests.browser.conftest import LogIn
from tests.judging.assess.fixtures import RUN_TAGS, assign, demo_pool, set_text

PASSWORD = "assessor-password-1"
# what the assessor types on the first ten documents (0-2 scale); the 8th is then revised to 2
GRADES = [1, 0, 2, 1, 0, 0, 2, 1, 0, 1]
COMMENT = "pool 2 x depth"  # digits and 'x' in a comment must not judge


def _assignment(username: str, *, queue_budget: int | None = None) -> tuple[Any, Assignment]:
    user = get_user_model().objects.create_user(username, password=PASSWORD)
    campaign = campaign_create(slug="browser-judging", name="Browser judging")
    membership_add(campaign=campaign, user=user, roles=["assessor"])
    if queue_budget is None:
        return user, assign(campaign, demo_pool(campaign), [user])[username]
    pool = demo_pool(campaign, spec=PoolSpec("mtf", depth=10, seed=5), name="adaptive")
    return user, assign(campaign, pool, [user], order=Assignment.Order.QUEUE, budget=queue_budget)[username]


def _on(page: Page, docno: str) -> None:
    """The document is on the screen (a grade key is ignored while the text is still loading)."""
    expect(page.locator("#doc-docno")).to_have_text(docno)
    expect(page.locator("#doc-panel")).not_to_have_class(re.compile(r"\bloading\b"))


def _wait_saved(page: Page) -> None:
    expect(page.locator("#save-state")).to_have_attribute("data-state", "saved")
    expect(page.locator("#save-state")).to_have_attribute("data-pending", "0")


def test_keyboard_only_assessor_judges_ten_documents_and_revises_one(page: Page, log_in: LogIn) -> None:
    user, assignment = _assignment("kim")
    docnos = list(assignment.items.order_by("position").values_list("docno", flat=True))
    assert len(docnos) > len(GRADES)
    log_in(page, "kim", PASSWORD)
    page.goto(f"/judging/assignments/{assignment.pk}/")
    docno = page.locator("#doc-docno")
    expect(docno).to_have_text(docnos[0])
    expect(page.locator("#topic-title")).to_contain_text("pooling bias test collections")
    expect(page.locator("#topic-narrative")).to_contain_text("Relevant documents discuss pool depth")

    page.keyboard.press("?")
    expect(page.locator("#help")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#help")).to_be_hidden()

    page.wait_for_timeout(400)  # reading the first document: active time the save must carry
    for i, grade in enumerate(GRADES):
        _on(page, docnos[i])
        if i == 2:
            page.keyboard.press("c")
            expect(page.locator("#comment")).to_be_focused()
            page.keyboard.type(COMMENT)
            page.keyboard.press("Escape")
            expect(page.locator("#comment")).not_to_be_focused()
            expect(docno).to_have_text(docnos[2])  # typing the comment judged nothing
        page.keyboard.press(str(grade))
    expect(docno).to_have_text(docnos[10])
    expect(page.locator("#progress-judged")).to_have_text("10")

    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    _on(page, docnos[7])
    expect(page.locator("button.grade.current")).to_have_attribute("data-grade", str(GRADES[7]))
    page.keyboard.press("2")  # the revision, which also moves on
    expect(docno).to_have_text(docnos[8])
    page.keyboard.press("Backspace")
    expect(docno).to_have_text(docnos[7])
    expect(page.locator("button.grade.current")).to_have_attribute("data-grade", "2")
    _wait_saved(page)

    expected = dict(zip(docnos, GRADES, strict=False))
    expected[docnos[7]] = 2
    rows = Judgment.objects.filter(assessor=user)
    assert {j.docno: j.grade for j in rows} == expected
    assert not rows.filter(cant_judge=True).exists()
    assert JudgmentEvent.objects.filter(judgment__assessor=user).count() == len(GRADES) + 1
    revision = JudgmentEvent.objects.get(judgment__docno=docnos[7], old_grade__isnull=False)
    assert (revision.old_grade, revision.new_grade) == (GRADES[7], 2)
    assert rows.get(docno=docnos[2]).comment == COMMENT
    assert rows.get(docno=docnos[0]).active_ms >= 300
    assert rows.get(docno=docnos[7]).revision == 2

    # a reload lands on the same document, with the saved judgment highlighted
    page.reload()
    expect(docno).to_have_text(docnos[7])
    expect(page.locator("button.grade.current")).to_have_attribute("data-grade", "2")


def test_document_is_shown_as_text_with_topic_and_typed_terms_highlighted(page: Page, log_in: LogIn) -> None:
    user, assignment = _assignment("lee")
    first = assignment.items.get(position=1).docno
    hostile = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> Pooling kappa'
    set_text(assignment.campaign, first, hostile, title="<b>bold?</b>")
    log_in(page, "lee", PASSWORD)
    page.goto(f"/judging/assignments/{assignment.pk}/")
    text = page.locator("#doc-text")
    expect(text).to_contain_text("<script>window.pwned = 1</script>")
    expect(page.locator("#doc-title")).to_have_text("<b>bold?</b>")
    assert page.evaluate("window.pwned") is None
    assert page.locator("#doc-text script, #doc-text img, #doc-title b").count() == 0
    expect(page.locator("#doc-text mark.t")).to_have_text(["Pooling"])  # 'pooling' of the title

    page.keyboard.press("/")
    expect(page.locator("#highlight")).to_be_focused()
    page.keyboard.type("kappa")
    page.keyboard.press("Escape")
    expect(page.locator("#doc-text mark.u")).to_have_text(["kappa"])

    page.keyboard.press("x")  # can't judge, then on to the next document, fetched by the client
    expect(page.locator("#doc-docno")).to_have_text(assignment.items.get(position=2).docno)
    expect(page.locator("#doc-text mark.t").first).to_be_visible()
    _wait_saved(page)
    judgment = Judgment.objects.get(assessor=user, docno=first)
    assert judgment.cant_judge and judgment.grade is None
    body = page.content()
    assert not any(tag in body for tag in RUN_TAGS)


def test_queue_assignment_brings_each_next_document_after_the_save(page: Page, log_in: LogIn) -> None:
    budget = 3
    user, assignment = _assignment("max", queue_budget=budget)
    log_in(page, "max", PASSWORD)
    page.goto(f"/judging/assignments/{assignment.pk}/")
    grades = [2, 0, 1]
    shown: list[str] = []
    for grade in grades:
        if shown:  # the queue's next document arrives with the answer to the last save
            expect(page.locator("#doc-docno")).not_to_have_text(shown[-1])
        shown.append(page.locator("#doc-docno").inner_text())
        _on(page, shown[-1])
        page.keyboard.press(str(grade))
    expect(page.locator("#end-title")).to_have_text("All documents judged")
    expect(page.locator("#where")).to_have_text(f"all {budget} judged")
    _wait_saved(page)
    docnos = list(assignment.items.order_by("position").values_list("docno", flat=True))
    assert docnos == shown and len(set(shown)) == budget
    assert {j.docno: j.grade for j in Judgment.objects.filter(assessor=user)} == dict(
        zip(docnos, grades, strict=True)
    )


def test_past_the_last_document_the_position_line_says_what_is_left(page: Page, log_in: LogIn) -> None:
    """Not "document – of 18": past the last document the line counts what is still unjudged."""
    _, assignment = _assignment("lou")
    docnos = list(assignment.items.order_by("position").values_list("docno", flat=True))
    last = assignment.items.order_by("position").last()
    assert last is not None
    log_in(page, "lou", PASSWORD)
    page.goto(f"/judging/assignments/{assignment.pk}/?item={last.position}")
    _on(page, docnos[-1])
    expect(page.locator("#where")).to_have_text(f"document {len(docnos)} of {len(docnos)}")
    page.keyboard.press("1")  # judges the last one and moves past it
    expect(page.locator("#end-title")).to_have_text("End of the list")
    expect(page.locator("#where")).to_have_text(
        f"end of the list: {len(docnos) - 1} of {len(docnos)} unjudged"
    )
    page.keyboard.press("ArrowLeft")
    _on(page, docnos[-1])
    expect(page.locator("#where")).to_have_text(f"document {len(docnos)} of {len(docnos)}")


def test_a_queue_never_asked_is_asked_by_the_page_with_a_post(page: Page, log_in: LogIn) -> None:
    _, assignment = _assignment("nia", queue_budget=2)
    dealt = assignment.items.get().docno
    assignment.items.all().delete()  # dealt before dealing asked the queue: opening it must not ask
    log_in(page, "nia", PASSWORD)
    methods: list[str] = []
    page.on("request", lambda r: methods.append(r.method) if r.url.endswith("/next/") else None)
    page.goto(f"/judging/assignments/{assignment.pk}/")
    _on(page, dealt)  # the script asked the queue (a POST) and shows its document
    assert methods == ["POST"]
    assert list(assignment.items.values_list("docno", flat=True)) == [dealt]


def test_a_save_lost_to_the_network_is_kept_retried_and_survives_a_reload(page: Page, log_in: LogIn) -> None:
    user, assignment = _assignment("ned")
    first = assignment.items.get(position=1).docno
    log_in(page, "ned", PASSWORD)
    page.goto(f"/judging/assignments/{assignment.pk}/")
    _on(page, first)
    page.route("**/judgments/", lambda route: route.abort())  # the connection drops
    page.keyboard.press("2")
    state = page.locator("#save-state")
    expect(state).to_have_attribute("data-state", "retrying")
    expect(state).to_contain_text("1 not saved yet")
    assert not Judgment.objects.exists()

    dialogs: list[str] = []

    def answer(dialog: Dialog) -> None:
        dialogs.append(dialog.type)
        dialog.accept()

    page.on("dialog", answer)
    page.reload()  # leaving with unsaved work: the browser asks first
    assert dialogs == ["beforeunload"]
    _on(page, assignment.items.get(position=2).docno)  # where the assessor was
    page.keyboard.press("ArrowLeft")
    _on(page, first)  # the server has nothing, the page still has the grade, waiting to be sent
    expect(page.locator("button.grade.current.unsaved")).to_have_attribute("data-grade", "2")
    expect(state).to_have_attribute("data-state", "retrying")

    page.unroute("**/judgments/")  # the connection is back: the retry stores it
    expect(state).to_have_attribute("data-state", "saved", timeout=20_000)
    judgment = Judgment.objects.get(assessor=user)
    assert (judgment.docno, judgment.grade, judgment.revision) == (first, 2, 1)
    assert page.evaluate("Object.keys(localStorage)") == []


def test_a_run_of_judgments_is_one_request_each_the_next_text_coming_with_the_save(
    page: Page, log_in: LogIn
) -> None:
    """After the page's first read-ahead, each save brings the document after the next one: the
    assessor never waits for a document, and the server answers one request per judgment."""
    user, assignment = _assignment("lee")
    docnos = list(assignment.items.order_by("position").values_list("docno", flat=True))
    for n, docno in enumerate(docnos[:8]):
        set_text(assignment.campaign, docno, f"text of document {n + 1}", title=f"Title {n + 1}")
    log_in(page, "lee", PASSWORD)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(f"{r.method} {r.url}") if "/api/judging/" in r.url else None)
    page.goto(f"/judging/assignments/{assignment.pk}/")
    _on(page, docnos[0])
    expect(page.locator("#doc-text")).to_have_text("text of document 1")
    for n in range(6):
        _on(page, docnos[n])
        expect(page.locator("#doc-text")).to_have_text(f"text of document {n + 1}")
        page.keyboard.press("1")
        _wait_saved(page)
    _on(page, docnos[6])
    expect(page.locator("#doc-text")).to_have_text("text of document 7")
    fetches = [r for r in requests if "/items/" in r]
    saves = [r for r in requests if r.startswith("POST") and r.endswith("/judgments/")]
    # the open reads one document ahead; every later document came with a save
    assert [f.rsplit("/items/", 1)[1] for f in fetches] == ["2/"], requests
    assert len(saves) == 6 and len(requests) == 7, requests
    assert Judgment.objects.filter(assessor=user).count() == 6
