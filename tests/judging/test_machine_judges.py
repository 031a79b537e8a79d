"""Machine assessors in a campaign: created on the People page and in the API, judging their
assignments as a background job against a real local chat-completions server (tests/llm/fake_llm.py),
stoppable and resumable without asking twice, and never showing the API key anywhere."""

from __future__ import annotations

import io
from collections import Counter
from typing import Any

import numpy as np
import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns.models import Campaign
from judging.llm.prompts import spread
from judging.models import Assignment, AssignmentItem, Judgment, MachineCall, MachineJudge
from judging.services import assignments_create
from judging.services.machine import calibration_sample_create, campaign_scale
from pooling.models import Pool
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD, demo_dir
from tests.llm.fake_llm import FakeLLM, Reply

pytestmark = pytest.mark.django_db

SECRET = "sk-campaign-DO-NOT-LEAK-41c9"


def answer_of(request: dict[str, Any], n: int) -> Reply:
    """A deterministic 0-3 answer from the passage's length."""
    text = request["messages"][-1]["content"]
    passage = text.split("Passage: ", 1)[-1].split("\n\n", 1)[0]
    return Reply(f"M: 1\nT: 2\n##final score: {len(passage) % 4}")


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("WORKBENCH_JUDGE_API_KEY", SECRET)
    return SECRET


def declare(settings: Any, **servers: FakeLLM) -> None:
    """The operator declares each fake server (on loopback, so allowed private addresses)."""
    settings.WORKBENCH_JUDGE_ENDPOINTS = {
        name: {"base_url": s.base_url, "key_env": "WORKBENCH_JUDGE_API_KEY", "allow_private": True}
        for name, s in servers.items()
    }


@pytest.fixture
def server(settings: Any) -> Any:
    with FakeLLM(answer_of) as fake:
        declare(settings, fake=fake)
        yield fake


@pytest.fixture
def stocked(loaded: Campaign) -> Campaign:
    from campaigns.services import documents_import

    documents_import(campaign=loaded, paths=[demo_dir() / "documents.tsv"])
    return loaded


@pytest.fixture
def pool(stocked: Campaign) -> Pool:
    return pool_commit(pool=pool_build(campaign=stocked, name="d3", spec=PoolSpec("depth", depth=3)))


@pytest.fixture
def web(organizer: Any) -> Client:
    client = Client()
    assert client.login(username=organizer.username, password=PASSWORD)
    return client


def add_machine(web: Client, campaign: Campaign, server: FakeLLM, **extra: str) -> MachineJudge:
    data = {
        "username": "llm",
        "endpoint": "fake",
        "model": "fake-1",
        "requests_per_minute": "6000",
    } | extra
    response = web.post(reverse("judging:machine_create", args=[campaign.slug]), data)
    assert response.status_code == 302, response
    return MachineJudge.objects.get(user__username=data["username"])


def assign(campaign: Campaign, pool: Pool, judge: MachineJudge, topics: int = 2) -> list[AssignmentItem]:
    from campaigns.models import Topic

    chosen = list(Topic.objects.filter(campaign=campaign, number__in=pool.sizes).order_by("number"))[:topics]
    assignments_create(campaign=campaign, pool=pool, assessors=[judge.user], topics=chosen, seed=1)
    return list(AssignmentItem.objects.filter(assignment__assessor=judge.user))


