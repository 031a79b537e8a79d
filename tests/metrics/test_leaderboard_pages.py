"""The evaluation pages and API: who may use them, and what the leaderboard, run and matrix pages show.

Leaderboards and run pages reveal which runs retrieved what, so only organizers get in: assessors
and adjudicators are refused (403, with nothing of the runs in the answer), people with no role in
the campaign are not told it exists (404), anonymous visitors are sent to log in (pages) or
refused (API).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, QrelsSet
from campaigns.services import qrels_set_import
from jobs.models import Job
from metrics.models import Evaluation, EvaluationRun
from metrics.services import evaluation_run
from metrics.sources import JudgmentSource
from tests.conftest import PASSWORD, demo_dir

pytestmark = pytest.mark.django_db

DEMO_RUNS = ("bm25", "bm25_rm3", "dense_retriever", "random_baseline")


def reference_set(campaign: Campaign) -> QrelsSet:
    """The demo's qrels imported into ``campaign`` as 'reference', as ``manage.py workbench_demo`` does."""
    return qrels_set_import(campaign=campaign, path=demo_dir() / "qrels.txt", name="reference")


def reference_source(campaign: Campaign) -> JudgmentSource:
    qset = QrelsSet.objects.filter(campaign=campaign, name="reference").first() or reference_set(campaign)
    return JudgmentSource(kind="qrels", qrels_set=qset.pk)


def evaluate_reference(campaign: Campaign, user: Any = None) -> Evaluation:
    return evaluation_run(campaign=campaign, source=reference_source(campaign), user=user)


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


# ------------------------------------------------------------------------------ persona matrix


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    args: Callable[[dict[str, Any]], list[Any]]
    data: dict[str, Any] | None = None
    query: str = ""
    organizer: int = 200

    @property
    def api(self) -> bool:
        return self.name.startswith("metrics_api:")


def slug(ctx: dict[str, Any]) -> list[Any]:
    return [ctx["campaign"].slug]


def slug_eval(ctx: dict[str, Any]) -> list[Any]:
    return [ctx["campaign"].slug, ctx["evaluation"].pk]


def slug_eval_run(ctx: dict[str, Any]) -> list[Any]:
    return [ctx["campaign"].slug, ctx["evaluation"].pk, ctx["result"].pk]


ENDPOINTS = [
    Endpoint("evaluation:leaderboard", "get", slug),
    Endpoint("evaluation:evaluate", "post", slug, {"kind": "qrels"}, organizer=302),
    Endpoint("evaluation:run", "get", slug_eval_run),
    Endpoint("evaluation:significance", "get", slug_eval),
    Endpoint("evaluation:significance", "post", slug_eval, {"measure": "map", "test": "t"}, organizer=302),
    Endpoint("evaluation:download", "get", slug_eval, query="?format=trec"),
    Endpoint("metrics_api:evaluations", "get", slug),
    Endpoint("metrics_api:evaluate", "post", slug, {"kind": "qrels"}, organizer=202),
    Endpoint("metrics_api:latest", "get", slug),
    Endpoint("metrics_api:evaluation", "get", slug_eval),
    Endpoint("metrics_api:run", "get", slug_eval_run),
    Endpoint("metrics_api:export", "get", slug_eval, query="?format=csv"),
    Endpoint("metrics_api:significance", "post", slug_eval, {"measure": "map", "test": "sign"}),
]
# every (route, method) this file checks for every persona, for the project's route-completeness test
ACCESS_TESTED = sorted({(e.name, e.method) for e in ENDPOINTS} | {("home", "get")})


@pytest.fixture
def ctx(loaded: Campaign, organizer: Any) -> dict[str, Any]:
    evaluation = evaluate_reference(loaded, organizer)
    # the POSTs evaluate against the reference judgments: give them its id
    qrels_set = evaluation.source["qrels_set"]
    return {
        "campaign": loaded,
        "evaluation": evaluation,
        "result": EvaluationRun.objects.get(evaluation=evaluation, tag="bm25"),
        "qrels_set": qrels_set,
    }


def call(client: Client, e: Endpoint, ctx: dict[str, Any]) -> Any:
    url = reverse(e.name, args=e.args(ctx)) + e.query
    if e.method == "get":
        return client.get(url)
    data = dict(e.data or {})
    if data.get("kind") == "qrels":
        data["qrels_set"] = ctx["qrels_set"]
    if e.api:
        return client.post(url, data, content_type="application/json")
    return client.post(url, data)


def ids(e: Endpoint) -> str:
    return f"{e.method}-{e.name}"


