"""The assessor's API: the state of an assignment, a document to read, a judgment saved at once."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns.models import Campaign
from judging.models import Assignment, Judgment, JudgmentEvent
from judging.services import judgment_record
from pooling.models import Pool
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD
from tests.judging.assess.fixtures import RUN_TAGS, assign, demo_pool, set_text

pytestmark = pytest.mark.django_db

# What an assessor must never learn from the API: which system retrieved a document, and how high.
RUN_WORDS = (*RUN_TAGS, "score", "rank", "Q0", "run_tag", "judge-me")


@pytest.fixture
def pool(campaign: Campaign) -> Pool:
    return demo_pool(campaign)


@pytest.fixture
def shared(campaign: Campaign, pool: Pool, assessor: Any, co_assessor: Any) -> dict[str, Assignment]:
    """Topic 401 judged by both assessors (every document twice)."""
    return assign(campaign, pool, [assessor, co_assessor], k=2)


@pytest.fixture
def mine(shared: dict[str, Assignment]) -> Assignment:
    return shared["alice"]


def api(user: Any) -> APIClient:
    client = APIClient()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def judge(client: APIClient, assignment: Assignment, **data: Any) -> Any:
    return client.post(reverse("judging_api:assess_judge", args=[assignment.pk]), data, format="json")


def state(client: APIClient, assignment: Assignment) -> Any:
    return client.get(reverse("judging_api:assess_state", args=[assignment.pk]))


def first_docno(assignment: Assignment) -> str:
    return assignment.items.get(position=1).docno


# ------------------------------------------------------------------------------------ saving


def test_a_judgment_is_saved_at_once_and_answered_with_progress(mine: Assignment, assessor: Any) -> None:
    response = judge(api(assessor), mine, position=1, grade=2, comment="  on pool depth ", active_ms=4200)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["judgment"] == {
        "position": 1,
        "docno": first_docno(mine),
        "grade": 2,
        "cant_judge": False,
        "comment": "on pool depth",
        "judged": True,
        "revision": 1,
        "active_ms": 4200,
    }
    assert body["progress"] == {"judged": 1, "total": mine.items.count()}
    saved = Judgment.objects.get(assessor=assessor)
    assert (saved.docno, saved.grade, saved.comment, saved.active_ms) == (
        first_docno(mine),
        2,
        "on pool depth",
        4200,
    )


def test_a_judgment_can_name_its_document_by_docno(mine: Assignment, assessor: Any) -> None:
    docno = mine.items.get(position=3).docno
    response = judge(api(assessor), mine, docno=docno, grade=0)
    assert response.status_code == 200
    assert response.json()["judgment"]["position"] == 3


def test_a_double_submit_saves_exactly_once(mine: Assignment, assessor: Any) -> None:
    client = api(assessor)
    first = judge(client, mine, position=1, grade=1, active_ms=900)
    again = judge(client, mine, position=1, grade=1, active_ms=900)
    assert first.status_code == again.status_code == 200
    assert Judgment.objects.filter(assessor=assessor).count() == 1
    assert JudgmentEvent.objects.filter(judgment__assessor=assessor).count() == 1
    assert again.json()["judgment"]["revision"] == 1


def test_revising_keeps_the_old_and_new_grade_in_the_history(mine: Assignment, assessor: Any) -> None:
    client = api(assessor)
    judge(client, mine, position=2, grade=0, active_ms=1000)
    response = judge(client, mine, position=2, grade=2, active_ms=500)
    assert response.json()["judgment"]["revision"] == 2
    assert response.json()["judgment"]["active_ms"] == 1000 + 500  # summed over the two visits
    judgment = Judgment.objects.get(assessor=assessor)
    assert judgment.grade == 2
    events = list(judgment.events.values_list("old_grade", "new_grade"))
    assert events == [(None, 0), (0, 2)]


def test_cant_judge_saves_no_grade(mine: Assignment, assessor: Any) -> None:
    response = judge(api(assessor), mine, position=1, cant_judge=True, comment="text is garbled")
    assert response.status_code == 200
    judgment = Judgment.objects.get(assessor=assessor)
    assert judgment.cant_judge and judgment.grade is None


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"position": 1, "grade": 7}, "grade 7 is not on the campaign's scale (0, 1, 2)"),
        ({"position": 1, "grade": -1}, "grade -1 is not on the campaign's scale (0, 1, 2)"),
        ({"position": 1}, "a judgment needs a grade (or 'can't judge')"),
        (
            {"position": 1, "grade": 1, "cant_judge": True},
            "a document the assessor cannot judge has no grade",
        ),
        ({"grade": 1}, "say which document: its position or its docno"),
        ({"position": 1, "grade": "high"}, "grade: A valid integer is required."),
        (
            {"position": 1, "grade": 1, "active_ms": -5},
            "active_ms: Ensure this value is greater than or equal to 0.",
        ),
    ],
)
def test_a_refused_judgment_is_400_with_the_reason_and_saves_nothing(
    mine: Assignment, assessor: Any, data: dict[str, Any], message: str
) -> None:
    response = judge(api(assessor), mine, **data)
    assert response.status_code == 400
    assert response.json() == {"errors": [message]}
    assert not Judgment.objects.exists()


def test_a_document_outside_the_assignment_is_refused_without_telling_more(
    campaign: Campaign, pool: Pool, assessor: Any, co_assessor: Any
) -> None:
    split = assign(campaign, pool, [assessor, co_assessor], k=1)  # each judges different documents
    alice, bob = split["alice"], split["bob"]
    bobs = first_docno(bob)
    other_topic = campaign.documents.exclude(docno__startswith="DEMO-401").first()
    assert other_topic is not None
    client = api(assessor)
    for data in (
        {"docno": bobs, "grade": 1},  # a colleague's document of the same topic
        {"docno": other_topic.docno, "grade": 1},  # a document of another topic
        {"docno": "NO-SUCH-DOC", "grade": 1},
        {"position": 999, "grade": 1},
        {"position": 1, "docno": bobs, "grade": 1},  # position and docno disagree
    ):
        response = judge(client, alice, **data)
        assert response.status_code == 400, data
        assert response.json() == {"errors": ["this document is not in the assignment"]}
    assert not Judgment.objects.exists()


def test_the_service_refuses_a_judgment_on_someone_elses_assignment(
    mine: Assignment, co_assessor: Any
) -> None:
    from judging.services import JudgingRefused

    with pytest.raises(JudgingRefused):
        judgment_record(assessor=co_assessor, assignment=mine, docno=first_docno(mine), grade=1)


def _statements(queries: CaptureQueriesContext) -> list[str]:
    return [" ".join(q["sql"].split()) for q in queries.captured_queries]


def _matches(statements: list[str], expected: list[tuple[str, str]]) -> list[str]:
    """Each statement against the expected one's pattern, in order: the mismatches, named."""
    import re

    wrong = [
        f"#{n} should be {purpose} ({pattern}), got {sql[:120]}"
        for n, (sql, (purpose, pattern)) in enumerate(zip(statements, expected, strict=False), 1)
        if not re.match(pattern, sql)
    ]
    if len(statements) != len(expected):
        wrong.append(
            f"{len(statements)} statements, {len(expected)} expected: {[s[:60] for s in statements]}"
        )
    return wrong