def test_the_people_page_adds_a_machine_assessor_and_never_shows_the_key(
    web: Client, organizer: Any, campaign: Campaign, server: FakeLLM, key: str
) -> None:
    people = web.get(reverse("judging:people", args=[campaign.slug])).content.decode()
    assert "Add a machine assessor" in people
    refused = web.post(
        reverse("judging:machine_create", args=[campaign.slug]),
        {"username": "bad", "endpoint": "elsewhere", "model": "m"},
        follow=True,
    ).content.decode()
    assert "not an endpoint the server&#x27;s operator declared (declared: fake)" in refused
    assert not MachineJudge.objects.exists()
    judge = add_machine(web, campaign, server)
    assert not judge.user.has_usable_password()  # a machine never logs in
    machine_page = web.get(reverse("judging:machine", args=[campaign.slug, judge.pk])).content.decode()
    people = web.get(reverse("judging:people", args=[campaign.slug])).content.decode()
    api = APIClient()
    api.force_authenticate(organizer)
    listed = api.get(f"/api/judging/campaigns/{campaign.slug}/machines/")
    one = api.get(f"/api/judging/campaigns/{campaign.slug}/machines/{judge.pk}/")
    assert listed.status_code == 200 and listed.data[0]["key_set"] is True
    assert one.data["endpoint"] == "fake" and one.data["model"] == "fake-1" and one.data["usable"]
    for text in (machine_page, people, listed.content.decode(), one.content.decode()):
        assert SECRET not in text and server.base_url not in text  # the URL is the operator's too
    assert 'id="key-not-set"' not in machine_page and "llm" in people


def test_only_organizers_reach_machine_assessors(
    web: Client, campaign: Campaign, server: FakeLLM, assessor: Any
) -> None:
    judge = add_machine(web, campaign, server)
    other = Client()
    assert other.login(username=assessor.username, password=PASSWORD)
    assert other.get(reverse("judging:machine", args=[campaign.slug, judge.pk])).status_code == 403
    assert other.post(reverse("judging:machine_start", args=[campaign.slug, judge.pk])).status_code == 403
    api = APIClient()
    api.force_authenticate(assessor)
    assert api.get(f"/api/judging/campaigns/{campaign.slug}/machines/").status_code == 403
    assert api.post(f"/api/judging/campaigns/{campaign.slug}/machines/{judge.pk}/start/").status_code == 403


def test_the_machine_judges_its_assignments_in_a_job_and_a_second_run_asks_nothing(
    web: Client, stocked: Campaign, pool: Pool, server: FakeLLM, key: str
) -> None:
    judge = add_machine(web, stocked, server, price_input="1.5", price_output="6")
    items = assign(stocked, pool, judge)
    response = web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]), follow=True)
    job_page = response.content.decode()
    assert "graded" in job_page and SECRET not in job_page
    assert len(server.seen) == len(items)
    assert all(s.headers["Authorization"] == f"Bearer {SECRET}" for s in server.seen)
    judgments = {(j.topic.number, j.docno): j for j in Judgment.objects.filter(assessor=judge.user)}
    assert len(judgments) == len(items)
    scale = campaign_scale(stocked)
    for call in MachineCall.objects.filter(judge=judge).select_related("topic"):
        j = judgments[(call.topic.number, call.docno)]
        assert j.grade == spread(call.answer, 3, scale) == call.grade  # type: ignore[arg-type]
        assert "machine: fake-1, prompt umbrela-1" in j.comment
        assert call.total_tokens == 107 and call.raw_answer.endswith(f"score: {call.answer}")
        assert SECRET not in str(call.messages)
    machine_page = web.get(reverse("judging:machine", args=[stocked.slug, judge.pk])).content.decode()
    assert f"{len(items)} judgment" in machine_page and "cost" in machine_page
    for kind in ("csv", "assessor"):  # the exports carry the machine's judgments, never the key
        exported = web.get(reverse("judging:export", args=[stocked.slug, kind]), {"assessor": "llm"})
        assert exported.status_code == 200 and SECRET not in exported.content.decode()
    csv = web.get(reverse("judging:export", args=[stocked.slug, "csv"])).content.decode()
    assert csv.count("machine: fake-1, prompt umbrela-1") == len(items)  # the provenance is exported
    # again: everything is in the cache, nothing is asked
    web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]))
    assert len(server.seen) == len(items)
    assert MachineCall.objects.filter(judge=judge).count() == len(items)


