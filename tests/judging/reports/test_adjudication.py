"""The adjudication queue: disagreements by grade distance, decisions recorded, shown, changed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Document
from judging.models import Adjudication, Assignment, Judgment
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


def page_state(html: str) -> dict[str, Any]:
    """The state the adjudication page hands its script (the json_script element)."""
    start = html.index('id="adjudicate-state" type="application/json">') + len(
        'id="adjudicate-state" type="application/json">'
    )
    return dict(json.loads(html[start : html.index("</script>", start)]))


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
    # the page shows the first and carries the list for its script, in the same order
    assert f'data-docno="{expected[0][1]}"' in html
    state = page_state(html)
    assert [(r["topic"], r["docno"], r["distance"]) for r in state["items"]] == expected
    assert d["agreed"] not in html and d["cant"] not in html
    assert 'id="queue-open">5<' in html
    # the votes are shown by username
    assert "alice: 0" in html and "bob: 2" in html
    # the form's way through the list: ?item=N is the N-th, with its own votes
    third = client.get(reverse("judging:adjudication", args=[loaded.slug]), {"item": 3}).content.decode()
    assert f'data-docno="{expected[2][1]}"' in third and "alice: 0" in third and "bob: 1" in third


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


# ------------------------------------------------------------------- the page's script's API


def item_api(client: Client, campaign: Campaign, topic: str, docno: str) -> Any:
    return client.get(
        reverse("judging_api:adjudication_item", args=[campaign.slug]), {"topic": topic, "docno": docno}
    )


def test_the_item_api_answers_what_the_page_shows_of_a_disagreement(
    loaded: Campaign, disputed: dict[str, str], adjudicator: Any
) -> None:
    client = login(adjudicator)
    Document.objects.update_or_create(
        campaign=loaded, docno=disputed["far_402"], defaults={"title": "T", "text": "the text"}
    )
    Judgment.objects.filter(docno=disputed["far_402"], assessor__username="bob").update(
        comment="bob's reason"
    )
    body = item_api(client, loaded, "402", disputed["far_402"]).json()
    assert body == {
        "topic": "402",
        "docno": disputed["far_402"],
        "distance": 2,
        "kind": "human",
        "decision": None,
        "votes": [
            {"assessor": "alice", "grade": 2, "cant_judge": False, "comment": "", "machine": False},
            {"assessor": "bob", "grade": 0, "cant_judge": False, "comment": "bob's reason", "machine": False},
        ],
        "title": "T",
        "text": "the text",
        "stored": True,
        "statement": {
            "number": "402",
            "title": "assessor agreement kappa",
            "description": "How well do relevance assessors agree with each other?",
            "narrative": "Relevant documents report inter-assessor agreement, e.g. Cohen's kappa or overlap.",
        },
    }
    # the page's first disagreement is the same JSON
    page = client.get(reverse("judging:adjudication", args=[loaded.slug]), {"topic": "402"})
    assert page_state(page.content.decode())["current"] == body
    refused = item_api(client, loaded, "401", disputed["agreed"])
    assert refused.status_code == 400
    assert refused.json()["errors"] == [
        f"'{disputed['agreed']}' of topic 401 is not in the adjudication queue: its assessors do not disagree"
    ]


def test_a_decision_brings_the_next_disagreement_and_says_what_it_replaced(
    loaded: Campaign,
    disputed: dict[str, str],
    adjudicator: Any,
    django_assert_max_num_queries: Any,
) -> None:
    client = login(adjudicator)
    url = reverse("judging_api:adjudication_decide", args=[loaded.slug])
    data = {"topic": "401", "docno": disputed["far_401"], "grade": 1, "note": "n"}
    ahead = {"next_topic": "402", "next_docno": disputed["far_402"]}
    with django_assert_max_num_queries(30):  # one request: decide, then read the next one
        first = client.post(url, data | ahead, content_type="application/json").json()
    assert (first["grade"], first["note"], first["previous"]) == (1, "n", None)
    assert first["item"] == item_api(client, loaded, "402", disputed["far_402"]).json()
    changed = client.post(url, data | {"grade": 2, "note": ""}, content_type="application/json").json()
    assert changed["previous"] == {"grade": 1, "note": "n"} and changed["item"] is None
    half = client.post(url, data | {"next_topic": "402"}, content_type="application/json")
    assert half.status_code == 400 and half.json()["errors"] == ["next_topic and next_docno go together"]


def test_withdrawing_a_decision_opens_the_disagreement_again(
    loaded: Campaign, disputed: dict[str, str], adjudicator: Any
) -> None:
    client = login(adjudicator)
    docno = disputed["far_401"]
    client.post(
        reverse("judging_api:adjudication_decide", args=[loaded.slug]),
        {"topic": "401", "docno": docno, "grade": 2},
        content_type="application/json",
    )
    api = reverse("judging_api:adjudication_withdraw", args=[loaded.slug])
    stale = client.post(api, {"topic": "401", "docno": docno, "grade": 1}, content_type="application/json")
    assert stale.status_code == 400 and "has final grade 2 now, not 1" in stale.json()["errors"][0]
    done = client.post(api, {"topic": "401", "docno": docno, "grade": 2}, content_type="application/json")
    assert done.json() == {"topic": "401", "docno": docno, "withdrawn": True}
    assert not Adjudication.objects.exists() and docno in [r[1] for r in queue_rows(client, loaded)]
    # the page's form does the same (the page without its script)
    client.post(
        reverse("judging:adjudication_decide", args=[loaded.slug]),
        {"topic": "401", "docno": docno, "grade": 0},
    )
    back = reverse("judging:adjudication", args=[loaded.slug]) + "?show=decided"
    page = client.post(
        reverse("judging:adjudication_withdraw", args=[loaded.slug]),
        {"topic": "401", "docno": docno, "grade": 0, "next": back},
    )
    assert page.status_code == 302 and page["Location"] == back
    assert not Adjudication.objects.exists()


def test_someone_elses_decision_is_refused_on_the_api_with_who_made_it(
    loaded: Campaign, disputed: dict[str, str], adjudicator: Any, organizer: Any
) -> None:
    docno = disputed["far_401"]
    url = reverse("judging_api:adjudication_decide", args=[loaded.slug])
    login(organizer).post(url, {"topic": "401", "docno": docno, "grade": 0}, content_type="application/json")
    answer = login(adjudicator).post(
        url, {"topic": "401", "docno": docno, "grade": 2}, content_type="application/json"
    )
    assert answer.status_code == 400
    assert answer.json()["errors"] == [
        f"topic 401, '{docno}' was already decided by olga (final grade 0): only they can change it"
    ]
    assert Adjudication.objects.get().grade == 0


def test_the_page_walks_the_list_without_a_script(
    loaded: Campaign, disputed: dict[str, str], adjudicator: Any
) -> None:
    """The open view: a decision's form goes back to the same place, where the next one now is;
    the decided view goes one further."""
    client = login(adjudicator)
    page = client.get(reverse("judging:adjudication", args=[loaded.slug]), {"item": 2}).content.decode()
    assert f'data-docno="{disputed["far_402"]}"' in page
    assert 'name="next" value="/judging/campaigns/trec-demo/adjudication/?show=open&amp;item=2"' in page
    assert 'id="prev-link" href="/judging/campaigns/trec-demo/adjudication/?show=open&amp;item=1"' in page
    decided = client.get(reverse("judging:adjudication", args=[loaded.slug]), {"show": "all", "topic": "402"})
    html = decided.content.decode()
    assert (
        'name="next" value="/judging/campaigns/trec-demo/adjudication/?show=all&amp;topic=402&amp;item=2"'
        in html
    )
    assert 'id="adj-count">2<' in html
    end = client.get(reverse("judging:adjudication", args=[loaded.slug]), {"item": 99}).content.decode()
    assert 'id="adj-end" class="card adj-end">' in end and 'id="adj-position">–<' in end


def test_the_adjudication_api_is_in_the_schema_with_its_shapes(client: Client) -> None:
    from tests.test_api_schema import _answer, _resolve, _schema

    schema = _schema(client)
    base = "/api/judging/campaigns/{slug}/adjudication/"
    operations = {
        (base, "get"): "adjudication_queue",
        (base + "item/", "get"): "adjudication_item",
        (base + "decide/", "post"): "adjudication_decide",
        (base + "withdraw/", "post"): "adjudication_withdraw",
    }
    for (path, method), operation in operations.items():
        assert schema["paths"][path][method]["operationId"] == operation
    item = _answer(schema, base + "item/", "get", "200")
    assert {"votes", "statement", "text", "decision", "distance"} <= set(item["properties"])
    decided = _answer(schema, base + "decide/", "post", "200")
    assert {"grade", "adjudicator", "previous", "item"} <= set(decided["properties"])
    request = schema["paths"][base + "decide/"]["post"]["requestBody"]["content"]["application/json"][
        "schema"
    ]
    assert {"next_topic", "next_docno", "grade", "note"} <= set(_resolve(schema, request)["properties"])
    queue = _answer(schema, base, "get", "200")
    assert {"open", "decided", "rows"} == set(queue["properties"])
    export = schema["paths"]["/api/judging/campaigns/{slug}/exports/{kind}/"]["get"]["responses"]["200"]
    assert "X-Workbench-Withheld" in export["description"]


def test_without_machine_assessors_the_page_has_no_kinds_nor_rule(
    loaded: Campaign, disputed: dict[str, str], adjudicator: Any
) -> None:
    """Kinds of disagreement and the machine rule mean something only with machine assessors: a
    campaign of people alone gets the plain page (the phone's first screen keeps the document)."""
    html = login(adjudicator).get(reverse("judging:adjudication", args=[loaded.slug])).content.decode()
    assert 'id="adj-item"' in html
    for absent in ('id="kind-filter"', 'id="machine-rule"', 'id="queue-open-machine"'):
        assert absent not in html
