"""Every page and API endpoint, asked by each persona: who gets in, who is refused, who is not told.

Anonymous visitors are sent to log in (pages) or refused (API); people with no role in the campaign
get 404, so campaign names do not leak; assessors and adjudicators get 403 on organizer work; the
organizer gets through. A test also checks that every route of these apps is in the table, so a
new endpoint cannot be added without saying who may use it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from campaigns.models import Campaign
from campaigns.services import runs_import, topics_import
from jobs.models import Job
from jobs.services import job_enqueue
from pooling.models import Pool, PoolDocument
from pooling.services import pool_build
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD, without_csrf

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Endpoint:
    name: str  # URL name with namespace
    method: str
    args: Callable[[dict[str, Any]], list[Any]]
    data: dict[str, Any] | None = None
    organizer_status: int = 200


def slug(ctx: dict[str, Any]) -> list[Any]:
    return [ctx["campaign"].slug]


def slug_pool(ctx: dict[str, Any]) -> list[Any]:
    return [ctx["campaign"].slug, ctx["pool"].pk]


MEMBER_ACTIONS = (
    "member_role_remove",
    "member_password_reset",
    "member_active",
    "member_login_link",
    "member_sessions_end",
)


def slug_member(ctx: dict[str, Any]) -> list[Any]:
    return [ctx["campaign"].slug, ctx["campaign"].memberships.get(role="organizer").user_id]


def job_arg(ctx: dict[str, Any]) -> list[Any]:
    return [ctx["job"].id]


# a machine assessor's routes, the same on the pages and in the API (machine 0 does not exist)
MACHINE_ROUTES = (
    ("machine", "get"),
    ("machine_start", "post"),
    ("machine_stop", "post"),
    ("machine_calibration", "post"),
    ("machine_pool", "post"),
)
CAMPAIGN_PAGES = [
    Endpoint("campaigns:campaign", "get", slug),
    Endpoint("campaigns:import", "get", slug),
    Endpoint("campaigns:import", "post", slug, {"what": "topics"}),
    Endpoint("pooling:pool_new", "get", slug),
    Endpoint("pooling:pool_new", "post", slug, {"name": "x", "strategy": "nope"}),
    Endpoint("pooling:pool", "get", slug_pool),
    Endpoint("pooling:pool_export", "get", slug_pool),
    Endpoint("pooling:pool_diagnostics", "post", slug_pool, {"ks": "10"}, organizer_status=302),
    Endpoint("pooling:pool_commit", "post", slug_pool, organizer_status=302),
    Endpoint("pooling:pool_discard", "post", slug_pool, organizer_status=302),
    Endpoint("judging:people", "get", slug),
    Endpoint("judging:people", "post", slug, {"username": ""}),
    Endpoint("judging:people_create_many", "post", slug, {}, organizer_status=302),
    Endpoint("judging:scale", "get", slug),
    Endpoint("judging:scale", "post", slug, {}),
    Endpoint("judging:assignments", "get", slug),
    Endpoint("judging:assignments", "post", slug, {}),
    # the organizer's own account (refused: a message, back to the page) and an assignment not there
    *(Endpoint(f"judging:{n}", "post", slug_member, organizer_status=302) for n in MEMBER_ACTIONS),
    Endpoint("judging:assignment_reassign", "post", lambda c: [*slug(c), 0], organizer_status=404),
    Endpoint("judging:assignment_delete", "post", lambda c: [*slug(c), 0], organizer_status=404),
    Endpoint("judging:invitation_withdraw", "post", lambda c: [*slug(c), 0], organizer_status=404),
    # machine assessors: a bad form goes back to the People page; machine 0 does not exist
    Endpoint("judging:machine_create", "post", slug, {}, organizer_status=302),
    *(Endpoint(f"judging:{n}", m, lambda c: [*slug(c), 0], organizer_status=404) for n, m in MACHINE_ROUTES),
]
CAMPAIGN_APIS = [
    Endpoint("api:campaign", "get", slug),
    Endpoint("api:runs", "get", slug),
    Endpoint("api:topics_import", "post", slug, {}, organizer_status=400),
    Endpoint("api:runs_validate", "post", slug, {}, organizer_status=400),
    Endpoint("api:runs_import", "post", slug, {}, organizer_status=400),
    Endpoint("api:documents_import", "post", slug, {}, organizer_status=400),
    Endpoint("api:qrels_import", "post", slug, {}, organizer_status=400),
    Endpoint("api:pools", "get", slug),
    Endpoint(
        "api:pool_build", "post", slug, {"name": "x", "strategy": "depth", "depth": 2}, organizer_status=202
    ),
    Endpoint("api:pool", "get", slug_pool),
    Endpoint("api:pool_export", "get", slug_pool),
    Endpoint("api:pool_diagnostics", "post", slug_pool, {}, organizer_status=202),
    Endpoint("api:pool_commit", "post", slug_pool),
    Endpoint("api:pool_discard", "post", slug_pool, organizer_status=204),
    Endpoint("judging_api:people", "get", slug),
    Endpoint("judging_api:member_invite", "post", slug, {}, organizer_status=400),
    Endpoint("judging_api:people_create", "post", slug, {}, organizer_status=400),
    Endpoint("judging_api:scale", "get", slug),
    Endpoint("judging_api:scale_set", "post", slug, {}, organizer_status=400),
    Endpoint("judging_api:assignments", "get", slug),
    Endpoint("judging_api:assignments_create", "post", slug, {}, organizer_status=400),
    *(Endpoint(f"judging_api:{n}", "post", slug_member, organizer_status=400) for n in MEMBER_ACTIONS),
    Endpoint("judging_api:assignment_reassign", "post", lambda c: [*slug(c), 0], organizer_status=404),
    Endpoint("judging_api:assignment_delete", "post", lambda c: [*slug(c), 0], organizer_status=404),
    Endpoint("judging_api:invitations", "get", slug),
    Endpoint("judging_api:invitation_withdraw", "post", lambda c: [*slug(c), 0], organizer_status=404),
    Endpoint("judging_api:machines", "get", slug),
    Endpoint("judging_api:machines", "post", slug, {}, organizer_status=400),
    *(
        Endpoint(f"judging_api:{n}", m, lambda c: [*slug(c), 0], organizer_status=404)
        for n, m in MACHINE_ROUTES
    ),
    # the preview of a pool sampled by a machine's grades (the API's GET beside its POST)
    Endpoint("judging_api:machine_pool", "get", lambda c: [*slug(c), 0], organizer_status=404),
]
JOB_ENDPOINTS = [
    Endpoint("jobs:job", "get", job_arg),
    Endpoint("jobs:status", "get", job_arg),
    Endpoint("api:job", "get", job_arg),
]
OPEN_TO_MEMBERS = [  # any logged-in person; they list only what the person may see
    Endpoint("campaigns:campaigns", "get", lambda ctx: []),
    Endpoint("api:campaigns", "get", lambda ctx: []),
]
CREATE = [
    Endpoint("campaigns:campaigns", "post", lambda ctx: [], {"slug": "new-one"}, organizer_status=302),
    Endpoint("api:campaign_create", "post", lambda ctx: [], {"slug": "new-one"}, organizer_status=201),
]
ALL = CAMPAIGN_PAGES + CAMPAIGN_APIS + JOB_ENDPOINTS + OPEN_TO_MEMBERS + CREATE


def _names(patterns: list[Any], namespace: str = "") -> set[str]:
    out: set[str] = set()
    for p in patterns:
        if isinstance(p, URLResolver):
            ns = f"{namespace}{p.namespace}:" if p.namespace else namespace
            out |= _names(p.url_patterns, ns)
        elif isinstance(p, URLPattern) and p.name:
            out.add(namespace + p.name)
    return out


def test_every_route_of_the_apps_is_in_an_access_table() -> None:
    """This table, or the access tables of the judging and metrics tests, names every route.

    Only Django's admin, the login and logout pages, the forgotten-password pages (open to anyone,
    tests/test_password_reset.py), the page a login link opens (its link is the credential,
    tests/test_login_links.py) and the public API schema are left out.
    """
    from tests import test_accounts
    from tests.judging.assess import test_views as test_assess_pages
    from tests.judging.reports import test_views as test_report_pages
    from tests.metrics import test_leaderboard_pages, test_live_pages
    from tests.test_login_links import LOGIN_LINK_ROUTES
    from tests.test_password_reset import PASSWORD_RESET_ROUTES

    public = {"login", "logout", "schema", *PASSWORD_RESET_ROUTES, *LOGIN_LINK_ROUTES}
    routes = {
        n for n in _names(get_resolver().url_patterns) if not n.startswith("admin:") and n not in public
    }
    tested = {e.name for e in ALL}
    pages = (test_assess_pages, test_report_pages, test_leaderboard_pages, test_live_pages, test_accounts)
    for module in pages:
        tested |= {name for name, _ in module.ACCESS_TESTED}
    assert routes - tested == set()


@pytest.fixture
def ctx(campaign: Campaign, organizer: Any, tmp_path: Path) -> dict[str, Any]:
    topics = tmp_path / "topics.tsv"
    topics.write_text("401\tpooling bias\n402\tassessor agreement\n")
    run = tmp_path / "bm25.run"
    run.write_text("401 Q0 d1 1 2.0 bm25\n401 Q0 d2 2 1.0 bm25\n402 Q0 d3 1 1.0 bm25\n")
    topics_import(campaign=campaign, path=topics)
    runs_import(campaign=campaign, paths=[run])
    pool = pool_build(campaign=campaign, name="p", spec=PoolSpec("depth", depth=2))
    job = job_enqueue(
        kind="pool_build",
        title="t",
        campaign=campaign,
        user=organizer,
        params={"name": "p2", "spec": {"strategy": "depth", "depth": 1}},
    )
    return {"campaign": campaign, "pool": pool, "job": job}


def call(client: Client, endpoint: Endpoint, ctx: dict[str, Any]) -> Any:
    url = reverse(endpoint.name, args=endpoint.args(ctx))
    if endpoint.method == "get":
        return client.get(url)
    if endpoint.name.startswith(("api:", "judging_api:")):
        return client.post(url, endpoint.data or {}, content_type="application/json")
    return client.post(url, endpoint.data or {})


def login(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.mark.parametrize("endpoint", ALL, ids=lambda e: f"{e.method}-{e.name}")
def test_anonymous_is_sent_to_log_in_or_refused(endpoint: Endpoint, ctx: dict[str, Any]) -> None:
    response = call(Client(), endpoint, ctx)
    if endpoint.name.startswith(("api:", "judging_api:")):
        assert response.status_code in (401, 403)
    else:
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert Pool.objects.filter(pk=ctx["pool"].pk).exists()


@pytest.mark.parametrize(
    "endpoint", CAMPAIGN_PAGES + CAMPAIGN_APIS + JOB_ENDPOINTS, ids=lambda e: f"{e.method}-{e.name}"
)
def test_outsider_is_not_told_the_campaign_exists(
    endpoint: Endpoint, ctx: dict[str, Any], outsider: Any
) -> None:
    response = call(login(outsider), endpoint, ctx)
    assert response.status_code == 404
    assert ctx["campaign"].slug not in response.content.decode() or endpoint.name.startswith(
        ("api:", "judging_api:")
    )


@pytest.mark.parametrize("endpoint", CAMPAIGN_PAGES + CAMPAIGN_APIS, ids=lambda e: f"{e.method}-{e.name}")
@pytest.mark.parametrize("persona", ["assessor", "co_assessor", "adjudicator"])
def test_assessors_and_adjudicators_are_refused_organizer_work(
    endpoint: Endpoint, persona: str, ctx: dict[str, Any], request: pytest.FixtureRequest
) -> None:
    user = request.getfixturevalue(persona)
    documents = PoolDocument.objects.filter(pool=ctx["pool"]).count()
    response = call(login(user), endpoint, ctx)
    assert response.status_code == 403
    body = without_csrf(response.content.decode())
    # nothing of the runs leaks into the refusal
    assert "bm25" not in body and "Q0" not in body
    assert PoolDocument.objects.filter(pool=ctx["pool"]).count() == documents
    assert Pool.objects.get(pk=ctx["pool"].pk).status == Pool.Status.DRAFT


@pytest.mark.parametrize("endpoint", JOB_ENDPOINTS, ids=lambda e: f"{e.method}-{e.name}")
@pytest.mark.parametrize("persona", ["assessor", "adjudicator"])
def test_members_cannot_see_an_organizers_job(
    endpoint: Endpoint, persona: str, ctx: dict[str, Any], request: pytest.FixtureRequest
) -> None:
    assert call(login(request.getfixturevalue(persona)), endpoint, ctx).status_code == 404


@pytest.mark.parametrize("endpoint", ALL, ids=lambda e: f"{e.method}-{e.name}")
def test_organizer_gets_through(endpoint: Endpoint, ctx: dict[str, Any], organizer: Any) -> None:
    response = call(login(organizer), endpoint, ctx)
    assert response.status_code == endpoint.organizer_status, response.content[:300]


@pytest.mark.parametrize("endpoint", CREATE, ids=lambda e: f"{e.method}-{e.name}")
def test_creating_a_campaign_needs_the_permission(
    endpoint: Endpoint, ctx: dict[str, Any], assessor: Any
) -> None:
    assert call(login(assessor), endpoint, ctx).status_code == 403
    assert not Campaign.objects.filter(slug="new-one").exists()


@pytest.mark.parametrize("endpoint", OPEN_TO_MEMBERS, ids=lambda e: f"{e.method}-{e.name}")
def test_campaign_lists_show_only_the_persons_campaigns(
    endpoint: Endpoint, ctx: dict[str, Any], outsider: Any, assessor: Any
) -> None:
    assert ctx["campaign"].name not in call(login(outsider), endpoint, ctx).content.decode()
    assert ctx["campaign"].name in call(login(assessor), endpoint, ctx).content.decode()


def test_a_superuser_is_organizer_everywhere(ctx: dict[str, Any]) -> None:
    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.create_superuser("root", password=PASSWORD)
    assert call(login(admin), CAMPAIGN_PAGES[0], ctx).status_code == 200
    assert Job.objects.filter(pk=ctx["job"].pk).exists()


# ------------------------------------------------------------------------------ jobs and roles


def test_people_who_lose_their_role_lose_its_jobs(
    ctx: dict[str, Any], organizer: Any, adjudicator: Any
) -> None:
    """A job's result can hold runs, scores and assessors' labels: the role is checked on every read."""
    from campaigns.models import Membership
    from judging.reports.selectors import AGREEMENT_JOB

    own = ctx["job"]  # started by the organizer
    report = Job.objects.create(
        kind=AGREEMENT_JOB, title="t", campaign=ctx["campaign"], created_by=adjudicator
    )
    for job, person in ((own, organizer), (report, adjudicator)):
        for name in ("jobs:job", "api:job"):
            assert login(person).get(reverse(name, args=[job.id])).status_code == 200
    # an organizer may read the adjudicator's agreement report; an adjudicator not a pool build
    assert login(organizer).get(reverse("api:job", args=[report.id])).status_code == 200
    assert login(adjudicator).get(reverse("api:job", args=[own.id])).status_code == 404
    Membership.objects.filter(user=adjudicator).update(role="assessor")  # demoted
    Membership.objects.filter(user=organizer).delete()  # removed
    for job, person in ((own, organizer), (report, adjudicator)):
        for name in ("jobs:job", "jobs:status", "api:job"):
            assert login(person).get(reverse(name, args=[job.id])).status_code == 404


def test_basic_auth_from_a_browser_needs_the_csrf_token(ctx: dict[str, Any], organizer: Any) -> None:
    """A form another site posts with the browser's cached basic credentials is refused; scripts pass."""
    import base64

    from rest_framework.test import APIClient

    token = base64.b64encode(f"{organizer.username}:{PASSWORD}".encode()).decode()
    url = reverse("api:pool_build", args=[ctx["campaign"].slug])
    data = {"name": "evil", "strategy": "depth", "depth": "1"}
    browser = APIClient(enforce_csrf_checks=True)
    forged = browser.post(
        url, data, HTTP_AUTHORIZATION=f"Basic {token}", HTTP_ORIGIN="https://evil.example", format="multipart"
    )
    assert forged.status_code == 403 and not Pool.objects.filter(name="evil").exists()
    script = APIClient(enforce_csrf_checks=True)
    ok = script.post(url, data, HTTP_AUTHORIZATION=f"Basic {token}", format="multipart")
    assert ok.status_code == 202 and Pool.objects.filter(name="evil").exists()
