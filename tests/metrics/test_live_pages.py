"""The live-estimates page and its JSON: who may see them, and the numbers they show.

Judgments are recorded through the judging services on the demo collection; expected estimates are
the formulas of engine/estimates.py on counts this file derives itself from what it judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.template.defaultfilters import floatformat
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign
from engine.estimates import Stratum, design_estimate, hypergeometric_interval
from engine.evaluate import evaluate_run
from engine.names import parse_measures
from jobs.models import Job
from judging.models import Assignment
from judging.services import assignment_next_item, assignments_create, judgment_record
from metrics.live import jobs as live_jobs  # noqa: F401  (registers the job kinds, as MetricsConfig.ready does)
from metrics.sources import JudgmentSource, source_judgments
from pooling.models import Pool
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD, demo_runs

pytestmark = pytest.mark.django_db


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def grade_of(docno: str) -> int:
    """A fixed grade per document: its docno's last digit mod 3 (0-2 scale; relevant = 1 or 2)."""
    return int(docno[-1]) % 3


def judge_first(pool: Pool, assessor: Any, per_topic: int) -> dict[str, list[int]]:
    """The assessor judges the first ``per_topic`` items of each of their assignments, in order."""
    given: dict[str, list[int]] = {}
    for a in Assignment.objects.filter(pool=pool, assessor=assessor).select_related("topic"):
        for docno in a.items.order_by("position").values_list("docno", flat=True)[:per_topic]:
            judgment_record(assessor=assessor, assignment=a, docno=docno, grade=grade_of(docno))
            given.setdefault(a.topic.number, []).append(grade_of(docno))
    return given


def depth_pool(campaign: Campaign, name: str = "d5", depth: int = 5) -> Pool:
    return pool_commit(pool=pool_build(campaign=campaign, name=name, spec=PoolSpec("depth", depth=depth)))


@pytest.fixture
def live(
    loaded: Campaign, organizer: Any, assessor: Any, co_assessor: Any, adjudicator: Any
) -> dict[str, Any]:
    """A depth-5 pool dealt to alice in a seeded random order; she judged 3 documents per topic."""
    pool = depth_pool(loaded)
    assignments_create(campaign=loaded, pool=pool, assessors=[assessor], seed=7)
    return {"campaign": loaded, "pool": pool, "given": judge_first(pool, assessor, 3)}


def api(client: Client, campaign: Campaign, query: str = "") -> dict[str, Any]:
    response = client.get(reverse("metrics_api:live_estimates", args=[campaign.slug]) + query)
    assert response.status_code == 200, response.content[:300]
    result: dict[str, Any] = response.json()
    return result


def row_html(body: str, topic: str) -> str:
    match = re.search(rf'<tr data-topic="{topic}".*?</tr>', body, re.S)
    assert match, f"no row for topic {topic}"
    return match.group(0)


def field(row: str, name: str) -> str:
    match = re.search(rf'data-field="{name}"[^>]*>(.*?)</td>', row, re.S)
    assert match, name
    return re.sub(r"<[^>]+>", "", match.group(1)).strip()


# ------------------------------------------------------------------------------ persona matrix


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    data: dict[str, Any] | None = None
    organizer: int = 200


ENDPOINTS = [
    Endpoint("live_estimates", "get"),
    Endpoint("live_leaderboard", "post", {}, organizer=302),
    Endpoint("reuse_report", "get"),
    Endpoint("reuse_report", "post", {}, organizer=302),
    Endpoint("metrics_api:live_estimates", "get"),
    Endpoint("metrics_api:live_leaderboard", "post", {}, organizer=202),
    Endpoint("metrics_api:reuse_report", "post", {}, organizer=202),
]
# every (route, method) this module checks for every persona, for the project's route-completeness test
ACCESS_TESTED = sorted({(e.name, e.method) for e in ENDPOINTS})


def test_the_access_table_names_every_route_of_the_live_pages() -> None:
    from metrics.live import urls as live_urls

    names = {p.name for p in live_urls.page_patterns} | {
        f"metrics_api:{p.name}" for p in live_urls.api_patterns
    }
    assert {name for name, _ in ACCESS_TESTED} == names


