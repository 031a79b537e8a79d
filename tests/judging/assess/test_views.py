"""The assessor's pages, and who may use every assessor page and API endpoint.

Judging is personal: an assignment's page and API answer its assessor only. Anyone else is told
it does not exist (404): the outsider, a colleague, the adjudicator, the campaign's organizer, an
organizer of another campaign, even a superuser. Anonymous visitors are sent to log in (pages) or
refused (API). Nothing of the runs (tags, scores, ranks) nor a colleague's labels reach the page.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Membership
from campaigns.services import campaign_create, membership_add, membership_remove
from judging.models import Assignment, Judgment
from judging.services import judgment_record
from pooling.models import Pool
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD, without_csrf
from tests.judging.assess.fixtures import RUN_TAGS, assign, demo_pool, login, set_text

pytestmark = pytest.mark.django_db

# Every route this module's access tests cover, for the lead's route-completeness test.
ACCESS_TESTED = [
    ("judging:assess_home", "get"),
    ("judging:assess", "get"),
    ("judging:assess_judge", "post"),
    ("judging:assess_next", "post"),
    ("judging_api:assess_state", "get"),
    ("judging_api:assess_document", "get"),
    ("judging_api:assess_judge", "post"),
    ("judging_api:assess_next", "post"),
    # the organizer's guidelines page: tests/judging/assess/test_first_contact.py
    ("judging:guidelines", "get"),
    ("judging:guidelines", "post"),
]
GUIDELINES_TESTED = {("judging:guidelines", "get"), ("judging:guidelines", "post")}


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    args: Callable[[Assignment], list[Any]]
    data: dict[str, Any] | None = None
    owner_status: int = 200


def own(a: Assignment) -> list[Any]:
    return [a.pk]


ASSIGNMENT_ENDPOINTS = [
    Endpoint("judging:assess", "get", own),
    Endpoint("judging:assess_judge", "post", own, {"position": 1, "grade": 1}, owner_status=302),
    Endpoint("judging_api:assess_state", "get", own),
    Endpoint("judging_api:assess_document", "get", lambda a: [a.pk, 1]),
    Endpoint("judging_api:assess_judge", "post", own, {"position": 1, "grade": 1}),
    # asking the queue of an assignment dealt in docno order: refused, with a message or a 400
    Endpoint("judging:assess_next", "post", own, owner_status=302),
    Endpoint("judging_api:assess_next", "post", own, owner_status=400),
]
HOME = Endpoint("judging:assess_home", "get", lambda a: [])
ALL = [HOME, *ASSIGNMENT_ENDPOINTS]


def test_the_access_table_names_every_endpoint() -> None:
    assert {(e.name, e.method) for e in ALL} | GUIDELINES_TESTED == set(ACCESS_TESTED)


@pytest.fixture
def pool(campaign: Campaign) -> Pool:
    return demo_pool(campaign)


@pytest.fixture
def split(
    campaign: Campaign, pool: Pool, assessor: Any, co_assessor: Any, organizer: Any, adjudicator: Any
) -> dict[str, Assignment]:
    """Topic 401 dealt between the two assessors; every persona exists."""
    return assign(campaign, pool, [assessor, co_assessor], k=1)


@pytest.fixture
def mine(split: dict[str, Assignment]) -> Assignment:
    return split["alice"]


def call(client: Client, endpoint: Endpoint, assignment: Assignment) -> Any:
    url = reverse(endpoint.name, args=endpoint.args(assignment))
    if endpoint.method == "get":
        return client.get(url)
    if endpoint.name.startswith("judging_api:"):
        return client.post(url, endpoint.data or {}, content_type="application/json")
    return client.post(url, endpoint.data or {})


def other_organizer() -> Any:
    """An organizer, but of another campaign."""
    user = get_user_model().objects.create_user("otto", password=PASSWORD)
    membership_add(
        campaign=campaign_create(slug="elsewhere", name="Elsewhere"), user=user, roles=["organizer"]
    )
    return user


def superuser() -> Any:
    return get_user_model().objects.create_superuser("root", password=PASSWORD)


# ---------------------------------------------------------------------------------- access


@pytest.mark.parametrize("endpoint", ALL, ids=lambda e: f"{e.method}-{e.name}")
def test_anonymous_is_sent_to_log_in_or_refused(endpoint: Endpoint, mine: Assignment) -> None:
    response = call(Client(), endpoint, mine)
    if endpoint.name.startswith("judging_api:"):
        assert response.status_code in (401, 403)
    else:
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert not Judgment.objects.exists()


@pytest.mark.parametrize("endpoint", ASSIGNMENT_ENDPOINTS, ids=lambda e: f"{e.method}-{e.name}")
@pytest.mark.parametrize(
    "persona", ["outsider", "co_assessor", "adjudicator", "organizer", "other_organizer", "superuser"]
)
def test_only_the_assessor_is_told_the_assignment_exists(
    endpoint: Endpoint, persona: str, mine: Assignment, request: pytest.FixtureRequest
) -> None:
    user = {"other_organizer": other_organizer, "superuser": superuser}.get(
        persona, lambda: request.getfixturevalue(persona)
    )()
    response = call(login(user), endpoint, mine)
    assert response.status_code == 404
    body = response.content.decode()
    assert mine.topic.title not in body and mine.items.get(position=1).docno not in body
    assert not Judgment.objects.exists()


@pytest.mark.parametrize("endpoint", ALL, ids=lambda e: f"{e.method}-{e.name}")
def test_the_assessor_gets_through(endpoint: Endpoint, mine: Assignment, assessor: Any) -> None:
    response = call(login(assessor), endpoint, mine)
    assert response.status_code == endpoint.owner_status, response.content[:300]
    if endpoint.name.endswith("assess_judge"):
        assert Judgment.objects.filter(assessor=assessor).count() == 1


@pytest.mark.parametrize("endpoint", ASSIGNMENT_ENDPOINTS, ids=lambda e: f"{e.method}-{e.name}")
def test_an_assessor_no_longer_assessing_is_refused(
    endpoint: Endpoint, campaign: Campaign, mine: Assignment, assessor: Any
) -> None:
    membership_add(campaign=campaign, user=assessor, roles=[Membership.Role.ADJUDICATOR])
    membership_remove(campaign=campaign, user=assessor, role=Membership.Role.ASSESSOR)
    assert call(login(assessor), endpoint, mine).status_code == 403  # still a member: refused
    membership_remove(campaign=campaign, user=assessor, role=Membership.Role.ADJUDICATOR)
    assert call(login(assessor), endpoint, mine).status_code == 404  # no role left: not told
    assert not Judgment.objects.exists()


@pytest.mark.parametrize("persona", ["outsider", "co_assessor", "adjudicator", "organizer"])
def test_home_lists_only_the_persons_own_assignments(
    persona: str, split: dict[str, Assignment], request: pytest.FixtureRequest
) -> None:
    user = request.getfixturevalue(persona)
    page = login(user).get(reverse("judging:assess_home")).content.decode()
    alice_url = reverse("judging:assess", args=[split["alice"].pk])
    bob_url = reverse("judging:assess", args=[split["bob"].pk])
    assert alice_url not in page
    assert (bob_url in page) == (persona == "co_assessor")
    if persona != "co_assessor":
        assert 'id="no-assignments"' in page


# ------------------------------------------------------------------------------- home page


def test_home_shows_each_assignment_with_its_progress(
    mine: Assignment, assessor: Any, campaign: Campaign
) -> None:
    total = mine.items.count()
    for position in (1, 2):
        judgment_record(
            assessor=assessor, assignment=mine, docno=mine.items.get(position=position).docno, grade=1
        )
    page = login(assessor).get(reverse("judging:assess_home")).content.decode()
    assert campaign.name in page
    assert "<strong>401</strong> pooling bias test collections" in page
    assert f'<span class="judged">2</span> / <span class="total">{total}</span>' in page
    assert reverse("judging:assess", args=[mine.pk]) in page and "Continue" in page


# ----------------------------------------------------------------------------- judging page


def test_judging_page_shows_topic_scale_and_the_first_document_to_judge(
    mine: Assignment, assessor: Any
) -> None:
    judgment_record(assessor=assessor, assignment=mine, docno=mine.items.get(position=1).docno, grade=0)
    response = login(assessor).get(reverse("judging:assess", args=[mine.pk]))
    page = response.content.decode()
    topic = mine.topic
    for text in (topic.title, topic.description, topic.narrative):
        assert html.escape(text) in page
    for key, label in (("0", "Not relevant"), ("1", "Relevant"), ("2", "Highly relevant")):
        assert f"<kbd>{key}</kbd> {label}</button>" in page
    assert "Can't judge" in page or "Can&#x27;t judge" in page
    second = mine.items.get(position=2).docno
    assert f'<span id="doc-docno">{second}</span>' in page  # the first one still to judge
    assert response.context["state"]["index"] == 1
    assert '<script src="/static/judging/assess.js">' in page


def test_revisiting_shows_the_previous_judgment(mine: Assignment, assessor: Any) -> None:
    docno = mine.items.get(position=3).docno
    judgment_record(assessor=assessor, assignment=mine, docno=docno, grade=2, comment="twice on depth")
    page = login(assessor).get(reverse("judging:assess", args=[mine.pk]) + "?item=3").content.decode()
    assert f'<span id="doc-docno">{docno}</span>' in page
    assert 'class="grade current" data-grade="2"' in page
    assert page.count("grade current") == 1
    assert ">twice on depth</textarea>" in page


def test_document_html_is_escaped_never_rendered(mine: Assignment, assessor: Any) -> None:
    docno = mine.items.get(position=1).docno
    set_text(
        mine.campaign, docno, '<script>alert("x")</script><img src=x onerror=alert(1)>', title="<i>t</i>"
    )
    page = login(assessor).get(reverse("judging:assess", args=[mine.pk]) + "?item=1").content.decode()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<script>alert" not in page and "<img src=x" not in page and "<i>t</i>" not in page


def test_no_run_tag_score_rank_or_colleagues_label_on_the_page(
    campaign: Campaign, pool: Pool, assessor: Any, co_assessor: Any
) -> None:
    both = assign(campaign, pool, [assessor, co_assessor], k=2)
    docno = both["alice"].items.get(position=1).docno
    judgment_record(assessor=co_assessor, assignment=both["bob"], docno=docno, grade=2, comment="bob-note")
    page = login(assessor).get(reverse("judging:assess", args=[both["alice"].pk]) + "?item=1")
    body = page.content.decode()
    visible = without_csrf(body)
    for word in (*RUN_TAGS, "score", "rank", "Q0", pool.name):
        assert word.lower() not in visible.lower(), word
    assert "bob-note" not in body and "grade current" not in body
    assert page.context["state"]["items"][0]["judged"] is False


def test_the_end_of_a_judged_assignment_says_so(mine: Assignment, assessor: Any) -> None:
    for docno in mine.items.values_list("docno", flat=True):
        judgment_record(assessor=assessor, assignment=mine, docno=docno, grade=1)
    page = login(assessor).get(reverse("judging:assess", args=[mine.pk])).content.decode()
    assert "All documents judged" in page
    assert '<div id="doc" hidden>' in page
    # the position line says something true past the last document, not "document – of 18"
    count = mine.items.count()
    assert f'<span id="where">all {count} judged</span>' in page
    assert "document –" not in page


# ------------------------------------------------------------------------- the form fallback


def test_form_post_saves_and_shows_the_next_document(mine: Assignment, assessor: Any) -> None:
    client = login(assessor)
    url = reverse("judging:assess_judge", args=[mine.pk])
    response = client.post(url, {"position": 2, "grade": "2", "comment": "a form"})
    assert response.status_code == 302
    assert response["Location"] == reverse("judging:assess", args=[mine.pk]) + "?item=3"
    judgment = Judgment.objects.get(assessor=assessor)
    assert (judgment.docno, judgment.grade, judgment.comment) == (
        mine.items.get(position=2).docno,
        2,
        "a form",
    )
    client.post(url, {"position": 2, "grade": "2", "comment": "a form"})  # the form sent twice
    assert Judgment.objects.get(assessor=assessor).revision == 1
    client.post(url, {"position": 3, "cant_judge": "true"})
    assert Judgment.objects.get(assessor=assessor, docno=mine.items.get(position=3).docno).cant_judge


def test_form_post_with_a_grade_off_the_scale_is_refused_with_a_message(
    mine: Assignment, assessor: Any
) -> None:
    response = login(assessor).post(
        reverse("judging:assess_judge", args=[mine.pk]), {"position": 1, "grade": 9}
    )
    assert response.status_code == 302
    assert response["Location"].endswith("?item=1")
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "grade 9 is not on the campaign's scale (0, 1, 2)"
    ]
    assert not Judgment.objects.exists()


# ------------------------------------------------------------------------- queue assignments


def test_the_page_of_a_queue_assignment_shows_the_document_each_save_asked_the_queue_for(
    campaign: Campaign, assessor: Any
) -> None:
    pool = demo_pool(campaign, spec=PoolSpec("maxmean", depth=10, seed=3), name="adaptive")
    assignment = assign(campaign, pool, [assessor], order=Assignment.Order.QUEUE, budget=2)["alice"]
    assert assignment.items.count() == 1  # dealing the assignment asked the queue, not the page's GET
    client = login(assessor)
    url = reverse("judging:assess", args=[assignment.pk])
    first = client.get(url)
    assert first.status_code == 200 and assignment.items.count() == 1
    docno = assignment.items.get().docno
    assert f'<span id="doc-docno">{docno}</span>' in first.content.decode()
    client.get(url)
    assert assignment.items.count() == 1  # asked again before judging: the same document
    client.post(reverse("judging:assess_judge", args=[assignment.pk]), {"position": 1, "grade": 1})
    second = client.get(url)
    assert assignment.items.count() == 2 and second.context["state"]["index"] == 1
    client.post(reverse("judging:assess_judge", args=[assignment.pk]), {"position": 2, "grade": 0})
    done = client.get(url)
    assert assignment.items.count() == 2  # the budget is spent
    assert done.context["done"] and "All documents judged" in done.content.decode()


def test_a_queue_document_judged_cant_judge_lets_the_queue_move_on(campaign: Campaign, assessor: Any) -> None:
    pool = demo_pool(campaign, spec=PoolSpec("mtf", depth=10, seed=5), name="adaptive")
    assignment = assign(campaign, pool, [assessor], order=Assignment.Order.QUEUE)["alice"]
    client = login(assessor)
    url = reverse("judging:assess", args=[assignment.pk])
    client.get(url)
    client.post(reverse("judging:assess_judge", args=[assignment.pk]), {"position": 1, "cant_judge": "true"})
    after = client.get(url)
    # the queue takes "can't judge" as not relevant and offers the next document; the judgment
    # itself still says "can't judge"
    assert assignment.items.count() == 2 and after.context["state"]["index"] == 1
    first = Judgment.objects.get(assessor=assessor, docno=assignment.items.get(position=1).docno)
    assert first.cant_judge and first.grade is None
