"""An organizer (not staff) cannot make the server send an environment variable's value or a
request anywhere the operator did not declare: machine assessors pick a declared endpoint by name;
no page, API field or command option takes a URL or a variable's name; a declared endpoint on a
private address the operator did not allow reaches nothing, however it is spelled (a listener on
loopback must receive nothing); a judge whose endpoint is not declared cannot judge and says why.
And how a run ended (done, stopped early, failed) shows on its pages and in the API."""

# ruff: noqa: F811
from __future__ import annotations

import io
import time
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from campaigns.models import Campaign
from jobs.models import Job
from judging.models import Judgment, MachineCall, MachineJudge
from judging.services.machine import NO_ENDPOINT
from pooling.models import Pool
from tests.judging.test_machine_judges import SECRET, assign, pool, stocked, web  # noqa: F401
from tests.llm.fake_llm import FakeLLM, Reply
from tests.llm.listener import SPELLINGS, Listener

pytestmark = pytest.mark.django_db


def _settle() -> None:
    time.sleep(0.2)  # a connection that did get through is accepted and counted by now


@pytest.fixture
def ear() -> Any:
    with Listener() as listening:
        yield listening


def _api(user: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def _create(web: Client, campaign: Campaign, username: str, endpoint: str, **extra: str) -> Any:
    data = {"username": username, "endpoint": endpoint, "model": "m", "requests_per_minute": "6000"} | extra
    return web.post(reverse("judging:machine_create", args=[campaign.slug]), data, follow=True)


def _made(web: Client, campaign: Campaign, username: str, endpoint: str, **extra: str) -> MachineJudge:
    """A machine assessor added on the People page."""
    _create(web, campaign, username, endpoint, **extra)
    return MachineJudge.objects.get(user__username=username)


# ------------------------------------------------------------------------------ no URL, no variable


@pytest.mark.parametrize(
    "free",
    [
        {"base_url": "{ear}"},
        {"api_key_env": "WORKBENCH_SECRET_KEY"},
        {"key_env": "DATABASE_URL"},
        {"base_url": "{ear}", "api_key_env": "WORKBENCH_SECRET_KEY"},
    ],
)
def test_no_page_or_api_field_takes_a_url_or_a_variable_name(
    web: Client,
    organizer: Any,
    stocked: Campaign,
    pool: Pool,
    ear: Listener,
    settings: Any,
    free: dict[str, str],
) -> None:
    settings.WORKBENCH_JUDGE_ENDPOINTS = {"public": {"base_url": "https://judge.invalid/v1"}}
    fields = {k: v.format(ear=ear.url("127.0.0.1")) for k, v in free.items()}
    page = _create(web, stocked, "by-page", "public", **fields).content.decode()
    assert "choose it by name (endpoint)" in page and not MachineJudge.objects.exists()
    api = _api(organizer)
    base = f"/api/judging/campaigns/{stocked.slug}/machines/"
    made = api.post(base, {"username": "by-api", "endpoint": "public", "model": "m", **fields}, format="json")
    assert made.status_code == 400 and "choose it by name (endpoint)" in str(made.data)
    assert not MachineJudge.objects.exists()
    # editing is refused the same way, on the page and in the API
    judge = MachineJudge.objects.get(
        pk=api.post(base, {"username": "ok", "endpoint": "public", "model": "m"}, format="json").data["id"]
    )
    edited = web.post(
        reverse("judging:machine", args=[stocked.slug, judge.pk]),
        {"endpoint": "public", "model": "m2", **fields},
    ).content.decode()
    assert "choose it by name (endpoint)" in edited
    put = api.put(f"{base}{judge.pk}/", {"endpoint": "public", "model": "m2", **fields}, format="json")
    assert put.status_code == 400
    judge.refresh_from_db()
    assert judge.model == "m" and judge.endpoint == "public"
    _settle()
    assert ear.connections == []


def test_an_endpoint_the_operator_did_not_declare_is_refused_everywhere(
    web: Client, organizer: Any, stocked: Campaign, settings: Any, ear: Listener
) -> None:
    settings.WORKBENCH_JUDGE_ENDPOINTS = {"public": {"base_url": "https://judge.invalid/v1"}}
    for name in ("elsewhere", ear.url("127.0.0.1"), "WORKBENCH_SECRET_KEY"):
        assert "not an endpoint the server&#x27;s operator declared (declared: public)" in (
            _create(web, stocked, "x", name).content.decode()
        )
        made = _api(organizer).post(
            f"/api/judging/campaigns/{stocked.slug}/machines/",
            {"username": "x", "endpoint": name, "model": "m"},
            format="json",
        )
        assert made.status_code == 400 and "not an endpoint the server's operator declared" in str(made.data)
    assert not MachineJudge.objects.exists() and ear.connections == []


def test_with_no_endpoint_declared_the_pages_say_how_to_declare_one(
    web: Client, organizer: Any, stocked: Campaign, settings: Any
) -> None:
    settings.WORKBENCH_JUDGE_ENDPOINTS = {}
    people = web.get(reverse("judging:people", args=[stocked.slug])).content.decode()
    assert 'id="no-endpoint"' in people and "WORKBENCH_JUDGE_ENDPOINTS" in people
    made = _api(organizer).post(
        f"/api/judging/campaigns/{stocked.slug}/machines/", {"username": "x", "endpoint": "any", "model": "m"}
    )
    assert made.status_code == 400 and NO_ENDPOINT in str(made.data)


def test_key_set_speaks_only_of_the_variable_the_operator_declared(
    web: Client, organizer: Any, stocked: Campaign, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.WORKBENCH_JUDGE_ENDPOINTS = {
        "keyed": {"base_url": "https://judge.invalid/v1", "key_env": "WORKBENCH_JUDGE_API_KEY_T"},
        "open": {"base_url": "https://other.invalid/v1"},
    }
    monkeypatch.delenv("WORKBENCH_JUDGE_API_KEY_T", raising=False)
    monkeypatch.setenv("SOMETHING_ELSE", SECRET)
    _create(web, stocked, "keyed", "keyed")
    _create(web, stocked, "open", "open")
    base = f"/api/judging/campaigns/{stocked.slug}/machines/"
    listed = {m["username"]: m for m in _api(organizer).get(base).data}
    assert listed["keyed"]["key_set"] is False and listed["open"]["key_set"] is None
    keyed = MachineJudge.objects.get(user__username="keyed")
    assert (
        'id="key-not-set"'
        in web.get(reverse("judging:machine", args=[stocked.slug, keyed.pk])).content.decode()
    )
    monkeypatch.setenv("WORKBENCH_JUDGE_API_KEY_T", SECRET)
    answer = _api(organizer).get(f"{base}{keyed.pk}/")
    assert answer.data["key_set"] is True and SECRET not in answer.content.decode()
    assert not {"api_key_env", "key_env", "base_url"} & set(answer.data)


# ------------------------------------------------------------------------------ every spelling


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_declared_endpoint_on_loopback_reaches_nothing_unless_allowed(
    web: Client, organizer: Any, stocked: Campaign, pool: Pool, settings: Any, ear: Listener, spelling: str
) -> None:
    """The operator declared the endpoint but did not allow private addresses: neither the page's
    nor the API's start sends anything to the listener, and both show why."""
    settings.WORKBENCH_JUDGE_ENDPOINTS = {"e": {"base_url": ear.url(SPELLINGS[spelling])}}
    page_judge = _made(web, stocked, "by-page", "e")
    assign(stocked, pool, page_judge, topics=1)
    job_page = web.post(reverse("judging:machine_start", args=[stocked.slug, page_judge.pk]), follow=True)
    api = _api(organizer)
    base = f"/api/judging/campaigns/{stocked.slug}/machines/"
    api_judge = MachineJudge.objects.get(
        pk=api.post(base, {"username": "by-api", "endpoint": "e", "model": "m"}, format="json").data["id"]
    )
    assign(stocked, pool, api_judge, topics=1)
    started = api.post(f"{base}{api_judge.pk}/start/")
    _settle()
    assert ear.connections == []
    assert started.status_code == 202
    shown = job_page.content.decode()
    assert 'id="machine-run-state"' in shown and ">failed</span>" in shown
    assert "refused to connect" in shown or "cannot be asked" in shown
    job = api.get(started.data["url"]).data
    assert job["status"] == "failed"
    last = api.get(f"{base}{api_judge.pk}/").data["last_run"]
    assert last["state"] == "failed" and (
        "refused to connect" in last["reason"] or "cannot be asked" in last["reason"]
    )
    machine_page = web.get(reverse("judging:machine", args=[stocked.slug, page_judge.pk])).content.decode()
    assert 'id="machine-last-run"' in machine_page and "failed" in machine_page
    assert not Judgment.objects.exists()


def test_the_allowed_private_endpoint_does_get_the_request(
    web: Client, stocked: Campaign, pool: Pool, settings: Any
) -> None:
    with FakeLLM(lambda req, n: Reply("##final score: 3")) as server:
        url = server.base_url.replace("127.0.0.1", "localhost")
        settings.WORKBENCH_JUDGE_ENDPOINTS = {"local": {"base_url": url, "allow_private": True}}
        judge = _made(web, stocked, "llm", "local")
        items = assign(stocked, pool, judge, topics=1)
        web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]))
    assert len(server.seen) == len(items) and Judgment.objects.filter(assessor=judge.user).count() == len(
        items
    )
    assert "Authorization" not in server.seen[0].headers  # the endpoint declares no key


