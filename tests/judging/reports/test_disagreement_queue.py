"""The adjudication queue keeps disagreements between people apart from those only a machine
causes: a filter by kind, counts of each kind (queue page, campaign page, API), and the
organizer's rule for which machine disagreements go to people at all."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns.models import Campaign
from campaigns.services import membership_add
from judging.models import AdjudicationSettings, MachineJudge
from judging.reports.selectors import adjudication_queue
from judging.services import adjudication_decide, assignments_create, judgment_record
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

# per document of topic 401 (in docno order), the grades of alice, bob and the machines llm, llm2
# (None: did not judge it). The kind and the rules that send it to people, by hand:
GRADES: list[tuple[str, dict[str, int | None], str, set[str]]] = [
    ("people", {"alice": 0, "bob": 2}, "human", {"all", "any_human", "human_majority", "none"}),
    ("people+llm", {"alice": 0, "bob": 1, "llm": 2}, "human", {"all", "any_human", "human_majority", "none"}),
    ("majority", {"alice": 1, "bob": 1, "llm": 2}, "machine", {"all", "any_human", "human_majority"}),
    ("one person", {"alice": 0, "llm": 2}, "machine", {"all", "any_human"}),
    ("machines", {"llm": 0, "llm2": 2}, "machine", {"all"}),
    ("agreed", {"alice": 1, "bob": 1, "llm": 1}, "", set()),  # no disagreement
]
RULES = ("all", "any_human", "human_majority", "none")


@pytest.fixture
def mixed(loaded: Campaign, organizer: Any, assessor: Any, co_assessor: Any) -> dict[str, str]:
    """Two people and two machine assessors judge topic 401 of a depth-5 pool: each document of
    GRADES is a case; returns case -> docno."""
    machines = []
    for name in ("llm", "llm2"):
        user = get_user_model().objects.create_user(name, password=PASSWORD)
        membership_add(campaign=loaded, user=user, roles=["assessor"])
        MachineJudge.objects.create(campaign=loaded, user=user, model="fake")
        machines.append(user)
    pool = pool_commit(pool=pool_build(campaign=loaded, name="d5", spec=PoolSpec("depth", depth=5)))
    people = [assessor, co_assessor, *machines]
    made = assignments_create(
        campaign=loaded, pool=pool, assessors=people, topics=[loaded.topics.get(number="401")], k=4
    )
    mine = {a.assessor.username: a for a in made}
    docnos = sorted(mine["alice"].items.values_list("docno", flat=True))
    cases = {}
    for (case, grades, _, _), docno in zip(GRADES, docnos, strict=False):
        for name, grade in grades.items():
            user = mine[name].assessor
            judgment_record(assessor=user, assignment=mine[name], docno=docno, grade=grade)
        cases[case] = docno
    assert len(cases) == len(GRADES)
    return cases


def expected(rule: str, kind: str = "all") -> set[str]:
    return {case for case, _, k, rules in GRADES if rule in rules and kind in ("all", k)}


def shown(queue: Any, cases: dict[str, str]) -> set[str]:
    by_docno = {d: c for c, d in cases.items()}
    return {by_docno[r.docno] for r in queue.rows}


def rule_set(campaign: Campaign, rule: str) -> None:
    AdjudicationSettings.objects.update_or_create(campaign=campaign, defaults={"machine_rule": rule})


@pytest.mark.parametrize("rule", RULES)
def test_queue_contents_and_counts_per_kind_and_rule(
    loaded: Campaign, mixed: dict[str, str], rule: str
) -> None:
    rule_set(loaded, rule)
    for kind in ("all", "human", "machine"):
        queue = adjudication_queue(campaign=loaded, kind=kind)
        assert shown(queue, mixed) == expected(rule, kind), (rule, kind)
        assert queue.machine_rule == rule
        # the counts are the queue's, whatever the filter
        assert queue.open == len(expected(rule)) and queue.decided == 0
        assert {k: c.open for k, c in queue.by_kind.items()} == {
            "human": len(expected(rule, "human")),
            "machine": len(expected(rule, "machine")),
        }


def test_the_default_keeps_every_disagreement_as_before(loaded: Campaign, mixed: dict[str, str]) -> None:
    assert not AdjudicationSettings.objects.exists()
    queue = adjudication_queue(campaign=loaded)
    assert queue.machine_rule == "all"
    assert shown(queue, mixed) == {"people", "people+llm", "majority", "one person", "machines"}


def test_decisions_count_per_kind_and_stay_when_the_rule_leaves_them_out(
    loaded: Campaign, mixed: dict[str, str], organizer: Any
) -> None:
    adjudication_decide(
        adjudicator=organizer, campaign=loaded, topic="401", docno=mixed["one person"], grade=1
    )
    queue = adjudication_queue(campaign=loaded, show="decided")
    assert shown(queue, mixed) == {"one person"}
    assert (queue.by_kind["machine"].open, queue.by_kind["machine"].decided) == (2, 1)
    assert (queue.by_kind["human"].open, queue.by_kind["human"].decided) == (2, 0)
    rule_set(loaded, "human_majority")
    queue = adjudication_queue(campaign=loaded, show="all")
    assert shown(queue, mixed) == {"people", "people+llm", "majority"}
    assert (queue.open, queue.decided) == (3, 0)
    rule_set(loaded, "all")  # the decision was kept
    assert shown(adjudication_queue(campaign=loaded, show="decided"), mixed) == {"one person"}


def test_the_api_filters_by_kind_and_gives_the_counts(
    loaded: Campaign, mixed: dict[str, str], adjudicator: Any
) -> None:
    api = APIClient()
    api.force_authenticate(adjudicator)
    url = reverse("judging_api:adjudication", args=[loaded.slug])
    body = api.get(url, {"kind": "machine"}).json()
    assert {r["docno"] for r in body["rows"]} == {mixed[c] for c in expected("all", "machine")}
    assert body["kinds"] == {"human": {"open": 2, "decided": 0}, "machine": {"open": 3, "decided": 0}}
    assert body["machine_rule"] == "all" and body["open"] == 5
    assert {r["kind"] for r in body["rows"]} == {"machine"}
    body = api.get(url, {"kind": "human"}).json()
    assert {r["docno"] for r in body["rows"]} == {mixed["people"], mixed["people+llm"]}
    refused = api.get(url, {"kind": "machines"})
    assert refused.status_code == 400


def test_the_organizer_chooses_the_rule_by_api_with_what_each_would_send(
    loaded: Campaign, mixed: dict[str, str], organizer: Any, adjudicator: Any, assessor: Any, outsider: Any
) -> None:
    api = APIClient()
    api.force_authenticate(organizer)
    url = reverse("judging_api:adjudication_settings", args=[loaded.slug])
    body = api.get(url).json()
    assert body["machine_rule"] == "all"
    assert {r: v["open"] for r, v in body["rules"].items()} == {
        "all": 3,
        "any_human": 2,
        "human_majority": 1,
        "none": 0,
    }
    changed = api.put(url, {"machine_rule": "human_majority"}, format="json")
    assert changed.status_code == 200 and changed.json()["machine_rule"] == "human_majority"
    assert AdjudicationSettings.objects.get(campaign=loaded).machine_rule == "human_majority"
    queue = api.get(reverse("judging_api:adjudication", args=[loaded.slug])).json()
    assert {r["docno"] for r in queue["rows"]} == {mixed[c] for c in expected("human_majority")}
    assert api.put(url, {"machine_rule": "some"}, format="json").status_code == 400
    for user, status in ((adjudicator, 403), (assessor, 403), (outsider, 404)):
        other = APIClient()
        other.force_authenticate(user)
        assert other.get(url).status_code == status
        assert other.put(url, {"machine_rule": "none"}, format="json").status_code == status
    assert AdjudicationSettings.objects.get(campaign=loaded).machine_rule == "human_majority"


def page_state(html: str) -> dict[str, Any]:
    from tests.judging.reports.test_adjudication import page_state as state

    return state(html)


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_the_queue_page_filters_by_kind_and_shows_each_count(
    loaded: Campaign, mixed: dict[str, str], organizer: Any, adjudicator: Any
) -> None:
    url = reverse("judging:adjudication", args=[loaded.slug])
    html = login(adjudicator).get(url, {"kind": "human"}).content.decode()
    # the page shows one disagreement at a time; its script's state lists the view's
    listed = {item["docno"] for item in page_state(html)["items"]}
    assert {c for c, d in mixed.items() if d in listed} == {"people", "people+llm"}
    assert page_state(html)["kind"] == "human"
    assert 'id="queue-open-human">2<' in html and 'id="queue-open-machine">3<' in html
    assert '<option value="human" selected>between people</option>' in html
    assert "every one, machines among themselves included" in html
    assert 'id="machine-rule-change"' not in html  # the adjudicator does not choose the rule
    html = login(organizer).get(url, {"kind": "machine"}).content.decode()
    listed = {item["docno"] for item in page_state(html)["items"]}
    assert {c for c, d in mixed.items() if d in listed} == expected("all", "machine")
    assert 'id="machine-rule-change"' in html


def test_the_settings_page_shows_each_rule_with_its_count_and_saves_it(
    loaded: Campaign, mixed: dict[str, str], organizer: Any, adjudicator: Any
) -> None:
    url = reverse("judging:adjudication_settings", args=[loaded.slug])
    web = login(organizer)
    html = web.get(url).content.decode()
    assert 'value="all" checked' in html
    for rule, n in (("all", 3), ("any_human", 2), ("human_majority", 1), ("none", 0)):
        row = html[html.index(f'id="rule-{rule}"') :]
        assert f'<td class="open">{n}</td>' in row[: row.index("</tr>")]
    response = web.post(url, {"machine_rule": "none"}, follow=True)
    assert 'value="none" checked' in response.content.decode()
    assert adjudication_queue(campaign=loaded).by_kind["machine"].open == 0
    assert login(adjudicator).get(url).status_code == 403


def test_the_campaign_page_counts_each_kind_and_links_to_the_filtered_queue(
    loaded: Campaign, mixed: dict[str, str], organizer: Any
) -> None:
    rule_set(loaded, "any_human")
    html = login(organizer).get(reverse("campaigns:campaign", args=[loaded.slug])).content.decode()
    step = html[html.index('id="step-adjudication"') :]
    step = step[: step.index("</li>\n")]
    queue = reverse("judging:adjudication", args=[loaded.slug])
    assert "4 open, 0 decided" in step
    assert f'<a href="{queue}?show=open&amp;kind=human">2 open between people (0 decided)</a>' in step
    assert f'<a href="{queue}?show=open&amp;kind=machine">2 open machine vs people (0 decided)</a>' in step
    assert reverse("judging:adjudication_settings", args=[loaded.slug]) in step
    assert "where a machine&#x27;s grade differs from a person&#x27;s" in step


def test_a_decision_obeys_the_machine_rule(loaded: Campaign, mixed: dict[str, str], organizer: Any) -> None:
    """The rule decides what the queue holds, and a decision is taken only on what the queue
    holds: under ``none`` a disagreement only a machine causes is refused, with the rule named;
    one between people is still decided."""
    from judging.errors import JudgingRefused
    from judging.services import adjudication_settings_set

    adjudication_settings_set(campaign=loaded, machine_rule="none")
    with pytest.raises(JudgingRefused, match=r"only a machine disagrees.*\(none\)"):
        adjudication_decide(
            adjudicator=organizer, campaign=loaded, topic="401", docno=mixed["majority"], grade=1
        )
    decided = adjudication_decide(
        adjudicator=organizer, campaign=loaded, topic="401", docno=mixed["people"], grade=1
    )
    assert decided.decision.grade == 1
    adjudication_settings_set(campaign=loaded, machine_rule="human_majority")
    decided = adjudication_decide(
        adjudicator=organizer, campaign=loaded, topic="401", docno=mixed["majority"], grade=1
    )
    assert decided.decision.docno == mixed["majority"]
