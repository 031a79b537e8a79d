"""Shared fixtures: the reference data folder (skipped with a reason when absent)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def refdata_dir() -> Path | None:
    value = os.environ.get("WORKBENCH_REFDATA")
    if not value:
        return None
    path = Path(value)
    return path if (path / "expected" / "reference.tsv.gz").is_file() else None


@pytest.fixture(scope="session")
def refdata() -> Path:
    path = refdata_dir()
    if path is None:
        pytest.skip(
            "reference data absent: set WORKBENCH_REFDATA to ../shared/refdata "
            "(the folder holding expected/reference.tsv.gz) to run the trec_eval/sample_eval comparisons"
        )
    return path


# CI runs the property tests on a fixed example stream, so a red build can be replayed exactly.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    _hypothesis_settings.load_profile("ci")


# ------------------------------------------------------------------------- campaigns and people

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _jobs_in_request(settings: object, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Background jobs run inside the request in tests, uploads go to a temporary folder."""
    settings.WORKBENCH_JOBS = "sync"  # type: ignore[attr-defined]
    settings.WORKBENCH_UPLOAD_DIR = tmp_path_factory.mktemp("uploads")  # type: ignore[attr-defined]
    # personas log in hundreds of times: a fast hash keeps that cheap (never outside tests)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # type: ignore[attr-defined]
    # the process cache (sessions, scales) must not carry one test's campaign into the next
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def embedded_worker(settings: object) -> Iterator[None]:
    """Jobs run on the real worker thread, stopped after the test so it never outlives its database."""
    from jobs import worker

    settings.WORKBENCH_JOBS = "thread"  # type: ignore[attr-defined]
    yield
    worker.stop()


PASSWORD = "persona-password"


def _user(username: str) -> object:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=username, password=PASSWORD)


@pytest.fixture
def campaign(db: None) -> object:
    from campaigns.services import campaign_create

    return campaign_create(slug="trec-demo", name="TREC demo")


@pytest.fixture
def organizer(campaign: object) -> object:
    from django.contrib.auth.models import Permission

    from campaigns.services import membership_add

    user = _user("olga")
    user.user_permissions.add(  # type: ignore[attr-defined]
        Permission.objects.get(codename="add_campaign", content_type__app_label="campaigns")
    )
    membership_add(campaign=campaign, user=user, roles=["organizer"])  # type: ignore[arg-type]
    return user


@pytest.fixture
def assessor(campaign: object) -> object:
    from campaigns.services import membership_add

    user = _user("alice")
    membership_add(campaign=campaign, user=user, roles=["assessor"])  # type: ignore[arg-type]
    return user


@pytest.fixture
def co_assessor(campaign: object) -> object:
    from campaigns.services import membership_add

    user = _user("bob")
    membership_add(campaign=campaign, user=user, roles=["assessor"])  # type: ignore[arg-type]
    return user


@pytest.fixture
def adjudicator(campaign: object) -> object:
    from campaigns.services import membership_add

    user = _user("ada")
    membership_add(campaign=campaign, user=user, roles=["adjudicator"])  # type: ignore[arg-type]
    return user


@pytest.fixture
def outsider(db: None) -> object:
    """Logged in, but with no role in the campaign."""
    return _user("oscar")


# --------------------------------------------------------------------------- the demo collection


def demo_dir() -> Path:
    from django.conf import settings

    return Path(settings.WORKBENCH_DEMO_DIR)


def demo_run_paths() -> list[Path]:
    return sorted((demo_dir() / "runs").glob("*.run"))


def demo_runs() -> list[Any]:
    """The demo runs as the format layer reads them, named by tag like stored runs."""
    from trec import read_run

    runs = [read_run(p) for p in demo_run_paths()]
    return [read_run(p, name=r.tag) for p, r in zip(demo_run_paths(), runs, strict=True)]


@pytest.fixture
def loaded(campaign: Any) -> Any:
    """``campaign`` with the demo collection's 5 topics and 4 runs (group 'demo') imported."""
    from campaigns.services import runs_import, topics_import

    topics_import(campaign=campaign, path=demo_dir() / "topics.txt")
    runs_import(campaign=campaign, paths=demo_run_paths(), group="demo")
    return campaign
