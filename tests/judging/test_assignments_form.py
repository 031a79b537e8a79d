"""The assignments form: checkable lists (no Ctrl-click multi-selects), and it keeps what was
chosen, after creating assignments and after a refusal (k used to come back as 1)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign
from judging.models import Assignment
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
def pools(loaded: Campaign) -> list[Pool]:
    return [
        pool_commit(pool=pool_build(campaign=loaded, name=name, spec=PoolSpec("depth", depth=depth)))
        for name, depth in (("d3", 3), ("d5", 5))
    ]


def checked(page: str, name: str) -> list[str]:
    """The values of the checked checkboxes called ``name``."""
    boxes = re.findall(rf'<input type="checkbox" name="{name}" value="([^"]*)"([^>]*)>', page)
    return [value for value, rest in boxes if " checked" in rest]


def boxes(page: str, name: str) -> list[str]:
    return re.findall(rf'<input type="checkbox" name="{name}" value="([^"]*)"', page)


def value(page: str, field: str) -> str:
    match = re.search(rf'<input type="number"[^>]* id="{field}" name="{field}"[^>]* value="([^"]*)"', page)
    assert match, field
    return match.group(1)


def selected(page: str, field: str) -> str:
    select = re.search(rf'<select id="{field}" name="{field}">(.*?)</select>', page, re.S)
    assert select, field
    (chosen,) = re.findall(r'<option value="([^"]*)" selected>', select.group(1))
    return chosen


def test_assessors_and_topics_are_checkboxes_not_multi_selects(
    web: Client, loaded: Campaign, pools: list[Pool], assessor: Any, co_assessor: Any
) -> None:
    page = web.get(reverse("judging:assignments", args=[loaded.slug])).content.decode()
    assert "<select" in page and "multiple" not in page
    assert boxes(page, "assessors") == ["alice", "bob"]
    assert boxes(page, "topics") == ["401", "402", "403", "404", "405"]
    assert checked(page, "assessors") == [] and checked(page, "topics") == []
    # the tools JavaScript turns on, and the script itself (a static file: the CSP has no inline script)
    assert "data-filter" in page and "data-all" in page and "workbench/checklist.js" in page
    assert value(page, "k") == "1" and selected(page, "order") == "random"


def test_the_form_keeps_its_values_after_creating_assignments(
    web: Client, loaded: Campaign, pools: list[Pool], assessor: Any, co_assessor: Any
) -> None:
    url = reverse("judging:assignments", args=[loaded.slug])
    chosen = {
        "pool": str(pools[1].pk),
        "assessors": ["alice", "bob"],
        "topics": ["401", "403"],
        "overlap": "k",
        "k": "2",
        "sample_percent": "25",
        "min_pair": "3",
        "order": "docno",
        "seed": "7",
        "budget": "",
    }
    response = web.post(url, chosen)
    assert response.status_code == 302
    assert Assignment.objects.filter(pool=pools[1]).count() == 4  # 2 topics x 2 assessors, k = 2
    page = web.get(response["Location"]).content.decode()
    assert "4 assignment(s) created" in page
    assert selected(page, "pool") == str(pools[1].pk)
    assert checked(page, "assessors") == ["alice", "bob"] and checked(page, "topics") == ["401", "403"]
    assert selected(page, "overlap") == "k" and selected(page, "order") == "docno"
    assert (
        value(page, "k"),
        value(page, "sample_percent"),
        value(page, "min_pair"),
        value(page, "seed"),
    ) == (
        "2",
        "25",
        "3",
        "7",
    )
    # and on the next visit too: the organizer deals the next topics with the same settings
    again = web.get(url).content.decode()
    assert value(again, "k") == "2" and checked(again, "topics") == ["401", "403"]


def test_the_form_keeps_its_values_after_a_refusal(
    web: Client, loaded: Campaign, pools: list[Pool], assessor: Any, co_assessor: Any
) -> None:
    url = reverse("judging:assignments", args=[loaded.slug])
    refused = web.post(
        url,
        {"pool": str(pools[0].pk), "assessors": ["alice"], "topics": ["402"], "overlap": "k", "k": "3",
         "order": "docno", "seed": "11"},
    )  # fmt: skip
    page = refused.content.decode()
    assert refused.status_code == 200 and "needs between 1 and 1" in page
    assert selected(page, "pool") == str(pools[0].pk)
    assert checked(page, "assessors") == ["alice"] and checked(page, "topics") == ["402"]
    assert value(page, "k") == "3" and value(page, "seed") == "11" and selected(page, "order") == "docno"
    # a malformed number comes back as typed, beside its refusal
    page = web.post(
        url, {"pool": str(pools[0].pk), "assessors": ["alice", "bob"], "seed": "-4"}
    ).content.decode()
    assert "seed:" in page and value(page, "seed") == "-4" and checked(page, "assessors") == ["alice", "bob"]
    assert not Assignment.objects.exists()


def test_each_campaign_keeps_its_own_form(
    web: Client, loaded: Campaign, pools: list[Pool], assessor: Any, co_assessor: Any, organizer: Any
) -> None:
    from campaigns.services import campaign_create, membership_add, runs_import, topics_import
    from tests.conftest import demo_dir, demo_run_paths

    other = campaign_create(slug="other", name="Other")
    membership_add(campaign=other, user=organizer, roles=["organizer"])
    membership_add(campaign=other, user=assessor, roles=["assessor"])
    topics_import(campaign=other, path=demo_dir() / "topics.txt")
    runs_import(campaign=other, paths=demo_run_paths(), group="demo")
    pool_commit(pool=pool_build(campaign=other, name="d2", spec=PoolSpec("depth", depth=2)))
    response = web.post(
        reverse("judging:assignments", args=[loaded.slug]),
        {"pool": str(pools[0].pk), "assessors": ["alice"], "topics": ["401"], "k": "1", "seed": "9"},
    )
    assert response.status_code == 302
    page = web.get(reverse("judging:assignments", args=[other.slug])).content.decode()
    assert value(page, "seed") == "0" and checked(page, "assessors") == [] and checked(page, "topics") == []
    assert value(web.get(response["Location"]).content.decode(), "seed") == "9"
