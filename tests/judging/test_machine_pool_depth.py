"""A pool sampled by a machine's grades reads, unless told, the depth the machine graded (the pools
of its assignments), so its candidates are what it graded; the count per stratum is shown before
building (a preview, the same seeded draw), after building (the job) and on the pool's page,
draft and committed."""

# the machine assessors' fixtures are imported from their own tests, which pytest then injects
# ruff: noqa: F811

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns.models import Campaign
from judging.models import Judgment, MachineJudge
from judging.services.machine_pools import machine_graded_depth, machine_pool_preview
from pooling.models import Pool, PoolDocument
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.judging.test_machine_judges import add_machine, assign, key, pool, server, stocked, web  # noqa: F401
from tests.llm.fake_llm import FakeLLM

pytestmark = pytest.mark.django_db

RATES = {"rate_g2": "1", "rate_g1": "1", "rate_g0": "0.5", "rate_ungraded": "1"}
STRATA = ("g2", "g1", "g0", "ungraded")


@pytest.fixture
def graded(web: Client, stocked: Campaign, pool: Pool, server: FakeLLM) -> MachineJudge:
    """The machine graded every topic of the committed depth-3 pool 'd3'."""
    judge = add_machine(web, stocked, server)
    assign(stocked, pool, judge, topics=len(pool.sizes))
    web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]))
    assert Judgment.objects.filter(assessor=judge.user).count() == pool.document_count
    return judge


def by_hand(judge: MachineJudge, pool: Pool) -> Counter[str]:
    """The stratum of every document of ``pool`` under the machine's grades, counted."""
    grades = {
        (t, d): g
        for t, d, g in Judgment.objects.filter(assessor=judge.user).values_list(
            "topic__number", "docno", "grade"
        )
    }
    docs = PoolDocument.objects.filter(pool=pool).values_list("topic__number", "docno")
    return Counter("ungraded" if grades.get(k) is None else f"g{grades[k]}" for k in docs)


def test_the_depth_defaults_to_the_pool_the_machine_graded(
    web: Client, stocked: Campaign, pool: Pool, graded: MachineJudge
) -> None:
    found = machine_graded_depth(judge=graded)
    assert found is not None and (found.depth, found.pools) == (3, ("d3",))
    page = web.get(reverse("judging:machine", args=[stocked.slug, graded.pk])).content.decode()
    assert 'name="depth" value="3"' in page
    assert "It graded the documents of d3 (to depth 3)" in page
    # built with no depth given (the API): depth 3, and its candidates are the d3 pool's documents
    api = APIClient()
    api.force_authenticate(stocked.memberships.get(role="organizer").user)
    url = f"/api/judging/campaigns/{stocked.slug}/machines/{graded.pk}/pool/"
    made = api.post(url, {"name": "sample", "rates": [1, 1, 0.5, 1]}, format="json")
    assert made.status_code == 202, made.data
    built = Pool.objects.get(name="sample")
    assert built.spec["depth"] == 3
    counts = Counter(PoolDocument.objects.filter(pool=built).values_list("stratum", flat=True))
    assert counts == by_hand(graded, pool) and counts["ungraded"] == 0  # it graded every candidate


def test_without_a_pool_of_fixed_depth_the_depth_is_100(
    web: Client, stocked: Campaign, server: FakeLLM
) -> None:
    take = pool_commit(pool=pool_build(campaign=stocked, name="take", spec=PoolSpec("take", budget=3)))
    judge = add_machine(web, stocked, server)
    assign(stocked, take, judge, topics=1)
    web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]))
    assert machine_graded_depth(judge=judge) is None  # 'take' reads whole runs
    page = web.get(reverse("judging:machine", args=[stocked.slug, judge.pk])).content.decode()
    assert 'name="depth" value="100"' in page and "the depth starts at 100" in page