def test_the_command_asks_only_the_judges_declared_endpoint(
    web: Client, stocked: Campaign, pool: Pool, settings: Any, ear: Listener
) -> None:
    settings.WORKBENCH_JUDGE_ENDPOINTS = {"e": {"base_url": ear.url("2130706433")}}
    judge = _made(web, stocked, "llm", "e")
    assign(stocked, pool, judge, topics=1)
    err = io.StringIO()
    with pytest.raises(CommandError) as failed:
        call_command(
            "machine_judge",
            stocked.slug,
            "--assessor",
            "llm",
            "--progress",
            "off",
            stdout=io.StringIO(),
            stderr=err,
        )
    assert failed.value.returncode == 1 and "llm got no answer: stopped early: refused to connect" in str(
        failed.value
    )
    _settle()
    assert ear.connections == []
    # and the campaign mode has no option to point it elsewhere
    for option in (["--base-url", ear.url("127.0.0.1")], ["--api-key-env", "WORKBENCH_SECRET_KEY"]):
        with pytest.raises(CommandError, match="belong to the file mode") as refused:
            call_command("machine_judge", stocked.slug, "--assessor", "llm", *option)
        assert refused.value.returncode == 2


# ------------------------------------------------------------------------------ unusable judges


def test_a_removed_endpoint_makes_its_judge_unusable_with_the_reason(
    web: Client, organizer: Any, stocked: Campaign, pool: Pool, settings: Any
) -> None:
    settings.WORKBENCH_JUDGE_ENDPOINTS = {"gone": {"base_url": "https://judge.invalid/v1"}}
    judge = _made(web, stocked, "llm", "gone")
    assign(stocked, pool, judge, topics=1)
    settings.WORKBENCH_JUDGE_ENDPOINTS = {"other": {"base_url": "https://other.invalid/v1"}}
    reason = "its endpoint 'gone' is no longer declared by the server's operator; choose another"
    page = web.get(reverse("judging:machine", args=[stocked.slug, judge.pk])).content.decode()
    assert 'id="machine-unusable"' in page and reason.replace("'", "&#x27;") in page
    api = _api(organizer)
    base = f"/api/judging/campaigns/{stocked.slug}/machines/"
    shown = api.get(f"{base}{judge.pk}/").data
    assert (shown["usable"], shown["unusable_reason"]) == (False, reason)
    refused = api.post(f"{base}{judge.pk}/start/")
    assert refused.status_code == 400 and reason in str(refused.data)
    started = web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]), follow=True)
    assert reason.replace("'", "&#x27;") in started.content.decode()
    with pytest.raises(CommandError, match="no longer declared"):
        call_command("machine_judge", stocked.slug, "--assessor", "llm", stdout=io.StringIO())
    assert not Job.objects.filter(kind="machine_judging").exists()
    # choosing a declared endpoint makes it usable again
    assert api.put(f"{base}{judge.pk}/", {"endpoint": "other", "model": "m"}, format="json").data["usable"]