def call(client: Client, e: Endpoint, campaign: Campaign) -> Any:
    url = reverse(e.name, args=[campaign.slug])
    if e.method == "get":
        return client.get(url)
    if e.name.startswith("metrics_api:"):
        return client.post(url, e.data or {}, content_type="application/json")
    return client.post(url, e.data or {})


def ids(e: Endpoint) -> str:
    return f"{e.method}-{e.name}"


@pytest.mark.parametrize("e", ENDPOINTS, ids=ids)
def test_anonymous_is_sent_to_log_in_or_refused(e: Endpoint, live: dict[str, Any]) -> None:
    response = call(Client(), e, live["campaign"])
    if e.name.startswith("metrics_api:"):
        assert response.status_code in (401, 403)
    else:
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert not Job.objects.exists()


@pytest.mark.parametrize("e", ENDPOINTS, ids=ids)
def test_outsider_is_not_told_the_campaign_exists(e: Endpoint, live: dict[str, Any], outsider: Any) -> None:
    response = call(login(outsider), e, live["campaign"])
    assert response.status_code == 404
    assert "bm25" not in response.content.decode()
    assert not Job.objects.exists()


@pytest.mark.parametrize("e", ENDPOINTS, ids=ids)
@pytest.mark.parametrize("persona", ["assessor", "co_assessor", "adjudicator"])
def test_assessors_and_adjudicators_are_refused(
    e: Endpoint, persona: str, live: dict[str, Any], request: pytest.FixtureRequest
) -> None:
    response = call(login(request.getfixturevalue(persona)), e, live["campaign"])
    assert response.status_code == 403
    body = response.content.decode()
    assert "bm25" not in body and "DEMO-" not in body  # no run tag, no docno
    assert not Job.objects.exists()


@pytest.mark.parametrize("e", ENDPOINTS, ids=ids)
def test_organizer_gets_through(e: Endpoint, live: dict[str, Any], organizer: Any) -> None:
    response = call(login(organizer), e, live["campaign"])
    assert response.status_code == e.organizer, response.content[:300]
    if e.method == "post":
        assert Job.objects.get().status == Job.Status.DONE


@pytest.mark.parametrize("e", [e for e in ENDPOINTS if e.method == "get"], ids=ids)
def test_an_organizers_get_writes_nothing(e: Endpoint, live: dict[str, Any], organizer: Any) -> None:
    assert call(login(organizer), e, live["campaign"]).status_code == 200
    assert not Job.objects.exists()


@pytest.mark.parametrize("name", ["live_leaderboard", "reuse_report"])
def test_the_page_and_the_api_start_the_same_job(name: str, live: dict[str, Any], organizer: Any) -> None:
    campaign = live["campaign"]
    other = depth_pool(campaign, name="newer")  # committed later but unassigned: not the default
    client = login(organizer)
    client.post(reverse(name, args=[campaign.slug]), {"rule": "majority"})
    client.post(
        reverse(f"metrics_api:{name}", args=[campaign.slug]),
        {"rule": "majority"},
        content_type="application/json",
    )
    page, api_job = Job.objects.order_by("created_at")
    assert (page.kind, page.title, page.params) == (api_job.kind, api_job.title, api_job.params)
    assert page.params["pool"] == live["pool"].pk != other.pk
    for client_post in (
        lambda: client.post(reverse(name, args=[campaign.slug]), {"pool": 999999}),
        lambda: client.post(
            reverse(f"metrics_api:{name}", args=[campaign.slug]),
            {"pool": 999999},
            content_type="application/json",
        ),
    ):
        response = client_post()
        assert response.status_code == 400 and "no committed pool 999999" in response.content.decode()
    assert Job.objects.count() == 2


# ------------------------------------------------------------------------------ the numbers