def test_stopped_then_started_again_it_asks_every_document_once(
    web: Client, stocked: Campaign, pool: Pool, server: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    import judging.services.machine as machine

    judge = add_machine(web, stocked, server, concurrency="1")
    items = assign(stocked, pool, judge)
    monkeypatch.setattr(machine, "stop_requested", lambda pk: len(server.seen) >= 3)
    web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]))
    assert len(server.seen) == 3 and Judgment.objects.filter(assessor=judge.user).count() == 3
    from jobs.models import Job

    stopped = Job.objects.get(kind="machine_judging").result
    assert stopped is not None and stopped["stopped"] is True
    monkeypatch.setattr(machine, "stop_requested", lambda pk: False)
    web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]))
    assert len(server.seen) == len(items)
    assert Counter(s.body["messages"][-1]["content"] for s in server.seen).most_common(1)[0][1] == 1
    assert Judgment.objects.filter(assessor=judge.user).count() == len(items)


def test_the_stop_button_sets_the_flag_the_job_reads(
    web: Client, stocked: Campaign, pool: Pool, server: FakeLLM
) -> None:
    judge = add_machine(web, stocked, server)
    response = web.post(reverse("judging:machine_stop", args=[stocked.slug, judge.pk]), follow=True)
    assert "it was not judging" in response.content.decode()
    from judging.services.machine import stop_requested

    assert stop_requested(judge.pk)
    assign(stocked, pool, judge)
    web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]))  # a start clears it
    assert not stop_requested(judge.pk) and server.seen


def test_unreadable_answers_become_cant_judge_with_the_raw_text(
    web: Client, stocked: Campaign, pool: Pool, settings: Any
) -> None:
    with FakeLLM(lambda req, n: Reply("I would rather not say.")) as quiet:
        declare(settings, fake=quiet)
        judge = add_machine(web, stocked, quiet)
        items = assign(stocked, pool, judge, topics=1)
        web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]))
    rows = list(Judgment.objects.filter(assessor=judge.user))
    assert len(rows) == len(items) and all(j.cant_judge and j.grade is None for j in rows)
    assert all("can't judge: no score found" in j.comment for j in rows)
    assert set(MachineCall.objects.filter(judge=judge).values_list("raw_answer", flat=True)) == {
        "I would rather not say."
    }


def test_the_api_creates_starts_and_stops(
    organizer: Any, stocked: Campaign, pool: Pool, server: FakeLLM, key: str
) -> None:
    api = APIClient()
    api.force_authenticate(organizer)
    base = f"/api/judging/campaigns/{stocked.slug}/machines/"
    bad = api.post(base, {"username": "m", "endpoint": "fake", "model": "m", "temperature": 9}, format="json")
    assert bad.status_code == 400 and "temperature" in str(bad.data)
    made = api.post(base, {"username": "m1", "endpoint": "fake", "model": "fake-1"}, format="json")
    assert made.status_code == 201 and SECRET not in made.content.decode()
    judge = MachineJudge.objects.get(pk=made.data["id"])
    refused = api.post(f"{base}{judge.pk}/start/")
    assert refused.status_code == 400 and "no assignments" in str(refused.data)
    assign(stocked, pool, judge, topics=1)
    started = api.post(f"{base}{judge.pk}/start/")
    assert started.status_code == 202 and started.data["url"].startswith("/api/jobs/")
    assert api.post(f"{base}{judge.pk}/stop/").data == {"stopping": False}
    changed = api.put(
        f"{base}{judge.pk}/",
        {"endpoint": "fake", "model": "fake-2", "prompt_version": "basic-1"},
        format="json",
    )
    assert changed.status_code == 200 and changed.data["model"] == "fake-2"
    before = len(server.seen)
    api.post(f"{base}{judge.pk}/start/")  # a new model judges again
    assert len(server.seen) == 2 * before


def test_the_command_judges_in_campaign_mode(
    web: Client, stocked: Campaign, pool: Pool, server: FakeLLM
) -> None:
    judge = add_machine(web, stocked, server)
    items = assign(stocked, pool, judge, topics=1)
    out = io.StringIO()
    call_command(
        "machine_judge",
        stocked.slug,
        "--assessor",
        "llm",
        "--progress",
        "off",
        stdout=out,
        stderr=io.StringIO(),
    )
    assert f"{len(items)} documents, 0 already judged, {len(items)} graded" in out.getvalue()
    assert Judgment.objects.filter(assessor=judge.user).count() == len(items)
    with pytest.raises(Exception, match="not a machine assessor"):
        call_command("machine_judge", stocked.slug, "--assessor", "nobody", stdout=io.StringIO())


