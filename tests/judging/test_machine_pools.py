"""Pools sampled by a machine assessor's grades: built from its page, the API and the command line,
every document with its stratum (the machine's grade) and inclusion probability, judged by humans
in the machine's order."""

# the machine assessors' fixtures are imported from their own tests, which pytest then injects
# ruff: noqa: F811

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns.models import Campaign, Topic
from judging.models import Assignment, Judgment, MachineJudge
from judging.services import assignments_create
from pooling.models import Pool, PoolDocument
from pooling.services import pool_commit
from tests.judging.test_machine_judges import add_machine, assign, key, pool, server, stocked, web  # noqa: F401
from tests.llm.fake_llm import FakeLLM
from trec import read_prel

pytestmark = pytest.mark.django_db


def judged(web: Client, campaign: Campaign, pool: Pool, server: FakeLLM) -> MachineJudge:
    judge = add_machine(web, campaign, server)
    assign(campaign, pool, judge, topics=2)
    web.post(reverse("judging:machine_start", args=[campaign.slug, judge.pk]))
    assert Judgment.objects.filter(assessor=judge.user, grade__isnull=False).count() > 5
    return judge


def test_the_machine_page_builds_a_pool_stratified_by_its_grades(
    web: Client, stocked: Campaign, pool: Pool, server: FakeLLM, key: str
) -> None:
    judge = judged(web, stocked, pool, server)
    page = web.get(reverse("judging:machine", args=[stocked.slug, judge.pk])).content.decode()
    assert 'id="machine-pool"' in page and "Build the sample pool" in page
    for label in ("g2", "g1", "g0", "ungraded"):  # the demo campaign's scale is 0-2
        assert f'name="rate_{label}"' in page
    rates = {"rate_g2": "1", "rate_g1": "0.5", "rate_g0": "0.25", "rate_ungraded": "0.5"}
    response = web.post(
        reverse("judging:machine_pool", args=[stocked.slug, judge.pk]),
        {"name": "llm sample", "depth": "3", "seed": "5"} | rates,
        follow=True,
    )
    assert "Pool built" in response.content.decode()
    built = Pool.objects.get(campaign=stocked, name="llm sample")
    assert built.strategy == "machine" and built.status == Pool.Status.DRAFT
    assert built.spec["machine"] == "llm" and built.spec["rates"] == [1, 0.5, 0.25, 0.5]
    grades = {
        (j.topic.number, j.docno): j.grade
        for j in Judgment.objects.filter(assessor=judge.user, grade__isnull=False).select_related("topic")
    }
    docs = list(PoolDocument.objects.filter(pool=built).select_related("topic").order_by("topic", "position"))
    assert len(docs) == sum(s["universe"] for s in built.sizes.values())
    by_cell: dict[tuple[str, str], list[PoolDocument]] = {}
    for d in docs:
        grade = grades.get((d.topic.number, d.docno))
        assert d.stratum == ("ungraded" if grade is None else f"g{grade}")  # the machine's grade
        by_cell.setdefault((d.topic.number, d.stratum), []).append(d)
    rate = {"g2": 1, "g1": 0.5, "g0": 0.25, "ungraded": 0.5}
    assert {s for _, s in by_cell} >= {"ungraded", "g0"}  # topics the machine did not judge, and its 0s
    for (_, stratum), cell in by_cell.items():
        n = sum(d.sampled for d in cell)
        assert n == max(int(rate[stratum] * len(cell) + 0.5), 1)
        assert all(d.iprob == pytest.approx(n / len(cell)) for d in cell)  # n_s / N_s, recorded
    # the humans' sample comes first in each topic, highest machine grade first
    place = {"g2": 0, "g1": 1, "g0": 2, "ungraded": 3}
    for topic in {d.topic.number for d in docs}:
        mine = [d for d in docs if d.topic.number == topic]
        drawn = [d for d in mine if d.sampled]
        assert mine[: len(drawn)] == drawn
        assert [place[d.stratum] for d in drawn] == sorted(place[d.stratum] for d in drawn)
    # the prel carries the machine's strata for xinfAP; the MQ prel the probabilities
    prel = web.get(reverse("pooling:pool_export", args=[stocked.slug, built.pk]), {"format": "prel"})
    assert prel.status_code == 200
    assert Counter(line.split()[3] for line in prel.content.decode().splitlines()) == Counter(
        d.stratum for d in docs
    )