# What every request of the judging page's API reads before it does its own work (the session from
# the store every process shares, the database here; with WORKBENCH_CACHE_URL Redis answers it).
REQUEST_READS = [
    ("the session, read and never written", r'SELECT .* FROM "django_session"'),
    ("the user", r'SELECT .* FROM "auth_user"'),
    (
        "the assignment with its campaign and topic, and the roles held, in one",
        r'SELECT .*EXISTS\(SELECT .* FROM "pooling_membership" .* '
        r'FROM "judging_assignment" INNER JOIN "pooling_campaign"',
    ),
]


def test_save_and_next_is_one_request_of_thirteen_statements(mine: Assignment, assessor: Any) -> None:
    client = api(assessor)
    judge(client, mine, position=1, grade=1)  # the scale and the session are warm
    with CaptureQueriesContext(connection) as queries:
        response = judge(client, mine, position=2, grade=2, active_ms=3000, document=3)
    assert response.status_code == 200
    body = response.json()
    assert body["next"]["position"] == 3 and body["document"]["position"] == 3  # the next read, carried
    expected = [
        *REQUEST_READS,
        ("the judged item and the two after it", r'SELECT .* FROM "judging_assignmentitem" .* LIMIT 3'),
        # judgment_record's transaction (BEGIN; a savepoint inside the test's own transaction)
        ("the transaction", r"SAVEPOINT"),
        # FOR UPDATE on PostgreSQL; SQLite's IMMEDIATE transaction holds the write lock already
        ("the current judgment, locked", r'SELECT .* FROM "judging_judgment" .*LIMIT 1( FOR UPDATE OF .*)?$'),
        ("a savepoint: a lost race for the new row becomes an update", r"SAVEPOINT"),
        ("the new judgment", r'INSERT INTO "judging_judgment"'),
        ("", r"RELEASE SAVEPOINT"),
        ("its history event", r'INSERT INTO "judging_judgmentevent"'),
        ("the commit", r"RELEASE SAVEPOINT"),
        ("progress, after the commit", r'SELECT COUNT\(.*FROM "judging_assignmentitem"'),
        ("the next document's text", r'SELECT .* FROM "pooling_document"'),
    ]
    assert not _matches(_statements(queries), expected)


