"""Issue 10 on the assessor's side: guidelines, word forms highlighted, the landing of
adjudicators, assignments of one topic told apart, the next assignment, each assessor's own order."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign
from campaigns.services import membership_add
from judging.assess.selectors import marked_words, topic_terms
from judging.design import overlap_design
from judging.errors import JudgingRefused
from judging.models import Assignment
from judging.services import assignments_create, judgment_record
from judging.services.guidelines import GUIDELINES_MAX, campaign_guidelines_set
from pooling.models import Pool
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD
from tests.judging.assess.fixtures import assign, demo_pool, login, set_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def pool(campaign: Campaign) -> Pool:
    return demo_pool(campaign)


@pytest.fixture
def mine(campaign: Campaign, pool: Pool, assessor: Any) -> Assignment:
    return assign(campaign, pool, [assessor])["alice"]


# ------------------------------------------------------------------------------ guidelines


def test_organizer_writes_guidelines_and_the_assessor_reads_them_escaped_line_by_line(
    campaign: Campaign, mine: Assignment, organizer: Any, assessor: Any
) -> None:
    url = reverse("judging:guidelines", args=[campaign.slug])
    client = login(organizer)
    assert 'id="guidelines-form"' in client.get(url).content.decode()
    text = "Relevant: the document discusses pools.\r\nNot relevant: <b>ads</b>\r\n\r\n"
    response = client.post(url, {"guidelines": text})
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.guidelines == "Relevant: the document discusses pools.\nNot relevant: <b>ads</b>"
    body = login(assessor).get(reverse("judging:assess", args=[mine.pk])).content.decode()
    assert 'id="guidelines-text"' in body
    assert "Relevant: the document discusses pools.<br>Not relevant: &lt;b&gt;ads&lt;/b&gt;" in body
    assert "<b>ads</b>" not in body
    state = login(assessor).get(reverse("judging_api:assess_state", args=[mine.pk])).json()
    assert state["campaign"]["guidelines"] == campaign.guidelines  # the API hands them out too


def test_no_guidelines_no_box(mine: Assignment, assessor: Any) -> None:
    body = login(assessor).get(reverse("judging:assess", args=[mine.pk])).content.decode()
    assert 'id="guidelines"' not in body


@pytest.mark.parametrize(
    ("persona", "status"), [("assessor", 403), ("adjudicator", 403), ("outsider", 404), ("organizer", 302)]
)
def test_only_organizers_change_the_guidelines(
    campaign: Campaign, persona: str, status: int, request: pytest.FixtureRequest
) -> None:
    user = request.getfixturevalue(persona)
    response = login(user).post(reverse("judging:guidelines", args=[campaign.slug]), {"guidelines": "mine"})
    assert response.status_code == status
    campaign.refresh_from_db()
    assert (campaign.guidelines == "mine") == (persona == "organizer")
    anonymous = Client().get(reverse("judging:guidelines", args=[campaign.slug]))
    assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("login"))


def test_overlong_guidelines_are_refused(campaign: Campaign) -> None:
    with pytest.raises(JudgingRefused, match="at most"):
        campaign_guidelines_set(campaign=campaign, guidelines="x" * (GUIDELINES_MAX + 1))


# ------------------------------------------------------------------------------- word forms


def test_topic_words_mark_their_other_forms() -> None:
    terms = topic_terms("Battery recycling")
    assert terms == ["batteri", "recycl"]  # Snowball (Porter 2) stems
    text = "Batteries and a battery; recycled cells. Battered cars, recycling."
    assert marked_words(text, terms) == ["batteries", "recycling", "recycled", "battery"]


def test_the_document_api_lists_the_word_forms_to_mark(mine: Assignment, assessor: Any) -> None:
    docno = mine.items.get(position=1).docno
    set_text(mine.campaign, docno, "Pools and pooled judgments; a swimming pool.", title="Biases")
    url = reverse("judging_api:assess_document", args=[mine.pk, 1])
    body = login(assessor).get(url).json()
    # topic 401 is "pooling bias test collections"
    assert body["marks"] == ["biases", "pooled", "pools", "pool"]  # longest first, then a-z
    page = login(assessor).get(reverse("judging:assess", args=[mine.pk]))
    assert page.context["state"]["marks"] == body["marks"]


# ------------------------------------------------------------------------------- landing


def test_an_adjudicator_lands_one_click_from_the_queue_with_its_count(
    campaign: Campaign, pool: Pool, assessor: Any, co_assessor: Any, adjudicator: Any
) -> None:
    both = assign(campaign, pool, [assessor, co_assessor], k=2)
    docno = both["alice"].items.get(position=1).docno
    judgment_record(assessor=assessor, assignment=both["alice"], docno=docno, grade=2)
    judgment_record(assessor=co_assessor, assignment=both["bob"], docno=docno, grade=0)
    client = login(adjudicator)
    landed = client.get(reverse("home"), follow=True)
    assert landed.redirect_chain == [(reverse("judging:assess_home"), 302)]
    body = landed.content.decode()
    queue = reverse("judging:adjudication", args=[campaign.slug])
    assert f'<a class="queue-link" href="{queue}">Adjudicate</a>' in body
    assert '<span class="open">1</span> disagreement' in body
    assert "You organize no campaign" not in body


def test_an_assessor_sees_no_adjudication_section(mine: Assignment, assessor: Any) -> None:
    body = login(assessor).get(reverse("judging:assess_home")).content.decode()
    assert 'id="adjudications"' not in body


# -------------------------------------------------------------- told apart, and what comes next


def test_two_assignments_of_one_topic_are_told_apart_without_naming_pools(
    campaign: Campaign, pool: Pool, assessor: Any
) -> None:
    other = pool_commit(
        pool=pool_build(campaign=campaign, name="second-pool", spec=PoolSpec("depth", depth=3))
    )
    first = assign(campaign, pool, [assessor])["alice"]
    second = assign(campaign, other, [assessor])["alice"]
    client = login(assessor)
    home = client.get(reverse("judging:assess_home")).content.decode()
    assert "part 1 of 2" in home and "part 2 of 2" in home
    assert pool.name not in home and other.name not in home
    page = client.get(reverse("judging:assess", args=[second.pk])).content.decode()
    assert 'id="assignment-part">part 2 of 2 of this topic<' in page
    assert first.pk != second.pk


def test_the_end_of_an_assignment_links_the_next_one(campaign: Campaign, pool: Pool, assessor: Any) -> None:
    first = assign(campaign, pool, [assessor], topic="401")["alice"]
    second = assign(campaign, pool, [assessor], topic="402")["alice"]
    for docno in first.items.values_list("docno", flat=True):
        judgment_record(assessor=assessor, assignment=first, docno=docno, grade=1)
    body = login(assessor).get(reverse("judging:assess", args=[first.pk])).content.decode()
    assert f'id="next-assignment" href="{reverse("judging:assess", args=[second.pk])}"' in body
    assert pool.name not in body
    # the last one open wraps round to nothing once every assignment is judged
    for docno in second.items.values_list("docno", flat=True):
        judgment_record(assessor=assessor, assignment=second, docno=docno, grade=1)
    assert (
        'id="next-assignment"'
        not in login(assessor).get(reverse("judging:assess", args=[first.pk])).content.decode()
    )


# ------------------------------------------------------------------------------- orders


def test_each_assessor_reads_the_shared_documents_in_an_order_of_their_own(
    campaign: Campaign, pool: Pool, assessor: Any, co_assessor: Any
) -> None:
    third = get_user_model().objects.create_user("cy", password=PASSWORD)
    membership_add(campaign=campaign, user=third, roles=["assessor"])
    created = assignments_create(
        campaign=campaign, pool=pool, assessors=[assessor, co_assessor, third], k=3, order="random", seed=7
    )
    by_topic: dict[str, list[list[str]]] = {}
    for a in created:
        by_topic.setdefault(a.topic.number, []).append(
            list(a.items.order_by("position").values_list("docno", flat=True))
        )
    for orders in by_topic.values():
        assert all(sorted(o) == sorted(orders[0]) for o in orders)  # k=3: the same documents
    assert any(len({tuple(o) for o in orders}) > 1 for orders in by_topic.values() if len(orders[0]) > 2)
    # reproducible: the same seed deals the same orders
    again = overlap_design(list("abcdefgh"), ["x", "y"], k=2, seed=7, shuffle=True)
    assert again == overlap_design(list("abcdefgh"), ["x", "y"], k=2, seed=7, shuffle=True)
    assert again["x"] != again["y"]
    assert overlap_design(list("abcdefgh"), ["x", "y"], k=2, seed=7)["x"] == [(d, True) for d in "abcdefgh"]


def test_a_machine_order_breaks_its_ties_by_a_shuffle_never_by_the_pools_ranks(
    campaign: Campaign, pool: Pool, assessor: Any
) -> None:
    """Machine order deals the machine's highest grades first; documents of one grade (here all of
    them: no machine judged) come in a seeded shuffle, not in the pool's order of best rank."""
    from pooling.selectors import pool_topic_documents

    topic = campaign.topics.get(number="401")
    ranked = pool_topic_documents(pool=pool, topic=topic)
    assert len(ranked) >= 5
    (mine,) = assignments_create(
        campaign=campaign, pool=pool, assessors=[assessor], topics=[topic], order="machine", seed=3
    )
    dealt = list(mine.items.order_by("position").values_list("docno", flat=True))
    assert sorted(dealt) == sorted(ranked) and dealt != ranked


def test_someone_no_longer_an_assessor_no_longer_finds_the_assignment_listed(
    mine: Assignment, assessor: Any
) -> None:
    from campaigns.models import Membership

    url = reverse("judging:assess_home")
    assert f'id="assignment-{mine.pk}"' in login(assessor).get(url).content.decode()
    Membership.objects.filter(user=assessor).update(role=Membership.Role.ADJUDICATOR)
    assert f'id="assignment-{mine.pk}"' not in login(assessor).get(url).content.decode()
