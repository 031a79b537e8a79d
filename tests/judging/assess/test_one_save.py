"""The assessor's page and API are two edges of one operation: the same input stores the same row
and is refused with the same sentence, the answers carry the same facts, and no GET writes."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import Campaign
from judging.models import Assignment, AssignmentItem, Grade, Judgment, JudgmentEvent
from judging.services import judgment_record
from pooling.models import Pool
from pooling.spec import PoolSpec
from tests.judging.assess.fixtures import assign, demo_pool, login

pytestmark = pytest.mark.django_db


@pytest.fixture
def pool(campaign: Campaign) -> Pool:
    return demo_pool(campaign)


@pytest.fixture
def both(campaign: Campaign, pool: Pool, assessor: Any, co_assessor: Any) -> dict[str, Assignment]:
    """Topic 401, every document judged by both assessors: alice saves through the page, bob the API."""
    return assign(campaign, pool, [assessor, co_assessor], k=2)


def page_save(client: Client, assignment: Assignment, data: dict[str, Any]) -> Any:
    return client.post(reverse("judging:assess_judge", args=[assignment.pk]), data)


def api_save(client: Client, assignment: Assignment, data: dict[str, Any]) -> Any:
    url = reverse("judging_api:assess_judge", args=[assignment.pk])
    return client.post(url, data, content_type="application/json")


def stored(assessor: Any) -> list[tuple[str, int | None, bool, str]]:
    rows = Judgment.objects.filter(assessor=assessor).order_by("docno")
    return [(j.docno, j.grade, j.cant_judge, j.comment) for j in rows]


# ------------------------------------------------------------------ same input, same outcome


@pytest.mark.parametrize(
    ("form", "json", "message"),
    [
        # "can't judge" with a grade: the database keeps one or the other, so both edges refuse
        (
            {"position": "1", "grade": "1", "cant_judge": "true"},
            {"position": 1, "grade": 1, "cant_judge": True},
            "a document the assessor cannot judge has no grade",
        ),
        (
            {"position": "1", "grade": "9"},
            {"position": 1, "grade": 9},
            "grade 9 is not on the campaign's scale (0, 1, 2)",
        ),
        ({"position": "1"}, {"position": 1}, "a judgment needs a grade (or 'can't judge')"),
        ({"grade": "1"}, {"grade": 1}, "say which document: its position or its docno"),
        (
            {"position": "999", "grade": "1"},
            {"position": 999, "grade": 1},
            "this document is not in the assignment",
        ),
    ],
)
def test_the_page_and_the_api_refuse_the_same_input_with_the_same_sentence(
    both: dict[str, Assignment],
    assessor: Any,
    co_assessor: Any,
    form: dict[str, str],
    json: dict[str, Any],
    message: str,
) -> None:
    page = page_save(login(assessor), both["alice"], form)
    assert page.status_code == 302
    assert [str(m) for m in get_messages(page.wsgi_request)] == [message]
    api = api_save(login(co_assessor), both["bob"], json)
    assert api.status_code == 400 and api.json() == {"errors": [message]}
    assert not Judgment.objects.exists()


@pytest.mark.parametrize(
    ("form", "json"),
    [
        (
            {"position": "2", "cant_judge": "true", "comment": " unreadable "},
            {"position": 2, "cant_judge": True, "comment": " unreadable "},
        ),
        (
            {"position": "2", "grade": "2", "comment": "on depth"},
            {"position": 2, "grade": 2, "comment": "on depth"},
        ),
        (
            {"position": "2", "grade": "0", "cant_judge": "false"},
            {"position": 2, "grade": 0, "cant_judge": False},
        ),
    ],
)
def test_the_page_and_the_api_store_the_same_row_for_the_same_input(
    both: dict[str, Assignment], assessor: Any, co_assessor: Any, form: dict[str, str], json: dict[str, Any]
) -> None:
    assert page_save(login(assessor), both["alice"], form).status_code == 302
    assert api_save(login(co_assessor), both["bob"], json).status_code == 200
    assert stored(assessor) == stored(co_assessor) and len(stored(assessor)) == 1
    assert JudgmentEvent.objects.count() == 2


def test_the_page_goes_where_the_api_says_next(
    both: dict[str, Assignment], assessor: Any, co_assessor: Any
) -> None:
    page = page_save(login(assessor), both["alice"], {"position": "2", "grade": "1"})
    answer = api_save(login(co_assessor), both["bob"], {"position": 2, "grade": 1}).json()
    assert answer["next"]["position"] == 3 and answer["done"] is False
    assert page["Location"] == reverse("judging:assess", args=[both["alice"].pk]) + "?item=3"
    assert answer["progress"] == {"judged": 1, "total": both["bob"].items.count()}


def test_the_last_save_of_an_assignment_says_done(campaign: Campaign, pool: Pool, assessor: Any) -> None:
    mine = assign(campaign, pool, [assessor])["alice"]
    client = login(assessor)
    last = mine.items.count()
    for position in range(1, last):
        judgment_record(
            assessor=assessor, assignment=mine, docno=mine.items.get(position=position).docno, grade=0
        )
    answer = api_save(client, mine, {"position": last, "grade": 1}).json()
    assert (answer["next"], answer["done"]) == (None, True)


# --------------------------------------------------------------------------- no GET writes


def writes(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]


def snapshot(pool: Pool) -> tuple[int, int, int, int]:
    pool.refresh_from_db()
    return (
        pool.queue_version,
        AssignmentItem.objects.count(),
        Judgment.objects.count(),
        Grade.objects.count(),
    )


def get_every_route(client: Client, assignment: Assignment) -> list[int]:
    urls = [
        reverse("judging:assess_home"),
        reverse("judging:assess", args=[assignment.pk]),
        reverse("judging:assess", args=[assignment.pk]) + "?item=1",
        reverse("judging_api:assess_state", args=[assignment.pk]),
    ]
    if assignment.items.exists():
        urls.append(reverse("judging_api:assess_document", args=[assignment.pk, 1]))
    return [client.get(url).status_code for url in urls]


def assert_gets_write_nothing(client: Client, assignment: Assignment, pool: Pool) -> None:
    before = snapshot(pool)
    with CaptureQueriesContext(connection) as queries:
        statuses = get_every_route(client, assignment)
    assert set(statuses) == {200}
    assert writes(queries) == []
    assert snapshot(pool) == before


def test_the_assessor_gets_write_nothing(campaign: Campaign, pool: Pool, assessor: Any) -> None:
    mine = assign(campaign, pool, [assessor])["alice"]
    client = login(assessor)
    assert_gets_write_nothing(client, mine, pool)
    judgment_record(assessor=assessor, assignment=mine, docno=mine.items.get(position=1).docno, grade=1)
    assert_gets_write_nothing(client, mine, pool)


def test_the_gets_of_a_queue_assignment_never_ask_the_queue(campaign: Campaign, assessor: Any) -> None:
    adaptive = demo_pool(campaign, spec=PoolSpec("mtf", depth=10, seed=5), name="adaptive")
    queue = assign(campaign, adaptive, [assessor], order=Assignment.Order.QUEUE, budget=3)["alice"]
    client = login(assessor)
    assert_gets_write_nothing(client, queue, adaptive)  # a document dealt, not judged yet
    # every item judged: the case that used to ask the queue on GET (a save now asks it)
    judgment_record(assessor=assessor, assignment=queue, docno=queue.items.get().docno, grade=1)
    assert queue.items.count() == 1
    assert_gets_write_nothing(client, queue, adaptive)
    page = client.get(reverse("judging:assess", args=[queue.pk]))
    assert not page.context["done"] and 'id="next-form"' in page.content.decode()


def test_the_scale_gets_write_nothing(campaign: Campaign, organizer: Any) -> None:
    client = login(organizer)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("judging:scale", args=[campaign.slug])).status_code == 200
        assert (
            client.get(reverse("judging_api:scale", args=[campaign.slug])).json()[0]["label"]
            == "Not relevant"
        )
    assert writes(queries) == [] and not Grade.objects.exists()


# ------------------------------------------------------------------- asking the queue: a POST


def test_a_queue_never_asked_is_asked_by_an_explicit_post(campaign: Campaign, assessor: Any) -> None:
    adaptive = demo_pool(campaign, spec=PoolSpec("mtf", depth=10, seed=5), name="adaptive")
    queue = assign(campaign, adaptive, [assessor], order=Assignment.Order.QUEUE, budget=2)["alice"]
    dealt = queue.items.get().docno
    queue.items.all().delete()  # an assignment dealt before dealing asked the queue
    client = login(assessor)
    state = client.get(reverse("judging_api:assess_state", args=[queue.pk])).json()
    assert (state["items"], state["done"]) == ([], False)
    answer = client.post(reverse("judging_api:assess_next", args=[queue.pk])).json()
    assert answer == {
        "next": {"position": 1, "docno": dealt},
        "done": False,
        "progress": {"judged": 0, "total": 2},
    }
    again = client.post(reverse("judging:assess_next", args=[queue.pk]))  # the form: the same document
    assert again["Location"] == reverse("judging:assess", args=[queue.pk]) + "?item=1"
    assert list(queue.items.values_list("docno", flat=True)) == [dealt]