def test_a_calibration_sample_gives_humans_a_seeded_random_sample(
    web: Client, stocked: Campaign, pool: Pool, server: FakeLLM, assessor: Any, co_assessor: Any
) -> None:
    judge = add_machine(web, stocked, server)
    assign(stocked, pool, judge, topics=3)
    web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]))
    graded = sorted(
        Judgment.objects.filter(assessor=judge.user, grade__isnull=False).values_list("topic_id", "docno"),
        key=lambda r: (r[0], r[1].encode()),
    )
    rng = np.random.default_rng(7)
    expected = {graded[i] for i in rng.choice(len(graded), size=6, replace=False).tolist()}
    response = web.post(
        reverse("judging:machine_calibration", args=[stocked.slug, judge.pk]),
        {"assessors": ["alice", "bob"], "size": "6", "seed": "7"},
        follow=True,
    )
    assert "calibration sample of 6 documents (seed 7)" in response.content.decode()
    given = list(
        AssignmentItem.objects.filter(assignment__assessor__in=[assessor, co_assessor]).values_list(
            "assignment__topic_id", "docno", "assignment__assessor__username"
        )
    )
    assert {(t, d) for t, d, _ in given} == expected
    assert Counter(u for _, _, u in given) == {"alice": 3, "bob": 3}
    with pytest.raises(Exception, match="sample at most"):
        calibration_sample_create(judge=judge, assessors=[assessor], size=10_000)
    with pytest.raises(Exception, match="not a human assessor"):
        calibration_sample_create(judge=judge, assessors=[judge.user], size=1)
    assert Assignment.objects.filter(assessor=assessor).exists()


# ------------------------------------------------------------------------------ using its labels


@pytest.fixture
def judged_by_both(
    web: Client, stocked: Campaign, pool: Pool, server: FakeLLM, assessor: Any
) -> dict[str, Any]:
    """The machine judged two topics; alice judged the first topic's documents (grade by docno)."""
    from campaigns.models import Topic
    from judging.services import judgment_record

    judge = add_machine(web, stocked, server)
    assign(stocked, pool, judge, topics=2)
    web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]))
    first = sorted(
        Topic.objects.filter(campaign=stocked, number__in=pool.sizes).values_list("number", flat=True)
    )[0]
    topic = Topic.objects.get(campaign=stocked, number=first)
    (mine,) = assignments_create(campaign=stocked, pool=pool, assessors=[assessor], topics=[topic], seed=2)
    human = {}
    for item in mine.items.all():
        grade = len(item.docno) % 3
        judgment_record(assessor=assessor, assignment=mine, docno=item.docno, grade=grade)
        human[item.docno] = grade
    return {"judge": judge, "topic": first, "human": human}


def test_the_agreement_report_calibrates_the_machine_with_the_cores_numbers(
    organizer: Any, stocked: Campaign, judged_by_both: dict[str, Any]
) -> None:
    from judging.agreement.calibration import calibrate
    from judging.reports.selectors import AgreementParams, assessor_labels, label_scale
    from judging.services import agreement_report_start

    job = agreement_report_start(
        campaign=stocked, user=organizer, params=AgreementParams(bootstrap=50, seed=1)
    )
    job.refresh_from_db()
    assert job.result is not None
    (cal,) = job.result["calibrations"]
    labels = assessor_labels(campaign=stocked)
    direct = calibrate(
        {"alice": labels["alice"]},
        labels["llm"],
        "llm",
        scale=label_scale(campaign=stocked),
        bootstrap=50,
        seed=1,
    )
    assert cal["machine"] == "llm" and cal["humans"] == ["alice"]
    assert cal["pair"]["items"] == len(judged_by_both["human"]) == direct.pair.items
    assert cal["pair"]["overall"]["matrix"] == direct.confusion.tolist()
    assert cal["pair"]["overall"]["cohen"]["value"] == pytest.approx(
        direct.pair.overall.cohen.value, abs=1e-12
    )
    assert [t["topic"] for t in cal["topics"]] == [judged_by_both["topic"]]
    page = Client()
    assert page.login(username=organizer.username, password=PASSWORD)
    shown = page.get(reverse("jobs:job", args=[job.id])).content.decode()
    assert "Machine assessors against the humans" in shown and 'id="calibration-llm"' in shown