def test_humans_then_judge_the_sample_in_the_machines_order(
    web: Client, stocked: Campaign, pool: Pool, server: FakeLLM, key: str, assessor: Any
) -> None:
    judge = judged(web, stocked, pool, server)
    web.post(
        reverse("judging:machine_pool", args=[stocked.slug, judge.pk]),
        {"name": "s", "depth": "3", "rate_g2": "1", "rate_g1": "1", "rate_g0": "0.5",
         "rate_ungraded": "1"},
    )  # fmt: skip
    sample = pool_commit(pool=Pool.objects.get(name="s"))
    topic = Topic.objects.get(campaign=stocked, number=sorted(judge_topics(judge))[0])
    (mine,) = assignments_create(
        campaign=stocked, pool=sample, assessors=[assessor], topics=[topic], order=Assignment.Order.MACHINE
    )
    items = list(mine.items.order_by("position").values_list("docno", flat=True))
    drawn = set(
        PoolDocument.objects.filter(pool=sample, topic=topic, sampled=True).values_list("docno", flat=True)
    )
    assert set(items) == drawn  # humans judge the sample only
    grades = dict(Judgment.objects.filter(assessor=judge.user, topic=topic).values_list("docno", "grade"))
    assert [grades.get(d) or 0 for d in items] == sorted((grades.get(d) or 0 for d in items), reverse=True)


def judge_topics(judge: MachineJudge) -> set[str]:
    return set(Judgment.objects.filter(assessor=judge.user).values_list("topic__number", flat=True))


def test_the_api_builds_it_and_refuses_what_cannot_be_built(
    web: Client, organizer: Any, assessor: Any, stocked: Campaign, pool: Pool, server: FakeLLM, key: str
) -> None:
    api = APIClient()
    api.force_authenticate(organizer)
    judge = add_machine(web, stocked, server)
    url = f"/api/judging/campaigns/{stocked.slug}/machines/{judge.pk}/pool/"
    early = api.post(url, {"name": "x", "rates": [1, 1, 1, 1]}, format="json")
    assert early.status_code == 400 and "graded nothing yet" in str(early.data)
    assign(stocked, pool, judge, topics=2)
    web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]))
    wrong = api.post(url, {"name": "x", "rates": [1, 0.5]}, format="json")
    assert wrong.status_code == 400 and "give 4 rates, one per stratum: g2, g1, g0, ungraded" in str(
        wrong.data
    )
    both = api.post(url, {"name": "x", "rates": [1, 1, 1, 1], "budget": 3}, format="json")
    assert both.status_code == 400 and "not both" in str(both.data)
    made = api.post(
        url,
        {"name": "by budget", "depth": 3, "budget": 4, "weights": [4, 2, 1, 2], "seed": 2},
        format="json",
    )
    assert made.status_code == 202 and made.data["url"].startswith("/api/jobs/")
    built = Pool.objects.get(name="by budget")
    assert all(s["judge"] == min(4, s["universe"]) for s in built.sizes.values())
    assert api.post(url, {"name": "by budget", "budget": 4}, format="json").status_code == 400  # name taken
    # the generic pool builder points to the machine's page instead of guessing whose grades
    generic = api.post(
        f"/api/campaigns/{stocked.slug}/pools/build/", {"name": "g", "strategy": "machine"}, format="json"
    )
    assert generic.status_code == 400 and "machine assessor" in str(generic.data)
    new_pool = web.get(reverse("pooling:pool_new", args=[stocked.slug])).content.decode()
    assert 'value="machine"' not in new_pool
    # organizers only; a machine of another campaign is not there
    other = APIClient()
    other.force_authenticate(assessor)
    assert other.post(url, {"name": "y", "budget": 2}, format="json").status_code == 403
    assert (
        api.post(f"/api/judging/campaigns/{stocked.slug}/machines/999/pool/", {}, format="json").status_code
        == 404
    )
    human = Client()
    human.force_login(assessor)
    assert human.post(reverse("judging:machine_pool", args=[stocked.slug, judge.pk]), {}).status_code == 403