def test_page_shows_judged_found_and_r_hat_of_the_random_sample(live: dict[str, Any], organizer: Any) -> None:
    campaign, pool, given = live["campaign"], live["pool"], live["given"]
    client = login(organizer)
    body = client.get(reverse("live_estimates", args=[campaign.slug])).content.decode()
    data = api(client, campaign)
    assert data["pool"]["id"] == pool.pk and not data["pool"]["sampled"]
    rows = {t["topic"]: t for t in data["topics"]}
    assert set(rows) == set(pool.sizes) == set(given)
    for topic, grades in given.items():
        pooled, judged, found = pool.sizes[topic]["judge"], len(grades), sum(g >= 1 for g in grades)
        t = rows[topic]
        # judged in a seeded random order: a simple random sample of the topic's pool
        assert (t["design"], t["pooled"], t["judged"], t["found"]) == ("srs", pooled, 3, found)
        assert t["r_hat"] == pytest.approx(pooled * found / judged, abs=1e-3)  # N·r/n
        low, high = hypergeometric_interval(pooled, judged, found)
        assert (t["low"], t["high"], t["interval"]) == (low, high, "exact")
        assert t["unjudged_relevant"]["estimate"] == pytest.approx(pooled * found / judged - found, abs=1e-3)
        row = row_html(body, topic)
        assert field(row, "design") == "srs"
        assert (field(row, "judged"), field(row, "found")) == ("3", str(found))
        assert field(row, "r_hat") == floatformat(pooled * found / judged, -1)
        assert field(row, "ci") == f"[{low}, {high}]"
    total_found = sum(g >= 1 for grades in given.values() for g in grades)
    overall = data["overall"]
    assert (overall["judged"], overall["found"], overall["estimated_topics"]) == (15, total_found, 5)
    r_hat = sum(pool.sizes[t]["judge"] * sum(g >= 1 for g in gs) / 3 for t, gs in given.items())
    assert overall["estimate"]["r_hat"] == pytest.approx(r_hat, abs=1e-3)
    assert re.search(r'id="overall-judged">15<', body)
    assert re.search(rf'id="overall-found">{total_found}<', body)
    assert f'id="overall-rhat">{floatformat(r_hat, -1)}<' in body
    # the chart: one group per topic, each with its R̂ dot and interval
    assert body.count('<g class="topic"') == 5 and body.count('<circle class="rhat"') == 5 + 1  # + legend
    assert 'id="live-chart-svg"' in body


def test_the_json_changes_after_a_new_judgment(live: dict[str, Any], organizer: Any, assessor: Any) -> None:
    campaign, pool = live["campaign"], live["pool"]
    client = login(organizer)
    before = api(client, campaign)
    assignment = Assignment.objects.get(pool=pool, assessor=assessor, topic__number="401")
    docno = assignment.items.get(position=4).docno
    judgment_record(assessor=assessor, assignment=assignment, docno=docno, grade=2)
    after = api(client, campaign)
    assert after["version"] != before["version"]
    b = next(t for t in before["topics"] if t["topic"] == "401")
    a = next(t for t in after["topics"] if t["topic"] == "401")
    assert (a["judged"], a["found"]) == (b["judged"] + 1, b["found"] + 1)
    assert a["r_hat"] == pytest.approx(a["pooled"] * a["found"] / 4, abs=1e-3)
    assert after["overall"]["judged"] == before["overall"]["judged"] + 1
    # polling without a change answers the same report (served from the cache)
    assert api(client, campaign)["computed_at"] == after["computed_at"]
    # the page's script asks for the chart with the numbers
    assert api(client, campaign, "?chart=1")["chart"].count('<g class="topic"') == 5


def test_leaderboard_is_the_runs_scored_on_the_judgments_so_far(live: dict[str, Any], organizer: Any) -> None:
    campaign, pool = live["campaign"], live["pool"]
    board = api(login(organizer), campaign)["leaderboard"]
    assert board["measures"] == ["bpref", "infAP", "P_10"] and not board["deferred"]
    judgments = source_judgments(campaign=campaign, source=JudgmentSource(pool=pool.pk)).judgments
    expected = {
        run.name: evaluate_run(judgments, run, parse_measures(["bpref", "infAP", "P.10"])).summary
        for run in demo_runs()
    }
    assert {r["run"] for r in board["rows"]} == set(expected)
    for row in board["rows"]:
        for m in board["measures"]:
            assert row["values"][m] == pytest.approx(expected[row["run"]][m], abs=1e-6)
    infap = [r["values"]["infAP"] for r in board["rows"]]
    assert infap == sorted(infap, reverse=True) and [r["rank"] for r in board["rows"]] == [1, 2, 3, 4]


