"""Organizer pages and API of judging: people, the scale, assignments with overlap."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns.access import has_role
from campaigns.models import Campaign
from judging.models import Assignment, AssignmentItem, Grade
from pooling.models import Pool
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def web(organizer: Any) -> Client:
    client = Client()
    assert client.login(username=organizer.username, password=PASSWORD)
    return client


@pytest.fixture
def pool(loaded: Campaign) -> Pool:
    return pool_commit(pool=pool_build(campaign=loaded, name="d5", spec=PoolSpec("depth", depth=5)))


def test_inviting_a_new_assessor_creates_the_account_and_shows_its_password_once(
    web: Client, campaign: Campaign
) -> None:
    response = web.post(
        reverse("judging:people", args=[campaign.slug]),
        {"username": "newbie", "roles": ["assessor"]},
        follow=True,
    )
    page = response.content.decode()
    user = User.objects.get(username="newbie")
    assert has_role(user, campaign, "assessor") and not has_role(user, campaign, "organizer")
    password = page.split("created with password ")[1].split(" ")[0]
    assert user.check_password(password)
    again = web.get(reverse("judging:people", args=[campaign.slug])).content.decode()
    assert password not in again and "newbie" in again


def test_scale_page_saves_labels_and_keys(web: Client, campaign: Campaign) -> None:
    data = {
        "value-0": "0", "label-0": "Bad", "key-0": "a",
        "value-1": "1", "label-1": "Fair", "key-1": "s",
        "value-2": "3", "label-2": "Perfect", "key-2": "d", "description-2": "exactly it",
    }  # fmt: skip
    response = web.post(reverse("judging:scale", args=[campaign.slug]), data)
    assert response.status_code == 302
    assert list(Grade.objects.filter(campaign=campaign).values_list("value", "label", "key")) == [
        (0, "Bad", "a"),
        (1, "Fair", "s"),
        (3, "Perfect", "d"),
    ]
    dup = {"value-0": "0", "label-0": "x", "key-0": "a", "value-1": "1", "label-1": "y", "key-1": "a"}
    page = web.post(reverse("judging:scale", args=[campaign.slug]), dup).content.decode()
    assert "own one-character key" in page and Grade.objects.filter(campaign=campaign).count() == 3


def test_assignments_page_deals_a_double_judged_sample(
    web: Client, loaded: Campaign, pool: Pool, assessor: Any, co_assessor: Any
) -> None:
    response = web.post(
        reverse("judging:assignments", args=[loaded.slug]),
        {
            "pool": str(pool.pk),
            "assessors": ["alice", "bob"],
            "topics": ["401", "402"],
            "overlap": "sample",
            "sample_percent": "40",
            "order": "random",
            "seed": "3",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    created = Assignment.objects.filter(campaign=loaded)
    assert sorted({a.topic.number for a in created}) == ["401", "402"]
    for number in ("401", "402"):
        size = pool.sizes[number]["judge"]
        items = AssignmentItem.objects.filter(assignment__topic__number=number, assignment__campaign=loaded)
        assert items.count() == size + round(0.4 * size)  # 40% of the topic judged twice
        assert items.filter(shared=True).count() == 2 * round(0.4 * size)
    page = web.get(reverse("judging:assignments", args=[loaded.slug])).content.decode()
    assert "0 / " in page and "alice" in page and "bob" in page


def test_assignments_form_errors_are_shown(web: Client, loaded: Campaign, pool: Pool, assessor: Any) -> None:
    url = reverse("judging:assignments", args=[loaded.slug])
    page = web.post(
        url, {"pool": str(pool.pk), "assessors": ["alice"], "overlap": "k", "k": "2"}
    ).content.decode()
    assert "needs between 1 and 1" in page
    page = web.post(url, {"pool": str(pool.pk), "assessors": ["ghost"]}).content.decode()
    assert "unknown user(s): ghost" in page
    assert not Assignment.objects.exists()


def test_the_api_creates_and_lists_assignments(
    organizer: Any, loaded: Campaign, pool: Pool, assessor: Any
) -> None:
    api = APIClient()
    api.force_authenticate(organizer)
    base = f"/api/judging/campaigns/{loaded.slug}"
    response = api.post(
        f"{base}/assignments/create/",
        {"pool": pool.pk, "assessors": ["alice"], "topics": ["403"], "order": "docno"},
        format="json",
    )
    assert response.status_code == 201, response.data
    (row,) = response.data
    assert row["topic"] == "403" and row["documents"] == pool.sizes["403"]["judge"] and row["judged"] == 0
    assert api.get(f"{base}/assignments/").data == response.data
    refused = api.post(
        f"{base}/assignments/create/", {"pool": pool.pk, "assessors": ["alice"], "topics": ["403"]}
    )
    assert refused.status_code == 400 and "already assigned" in refused.data["errors"][0]
    scale = api.post(
        f"{base}/scale/set/",
        {"levels": [{"value": 0, "label": "no", "key": "n"}, {"value": 1, "label": "yes", "key": "y"}]},
        format="json",
    )
    assert scale.status_code == 200 and [g["key"] for g in api.get(f"{base}/scale/").data] == ["n", "y"]
    invite = api.post(
        f"{base}/people/invite/", {"username": "carol", "roles": ["assessor", "adjudicator"]}, format="json"
    )
    assert invite.status_code == 201 and invite.data["password"]
    assert "carol" in api.get(f"{base}/people/").data["adjudicator"]


def test_assignment_progress_counts_judged_items_and_time(
    organizer: Any, loaded: Campaign, pool: Pool, assessor: Any, co_assessor: Any
) -> None:
    from judging.services import judgment_record

    created = assignments_create_for(loaded, pool, [assessor, co_assessor])
    mine = next(a for a in created if a.assessor == assessor)
    items = list(mine.items.order_by("position").values_list("docno", flat=True))
    judgment_record(assessor=assessor, assignment=mine, docno=items[0], grade=1, active_ms=1500)
    judgment_record(assessor=assessor, assignment=mine, docno=items[1], grade=0, active_ms=2500)
    api = APIClient()
    api.force_authenticate(organizer)
    rows = {
        (r["topic"], r["assessor"]): r
        for r in api.get(f"/api/judging/campaigns/{loaded.slug}/assignments/").data
    }
    row = rows[(mine.topic.number, "alice")]
    assert (row["judged"], row["documents"], row["active_seconds"]) == (2, len(items), 4.0)
    other = rows[(mine.topic.number, "bob")]
    assert other["judged"] == 0 and other["shared"] == other["documents"]  # k=2: every item shared


def assignments_create_for(campaign: Campaign, pool: Pool, people: list[Any]) -> list[Any]:
    from judging.services import assignments_create

    return assignments_create(
        campaign=campaign, pool=pool, assessors=people, topics=[pool_topic(campaign)], k=2, seed=1
    )


def pool_topic(campaign: Campaign) -> Any:
    from campaigns.models import Topic

    return Topic.objects.get(campaign=campaign, number="401")