# ------------------------------------------------------------------------------ failures a person sees


def test_a_refused_key_fails_the_run_with_the_status_and_the_answers_first_line(
    web: Client, organizer: Any, stocked: Campaign, pool: Pool, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_JUDGE_API_KEY", SECRET)
    body = f"Incorrect API key provided: {SECRET}\nsee the docs".encode()
    with FakeLLM(lambda req, n: Reply(status=401, body=body)) as server:
        settings.WORKBENCH_JUDGE_ENDPOINTS = {
            "hosted": {
                "base_url": server.base_url,
                "key_env": "WORKBENCH_JUDGE_API_KEY",
                "allow_private": True,
            }
        }
        judge = _made(web, stocked, "llm", "hosted", concurrency="1")
        assign(stocked, pool, judge, topics=2)
        job_page = web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]), follow=True)
    assert len(server.seen) == 1  # no point asking again
    said = "Incorrect API key provided: [redacted]"
    reason = f"stopped early: HTTP 401: {said}; no other document would get an answer"
    shown = job_page.content.decode()
    assert reason in shown and SECRET not in shown and "see the docs" not in shown
    job = Job.objects.get(kind="machine_judging")
    assert job.status == Job.Status.FAILED and job.errors == [f"llm got no answer: {reason}"]
    assert job.result is not None and (job.result["state"], job.result["reason"], job.result["asked"]) == (
        "failed",
        reason,
        1,
    )
    last = _api(organizer).get(f"/api/judging/campaigns/{stocked.slug}/machines/{judge.pk}/").data["last_run"]
    assert (last["state"], last["reason"], last["job"]) == ("failed", reason, str(job.id))
    page = web.get(reverse("judging:machine", args=[stocked.slug, judge.pk])).content.decode()
    assert "Incorrect API key provided: [redacted]" in page and SECRET not in page


