"""Machine assessors: creating and editing them, running their judging as a background job,
stopping it, and a calibration sample for the humans.

A machine assessor is an assessor account of the campaign (it cannot log in: no usable password)
with a :class:`~judging.models.MachineJudge` row saying how it asks: at which of the endpoints the
server's operator declared (``WORKBENCH_JUDGE_ENDPOINTS``, read when asked, so a removed endpoint
makes its judges unusable with the reason), with which model, prompt and limits. Its judgments
are ordinary judgments, saved through :func:`judgment_record` like anyone's, so agreement, adjudication,
exports and evaluation see it as one more assessor; each carries its provenance, the
:class:`~judging.models.MachineCall` with the prompt version, raw answer, latency and tokens.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ImproperlyConfigured
from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from campaigns.access import Role, has_role
from campaigns.accounts.services import account_origin_record
from campaigns.errors import CampaignNotFound
from campaigns.models import Campaign, Document, Membership, Topic
from jobs.models import Job
from jobs.registry import register
from jobs.services import job_enqueue
from judging.errors import JudgingRefused, MachineRunFailed
from judging.llm.config import CHOSEN, JudgeConfig
from judging.llm.endpoints import SETTING, Endpoint, EndpointError, parse_endpoints
from judging.llm.prompts import TopicText
from judging.llm.runner import FAILED, Call, Item, Key, Summary
from judging.llm.runner import judge as judge_items
from judging.models import Assignment, AssignmentItem, Grade, Judgment, MachineCall, MachineJudge
from judging.services.judgments import judgment_record
from judging.services.scale import scale_ensure
from trec.progress import ProgressCallback

if TYPE_CHECKING:
    from judging.llm.client import ChatClient

MACHINE_JOB = "machine_judging"
CONFIG_FIELDS = CHOSEN  # what an organizer chooses besides the endpoint: stored on the judge
NO_ENDPOINT = (
    f"the server's operator has declared no judge endpoint: they declare one in {SETTING} "
    "(or the file WORKBENCH_JUDGE_ENDPOINTS_FILE names), see docs/machine_judges.md"
)


def declared_endpoints() -> dict[str, Endpoint]:
    """The endpoints the operator declared, read from the settings now."""
    try:
        return parse_endpoints(getattr(settings, SETTING, {}))
    except EndpointError as exc:
        raise ImproperlyConfigured(str(exc)) from exc


def endpoint_refusal(name: str) -> str:
    """Why ``name`` cannot be chosen ('' when the operator declared it)."""
    endpoints = declared_endpoints()
    if name in endpoints:
        return ""
    if not endpoints:
        return NO_ENDPOINT
    names = ", ".join(sorted(endpoints))
    return f"'{name}' is not an endpoint the server's operator declared (declared: {names})"


def judge_problem(judge: MachineJudge) -> str:
    """Why the machine assessor cannot judge now ('' when it can): no endpoint chosen (with the
    reason the migration stored), or one its operator no longer declares."""
    endpoints = declared_endpoints()
    if not judge.endpoint:
        return judge.unusable_reason or ("no endpoint chosen: choose one" if endpoints else NO_ENDPOINT)
    if judge.endpoint not in endpoints:
        return f"its endpoint '{judge.endpoint}' is no longer declared by the server's operator; " + (
            "choose another" if endpoints else NO_ENDPOINT
        )
    return ""


def judge_endpoint(judge: MachineJudge) -> Endpoint | None:
    """The declared endpoint the judge asks (None when it cannot judge: :func:`judge_problem`)."""
    return declared_endpoints().get(judge.endpoint) if judge.endpoint else None


def judge_config(judge: MachineJudge) -> JudgeConfig:
    """How the judge asks; refused with the reason when it cannot (:func:`judge_problem`)."""
    problem = judge_problem(judge)
    if problem:
        raise JudgingRefused(f"{judge.user.username} cannot judge: {problem}")
    endpoint = declared_endpoints()[judge.endpoint]
    return JudgeConfig(endpoint, **{f: getattr(judge, f) for f in CONFIG_FIELDS})


def _checked(config: JudgeConfig) -> JudgeConfig:
    """``config`` when usable and its endpoint is one the operator declared, as declared."""
    refusal = endpoint_refusal(config.endpoint.name)
    if refusal:
        raise JudgingRefused(refusal)
    if declared_endpoints()[config.endpoint.name] != config.endpoint:
        name = config.endpoint.name
        raise JudgingRefused(f"the endpoint '{name}' is not as the server's operator declared it")
    problems = config.problems()
    if problems:
        raise JudgingRefused(problems)
    return config


def _store(judge: MachineJudge, config: JudgeConfig) -> None:
    judge.endpoint, judge.unusable_reason = config.endpoint.name, ""
    for f in CONFIG_FIELDS:
        setattr(judge, f, getattr(config, f))


def machine_judge_create(
    *,
    campaign: Campaign,
    username: str,
    config: JudgeConfig,
    price_input: Decimal | None = None,
    price_output: Decimal | None = None,
    created_by: User | None = None,
) -> MachineJudge:
    """A new machine assessor: an account that cannot log in, the assessor role, its configuration.

    The account's origin is the campaign (its organizers manage it while it is used nowhere else)."""
    _checked(config)
    username = username.strip()
    if not username or len(username) > 150 or any(c.isspace() for c in username):
        raise JudgingRefused("a username is 1 to 150 characters without spaces")
    try:
        with transaction.atomic():
            user = User(username=username)
            user.set_unusable_password()  # a machine never logs in
            user.save()
            account_origin_record(user=user, campaign=campaign, created_by=created_by, machine=True)
            Membership.objects.create(campaign=campaign, user=user, role=Membership.Role.ASSESSOR)
            judge_row = MachineJudge(
                campaign=campaign, user=user, price_input=price_input, price_output=price_output
            )
            _store(judge_row, config)
            judge_row.save()
    except IntegrityError:
        raise JudgingRefused(f"the username '{username}' is taken: choose another") from None
    scale_ensure(campaign=campaign)
    return judge_row


