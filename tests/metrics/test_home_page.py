"""The home page: login required; each organized campaign's leaderboard, with the engine's numbers."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from campaigns.models import Campaign, QrelsSet
from engine.evaluate import Judgments, evaluate_run
from engine.names import parse_measures
from metrics import leaderboards
from metrics.models import Evaluation
from metrics.services import evaluation_run
from metrics.sources import JudgmentSource
from tests.conftest import demo_dir, demo_runs

pytestmark = pytest.mark.django_db

DEMO_RUNS = {"bm25", "bm25_rm3", "dense_retriever", "random_baseline"}


@pytest.fixture
def demo_client() -> Client:
    """Logged in as the organizer ``manage.py workbench_demo`` creates, with the demo campaign loaded."""
    call_command("workbench_demo", stdout=io.StringIO())
    Evaluation.objects.all().delete()  # the demo stores one; these tests start from none
    client = Client()
    client.force_login(get_user_model().objects.get(username="organizer"))
    return client


def engine_map(run_name: str) -> float:
    from trec import read_qrels

    run = next(r for r in demo_runs() if r.name == run_name)
    judgments = Judgments(read_qrels(demo_dir() / "qrels.txt"))
    return evaluate_run(judgments, run, parse_measures(["map"])).summary["map"]


def test_home_redirects_anonymous_visitors_to_login(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_home_shows_the_demo_leaderboard_against_its_reference_judgments(demo_client: Client) -> None:
    html = demo_client.get("/").content.decode()
    assert 'id="leaderboard-demo"' in html and "imported judgments &#x27;reference&#x27;" in html
    assert "computed for this page (not stored yet)" in html
    assert not Evaluation.objects.exists()  # a preview reads, it never writes
    order = sorted(DEMO_RUNS, key=lambda r: html.index(f'data-value="{r}"'))
    maps = [engine_map(r) for r in order]
    assert maps == sorted(maps, reverse=True)  # best AP first
    assert order[-1] == "random_baseline"
    for run in DEMO_RUNS:
        assert f"{engine_map(run):.4f}" in html
    assert 'id="chart-demo"' in html and html.count('class="chart-bar"') == len(DEMO_RUNS)


def test_home_shows_the_latest_stored_evaluation_with_links_to_run_pages(demo_client: Client) -> None:
    campaign = Campaign.objects.get(slug="demo")
    qset = QrelsSet.objects.get(campaign=campaign, name="reference")
    evaluation = evaluation_run(campaign=campaign, source=JudgmentSource(kind="qrels", qrels_set=qset.pk))
    html = demo_client.get("/").content.decode()
    assert "not stored yet" not in html
    assert f"/campaigns/demo/evaluation/{evaluation.pk}/runs/" in html
    assert f"{engine_map('dense_retriever'):.4f}" in html


def test_a_large_campaign_is_not_evaluated_in_the_request(demo_client: Client, monkeypatch: Any) -> None:
    monkeypatch.setattr(leaderboards, "PREVIEW_MAX_DOCUMENTS", 10)
    html = demo_client.get("/").content.decode()
    assert "Not evaluated yet" in html and 'id="leaderboard-demo"' not in html


def test_members_who_do_not_organize_see_no_leaderboard(demo_client: Client) -> None:
    """Runs and their scores are the organizer's: an assessor or adjudicator of the campaign sees
    the campaign's name at most, never its leaderboard."""
    from campaigns.models import Membership
    from campaigns.services import membership_add

    campaign = Campaign.objects.get(slug="demo")
    for role in (Membership.Role.ASSESSOR, Membership.Role.ADJUDICATOR):
        user = get_user_model().objects.create_user(f"member-{role}")
        membership_add(campaign=campaign, user=user, roles=[role])
        client = Client()
        client.force_login(user)
        html = client.get("/", follow=True).content.decode()  # on to their assignments
        assert 'id="leaderboard-demo"' not in html and 'id="chart-demo"' not in html
        assert not any(f'data-value="{run}"' in html for run in DEMO_RUNS)
    assert 'id="leaderboard-demo"' in demo_client.get("/").content.decode()  # the organizer does


def test_the_demo_command_loads_an_evaluated_campaign() -> None:
    call_command("workbench_demo", stdout=io.StringIO())
    evaluation = Evaluation.objects.get(campaign__slug="demo")
    assert evaluation.results.count() == len(DEMO_RUNS)
    call_command("workbench_demo", stdout=io.StringIO())  # again: idempotent, nothing duplicated
    assert Evaluation.objects.filter(campaign__slug="demo").count() == 1