def test_failures_in_a_row_stop_the_run_early_and_the_job_says_so(
    web: Client, stocked: Campaign, pool: Pool, settings: Any
) -> None:
    with FakeLLM(lambda req, n: Reply() if n <= 2 else Reply(status=500, body=b"model overloaded")) as server:
        settings.WORKBENCH_JUDGE_ENDPOINTS = {"local": {"base_url": server.base_url, "allow_private": True}}
        judge = _made(web, stocked, "llm", "local", concurrency="1", max_retries="0")
        items = assign(stocked, pool, judge, topics=3)
        assert len(items) > 7
        job_page = web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]), follow=True)
    assert len(server.seen) == 7
    job = Job.objects.get(kind="machine_judging")
    assert job.status == Job.Status.DONE and job.result is not None
    assert job.result["state"] == "stopped early" and job.result["graded"] == 2
    reason = "stopped early: 5 documents in a row got no answer; the last failure: HTTP 500: model overloaded"
    assert job.result["reason"] == reason and reason in job_page.content.decode()
    machine_page = web.get(reverse("judging:machine", args=[stocked.slug, judge.pk])).content.decode()
    assert "stopped early" in machine_page and "model overloaded" in machine_page


def test_an_interrupted_judging_job_says_how_many_judgments_it_kept(
    web: Client, stocked: Campaign, pool: Pool, settings: Any, organizer: Any
) -> None:
    from jobs.services import _job_interrupted

    with FakeLLM() as server:
        settings.WORKBENCH_JUDGE_ENDPOINTS = {"local": {"base_url": server.base_url, "allow_private": True}}
        judge = _made(web, stocked, "llm", "local")
        assign(stocked, pool, judge, topics=1)
        web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]))
    kept = MachineCall.objects.filter(judge=judge).count()
    assert kept > 1
    started = timezone.now()
    MachineCall.objects.filter(judge=judge).update(asked_at=started)
    running = Job.objects.create(
        kind="machine_judging", campaign=stocked, title="t", params={"judge": judge.pk},
        status=Job.Status.RUNNING, started_at=started, worker="host:1",
    )  # fmt: skip
    assert _job_interrupted(running)
    running.refresh_from_db()
    assert running.errors == [
        "interrupted: the worker running this job (host:1) stopped before it finished (killed or crashed); "
        f"the {kept} judgments it made before the stop are kept: start it again to go on (nothing judged is "
        "asked twice)"
    ]
    other = Job.objects.create(kind="pool_build", campaign=stocked, title="t", status=Job.Status.RUNNING)
    assert _job_interrupted(other)
    other.refresh_from_db()
    assert other.errors[0].endswith("nothing of it was kept, start it again")