def machine_judge_update(
    *,
    judge: MachineJudge,
    config: JudgeConfig,
    price_input: Decimal | None = None,
    price_output: Decimal | None = None,
) -> MachineJudge:
    """Change how the machine asks. Judgments already made keep the prompt version and model they
    were made with; a new version or model judges again what the old one judged (the cache is
    keyed by both)."""
    _checked(config)
    _store(judge, config)
    judge.price_input, judge.price_output = price_input, price_output
    judge.save()
    return judge


def machine_judge_get(*, campaign: Campaign, pk: int) -> MachineJudge:
    found = MachineJudge.objects.filter(campaign=campaign, pk=pk).select_related("user").first()
    if found is None:
        raise CampaignNotFound(f"no machine assessor {pk} in this campaign")
    return found


def running_job(judge: MachineJudge) -> Job | None:
    return (
        Job.objects.filter(
            kind=MACHINE_JOB,
            campaign=judge.campaign,
            params__judge=judge.pk,
            status__in=(Job.Status.QUEUED, Job.Status.RUNNING),
        )
        .order_by("-created_at")
        .first()
    )


def machine_judging_start(*, judge: MachineJudge, user: User) -> Job:
    """Judge the machine's assignments in the background (what it already judged with this prompt
    version and model is not asked again); refused with the reason when it cannot judge."""
    _checked(judge_config(judge))
    if running_job(judge) is not None:
        raise JudgingRefused(f"{judge.user.username} is already judging: stop it or wait for it to end")
    if not Assignment.objects.filter(campaign=judge.campaign, assessor=judge.user).exists():
        raise JudgingRefused(
            f"{judge.user.username} has no assignments: assign it topics on the assignments page first"
        )
    MachineJudge.objects.filter(pk=judge.pk).update(stop_requested=False)
    return job_enqueue(
        kind=MACHINE_JOB,
        title=f"{judge.user.username} ({judge.model}) judging {judge.campaign.slug}",
        campaign=judge.campaign,
        user=user,
        params={"judge": judge.pk},
    )


def machine_judging_stop(*, judge: MachineJudge) -> bool:
    """Ask the running job to stop before its next request; False when none runs."""
    MachineJudge.objects.filter(pk=judge.pk).update(stop_requested=True)
    return running_job(judge) is not None


# ------------------------------------------------------------------------------ the job


def campaign_scale(campaign: Campaign) -> list[tuple[int, str, str]]:
    scale_ensure(campaign=campaign)
    return [
        (g.value, g.label, g.description) for g in Grade.objects.filter(campaign=campaign).order_by("value")
    ]


@dataclass
class _Work:
    items: list[Item]
    assignments: dict[tuple[str, str], Assignment]  # (topic, docno) -> the machine's assignment
    topics: dict[str, Topic]
    missing: list[tuple[str, str]]  # items without a stored document


def machine_items(judge: MachineJudge) -> _Work:
    """The machine's assignment items in order (topic, then position) with their texts."""
    rows = (
        AssignmentItem.objects.filter(assignment__assessor=judge.user, assignment__campaign=judge.campaign)
        .select_related("assignment", "assignment__topic")
        .order_by("assignment__topic__number", "assignment_id", "position")
    )
    listed = list(rows)
    docnos = {r.docno for r in listed}
    texts = {
        d.docno: (f"{d.title}\n{d.text}".strip() if d.title else d.text)
        for d in Document.objects.filter(campaign=judge.campaign, docno__in=docnos)
    }
    work = _Work([], {}, {}, [])
    for row in listed:
        topic = row.assignment.topic
        work.topics[topic.number] = topic
        key = (topic.number, row.docno)
        if key in work.assignments:
            continue
        work.assignments[key] = row.assignment
        if row.docno not in texts:
            work.missing.append(key)
            continue
        text = TopicText(topic.number, topic.title, topic.description, topic.narrative)
        work.items.append(Item(text, row.docno, texts[row.docno]))
    return work


