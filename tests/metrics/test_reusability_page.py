"""The reusability report on the judgments so far: a job whose numbers are leave_out_reusability's.

Access for these routes is checked with the live page's (tests/metrics/test_live_pages.py).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.template.defaultfilters import floatformat
from django.urls import reverse

from campaigns.models import Campaign
from campaigns.services import runs_import, topics_import
from engine.evaluate import Judgments
from jobs.models import Job
from judging.services import assignments_create
from metrics.live import jobs as live_jobs  # noqa: F401  (registers the job kinds, as MetricsConfig.ready does)
from metrics.sources import JudgmentSource, source_judgments
from pooling.diagnostics import DEFAULT_MEASURES, Reusability, leave_out_reusability
from pooling.models import Pool
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import demo_dir, demo_run_paths, demo_runs
from tests.metrics.test_live_pages import judge_first, login

pytestmark = pytest.mark.django_db

GROUPS = {"bm25": "lexical", "bm25_rm3": "lexical", "dense_retriever": "neural", "random_baseline": "neural"}


@pytest.fixture
def grouped(campaign: Campaign, organizer: Any, assessor: Any) -> dict[str, Any]:
    """The demo runs in two groups; a depth-5 pool judged 6 documents per topic in random order."""
    topics_import(campaign=campaign, path=demo_dir() / "topics.txt")
    paths = demo_run_paths()
    for group in ("lexical", "neural"):
        runs_import(campaign=campaign, paths=[p for p in paths if GROUPS[p.stem] == group], group=group)
    pool = pool_commit(pool=pool_build(campaign=campaign, name="d5", spec=PoolSpec("depth", depth=5)))
    assignments_create(campaign=campaign, pool=pool, assessors=[assessor], seed=2)
    judge_first(pool, assessor, 6)
    return {"campaign": campaign, "pool": pool}


def expected(campaign: Campaign, pool: Pool, *, groups: dict[str, str] | None = None) -> Reusability:
    """leave_out_reusability on the same judgments: the consensus with the pool's unjudged as -1,
    every run contributing its top 5 (the pool's depth)."""
    sourced = source_judgments(campaign=campaign, source=JudgmentSource(pool=pool.pk))
    return leave_out_reusability(
        demo_runs(),
        Judgments(sourced.judgments.qrels),
        measures=DEFAULT_MEASURES,
        depth={tag: 5 for tag in GROUPS},
        groups=groups,
    )


def assert_same(shown: dict[str, Any], truth: Reusability) -> None:
    assert [m["measure"] for m in shown["measures"]] == list(truth.measures)
    for m in shown["measures"]:
        t = truth.measures[m["measure"]]
        assert m["tau_b"] == pytest.approx(t.tau_b, abs=1e-6)
        assert m["tau_ap"] == pytest.approx(t.tau_ap, abs=1e-6)
        assert m["max_drop"] == pytest.approx(t.max_drop, abs=1e-6) and m["max_drop_run"] == t.max_drop_run
        assert (m["max_rank_drop"], m["max_rank_drop_run"]) == (t.max_rank_drop, t.max_rank_drop_run)
        held = {h.run: h for h in t.held_out}
        for r in m["runs"]:
            h = held[r["run"]]
            assert (r["full"], r["reduced"]) == (
                pytest.approx(h.full, abs=1e-6),
                pytest.approx(h.reduced, abs=1e-6),
            )
            assert (r["full_rank"], r["reduced_rank"], r["rank_change"]) == (
                h.full_rank,
                h.reduced_rank,
                h.rank_change,
            )
    assert [
        (r["unit"], r["removed"], r["removed_judged"], r["removed_relevant"]) for r in shown["removals"]
    ] == [(r.unit, r.removed, r.removed_judged, r.removed_relevant) for r in truth.removals]


def result_of(job: Job) -> dict[str, Any]:
    assert job.status == Job.Status.DONE, job.errors
    assert isinstance(job.result, dict)
    return job.result


def summary_cell(body: str, unit: str, measure: str, cls: str) -> str:
    table = re.search(rf'id="reuse-{unit}-summary".*?</table>', body, re.S)
    assert table
    row = re.search(rf'<tr data-measure="{re.escape(measure)}">.*?</tr>', table.group(0), re.S)
    assert row, measure
    cell = re.search(rf'class="{cls}">(.*?)</td>', row.group(0), re.S)
    assert cell, cls
    return cell.group(1).strip()


def test_report_numbers_are_leave_out_reusability_on_the_live_judgments(
    grouped: dict[str, Any], organizer: Any
) -> None:
    campaign, pool = grouped["campaign"], grouped["pool"]
    client = login(organizer)
    page = client.get(reverse("reuse_report", args=[campaign.slug]))
    assert page.status_code == 200 and "map, bpref, infAP, ndcg_cut.10, P.10" in page.content.decode()
    response = client.post(
        reverse("reuse_report", args=[campaign.slug]), {"pool": pool.pk, "rule": "majority"}
    )
    job = Job.objects.get(kind="live_reusability")
    assert response.status_code == 302 and response["Location"] == reverse("jobs:job", args=[job.id])
    result = result_of(job)
    assert result["depth"] == {tag: 5 for tag in GROUPS} and result["skipped"] == ""
    by_run, by_group = expected(campaign, pool), expected(campaign, pool, groups=GROUPS)
    assert_same(result["run"], by_run)
    assert_same(result["group"], by_group)
    # the job page shows the same numbers, every measure, for runs and for groups
    body = client.get(reverse("jobs:job", args=[job.id])).content.decode()
    for unit, truth in (("run", by_run), ("group", by_group)):
        for name, m in truth.measures.items():
            assert summary_cell(body, unit, name, "tau-b") == floatformat(m.tau_b, 4)
            assert summary_cell(body, unit, name, "tau-ap") == floatformat(m.tau_ap, 4)
            assert summary_cell(body, unit, name, "max-drop") == floatformat(m.max_drop, 4)
            assert summary_cell(body, unit, name, "max-rank-drop") == str(m.max_rank_drop)
    for h in by_run.measures["map"].held_out:
        assert re.search(
            rf'<tr data-run="{h.run}">.*?class="reduced">{re.escape(floatformat(h.reduced, 4))}<', body, re.S
        )
    # the report page lists it among the earlier reports
    assert str(job.id) in client.get(reverse("reuse_report", args=[campaign.slug])).content.decode()


def test_the_api_starts_the_same_report(grouped: dict[str, Any], organizer: Any) -> None:
    campaign, pool = grouped["campaign"], grouped["pool"]
    response = login(organizer).post(
        reverse("metrics_api:reuse_report", args=[campaign.slug]), {}, content_type="application/json"
    )
    assert response.status_code == 202
    job = Job.objects.get(pk=response.json()["job"])
    assert job.params == {"pool": pool.pk, "rule": "majority"}
    assert_same(result_of(job)["run"], expected(campaign, pool))


def test_a_sampled_pool_says_which_measures_it_leaves_out(
    loaded: Campaign, organizer: Any, assessor: Any
) -> None:
    spec = PoolSpec("stratified", strata=(5, 20), rates=(1.0, 0.5), seed=1)
    pool = pool_commit(pool=pool_build(campaign=loaded, name="s", spec=spec))
    assignments_create(campaign=loaded, pool=pool, assessors=[assessor], seed=3)
    judge_first(pool, assessor, 6)
    client = login(organizer)
    client.post(reverse("reuse_report", args=[loaded.slug]), {"pool": pool.pk})
    job = Job.objects.get(kind="live_reusability")
    result = result_of(job)
    assert "xinfAP and statAP are left out" in result["skipped"]
    assert [m["measure"] for m in result["run"]["measures"]] == [
        "map",
        "bpref",
        "infAP",
        "ndcg_cut_10",
        "P_10",
    ]
    # the stratified pool read ranks 1-20 of every run
    assert result["depth"] == {tag: 20 for tag in GROUPS}
    assert "xinfAP and statAP are left out" in client.get(reverse("jobs:job", args=[job.id])).content.decode()


def test_refused_without_a_committed_pool(campaign: Campaign, organizer: Any) -> None:
    client = login(organizer)
    response = client.post(reverse("reuse_report", args=[campaign.slug]), {})
    assert response.status_code == 400 and "no committed pool" in response.content.decode()
    response = client.post(
        reverse("metrics_api:reuse_report", args=[campaign.slug]), {}, content_type="application/json"
    )
    assert response.status_code == 400
    assert not Job.objects.exists()