def test_docno_order_gives_no_estimate_only_bounds(loaded: Campaign, organizer: Any, assessor: Any) -> None:
    pool = depth_pool(loaded)
    assignments_create(campaign=loaded, pool=pool, assessors=[assessor], order="docno")
    given = judge_first(pool, assessor, 2)
    data = api(login(organizer), loaded)
    for t in data["topics"]:
        found = sum(g >= 1 for g in given[t["topic"]])
        assert (t["design"], t["r_hat"], t["interval"]) == ("none", None, "bounds")
        assert "docno order" in t["reason"]
        assert (t["low"], t["high"]) == (found, found + t["pooled"] - 2)
    assert data["overall"]["estimated_topics"] == 0
    assert data["overall"]["found_elsewhere"] == sum(g >= 1 for gs in given.values() for g in gs)


def test_a_topic_judged_completely_is_a_census(loaded: Campaign, organizer: Any, assessor: Any) -> None:
    pool = depth_pool(loaded, depth=2)
    assignments_create(campaign=loaded, pool=pool, assessors=[assessor], order="docno")
    given = judge_first(pool, assessor, 100)
    for t in api(login(organizer), loaded)["topics"]:
        found = sum(g >= 1 for g in given[t["topic"]])
        assert (t["design"], t["r_hat"], t["low"], t["high"]) == ("census", found, found, found)


def test_an_adaptive_queue_gives_no_estimate(loaded: Campaign, organizer: Any, assessor: Any) -> None:
    spec = PoolSpec("mtf", depth=10, seed=5)
    pool = pool_commit(pool=pool_build(campaign=loaded, name="queue", spec=spec))
    (assignment,) = assignments_create(
        campaign=loaded,
        pool=pool,
        assessors=[assessor],
        topics=[loaded.topics.get(number="401")],
        order="queue",
    )
    for _ in range(3):
        item = assignment_next_item(assignment=assignment)
        assert item is not None
        judgment_record(
            assessor=assessor, assignment=assignment, docno=item.docno, grade=grade_of(item.docno)
        )
    t = next(t for t in api(login(organizer), loaded, f"?pool={pool.pk}")["topics"] if t["topic"] == "401")
    assert (t["design"], t["judged"], t["r_hat"]) == ("none", 3, None)
    assert "adaptive queue" in t["reason"]


def test_a_stratified_sample_uses_sample_evals_r_hat(loaded: Campaign, organizer: Any, assessor: Any) -> None:
    spec = PoolSpec("stratified", strata=(5, 20), rates=(1.0, 0.5), seed=1)
    pool = pool_commit(pool=pool_build(campaign=loaded, name="s", spec=spec))
    assignments_create(campaign=loaded, pool=pool, assessors=[assessor], seed=3)
    judge_first(pool, assessor, 6)
    data = api(login(organizer), loaded)
    assert data["pool"]["sampled"]
    sourced = source_judgments(campaign=loaded, source=JudgmentSource(pool=pool.pk))
    inum = evaluate_run(sourced.judgments, demo_runs()[0], parse_measures(["inum_rel"], design="prel"))
    expected = dict(zip(inum.topics, inum.per_topic["inum_rel"].tolist(), strict=True))
    for t in data["topics"]:
        assert t["design"] == "stratified"
        strata = [Stratum(**s) for s in t["strata"]]
        assert [s.label for s in strata] == ["1", "2"]
        assert sum(s.population for s in strata) == pool.sizes[t["topic"]]["universe"]
        assert t["r_hat"] == pytest.approx(design_estimate(strata).r_hat, abs=1e-3)
        assert t["r_hat"] == pytest.approx(expected[t["topic"]], abs=1e-3)
    board = data["leaderboard"]
    assert board["measures"] == ["bpref", "infAP", "P_10", "xinfAP", "statAP"] and board["sort"] == "xinfAP"
    sampled = parse_measures(["xinfAP"], design="prel") + parse_measures(["statAP"], design="mq")
    bm25 = next(r for r in board["rows"] if r["run"] == "bm25")
    summary = evaluate_run(
        sourced.judgments, next(r for r in demo_runs() if r.name == "bm25"), sampled
    ).summary
    assert bm25["values"]["xinfAP"] == pytest.approx(summary["xinfAP"], abs=1e-6)
    assert bm25["values"]["statAP"] == pytest.approx(summary["statAP"], abs=1e-6)