class DatabaseCache:
    """The runner's cache on :class:`MachineCall` rows; putting a call also saves the judgment."""

    def __init__(self, judge: MachineJudge, work: _Work) -> None:
        self.judge = judge
        self.work = work
        self.keys: set[Key] = set(
            MachineCall.objects.filter(judge=judge).values_list(
                "prompt_version", "model", "topic__number", "docno"
            )
        )

    def get(self, key: Key) -> Call | None:
        # the runner only asks whether the item is done; the row itself stays in the database
        return _DONE if key in self.keys else None

    def put(self, call: Call) -> None:
        topic = self.work.topics[call.topic]
        assignment = self.work.assignments[(call.topic, call.docno)]
        with transaction.atomic():
            MachineCall.objects.create(
                judge=self.judge,
                topic=topic,
                docno=call.docno,
                prompt_version=call.prompt_version,
                prompt_hash=call.prompt_hash,
                model=call.model,
                messages=call.messages,
                raw_answer=call.raw,
                answer=call.answer,
                grade=call.grade,
                reason=call.reason,
                latency_ms=int(call.latency * 1000),
                attempts=call.attempts,
                prompt_tokens=call.prompt_tokens,
                completion_tokens=call.completion_tokens,
                total_tokens=call.total_tokens,
                asked_at=dt.datetime.fromtimestamp(call.at, tz=dt.UTC),
            )
            note = f"machine: {call.model}, prompt {call.prompt_version}"
            judgment_record(
                assessor=self.judge.user,
                assignment=assignment,
                docno=call.docno,
                grade=call.grade,
                cant_judge=call.grade is None,
                comment=f"{note}; can't judge: {call.reason}" if call.grade is None else note,
                active_ms=int(call.latency * 1000),
            )
        self.keys.add(call.key)


_DONE = Call("", "", "", "", "", [], "", None, None)


def cost(judge: MachineJudge, prompt_tokens: int, completion_tokens: int) -> Decimal | None:
    """What the tokens cost at the judge's prices (None when it has none)."""
    if judge.price_input is None and judge.price_output is None:
        return None
    total = (judge.price_input or Decimal(0)) * prompt_tokens + (
        judge.price_output or Decimal(0)
    ) * completion_tokens
    return (total / Decimal(1_000_000)).quantize(Decimal("0.0001"))


def _phase(judge: MachineJudge, summary: Summary) -> str:
    money = cost(judge, summary.prompt_tokens, summary.completion_tokens)
    text = (
        f"judging: {summary.graded} graded, {summary.cant_judge} can't judge, {summary.failed} unanswered; "
        f"{summary.prompt_tokens + summary.completion_tokens:,} tokens"
    )
    return text + (f", cost {money}" if money is not None else "")


def stop_requested(judge_pk: int) -> bool:
    """Whether "Stop" was pressed for the judge (read from the database before each request)."""
    return MachineJudge.objects.filter(pk=judge_pk, stop_requested=True).exists()


def machine_judging_run(
    *,
    judge: MachineJudge,
    progress: ProgressCallback,
    should_stop: Callable[[], bool] | None = None,
    client: ChatClient | None = None,
) -> dict[str, Any]:
    """Judge the machine's assignments now (the background job's work, and the command's):
    what it already judged with this prompt version and model is not asked again."""
    config = _checked(judge_config(judge))
    work = machine_items(judge)
    cache = DatabaseCache(judge, work)
    running = Summary()

    def report(phase: str, done: int, total: int) -> None:
        progress(_phase(judge, running)[:100], done, total)

    summary = judge_items(
        work.items, config, campaign_scale(judge.campaign), cache=cache, on_call=running.add,
        progress=report, should_stop=should_stop or (lambda: stop_requested(judge.pk)), client=client,
    )  # fmt: skip
    money = cost(judge, summary.prompt_tokens, summary.completion_tokens)
    return summary.to_dict() | {
        "judge": judge.pk,
        "username": judge.user.username,
        "endpoint": judge.endpoint,
        "model": judge.model,
        "prompt_version": judge.prompt_version,
        "missing_documents": [f"{t} {d}" for t, d in work.missing[:20]],
        "missing_count": len(work.missing),
        "cost": str(money) if money is not None else None,
    }


