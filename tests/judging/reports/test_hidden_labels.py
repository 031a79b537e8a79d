"""What an adjudicator may read (issue 10): nobody sees another person's label of a document they
still have to judge, and run names and scores stay with the organizers.

carol is both assessor and adjudicator: alice and bob disagree on 401 d1 and 402 d3; carol has
judged d3 but not d1 yet, so d1 (its votes, its text) must not reach her, on the page or the API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign
from campaigns.services import membership_add, runs_import, topics_import
from judging.models import Adjudication, Assignment, Judgment
from judging.services import assignments_create, judgment_record
from pooling.models import Pool
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

RUN = "secret_run_tag"


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def judge(pool: Pool, user: Any, topic: str, docno: str, grade: int, comment: str = "") -> None:
    a = Assignment.objects.get(pool=pool, assessor=user, topic__number=topic)
    judgment_record(assessor=user, assignment=a, docno=docno, grade=grade, comment=comment)


@pytest.fixture
def carol(campaign: Campaign) -> Any:
    user = get_user_model().objects.create_user("carol", password=PASSWORD)
    membership_add(campaign=campaign, user=user, roles=["assessor", "adjudicator"])
    return user


@pytest.fixture
def pool(campaign: Campaign, tmp_path: Path, assessor: Any, co_assessor: Any, carol: Any) -> Pool:
    (tmp_path / "topics.tsv").write_text("401\tpooling bias\n402\tassessor agreement\n")
    (tmp_path / "r.run").write_text(f"401 Q0 d1 1 2.0 {RUN}\n401 Q0 d2 2 1.0 {RUN}\n402 Q0 d3 1 1.0 {RUN}\n")
    topics_import(campaign=campaign, path=tmp_path / "topics.tsv")
    runs_import(campaign=campaign, paths=[tmp_path / "r.run"])
    pool = pool_commit(pool=pool_build(campaign=campaign, name="p", spec=PoolSpec("depth", depth=2)))
    assignments_create(campaign=campaign, pool=pool, assessors=[assessor, co_assessor, carol], k=3)
    judge(pool, assessor, "401", "d1", 1, comment="alice-thinks-partly")
    judge(pool, co_assessor, "401", "d1", 0)
    judge(pool, assessor, "402", "d3", 2)
    judge(pool, co_assessor, "402", "d3", 0, comment="bob-says-off-topic")
    judge(pool, carol, "402", "d3", 2)  # carol has judged d3, not d1
    return pool


def queue_page(client: Client, campaign: Campaign, item: int = 1) -> str:
    response = client.get(reverse("judging:adjudication", args=[campaign.slug]), {"item": item})
    assert response.status_code == 200
    return response.content.decode()


def queue_api(client: Client, campaign: Campaign) -> dict[str, Any]:
    response = client.get(reverse("judging_api:adjudication", args=[campaign.slug]), {"show": "all"})
    assert response.status_code == 200
    return dict(response.json())


def test_the_queue_hides_what_the_reader_still_has_to_judge(
    campaign: Campaign, pool: Pool, carol: Any
) -> None:
    client = login(carol)
    body = queue_page(client, campaign)
    assert 'data-docno="d3"' in body and 'data-docno="d1"' not in body
    assert "alice-thinks-partly" not in body
    assert 'id="queue-open">1<' in body
    api = queue_api(client, campaign)
    assert [(r["topic"], r["docno"]) for r in api["rows"]] == [("402", "d3")] and api["open"] == 1
    assert '"d1"' not in str(api) and "'d1'" not in str(api)
    assert queue_page(client, campaign, item=2).count('data-docno="d1"') == 0  # nothing after d3
    # judged: now she may read the others' labels of it
    judge(pool, carol, "401", "d1", 0)
    body = queue_page(client, campaign, item=2)  # after d3 (two grades apart)
    assert 'data-docno="d1"' in body and "alice-thinks-partly" in body
    assert [r["docno"] for r in queue_api(client, campaign)["rows"]] == ["d3", "d1"]


def test_an_adjudicator_with_nothing_to_judge_sees_every_disagreement(
    campaign: Campaign, pool: Pool, adjudicator: Any
) -> None:
    client = login(adjudicator)
    assert 'data-docno="d3"' in queue_page(client, campaign)
    assert 'data-docno="d1"' in queue_page(client, campaign, item=2)


def test_a_document_still_to_judge_cannot_be_decided(campaign: Campaign, pool: Pool, carol: Any) -> None:
    url = reverse("judging_api:adjudication_decide", args=[campaign.slug])
    response = login(carol).post(
        url, {"topic": "401", "docno": "d1", "grade": 1}, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        "you still have to judge 'd1' for topic 401 yourself: judge it first"
    ]
    assert not Adjudication.objects.exists()


def test_a_queue_assignment_hides_the_whole_topic_until_judged(
    campaign: Campaign, pool: Pool, carol: Any, tmp_path: Path
) -> None:
    """A queue may deal any document of its topic next: none of them is shown before it is judged."""
    from judging.reports.selectors import still_to_judge

    Assignment.objects.filter(assessor=carol, topic__number="401").update(order=Assignment.Order.QUEUE)
    Assignment.objects.get(assessor=carol, topic__number="401").items.filter(docno="d1").delete()
    hidden = still_to_judge(campaign=campaign, user=carol)
    assert hidden(("401", "d1")) and hidden(("401", "anything")) and not hidden(("402", "d3"))


def test_the_adjudication_page_shows_topic_comments_and_preselects_nothing(
    campaign: Campaign, pool: Pool, adjudicator: Any
) -> None:
    client = login(adjudicator)
    body = queue_page(client, campaign)
    assert '<span id="adj-topic-title">assessor agreement</span>' in body
    assert 'id="adj-statement-number">402<' in body
    assert "bob-says-off-topic" in body
    assert "alice: 2" in body and "bob: 0" in body
    assert " selected" not in body.split('id="decide-form"')[1]  # no grade chosen for you
    assert "grade current" not in body
    assert 'data-key="0"' in body and 'data-key="2"' in body  # the scale's keys decide
    assert "alice-thinks-partly" in queue_page(client, campaign, item=2)  # d1's comment


def test_an_adjudicator_sees_no_run_names_or_scores(campaign: Campaign, pool: Pool, adjudicator: Any) -> None:
    client = login(adjudicator)
    page = client.get(reverse("judging:agreement", args=[campaign.slug])).content.decode()
    assert RUN not in page and 'name="runs"' not in page and "stored run" not in page
    answer = client.post(
        reverse("judging:agreement", args=[campaign.slug]), {"threshold": 1, "bootstrap": 0, "runs": "true"}
    )
    assert answer.status_code == 400 and "only organizers" in answer.content.decode()
    api = client.post(
        reverse("judging_api:agreement_report", args=[campaign.slug]),
        {"threshold": 1, "runs": True},
        content_type="application/json",
    )
    assert api.status_code == 400 and "only organizers" in api.json()["errors"][0]
    report = client.get(reverse("judging_api:agreement", args=[campaign.slug]))
    assert report.status_code == 200 and RUN not in report.content.decode()


def test_an_organizer_still_ranks_the_runs(campaign: Campaign, pool: Pool, organizer: Any) -> None:
    client = login(organizer)
    page = client.get(reverse("judging:agreement", args=[campaign.slug])).content.decode()
    assert 'name="runs"' in page and "1 stored run" in page
    answer = client.post(
        reverse("judging:agreement", args=[campaign.slug]), {"threshold": 1, "bootstrap": 0, "runs": "true"}
    )
    assert answer.status_code == 302


def export(client: Client, campaign: Campaign, kind: str, api: bool = False, **query: Any) -> Any:
    name = "judging_api:export" if api else "judging:export"
    response = client.get(reverse(name, args=[campaign.slug, kind]), query)
    assert response.status_code == 200, response.content[:300]
    return response


def test_final_labels_leave_out_what_a_fixed_list_still_has_carol_judge(
    campaign: Campaign, pool: Pool, carol: Any
) -> None:
    """carol's list still has d1 (and d2, which nobody judged): the final labels come without d1,
    and say so, on the page, in a header, in the file's name; once judged it is in."""
    client = login(carol)
    page = export(client, campaign, "consensus")
    assert page.content.decode() == "402 0 d3 2\n"  # d3: 2, 0, 2 -> 2; d1 left out
    assert page["X-Workbench-Withheld"] == "1"
    assert page["Content-Disposition"] == 'attachment; filename="trec-demo-majority-withheld-1.qrels"'
    api = export(client, campaign, "binary", api=True, threshold=2)
    assert api.content.decode() == "402 0 d3 1\n" and api["X-Workbench-Withheld"] == "1"
    adjudicated = export(client, campaign, "adjudicated")
    assert "d1" not in adjudicated.content.decode() and adjudicated["X-Workbench-Withheld"] == "1"
    text = client.get(reverse("judging:exports", args=[campaign.slug])).content.decode()
    assert 'id="withheld"' in text and "<strong>1</strong> document" in text
    for docno in ("d1", "d2"):
        judge(pool, carol, "401", docno, 0)
    whole = export(client, campaign, "consensus")
    # d1: alice 1, bob 0, carol 0 -> 0; d2: carol alone -> 0
    assert whole.content.decode() == "401 0 d1 0\n401 0 d2 0\n402 0 d3 2\n"
    assert whole["X-Workbench-Withheld"] == "0"
    assert whole["Content-Disposition"] == 'attachment; filename="trec-demo-majority.qrels"'
    assert (
        'id="withheld"' not in client.get(reverse("judging:exports", args=[campaign.slug])).content.decode()
    )