def test_a_large_campaign_scores_the_runs_in_a_job(
    live: dict[str, Any], organizer: Any, settings: Any
) -> None:
    settings.WORKBENCH_LIVE_INLINE_LINES = 10  # the demo runs hold 1000 lines
    campaign = live["campaign"]
    client = login(organizer)
    board = api(client, campaign)["leaderboard"]
    assert board["deferred"] and board["rows"] == [] and board["job"] is None and board["lines"] == 1000
    assert "background job" in client.get(reverse("live_estimates", args=[campaign.slug])).content.decode()
    response = client.post(reverse("live_leaderboard", args=[campaign.slug]), {"rule": "majority"})
    job = Job.objects.get(kind="live_leaderboard")
    assert response.status_code == 302 and response["Location"] == reverse("jobs:job", args=[job.id])
    assert job.status == Job.Status.DONE
    board = api(client, campaign)["leaderboard"]
    assert isinstance(job.result, dict)
    assert board["job"]["status"] == "done" and board["as_of"] == job.result["version"]
    settings.WORKBENCH_LIVE_INLINE_LINES = 10**9
    inline = api(client, campaign)["leaderboard"]
    assert [(r["run"], r["scores"]) for r in board["rows"]] == [
        (r["run"], r["scores"]) for r in inline["rows"]
    ]
    assert "bm25" in client.get(reverse("jobs:job", args=[job.id])).content.decode()


def test_without_a_committed_pool_the_page_says_so(campaign: Campaign, organizer: Any) -> None:
    client = login(organizer)
    response = client.get(reverse("live_estimates", args=[campaign.slug]))
    assert response.status_code == 200 and 'id="live-empty"' in response.content.decode()
    response = client.get(reverse("metrics_api:live_estimates", args=[campaign.slug]))
    assert response.status_code == 400 and "no committed pool" in response.json()["errors"][0]


def test_bad_parameters_are_refused(live: dict[str, Any], organizer: Any) -> None:
    client = login(organizer)
    slug = live["campaign"].slug
    assert client.get(reverse("live_estimates", args=[slug]) + "?pool=999").status_code == 400
    assert client.get(reverse("live_estimates", args=[slug]) + "?rule=mode").status_code == 400
    response = client.get(reverse("metrics_api:live_estimates", args=[slug]) + "?confidence=2")
    assert response.status_code == 400 and response.json()["errors"][0].startswith("confidence: ")
    response = client.get(reverse("metrics_api:live_estimates", args=[slug]) + "?pool=999")
    assert response.status_code == 400 and "no committed pool 999" in response.json()["errors"][0]


def test_judgments_made_through_another_pool_do_not_pass_for_this_pools_random_sample(
    loaded: Campaign, assessor: Any, co_assessor: Any
) -> None:
    """Stage 1 judges a depth-3 pool in docno order; stage 2 assigns a depth-20 pool in random
    order and judges nothing yet. Stage 1's judgments are not stage 2's random sample."""
    from judging.services import assignments_create, judgment_record
    from metrics.live.selectors import live_report
    from pooling.services import pool_build, pool_commit
    from pooling.spec import PoolSpec

    first = pool_commit(pool=pool_build(campaign=loaded, name="stage1", spec=PoolSpec("depth", depth=3)))
    for a in assignments_create(campaign=loaded, pool=first, assessors=[assessor], order="docno"):
        for docno in a.items.values_list("docno", flat=True):
            judgment_record(assessor=assessor, assignment=a, docno=docno, grade=1)
    second = pool_commit(pool=pool_build(campaign=loaded, name="stage2", spec=PoolSpec("depth", depth=20)))
    assignments_create(campaign=loaded, pool=second, assessors=[co_assessor], order="random", seed=1)
    report = live_report(campaign=loaded, pool=second, rule="majority", confidence=0.95)
    rows = report["topics"]
    assert rows and all(r["r_hat"] is None for r in rows)
    assert all("outside this pool's assignments" in r["reason"] for r in rows)