def nothing_changed(ctx: dict[str, Any]) -> bool:
    return Evaluation.objects.count() == 1 and not Job.objects.exists()


@pytest.mark.parametrize("e", ENDPOINTS, ids=ids)
def test_anonymous_is_sent_to_log_in_or_refused(e: Endpoint, ctx: dict[str, Any]) -> None:
    response = call(Client(), e, ctx)
    if e.api:
        assert response.status_code in (401, 403)
    else:
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert nothing_changed(ctx)


@pytest.mark.parametrize("e", ENDPOINTS, ids=ids)
def test_outsider_is_not_told_the_campaign_exists(e: Endpoint, ctx: dict[str, Any], outsider: Any) -> None:
    response = call(login(outsider), e, ctx)
    assert response.status_code == 404
    body = response.content.decode()
    assert not any(tag in body for tag in DEMO_RUNS)
    assert nothing_changed(ctx)


@pytest.mark.parametrize("e", ENDPOINTS, ids=ids)
@pytest.mark.parametrize("persona", ["assessor", "co_assessor", "adjudicator"])
def test_assessors_and_adjudicators_are_refused(
    e: Endpoint, persona: str, ctx: dict[str, Any], request: pytest.FixtureRequest
) -> None:
    response = call(login(request.getfixturevalue(persona)), e, ctx)
    assert response.status_code == 403
    body = response.content.decode()
    assert not any(tag in body for tag in DEMO_RUNS)  # nothing of the runs leaks into the refusal
    assert nothing_changed(ctx)


@pytest.mark.parametrize("e", ENDPOINTS, ids=ids)
def test_organizer_gets_through(e: Endpoint, ctx: dict[str, Any], organizer: Any) -> None:
    response = call(login(organizer), e, ctx)
    assert response.status_code == e.organizer, response.content[:500]


@pytest.mark.parametrize("e", [e for e in ENDPOINTS if e.method == "get"], ids=ids)
def test_an_organizers_get_writes_nothing(e: Endpoint, ctx: dict[str, Any], organizer: Any) -> None:
    assert call(login(organizer), e, ctx).status_code == 200
    assert nothing_changed(ctx)


def test_home_page_shows_leaderboards_only_to_organizers(
    ctx: dict[str, Any], organizer: Any, assessor: Any, adjudicator: Any, outsider: Any
) -> None:
    anonymous = Client().get(reverse("home"))
    assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("login"))
    body = login(outsider).get(reverse("home")).content.decode()
    assert not any(tag in body for tag in DEMO_RUNS)
    assert "You organize no campaign" in body
    # an assessor or adjudicator who organizes nothing is sent to their work (issue 10)
    for person in (assessor, adjudicator):
        sent = login(person).get(reverse("home"), follow=True)
        assert sent.redirect_chain == [(reverse("judging:assess_home"), 302)]
        assert not any(tag in sent.content.decode() for tag in DEMO_RUNS)
    body = login(organizer).get(reverse("home")).content.decode()
    assert all(tag in body for tag in DEMO_RUNS)


# -------------------------------------------------------------------------------- page contents


def test_leaderboard_page_shows_the_last_evaluation_of_the_chosen_source(
    ctx: dict[str, Any], organizer: Any
) -> None:
    campaign, evaluation = ctx["campaign"], ctx["evaluation"]
    client = login(organizer)
    body = client.get(reverse("evaluation:leaderboard", args=[campaign.slug])).content.decode()
    # the default source is the last evaluated one
    assert "imported judgments &#x27;reference&#x27;" in body
    assert 'id="leaderboard"' in body and 'id="leaderboard-chart"' in body and 'id="pr-chart"' in body
    assert body.count('class="chart-bar"') == len(DEMO_RUNS)
    assert f"/evaluation/{evaluation.pk}/download/?format=trec" in body
    # statAP & co. need a sampled pool: the page says so and shows no such column
    assert "need a sampled pool" in body and ">statAP<" not in body
    # another source has no evaluation yet: the page says so and offers to evaluate
    other = client.get(
        reverse("evaluation:leaderboard", args=[campaign.slug]) + "?kind=consensus&rule=median"
    )
    text = other.content.decode()
    assert "Not evaluated against these judgments yet" in text and 'id="leaderboard"' not in text


def test_a_bad_source_is_explained(ctx: dict[str, Any], organizer: Any) -> None:
    url = reverse("evaluation:leaderboard", args=[ctx["campaign"].slug])
    body = login(organizer).get(url + "?kind=assessor").content.decode()
    assert "name the assessor whose judgments count" in body