def test_the_preview_counts_each_stratum_as_the_build_then_draws_it(
    web: Client, stocked: Campaign, pool: Pool, graded: MachineJudge
) -> None:
    url = reverse("judging:machine_pool", args=[stocked.slug, graded.pk])
    preview = web.post(url, {"name": "s5", "depth": "5", "seed": "4", "preview": "1"} | RATES)
    assert preview.status_code == 200 and not Pool.objects.filter(name="s5").exists()  # nothing built
    html = preview.content.decode()
    assert 'name="depth" value="5"' in html and 'value="s5"' in html  # the form keeps its values
    shown = {}
    table = html[html.index('id="machine-preview"') :]
    for label in STRATA:
        row = table[table.index(f'<tr data-stratum="{label}">') :]
        row = row[: row.index("</tr>")]
        cand = int(row.split('<td class="candidates">')[1].split("<")[0])
        judge = int(row.split('<td class="judge">')[1].split("<")[0])
        shown[label] = (cand, judge)
    # at depth 5 the documents below rank 3 were never graded: they are the ungraded stratum
    d5 = pool_build(campaign=stocked, name="d5", spec=PoolSpec("depth", depth=5))
    assert {label: c for label, (c, _) in shown.items()} == {s: by_hand(graded, d5)[s] for s in STRATA}
    assert shown["ungraded"][0] == d5.document_count - pool.document_count > 0
    # the build draws exactly what the preview counted, shown by the job and the pool's page
    job_page = web.post(url, {"name": "s5", "depth": "5", "seed": "4"} | RATES, follow=True).content.decode()
    built = Pool.objects.get(name="s5")
    stored = Counter(PoolDocument.objects.filter(pool=built).values_list("stratum", flat=True))
    drawn = Counter(PoolDocument.objects.filter(pool=built, sampled=True).values_list("stratum", flat=True))
    assert {s: (stored[s], drawn[s]) for s in STRATA} == shown
    assert 'id="built-strata"' in job_page
    for status in ("draft", "committed"):
        page = web.get(reverse("pooling:pool", args=[stocked.slug, built.pk])).content.decode()
        assert f'id="pool-status">{status}<' in page
        for label, (cand, judge) in shown.items():
            row = page[page.index(f'<tr data-stratum="{label}">') :]
            row = row[: row.index("</tr>")]
            assert f'<td class="candidates">{cand}</td><td class="judge">{judge}</td>' in row, (status, label)
        if status == "draft":
            pool_commit(pool=built)
    detail = web.get(f"/api/campaigns/{stocked.slug}/pools/{built.pk}/").json()
    assert {s["stratum"]: (s["candidates"], s["judge"]) for s in detail["strata"]} == shown


def test_the_api_previews_with_the_default_depth_and_suggested_rates(
    stocked: Campaign, pool: Pool, graded: MachineJudge, assessor: Any
) -> None:
    api = APIClient()
    api.force_authenticate(stocked.memberships.get(role="organizer").user)
    url = f"/api/judging/campaigns/{stocked.slug}/machines/{graded.pk}/pool/"
    body = api.get(url).json()
    assert body["depth"] == 3 and body["graded_depth"] == {"depth": 3, "pools": ["d3"]}
    assert [s["stratum"] for s in body["strata"]] == list(STRATA)
    expected = machine_pool_preview(judge=graded, depth=3, rates=[1, 1, 0.1, 1])  # the suggested rates
    assert [(s["candidates"], s["judge"]) for s in body["strata"]] == [
        (c.candidates, c.judge) for c in expected.strata
    ]
    assert body["documents"] == sum(s["judge"] for s in body["strata"])
    deeper = api.get(url, {"depth": "5", "rates": "1,1,1,1"}).json()
    assert (
        deeper["depth"] == 5
        and deeper["documents"]
        == pool_build(campaign=stocked, name="d5", spec=PoolSpec("depth", depth=5)).document_count
    )
    assert api.get(url, {"rates": "1,1"}).status_code == 400
    human = APIClient()
    human.force_authenticate(assessor)
    assert human.get(url).status_code == 403