def _kept_when_interrupted(job: Job) -> str:
    """What an interrupted judging job kept: every judgment it stored before the stop."""
    kept = MachineCall.objects.filter(judge_id=job.params.get("judge"))
    if job.started_at is not None:
        kept = kept.filter(asked_at__gte=job.started_at)
    n = kept.count()
    return (
        f"the {n} judgment{'s' if n != 1 else ''} it made before the stop {'are' if n != 1 else 'is'} kept: "
        "start it again to go on (nothing judged is asked twice)"
    )


@register(MACHINE_JOB, result_template="judging/results/machine.html", interrupted=_kept_when_interrupted)
def machine_judging_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    judge_row = (
        MachineJudge.objects.select_related("user", "campaign").filter(pk=job.params.get("judge")).first()
    )
    if judge_row is None:
        raise JudgingRefused("the machine assessor was deleted")
    result = machine_judging_run(judge=judge_row, progress=progress)
    if result["state"] == FAILED:  # the job fails with the reason; its result keeps the counts
        raise MachineRunFailed(f"{judge_row.user.username} got no answer: {result['reason']}", result)
    return result


def last_run(judge: MachineJudge) -> dict[str, Any] | None:
    """How the judge's latest finished judging job ended: its state (done, stopped, stopped
    early, failed, or interrupted) and the reason, for its page and the API."""
    job = (
        Job.objects.filter(
            kind=MACHINE_JOB,
            campaign_id=judge.campaign_id,
            params__judge=judge.pk,
            status__in=(Job.Status.DONE, Job.Status.FAILED),
        )
        .order_by("-finished_at", "-created_at")
        .first()
    )
    if job is None:
        return None
    result = job.result or {}
    if "state" in result:
        state, reason = result["state"], result.get("reason", "")
    elif job.status == Job.Status.FAILED:
        first = job.errors[0] if job.errors else "failed"
        state, reason = ("interrupted" if first.startswith("interrupted") else FAILED), first
    else:
        state, reason = "done", ""
    return {
        "job": str(job.id),
        "state": state,
        "reason": reason,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }


# ------------------------------------------------------------------------------ calibration sample


def graded_judgments(*, judge: MachineJudge) -> QuerySet[Judgment]:
    """The machine's judgments that carry a grade (its "can't judge" answers carry none)."""
    return Judgment.objects.filter(
        campaign_id=judge.campaign_id, assessor_id=judge.user_id, grade__isnull=False
    )


def calibration_sample_create(
    *, judge: MachineJudge, assessors: Sequence[User], size: int, seed: int = 0
) -> list[Assignment]:
    """Give the human ``assessors`` a seeded simple random sample of ``size`` documents the machine
    graded (spread round-robin over them, one assessor per document), so the agreement measured on
    them estimates the machine's agreement over everything it judged without bias.

    Each sampled document goes into the assessor's assignment for its topic and pool (created
    when missing, in the sample's order); documents they already have are left as they are.
    """
    campaign = judge.campaign
    people = list(dict.fromkeys(assessors))
    if not people:
        raise JudgingRefused("choose at least one human assessor")
    for u in people:
        if not has_role(u, campaign, Role.ASSESSOR) or MachineJudge.objects.filter(user=u).exists():
            raise JudgingRefused(f"'{u.username}' is not a human assessor of this campaign")
    graded = sorted(
        graded_judgments(judge=judge).values_list("topic_id", "docno"), key=lambda r: (r[0], r[1].encode())
    )
    if size < 1:
        raise JudgingRefused("a calibration sample needs at least one document")
    if size > len(graded):
        raise JudgingRefused(
            f"{judge.user.username} has graded {len(graded)} documents: sample at most that many"
        )
    rng = np.random.default_rng(seed)
    chosen = [graded[i] for i in sorted(rng.choice(len(graded), size=size, replace=False).tolist())]
    order = rng.permutation(len(chosen)).tolist()
    pools = {
        (a.topic_id): a.pool_id
        for a in Assignment.objects.filter(campaign=campaign, assessor=judge.user).order_by("created_at")
    }
    touched: dict[int, Assignment] = {}
    with transaction.atomic():
        for turn, i in enumerate(order):
            topic_id, docno = chosen[i]
            person = people[turn % len(people)]
            assignment, _ = Assignment.objects.get_or_create(
                campaign=campaign,
                pool_id=pools[topic_id],
                topic_id=topic_id,
                assessor=person,
                defaults={"order": Assignment.Order.RANDOM, "seed": seed},
            )
            if AssignmentItem.objects.filter(assignment=assignment, docno=docno).exists():
                continue
            last = AssignmentItem.objects.filter(assignment=assignment).order_by("-position").first()
            AssignmentItem.objects.create(
                assignment=assignment, position=(last.position + 1) if last else 0, docno=docno, shared=True
            )
            touched[assignment.pk] = assignment
    return list(touched.values())
