"""Machine assessors: creating and editing them, running their judging as a background job,
stopping it, and a calibration sample for the humans.

A machine assessor is an assessor account of the campaign (it cannot log in: no usable password)
with a :class:`~judging.models.MachineJudge` row saying how it asks. Its judgments are ordinary
judgments, saved through :func:`judgment_record` like anyone's, so agreement, adjudication,
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
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from campaigns.access import Role, has_role
from campaigns.accounts.services import account_origin_record
from campaigns.errors import CampaignNotFound
from campaigns.models import Campaign, Document, Membership, Topic
from jobs.models import Job
from jobs.registry import register
from jobs.services import job_enqueue
from judging.errors import JudgingRefused
from judging.llm.config import JudgeConfig
from judging.llm.prompts import TopicText
from judging.llm.runner import Call, Item, Key, Summary
from judging.llm.runner import judge as judge_items
from judging.models import Assignment, AssignmentItem, Grade, Judgment, MachineCall, MachineJudge
from judging.services.judgments import judgment_record
from judging.services.scale import scale_ensure
from trec.progress import ProgressCallback

if TYPE_CHECKING:
    from judging.llm.client import ChatClient

MACHINE_JOB = "machine_judging"
CONFIG_FIELDS = (
    "base_url", "model", "api_key_env", "prompt_version", "temperature", "requests_per_minute",
    "concurrency", "max_documents", "timeout", "max_retries",
)  # fmt: skip


def judge_config(judge: MachineJudge) -> JudgeConfig:
    return JudgeConfig(**{f: getattr(judge, f) for f in CONFIG_FIELDS})


def _checked(config: JudgeConfig) -> JudgeConfig:
    problems = config.problems()
    if problems:
        raise JudgingRefused(problems)
    return config


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
            judge_row = MachineJudge.objects.create(
                campaign=campaign,
                user=user,
                price_input=price_input,
                price_output=price_output,
                **{f: getattr(config, f) for f in CONFIG_FIELDS},
            )
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
    for f in CONFIG_FIELDS:
        setattr(judge, f, getattr(config, f))
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
    version and model is not asked again)."""
    if running_job(judge) is not None:
        raise JudgingRefused(f"{judge.user.username} is already judging: stop it or wait for it to end")
    if not Assignment.objects.filter(campaign=judge.campaign, assessor=judge.user).exists():
        raise JudgingRefused(
            f"{judge.user.username} has no assignments: assign it topics on the assignments page first"
        )
    _checked(judge_config(judge))
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
        "model": judge.model,
        "prompt_version": judge.prompt_version,
        "missing_documents": [f"{t} {d}" for t, d in work.missing[:20]],
        "missing_count": len(work.missing),
        "cost": str(money) if money is not None else None,
    }


@register(MACHINE_JOB, result_template="judging/results/machine.html")
def machine_judging_job(job: Job, progress: ProgressCallback) -> dict[str, Any]:
    judge_row = (
        MachineJudge.objects.select_related("user", "campaign").filter(pk=job.params.get("judge")).first()
    )
    if judge_row is None:
        raise JudgingRefused("the machine assessor was deleted")
    return machine_judging_run(judge=judge_row, progress=progress)


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