def test_a_document_fetch_takes_six_statements(mine: Assignment, assessor: Any) -> None:
    client = api(assessor)
    client.get(reverse("judging_api:assess_document", args=[mine.pk, 1]))  # the session is warm
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("judging_api:assess_document", args=[mine.pk, 2]))
    assert response.status_code == 200
    expected = [
        *REQUEST_READS,
        ("the item", r'SELECT .* FROM "judging_assignmentitem"'),
        ("my judgment of it", r'SELECT .* FROM "judging_judgment"'),
        ("its text", r'SELECT .* FROM "pooling_document"'),
    ]
    assert not _matches(_statements(queries), expected)


def test_a_save_carries_the_document_asked_for_when_it_is_one_of_the_two_ahead(
    mine: Assignment, assessor: Any
) -> None:
    client = api(assessor)
    docnos = dict(mine.items.values_list("position", "docno"))
    set_text(mine.campaign, docnos[3], "pooling bias in the third document", title="Third")
    body = judge(client, mine, position=1, grade=1, document=3).json()
    assert body["next"] == {"position": 2, "docno": docnos[2]}
    assert body["document"] == {
        "position": 3,
        "docno": docnos[3],
        "title": "Third",
        "text": "pooling bias in the third document",
        "stored": True,
        "marks": ["pooling", "bias"],
    }
    assert judge(client, mine, position=1, grade=1, document=2).json()["document"]["position"] == 2
    # further ahead, behind, or not asked: none carried (the client fetches it on its own)
    assert judge(client, mine, position=1, grade=1, document=4).json()["document"] is None
    assert judge(client, mine, position=2, grade=1, document=1).json()["document"] is None
    assert judge(client, mine, position=2, grade=1).json()["document"] is None


# ------------------------------------------------------------------------------ reading