def test_human_consensus_machine_and_hybrid_labels_are_three_named_sources(
    stocked: Campaign, judged_by_both: dict[str, Any]
) -> None:
    from metrics.sources import JudgmentSource, _labels, source_label

    def as_dict(source: JudgmentSource) -> dict[tuple[str, str], int]:
        q = _labels(stocked, source)
        return {
            (t, d.decode()): int(r)
            for i, t in enumerate(q.topics)
            for d, r in zip(
                q.docnos[q.offsets[i] : q.offsets[i + 1]].tolist(),
                q.rels[q.offsets[i] : q.offsets[i + 1]].tolist(),
                strict=True,
            )
        }

    machine_grades = {
        (j.topic.number, j.docno): j.grade
        for j in Judgment.objects.filter(assessor=judged_by_both["judge"].user).select_related("topic")
    }
    topic, human = judged_by_both["topic"], judged_by_both["human"]
    consensus = as_dict(JudgmentSource(kind="consensus"))
    assert consensus == {(topic, d): g for d, g in human.items()}  # the machine never votes
    assert as_dict(JudgmentSource(kind="machine", assessor="llm")) == machine_grades
    hybrid = as_dict(JudgmentSource(kind="hybrid", assessor="llm"))
    assert hybrid == machine_grades | {(topic, d): g for d, g in human.items()}
    assert source_label(campaign=stocked, source=JudgmentSource(kind="hybrid", assessor="llm")) == (
        "humans (majority) where judged, machine llm elsewhere"
    )
    assert "human consensus" in source_label(campaign=stocked, source=JudgmentSource(kind="consensus"))
    with pytest.raises(Exception, match="not a machine assessor"):
        _labels(stocked, JudgmentSource(kind="machine", assessor="alice"))


def test_machine_human_disagreements_reach_the_adjudication_queue_marked(
    web: Client, stocked: Campaign, judged_by_both: dict[str, Any]
) -> None:
    from judging.reports.selectors import adjudication_queue

    queue = adjudication_queue(campaign=stocked)
    with_machine = [r for r in queue.rows if "llm" in dict(r.votes)]
    assert with_machine and all(dict(r.votes)["alice"] != dict(r.votes)["llm"] for r in with_machine)
    page = web.get(reverse("judging:adjudication", args=[stocked.slug])).content.decode()
    assert 'title="a machine assessor (LLM)">machine</span>' in page


def test_humans_can_judge_in_the_machines_order(
    web: Client, stocked: Campaign, pool: Pool, server: FakeLLM, assessor: Any
) -> None:
    from campaigns.models import Topic

    judge = add_machine(web, stocked, server)
    assign(stocked, pool, judge, topics=1)
    web.post(reverse("judging:machine_start", args=[stocked.slug, judge.pk]))
    topic = Topic.objects.get(
        campaign=stocked,
        number=sorted(
            Topic.objects.filter(campaign=stocked, number__in=pool.sizes).values_list("number", flat=True)
        )[0],
    )
    grades = dict(Judgment.objects.filter(assessor=judge.user, topic=topic).values_list("docno", "grade"))
    assert len(set(grades.values())) > 1  # the order below is a real sort
    (mine,) = assignments_create(
        campaign=stocked,
        pool=pool,
        assessors=[assessor],
        topics=[topic],
        order=Assignment.Order.MACHINE,
        seed=4,
    )
    order = list(mine.items.order_by("position").values_list("docno", flat=True))
    assert sorted(order) == sorted(grades)
    assert [grades[d] for d in order] == sorted((g or 0 for g in grades.values()), reverse=True)