def test_evaluate_button_runs_the_job_and_returns_to_the_leaderboard(
    ctx: dict[str, Any], organizer: Any
) -> None:
    campaign = ctx["campaign"]
    response = login(organizer).post(
        reverse("evaluation:evaluate", args=[campaign.slug]), {"kind": "qrels", "qrels_set": ctx["qrels_set"]}
    )
    assert response.status_code == 302
    assert response["Location"].startswith(
        reverse("evaluation:leaderboard", args=[campaign.slug]) + "?kind=qrels"
    )
    job = Job.objects.get(kind="metrics_evaluate")
    assert job.status == Job.Status.DONE and job.result is not None
    newest = Evaluation.objects.order_by("-pk").first()
    assert newest is not None and newest.job_id == job.id and job.result["evaluation"] == newest.pk
    # progress was reported per run
    assert (job.done, job.total) == (len(DEMO_RUNS), len(DEMO_RUNS))
    # the job's own page shows the result and leads to the leaderboard
    page = login(organizer).get(reverse("jobs:job", args=[job.id])).content.decode()
    assert 'id="leaderboard-link"' in page and f"{len(DEMO_RUNS)} runs over 5 topics" in page


def test_evaluating_with_no_judgment_fails_with_the_reason_on_the_page(
    loaded: Campaign, organizer: Any
) -> None:
    client = login(organizer)
    client.post(reverse("evaluation:evaluate", args=[loaded.slug]), {"kind": "consensus"})
    job = Job.objects.get(kind="metrics_evaluate")
    assert job.status == Job.Status.FAILED
    assert "no graded document yet" in job.errors[0]
    body = client.get(
        reverse("evaluation:leaderboard", args=[loaded.slug]) + "?kind=consensus"
    ).content.decode()
    assert 'id="evaluation-errors"' in body and "no graded document yet" in body
    assert not Evaluation.objects.exists()


def test_a_pending_evaluation_shows_its_progress_bar_and_is_not_started_twice(
    ctx: dict[str, Any], organizer: Any, settings: Any
) -> None:
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}  # waits for a worker
    campaign, client = ctx["campaign"], login(organizer)
    url = reverse("evaluation:evaluate", args=[campaign.slug])
    for _ in range(2):
        client.post(url, {"kind": "qrels", "qrels_set": ctx["qrels_set"]})
    assert Job.objects.filter(kind="metrics_evaluate").count() == 1
    body = client.get(reverse("evaluation:leaderboard", args=[campaign.slug])).content.decode()
    assert 'id="job-progress"' in body and "jobs/progress.js" in body
    assert 'id="evaluate-form"' not in body
    # meanwhile the last finished evaluation stays on the page
    assert 'id="leaderboard"' in body


def test_run_page_shows_per_topic_values_with_median_and_best(ctx: dict[str, Any], organizer: Any) -> None:
    campaign, evaluation, result = ctx["campaign"], ctx["evaluation"], ctx["result"]
    url = reverse("evaluation:run", args=[campaign.slug, evaluation.pk, result.pk])
    body = login(organizer).get(url + "?measure=P_10").content.decode()
    rows = EvaluationRun.objects.filter(evaluation=evaluation)
    for i, topic in enumerate(result.topics):
        values = [r.per_topic["P_10"][r.topics.index(topic)] for r in rows]
        mine = result.per_topic["P_10"][i]
        assert f'data-topic="{topic}" data-value="{mine:.4f}"' in body
        assert f'class="best" data-topic="{topic}" data-value="{max(values):.4f}"' in body
        median = sorted(values)[1] / 2 + sorted(values)[2] / 2  # four runs: the mean of the middle two
        assert f'class="median" data-topic="{topic}" data-value="{median:.4f}"' in body
    assert body.count('class="point"') == 22  # two 11-point P-R curves: this run's and the median's
    assert 'id="per-topic"' in body and "P@10 per topic" in body


def test_unknown_evaluation_or_run_is_404(ctx: dict[str, Any], organizer: Any) -> None:
    client = login(organizer)
    slug_ = ctx["campaign"].slug
    assert client.get(reverse("evaluation:run", args=[slug_, 999, ctx["result"].pk])).status_code == 404
    assert client.get(reverse("evaluation:run", args=[slug_, ctx["evaluation"].pk, 999])).status_code == 404
    assert client.get(reverse("evaluation:download", args=[slug_, 999])).status_code == 404
    bad = client.get(reverse("evaluation:download", args=[slug_, ctx["evaluation"].pk]) + "?format=xml")
    assert bad.status_code == 400