def test_state_lists_the_items_with_my_judgments_never_a_colleagues(
    shared: dict[str, Assignment], assessor: Any, co_assessor: Any
) -> None:
    mine, theirs = shared["alice"], shared["bob"]
    docno = first_docno(mine)
    assert docno in set(theirs.items.values_list("docno", flat=True))  # k=2: a shared document
    judge(api(co_assessor), theirs, docno=docno, grade=2, comment="bob-was-here")
    body = state(api(assessor), mine).json()
    assert body["topic"]["title"] == "pooling bias test collections"
    assert body["terms"] == ["pool", "bias", "test", "collect"]  # Snowball (Porter 2) stems
    assert [g["key"] for g in body["scale"]] == ["0", "1", "2"]
    first = body["items"][0]
    assert first == {
        "position": 1,
        "docno": docno,
        "grade": None,
        "cant_judge": False,
        "comment": "",
        "judged": False,
    }
    assert body["progress"] == {"judged": 0, "total": mine.items.count()}
    assert "bob-was-here" not in state(api(assessor), mine).content.decode()
    judge(api(assessor), mine, docno=docno, grade=0)
    assert state(api(assessor), mine).json()["items"][0]["grade"] == 0


def test_document_is_returned_as_plain_text(mine: Assignment, assessor: Any) -> None:
    docno = first_docno(mine)
    set_text(mine.campaign, docno, "<script>alert(1)</script> & more", title="<b>T</b>")
    response = api(assessor).get(reverse("judging_api:assess_document", args=[mine.pk, 1]))
    assert response.status_code == 200
    body = response.json()
    assert body["text"] == "<script>alert(1)</script> & more"  # escaping is the renderer's job
    assert body["title"] == "<b>T</b>"
    assert body["stored"] is True and body["docno"] == docno


def test_a_document_without_stored_text_says_so(mine: Assignment, assessor: Any) -> None:
    mine.campaign.documents.filter(docno=first_docno(mine)).delete()
    body = api(assessor).get(reverse("judging_api:assess_document", args=[mine.pk, 1])).json()
    assert body["stored"] is False and body["text"] == ""


def test_a_position_outside_the_assignment_is_404(mine: Assignment, assessor: Any) -> None:
    response = api(assessor).get(reverse("judging_api:assess_document", args=[mine.pk, 999]))
    assert response.status_code == 404


def test_no_run_tag_score_or_rank_in_any_answer(mine: Assignment, assessor: Any) -> None:
    client = api(assessor)
    bodies = [
        state(client, mine).content.decode(),
        client.get(reverse("judging_api:assess_document", args=[mine.pk, 1])).content.decode(),
        judge(client, mine, position=1, grade=1).content.decode(),
    ]
    for body in bodies:
        for word in RUN_WORDS:
            assert word.lower() not in body.lower(), word


# -------------------------------------------------------------------------- queue assignments


def test_a_queue_assignment_grows_one_document_at_a_time(campaign: Campaign, assessor: Any) -> None:
    pool = demo_pool(campaign, spec=PoolSpec("mtf", depth=10, seed=5), name="adaptive")
    budget = 3
    assignment = assign(campaign, pool, [assessor], order=Assignment.Order.QUEUE, budget=budget)["alice"]
    client = api(assessor)
    body = state(client, assignment).json()
    assert body["queue"] is True and len(body["items"]) == 1
    assert body["progress"] == {"judged": 0, "total": budget}
    assert state(client, assignment).json()["items"] == body["items"]  # asking again adds nothing
    seen = [body["items"][0]["docno"]]
    for step in range(budget):
        answer = judge(client, assignment, position=step + 1, grade=1).json()
        assert answer["progress"]["judged"] == step + 1
        if step + 1 < budget:
            assert answer["done"] is False
            assert answer["next"]["position"] == step + 2
            seen.append(answer["next"]["docno"])
        else:
            assert answer == answer | {"done": True, "next": None}
    assert len(set(seen)) == budget
    assert list(assignment.items.order_by("position").values_list("docno", flat=True)) == seen
    final = state(client, assignment).json()
    assert final["done"] is True and len(final["items"]) == budget
