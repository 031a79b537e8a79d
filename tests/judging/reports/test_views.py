"""The agreement report, adjudication and export routes: who may use them, and what the report shows.

The IIR §8.5 example (docs/agreement.md#worked-examples) is judged through the services by two
assessors and must come out of the page and the API with the reference values; the τ table
appears when runs are stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign
from campaigns.services import runs_import, topics_import
from judging.models import Adjudication, Assignment
from judging.services import assignments_create, judgment_record
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def judge_all(pool: Any, labels: dict[Any, dict[tuple[str, str], int | None]]) -> None:
    """``labels[user][(topic, docno)]`` through the judging service (None: can't judge)."""
    for user, by_item in labels.items():
        for (topic, docno), grade in by_item.items():
            a = Assignment.objects.get(pool=pool, assessor=user, topic__number=topic)
            judgment_record(assessor=user, assignment=a, docno=docno, grade=grade, cant_judge=grade is None)


# ------------------------------------------------------------------------------ persona matrix


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    kind: str = ""  # the export kind in the URL
    data: dict[str, Any] | None = None
    query: str = ""
    organizer: int = 200
    adjudicator: int = 200

    def kwargs(self, campaign: Campaign) -> dict[str, Any]:
        return {"slug": campaign.slug} | ({"kind": self.kind} if self.kind else {})


ENDPOINTS = [
    Endpoint("judging:adjudication", "get"),
    Endpoint("judging:adjudication_decide", "post", data={"topic": "401"}, organizer=302, adjudicator=302),
    Endpoint("judging:adjudication_withdraw", "post", data={"topic": "401"}, organizer=302, adjudicator=302),
    Endpoint("judging:adjudication_settings", "get", adjudicator=403),
    Endpoint(
        "judging:adjudication_settings",
        "post",
        data={"machine_rule": "none"},
        organizer=302,
        adjudicator=403,
    ),
    Endpoint("judging:agreement", "get"),
    Endpoint("judging:agreement", "post", data={"bootstrap": 0}, organizer=302, adjudicator=302),
    Endpoint("judging:exports", "get"),
    Endpoint("judging:export", "get", "consensus"),
    Endpoint("judging:export", "get", "csv", adjudicator=403),
    Endpoint("judging:export", "get", "assessor", query="?assessor=alice", adjudicator=403),
    Endpoint("judging_api:adjudication", "get"),
    Endpoint("judging_api:adjudication_decide", "post", data={}, organizer=400, adjudicator=400),
    Endpoint("judging_api:adjudication_item", "get", query="?topic=401&docno=d1"),
    Endpoint("judging_api:adjudication_withdraw", "post", data={}, organizer=400, adjudicator=400),
    Endpoint("judging_api:adjudication_settings", "get", adjudicator=403),
    Endpoint("judging_api:adjudication_settings", "put", data={"machine_rule": "none"}, adjudicator=403),
    Endpoint("judging_api:agreement", "get"),
    Endpoint("judging_api:agreement_report", "post", data={}, organizer=202, adjudicator=202),
    Endpoint("judging_api:export", "get", "adjudicated"),
    Endpoint("judging_api:export", "get", "prel", adjudicator=403),
    Endpoint("judging_api:export", "get", "csv", adjudicator=403),
]
# every (route, method) this file checks for every persona, for the project's route-completeness test
ACCESS_TESTED = sorted({(e.name, e.method) for e in ENDPOINTS})


@pytest.fixture
def small(campaign: Campaign, tmp_path: Path, assessor: Any, co_assessor: Any) -> Campaign:
    """alice and bob judged the three documents of a depth-2 pool: one disagreement (401 d1)."""
    (tmp_path / "topics.tsv").write_text("401\tpooling bias\n402\tassessor agreement\n")
    (tmp_path / "bm25.run").write_text("401 Q0 d1 1 2.0 bm25\n401 Q0 d2 2 1.0 bm25\n402 Q0 d3 1 1.0 bm25\n")
    topics_import(campaign=campaign, path=tmp_path / "topics.tsv")
    runs_import(campaign=campaign, paths=[tmp_path / "bm25.run"])
    pool = pool_commit(pool=pool_build(campaign=campaign, name="p", spec=PoolSpec("depth", depth=2)))
    assignments_create(campaign=campaign, pool=pool, assessors=[assessor, co_assessor], k=2)
    judge_all(
        pool,
        {
            assessor: {("401", "d1"): 1, ("401", "d2"): 2, ("402", "d3"): 0},
            co_assessor: {("401", "d1"): 0, ("401", "d2"): 2, ("402", "d3"): 0},
        },
    )
    return campaign


def call(client: Client, e: Endpoint, campaign: Campaign) -> Any:
    url = reverse(e.name, kwargs=e.kwargs(campaign)) + e.query
    if e.method == "get":
        return client.get(url)
    if e.method == "put":
        return client.put(url, e.data or {}, content_type="application/json")
    if e.name.startswith("judging_api:"):
        return client.post(url, e.data or {}, content_type="application/json")
    return client.post(url, e.data or {})


def ids(e: Endpoint) -> str:
    return "-".join(filter(None, (e.method, e.name, e.kind)))


@pytest.mark.parametrize("e", ENDPOINTS, ids=ids)
def test_anonymous_is_sent_to_log_in_or_refused(e: Endpoint, small: Campaign) -> None:
    response = call(Client(), e, small)
    if e.name.startswith("judging_api:"):
        assert response.status_code in (401, 403)
    else:
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert not Adjudication.objects.exists()


@pytest.mark.parametrize("e", ENDPOINTS, ids=ids)
def test_outsider_is_not_told_the_campaign_exists(e: Endpoint, small: Campaign, outsider: Any) -> None:
    response = call(login(outsider), e, small)
    assert response.status_code == 404
    assert "bob" not in response.content.decode()


@pytest.mark.parametrize("e", ENDPOINTS, ids=ids)
@pytest.mark.parametrize(("persona", "other"), [("assessor", "bob"), ("co_assessor", "alice")])
def test_assessors_are_refused_and_see_no_other_labels(
    e: Endpoint, persona: str, other: str, small: Campaign, request: pytest.FixtureRequest
) -> None:
    response = call(login(request.getfixturevalue(persona)), e, small)
    assert response.status_code == 403
    body = response.content.decode()
    assert other not in body and "d1" not in body
    assert not Adjudication.objects.exists()


@pytest.mark.parametrize("e", ENDPOINTS, ids=ids)
def test_adjudicator_reads_disagreements_agreement_and_final_labels(
    e: Endpoint, small: Campaign, adjudicator: Any
) -> None:
    response = call(login(adjudicator), e, small)
    assert response.status_code == e.adjudicator, response.content[:300]


@pytest.mark.parametrize("e", ENDPOINTS, ids=ids)
def test_organizer_gets_through(e: Endpoint, small: Campaign, organizer: Any) -> None:
    response = call(login(organizer), e, small)
    assert response.status_code == e.organizer, response.content[:300]


def test_exports_page_offers_adjudicators_only_the_final_labels(
    small: Campaign, adjudicator: Any, organizer: Any
) -> None:
    page = login(adjudicator).get(reverse("judging:exports", args=[small.slug])).content.decode()
    assert 'id="export-consensus"' in page and 'id="export-binary"' in page
    assert 'id="export-csv"' not in page and 'id="export-assessor"' not in page and "alice" not in page
    page = login(organizer).get(reverse("judging:exports", args=[small.slug])).content.decode()
    assert all(
        f'id="export-{k}"' in page
        for k in ("assessor", "consensus", "adjudicated", "binary", "prel", "mq", "csv")
    )
    assert '<option value="alice">' in page


def test_export_download_is_an_attachment(small: Campaign, organizer: Any) -> None:
    client = login(organizer)
    response = client.get(reverse("judging:export", args=[small.slug, "assessor"]), {"assessor": "bob"})
    assert response["Content-Disposition"] == 'attachment; filename="trec-demo-bob.qrels"'
    assert response.content.decode() == "401 0 d1 0\n401 0 d2 2\n402 0 d3 0\n"
    response = client.get(reverse("judging_api:export", args=[small.slug, "binary"]), {"threshold": 2})
    assert response.content.decode() == "401 0 d1 0\n401 0 d2 1\n402 0 d3 0\n"  # majority 1→0 tie: 0; 2; 0
    response = client.get(reverse("judging:export", args=[small.slug, "assessor"]))
    assert response.status_code == 400 and "choose the assessor" in response.content.decode()
    response = client.get(reverse("judging_api:export", args=[small.slug, "consensus"]), {"rule": "mean"})
    assert response.status_code == 400


# -------------------------------------------------------------------------------- IIR example

# IIR §8.5 table, rows judge 1 (alice), columns judge 2 (bob), relevant (grade 1) first
IIR = {(1, 1): 300, (1, 0): 20, (0, 1): 10, (0, 0): 70}


@pytest.fixture
def iir(campaign: Campaign, tmp_path: Path, assessor: Any, co_assessor: Any) -> Campaign:
    """alice and bob judge the same 400 documents of topic 1 so that they cross-tabulate to IIR."""
    (tmp_path / "topics.tsv").write_text("1\tthe IIR example\n")
    docnos = [f"IIR-{i:03d}" for i in range(400)]
    (tmp_path / "r.run").write_text("".join(f"1 Q0 {d} {i + 1} {400 - i} r\n" for i, d in enumerate(docnos)))
    topics_import(campaign=campaign, path=tmp_path / "topics.tsv")
    runs_import(campaign=campaign, paths=[tmp_path / "r.run"])
    pool = pool_commit(pool=pool_build(campaign=campaign, name="all", spec=PoolSpec("depth", depth=400)))
    assignments_create(campaign=campaign, pool=pool, assessors=[assessor, co_assessor], k=2)
    pairs = [cell for cell, n in IIR.items() for _ in range(n)]
    judge_all(
        pool,
        {
            assessor: {("1", d): a for d, (a, _) in zip(docnos, pairs, strict=True)},
            co_assessor: {("1", d): b for d, (_, b) in zip(docnos, pairs, strict=True)},
        },
    )
    return campaign


def test_api_reports_the_iir_example(iir: Campaign, adjudicator: Any) -> None:
    response = login(adjudicator).get(reverse("judging_api:agreement", args=[iir.slug]), {"threshold": 1})
    assert response.status_code == 200
    data = response.json()
    (pair,) = data["pairs"]
    assert (pair["a"], pair["b"], pair["items"]) == ("alice", "bob", 400)
    overall = pair["overall"]
    # P_o = (300 + 70)/400; Cohen P_e = (320·310 + 80·90)/400² = 0.665; pooled P_e from (630/800, 170/800)
    assert overall["p_o"] == pytest.approx((300 + 70) / 400)
    assert round(overall["cohen"]["value"], 7) == 0.7761194
    assert round(overall["pooled"]["value"], 7) == 0.7759104
    assert round(overall["cohen"]["p_e"], 7) == 0.665
    assert round(overall["pooled"]["p_e"], 7) == 0.6653125
    assert round(overall["cohen"]["se"], 7) == 0.0388880
    assert (
        round(overall["cohen"]["ci_low"], 5) == 0.69990 and round(overall["cohen"]["ci_high"], 5) == 0.85234
    )
    assert round(overall["alpha_nominal"], 7) == 0.7761905
    assert overall["overlap"] == {"intersection": 300, "union": 330, "value": pytest.approx(300 / 330)}
    # the campaign's 0-2 scale: rows alice, columns bob, grades 0 1 2
    assert overall["labels"] == [0, 1, 2]
    assert overall["matrix"] == [[70, 10, 0], [20, 300, 0], [0, 0, 0]]
    # one topic: the three pooled readings coincide, and are named
    assert set(data["readings"]) == {"concatenated", "de_vries", "mean_per_topic"}
    cohen = pair["pooled"]["cohen"]
    assert cohen["concatenated"] == pytest.approx(cohen["de_vries"]) == pytest.approx(cohen["mean_per_topic"])
    assert data["systems"] is None and data["parameters"]["runs"] is False
    # the summary leads: the same κ and interval, linear κ on the campaign's 0–2 scale (0 vs 1 is
    # half an agreement: P_o = (370 + 30/2)/400, P_e = (0.8·0.775 + 0.2·0.225) + (0.8·0.225 + 0.2·0.775)/2)
    assert next(iter(data)) == "summary"
    (row,) = data["summary"]
    assert (row["kind"], row["a"], row["b"], row["items"]) == ("pair", "alice", "bob", 400)
    assert row["kappa"]["value"] == overall["cohen"]["value"]
    assert row["kappa"]["ci"] == [overall["cohen"]["ci_low"], overall["cohen"]["ci_high"]]
    p_o, p_e = (370 + 30 / 2) / 400, (0.8 * 0.775 + 0.2 * 0.225) + (0.8 * 0.225 + 0.2 * 0.775) / 2
    assert row["weighted_kappa"]["value"] == pytest.approx((p_o - p_e) / (1 - p_e), abs=1e-12)
    assert row["alpha"]["value"] == pytest.approx(0.7761905, abs=5e-8) and row["alpha"]["ci"] is None
    # 300 of 400 relevant for both, but κ 0.776 is not low: no paradox
    assert row["paradox"] is False
    assert data["scale"] == [0, 1, 2]


def test_page_reports_the_iir_example(iir: Campaign, organizer: Any) -> None:
    client = login(organizer)
    form = client.get(reverse("judging:agreement", args=[iir.slug]))
    assert form.status_code == 200 and "alice, bob" in form.content.decode()
    response = client.post(
        reverse("judging:agreement", args=[iir.slug]),
        {"threshold": 1, "bootstrap": 0, "seed": 0, "decimals": 7},
        follow=True,
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "0.7761194" in html  # Cohen κ
    assert "0.7759104" in html  # pooled κ
    assert "[0.6999" in html and "0.8523" in html  # asymptotic 95% CI of Cohen κ
    assert "alice vs bob" in html and "De Vries 2008" in html and "mean per topic" in html
    assert "300" in html and "330" in html  # overlap 300/330
    assert 'id="tau-table"' not in html
    # the report is listed on the form afterwards
    again = client.get(reverse("judging:agreement", args=[iir.slug])).content.decode()
    assert 'id="agreement-jobs"' in again


def test_bad_parameters_are_refused_on_the_page_and_the_api(iir: Campaign, organizer: Any) -> None:
    client = login(organizer)
    response = client.post(
        reverse("judging:agreement", args=[iir.slug]), {"threshold": 0, "measures": "nope"}
    )
    assert response.status_code == 400
    assert "threshold" in response.content.decode() and "nope" in response.content.decode()
    response = client.get(reverse("judging_api:agreement", args=[iir.slug]), {"bootstrap": -1})
    assert response.status_code == 400


def test_agreement_needs_two_assessors(campaign: Campaign, organizer: Any) -> None:
    response = login(organizer).get(reverse("judging_api:agreement", args=[campaign.slug]))
    assert response.status_code == 400
    assert response.json()["errors"] == ["agreement needs graded judgments from at least two assessors"]


# ------------------------------------------------------------------------ do disagreements matter?


@pytest.fixture
def demo_judged(loaded: Campaign, assessor: Any, co_assessor: Any) -> Campaign:
    """alice and bob judge the depth-5 pool of three demo topics, differing on some documents."""
    pool = pool_commit(pool=pool_build(campaign=loaded, name="d5", spec=PoolSpec("depth", depth=5)))
    topics = list(loaded.topics.filter(number__in=["401", "402", "403"]))
    assignments_create(campaign=loaded, pool=pool, assessors=[assessor, co_assessor], topics=topics, k=2)
    labels: dict[Any, dict[tuple[str, str], int | None]] = {assessor: {}, co_assessor: {}}
    for a in Assignment.objects.filter(pool=pool, assessor=assessor).select_related("topic"):
        for i, docno in enumerate(a.items.order_by("docno").values_list("docno", flat=True)):
            labels[assessor][(a.topic.number, docno)] = i % 3
            labels[co_assessor][(a.topic.number, docno)] = (i % 3) if i % 4 else (2 - i % 3)
    judge_all(pool, labels)
    return loaded


def test_tau_table_appears_when_runs_are_stored(demo_judged: Campaign, organizer: Any) -> None:
    client = login(organizer)  # issue 10: run rankings name runs and scores, the organizers' only
    response = client.post(
        reverse("judging:agreement", args=[demo_judged.slug]),
        {"threshold": 1, "bootstrap": 50, "seed": 3, "runs": "true", "measures": "map P.10"},
        follow=True,
    )
    html = response.content.decode()
    assert 'id="tau-table"' in html and "Kendall τ-b" in html and "τ_AP(a, b)" in html
    for column in ("τ_AP,b", "Spearman ρ", "RBO range", "Swap rate min / mean"):
        assert column in html
    assert html.count("<td>[0.") + html.count("<td>[1.") >= 2  # an RBO range per measure row
    assert "P_10" in html or "P.10" in html
    assert "bm25" in html  # the mean scores per assessor name the runs


def test_report_job_json_has_tau_and_reproducible_bootstrap(demo_judged: Campaign, organizer: Any) -> None:
    client = login(organizer)
    url = reverse("judging_api:agreement_report", args=[demo_judged.slug])
    results = []
    for _ in range(2):
        response = client.post(
            url, {"bootstrap": 200, "seed": 11, "runs": True}, content_type="application/json"
        )
        assert response.status_code == 202
        job = client.get(response.json()["url"]).json()
        assert job["status"] == "done", job["errors"]
        results.append(job["result"])
    first, second = results
    systems = first["systems"]
    assert systems["runs"] == ["bm25", "bm25_rm3", "dense_retriever", "random_baseline"]
    assert {c["measure"] for c in systems["correlations"]} == {"map", "ndcg", "P_10", "bpref"}
    assert all(-1 <= c["tau_b"] <= 1 for c in systems["correlations"])
    ci = first["pairs"][0]["pooled"]["cohen"]["ci"]
    assert set(ci) == {"concatenated", "de_vries", "mean_per_topic"}
    assert ci == second["pairs"][0]["pooled"]["cohen"]["ci"]  # seeded
    assert first["bootstrap"] == {"resamples": 200, "seed": 11}


# ------------------------------------------------------------------------------- three assessors


@pytest.fixture
def trio(campaign: Campaign, tmp_path: Path, assessor: Any, co_assessor: Any) -> Campaign:
    """alice, bob and carol grade d1 (1, 1, 1) and d2 (1, 1, 0); bob cannot judge d3."""
    from django.contrib.auth import get_user_model

    from campaigns.services import membership_add

    carol = get_user_model().objects.create_user(username="carol", password=PASSWORD)
    membership_add(campaign=campaign, user=carol, roles=["assessor"])
    (tmp_path / "topics.tsv").write_text("401\tpooling bias\n")
    (tmp_path / "r.run").write_text("401 Q0 d1 1 3.0 r\n401 Q0 d2 2 2.0 r\n401 Q0 d3 3 1.0 r\n")
    topics_import(campaign=campaign, path=tmp_path / "topics.tsv")
    runs_import(campaign=campaign, paths=[tmp_path / "r.run"])
    pool = pool_commit(pool=pool_build(campaign=campaign, name="p", spec=PoolSpec("depth", depth=3)))
    assignments_create(campaign=campaign, pool=pool, assessors=[assessor, co_assessor, carol], k=3)
    judge_all(
        pool,
        {
            assessor: {("401", "d1"): 1, ("401", "d2"): 1, ("401", "d3"): 0},
            co_assessor: {("401", "d1"): 1, ("401", "d2"): 1, ("401", "d3"): None},
            carol: {("401", "d1"): 1, ("401", "d2"): 0, ("401", "d3"): 0},
        },
    )
    return campaign


def test_three_assessors_get_fleiss_kappa(trio: Campaign, organizer: Any) -> None:
    client = login(organizer)
    data = client.get(reverse("judging_api:agreement", args=[trio.slug])).json()
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [
        ("alice", "bob"),
        ("alice", "carol"),
        ("bob", "carol"),
    ]
    assert data["judged"] == {"alice": 3, "bob": 2, "carol": 3}  # bob's "can't judge" is no label
    group = data["group"]
    # Fleiss on the items all three graded (d1, d2): P_1 = 1, P_2 = (2·1 + 1·0)/(3·2) = 1/3, P̄ = 2/3;
    # p(1) = 5/6, p(0) = 1/6, P_e = 25/36 + 1/36 = 26/36; κ = (24/36 − 26/36)/(10/36) = −0.2
    assert group["items"] == 2 and group["pairable"] == 3
    assert group["fleiss"]["value"] == pytest.approx(-0.2)
    response = client.post(reverse("judging:agreement", args=[trio.slug]), {"bootstrap": 0}, follow=True)
    html = response.content.decode()
    assert 'id="group"' in html and "Fleiss κ" in html and 'id="fleiss">-0.2000<' in html
