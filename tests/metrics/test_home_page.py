"""The demo leaderboard page: login required, numbers from the engine."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.test import Client

from metrics.evaluate import Judgments, evaluate_run
from metrics.names import parse_measures
from metrics.selectors import demo_leaderboard
from trec import read_qrels, read_run


@pytest.fixture
def organizer(db: None) -> User:
    return get_user_model().objects.create_user("org", password="pw-organizer-1")


def test_home_redirects_anonymous_visitors_to_login(client: Client, db: None) -> None:
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_home_shows_demo_runs_with_engine_values(client: Client, organizer: User) -> None:
    client.force_login(organizer)
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    board = demo_leaderboard()
    assert {r.run for r in board.rows} == {"bm25", "bm25_rm3", "dense_retriever", "random_baseline"}
    # MAP of the best run, computed independently through the public engine API
    from django.conf import settings

    folder = settings.WORKBENCH_DEMO_DIR
    result = evaluate_run(
        Judgments(read_qrels(folder / "qrels.txt")),
        read_run(folder / "runs" / f"{board.rows[0].run}.run"),
        parse_measures(["map"]),
    )
    assert f"{result.summary['map']:.4f}" in html
    assert html.index(board.rows[0].run) < html.index(board.rows[-1].run)


def test_leaderboard_is_sorted_by_map() -> None:
    board = demo_leaderboard()
    maps = [r.values[0] for r in board.rows]
    assert maps == sorted(maps, reverse=True)
    assert board.rows[-1].run == "random_baseline"