def test_final_labels_leave_out_what_a_queue_may_still_deal_carol(
    campaign: Campaign,
    pool: Pool,
    carol: Any,
    assessor: Any,
    co_assessor: Any,
    organizer: Any,
    adjudicator: Any,
) -> None:
    """carol judged d1, then her topic 401 became a queue: d2, which alice and bob judged, is in
    none of her lists, but the queue may deal it to her next, so it stays out of her labels."""
    judge(pool, carol, "401", "d1", 0)
    judge(pool, assessor, "401", "d2", 2)
    judge(pool, co_assessor, "401", "d2", 1)
    mine = Assignment.objects.get(assessor=carol, topic__number="401")
    mine.items.filter(docno="d2").delete()  # not dealt to her yet
    Assignment.objects.filter(pk=mine.pk).update(order=Assignment.Order.QUEUE)
    client = login(carol)
    body = export(client, campaign, "consensus").content.decode()
    assert body == "401 0 d1 0\n402 0 d3 2\n"  # d1: 1, 0, 0 -> 0; d2 left out
    response = export(client, campaign, "consensus", api=True, rule="median")
    assert "d2" not in response.content.decode() and response["X-Workbench-Withheld"] == "1"
    text = client.get(reverse("judging:exports", args=[campaign.slug])).content.decode()
    assert "<strong>1</strong> document" in text
    # the organizer's files are whole; so are an adjudicator's with nothing left to judge
    for user in (organizer, adjudicator):
        whole = export(login(user), campaign, "consensus")
        assert "401 0 d2 1" in whole.content.decode() and whole["X-Workbench-Withheld"] == "0"


def test_every_final_label_withheld_is_said_not_an_empty_file(
    campaign: Campaign, pool: Pool, carol: Any
) -> None:
    """carol still has both judged documents' topics to judge (d3 un-judged again: a queue on 402)."""
    Assignment.objects.filter(assessor=carol, topic__number="402").update(order=Assignment.Order.QUEUE)
    Judgment.objects.filter(assessor=carol).delete()
    response = login(carol).get(reverse("judging_api:export", args=[campaign.slug, "consensus"]))
    assert response.status_code == 400
    assert response.json()["errors"] == [
        "every final label (2) is of a document you still have to judge yourself: judge them first"
    ]