RUN_A = "1 Q0 a 1 4 A\n1 Q0 b 2 3 A\n1 Q0 c 3 2 A\n1 Q0 d 4 1 A\n2 Q0 x 1 2 A\n2 Q0 y 2 1 A\n"
RUN_B = "1 Q0 b 1 4 B\n1 Q0 e 2 3 B\n1 Q0 a 3 2 B\n1 Q0 f 4 1 B\n2 Q0 y 1 2 B\n2 Q0 z 2 1 B\n"
MACHINE = "1 0 a 2\n1 0 b 0\n1 0 c 1\n1 0 e 2\n2 0 x 0\n2 0 y 1\n"  # d, f, z: not graded


def test_build_pool_samples_files_by_a_machines_qrels(tmp_path: Path) -> None:
    for name, text in (("A.run", RUN_A), ("B.run", RUN_B), ("machine.qrels", MACHINE)):
        (tmp_path / name).write_text(text)
    runs = [str(tmp_path / "A.run"), str(tmp_path / "B.run")]
    out = io.StringIO()
    call_command(
        "build_pool", "--strategy", "machine", "--machine-qrels", str(tmp_path / "machine.qrels"),
        "--rates", "1,0.5,0,1", "--depth", "4", "--format", "prel", "--output", str(tmp_path / "p.prel"),
        *runs, stdout=out, stderr=io.StringIO(),
    )  # fmt: skip
    prel = read_prel(tmp_path / "p.prel")
    strata = {
        (t, d.decode()): s.decode()
        for i, t in enumerate(prel.topics)
        for d, s in zip(
            prel.qrels.docnos[prel.qrels.offsets[i] : prel.qrels.offsets[i + 1]].tolist(),
            prel.strata[prel.qrels.offsets[i] : prel.qrels.offsets[i + 1]].tolist(),
            strict=True,
        )
    }
    assert strata == {
        ("1", "a"): "g2", ("1", "e"): "g2", ("1", "c"): "g1", ("1", "b"): "g0", ("1", "d"): "ungraded",
        ("1", "f"): "ungraded", ("2", "y"): "g1", ("2", "x"): "g0", ("2", "z"): "ungraded",
    }  # fmt: skip
    # the iter column marks the draw: all of g2 and the ungraded (rate 1), none of g0 (rate 0)
    drawn = {}
    for line in (tmp_path / "p.prel").read_text().splitlines():
        qid, iter_, docno, stratum, _ = line.split()
        drawn[(qid, docno)] = iter_ == "1"
    for cell, stratum in strata.items():
        if stratum in ("g2", "ungraded"):
            assert drawn[cell], cell
        if stratum == "g0":
            assert not drawn[cell], cell
    assert "documents" in out.getvalue()
    with pytest.raises(CommandError, match="--machine-qrels"):
        call_command(
            "build_pool", "--strategy", "machine", "--rates", "1", "--output", str(tmp_path / "q"), *runs,
            stdout=io.StringIO(), stderr=io.StringIO(),
        )  # fmt: skip
    with pytest.raises(CommandError, match="strata: g2, g1, g0, ungraded"):
        call_command(
            "build_pool", "--strategy", "machine", "--machine-qrels", str(tmp_path / "machine.qrels"),
            "--rates", "1,1", "--output", str(tmp_path / "q"), *runs,
            stdout=io.StringIO(), stderr=io.StringIO(),
        )  # fmt: skip
