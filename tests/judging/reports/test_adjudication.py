"""The adjudication queue: disagreements by grade distance, decisions recorded, shown, changed."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign
from judging.models import Adjudication, Assignment
from judging.services import assignments_create, judgment_record
from pooling.models import Pool
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def docs(a: Assignment) -> list[str]:
    return list(a.items.order_by("docno").values_list("docno", flat=True))


@pytest.fixture
def disputed(loaded: Campaign, assessor: Any, co_assessor: Any) -> dict[str, Any]:
    """alice and bob both judge topics 401 and 402 of a depth-5 pool; some documents disputed."""
    pool: Pool = pool_commit(pool=pool_build(campaign=loaded, name="d5", spec=PoolSpec("depth", depth=5)))
    assignments_create(campaign=loaded, pool=pool, assessors=[assessor, co_assessor], k=2, order="docno")

    def judge(topic: str, i: int, alice: int | None, bob: int | None) -> str:
        a = Assignment.objects.get(pool=pool, assessor=assessor, topic__number=topic)
        b = Assignment.objects.get(pool=pool, assessor=co_assessor, topic__number=topic)
        docno = docs(a)[i]
        judgment_record(assessor=assessor, assignment=a, docno=docno, grade=alice, cant_judge=alice is None)
        judgment_record(assessor=co_assessor, assignment=b, docno=docno, grade=bob, cant_judge=bob is None)
        return docno

    return {
        "far_402": judge("402", 0, 2, 0),  # distance 2
        "near_401_b": judge("401", 1, 1, 0),  # distance 1
        "near_401_a": judge("401", 0, 0, 1),  # distance 1
        "far_401": judge("401", 2, 0, 2),  # distance 2
        "agreed": judge("401", 3, 1, 1),  # not a disagreement
        "cant": judge("401", 4, None, 2),  # one grade only: not a disagreement
        "near_402": judge("402", 1, 2, 1),  # distance 1
    }


def queue_rows(client: Client, campaign: Campaign, **params: str) -> list[tuple[str, str, int]]:
    response = client.get(reverse("judging_api:adjudication", args=[campaign.slug]), params)
    assert response.status_code == 200
    return [(r["topic"], r["docno"], r["distance"]) for r in response.json()["rows"]]


def test_queue_lists_disagreements_largest_distance_first(
    loaded: Campaign, disputed: dict[str, str], adjudicator: Any
) -> None:
    d = disputed
    expected = [
        ("401", d["far_401"], 2),
        ("402", d["far_402"], 2),
        ("401", d["near_401_a"], 1),
        ("401", d["near_401_b"], 1),
        ("402", d["near_402"], 1),
    ]
    assert sorted([d["near_401_a"], d["near_401_b"]]) == [d["near_401_a"], d["near_401_b"]]
    client = login(adjudicator)
    assert queue_rows(client, loaded) == expected
    page = client.get(reverse("judging:adjudication", args=[loaded.slug]))
    assert page.status_code == 200
    html = page.content.decode()
    positions = [html.index(f'data-docno="{docno}"') for _, docno, _ in expected]
    assert positions == sorted(positions)
    assert d["agreed"] not in html and d["cant"] not in html
    assert 'id="queue-open">5<' in html
    # the votes are shown by username
    assert "alice: 0" in html and "bob: 2" in html


def test_queue_shows_the_votes_in_the_api(loaded: Campaign, disputed: dict[str, str], organizer: Any) -> None:
    response = login(organizer).get(reverse("judging_api:adjudication", args=[loaded.slug]), {"topic": "402"})
    first = response.json()["rows"][0]
    assert first["docno"] == disputed["far_402"]
    assert first["votes"] == [
        {"assessor": "alice", "grade": 2, "cant_judge": False},
        {"assessor": "bob", "grade": 0, "cant_judge": False},
    ]
    assert first["decision"] is None


def test_a_decision_leaves_the_open_queue_and_can_be_changed(
    loaded: Campaign, disputed: dict[str, str], adjudicator: Any
) -> None:
    client = login(adjudicator)
    docno = disputed["far_401"]
    url = reverse("judging:adjudication_decide", args=[loaded.slug])
    back = reverse("judging:adjudication", args=[loaded.slug]) + "?show=open"
    response = client.post(url, {"topic": "401", "docno": docno, "grade": 1, "note": "partly", "next": back})
    assert response.status_code == 302 and response["Location"] == back
    decision = Adjudication.objects.get(topic__number="401", docno=docno)
    assert (decision.grade, decision.note, decision.adjudicator.username) == (1, "partly", "ada")
    assert docno not in [r[1] for r in queue_rows(client, loaded)]
    decided = client.get(reverse("judging:adjudication", args=[loaded.slug]), {"show": "decided"})
    html = decided.content.decode()
    assert f'data-docno="{docno}"' in html
    assert "Final grade <strong>1</strong> by ada" in html and "partly" in html
    assert 'id="queue-open">4<' in html and 'id="queue-decided">1<' in html
    # changed through the API
    api = reverse("judging_api:adjudication_decide", args=[loaded.slug])
    response = client.post(api, {"topic": "401", "docno": docno, "grade": 2}, content_type="application/json")
    assert response.status_code == 200
    assert response.json()["grade"] == 2 and response.json()["adjudicator"] == "ada"
    assert Adjudication.objects.get(topic__number="401", docno=docno).grade == 2
    rows = client.get(reverse("judging_api:adjudication", args=[loaded.slug]), {"show": "all"}).json()["rows"]
    row = next(r for r in rows if r["docno"] == docno)
    assert row["decision"]["grade"] == 2 and row["decision"]["decided_at"]


def test_bad_decisions_are_refused_with_a_reason(
    loaded: Campaign, disputed: dict[str, str], adjudicator: Any
) -> None:
    client = login(adjudicator)
    url = reverse("judging:adjudication_decide", args=[loaded.slug])
    response = client.post(url, {"topic": "401", "docno": disputed["far_401"], "grade": 7}, follow=True)
    assert "grade 7 is not on the campaign" in response.content.decode()
    api = reverse("judging_api:adjudication_decide", args=[loaded.slug])
    response = client.post(api, {"topic": "999", "docno": "x", "grade": 1}, content_type="application/json")
    assert response.status_code == 400 and "no topic '999'" in response.json()["errors"][0]
    response = client.post(
        api, {"topic": "401", "docno": "never-judged", "grade": 1}, content_type="application/json"
    )
    assert response.status_code == 400 and "nobody judged" in response.json()["errors"][0]
    # an offsite "next" is not followed
    response = client.post(
        url, {"topic": "401", "docno": disputed["far_401"], "grade": 1, "next": "https://evil.example/"}
    )
    assert response["Location"] == reverse("judging:adjudication", args=[loaded.slug])
    assert not Adjudication.objects.exclude(docno=disputed["far_401"]).exists()


def test_assessors_never_see_the_queue_nor_decide(
    loaded: Campaign, disputed: dict[str, str], assessor: Any
) -> None:
    client = login(assessor)
    page = client.get(reverse("judging:adjudication", args=[loaded.slug]))
    assert page.status_code == 403 and "bob" not in page.content.decode()
    response = client.post(
        reverse("judging_api:adjudication_decide", args=[loaded.slug]),
        {"topic": "401", "docno": disputed["far_401"], "grade": 2},
        content_type="application/json",
    )
    assert response.status_code == 403
    assert not Adjudication.objects.exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"topic": "401", "grade": 7}, "grade 7 is not on the campaign's scale (0, 1, 2)"),
        ({"topic": "999", "docno": "x", "grade": 1}, "campaign 'trec-demo' has no topic '999'"),
        ({"topic": "401", "docno": "never-judged", "grade": 1}, "nobody judged 'never-judged' for topic 401"),
        ({"topic": "401", "grade": "high"}, "grade: A valid integer is required."),
    ],
)
def test_the_page_and_the_api_refuse_a_decision_with_the_same_sentence(
    loaded: Campaign, disputed: dict[str, str], adjudicator: Any, data: dict[str, Any], message: str
) -> None:
    data = {"docno": disputed["far_401"]} | data
    client = login(adjudicator)
    page = client.post(reverse("judging:adjudication_decide", args=[loaded.slug]), data)
    assert [str(m) for m in get_messages(page.wsgi_request)] == [message.replace("trec-demo", loaded.slug)]
    api = reverse("judging_api:adjudication_decide", args=[loaded.slug])
    answer = client.post(api, data, content_type="application/json")
    body = answer.json()
    # the API answers a malformed field DRF's way, field by field, in the same sentence
    sentences = body.get("errors") or [f"{field}: {p}" for field, problems in body.items() for p in problems]
    assert answer.status_code == 400 and sentences == [message.replace("trec-demo", loaded.slug)]
    assert not Adjudication.objects.exists()


def test_the_page_and_the_api_store_the_same_decision(
    loaded: Campaign, disputed: dict[str, str], adjudicator: Any
) -> None:
    client = login(adjudicator)
    data = {"topic": "401", "docno": disputed["far_401"], "grade": 1, "note": " partly "}
    client.post(reverse("judging:adjudication_decide", args=[loaded.slug]), data)
    by_page = Adjudication.objects.values_list("topic__number", "docno", "grade", "note").get()
    Adjudication.objects.all().delete()
    api = reverse("judging_api:adjudication_decide", args=[loaded.slug])
    assert client.post(api, data, content_type="application/json").json()["note"] == "partly"
    assert Adjudication.objects.values_list("topic__number", "docno", "grade", "note").get() == by_page
