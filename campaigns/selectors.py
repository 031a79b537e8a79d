"""Reads of the campaign kernel (campaigns, runs and their rankings, documents, imported qrels)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, QuerySet
from django.urls import reverse
from django.utils import timezone

from campaigns import access
from campaigns.accounts.models import AccountOrigin, LoginLink
from campaigns.accounts.selectors import login_link_found
from campaigns.errors import CampaignNotFound
from campaigns.models import Campaign, Document, Membership, QrelsSet, Run, Topic
from campaigns.sections import Step, StepLink, StepState, campaign_sections, campaign_steps
from campaigns.stored_runs import StoredLines, lines_from_block, run_blocks, run_lines
from campaigns.validation import RunReport, validate_run
from jobs.models import Job
from trec import Qrels, RankedRun, read_qrels
from trec.io import PathLike
from trec.qrels import read_qrels_bytes
from trec.runs import run_from_arrays


def campaign_get(*, slug: str) -> Campaign:
    try:
        return Campaign.objects.get(slug=slug)
    except Campaign.DoesNotExist:
        raise CampaignNotFound(f"no campaign '{slug}' (create it with --create)") from None


def campaigns_listed(*, user: access.AnyUser) -> list[tuple[Campaign, list[str]]]:
    """The campaigns ``user`` holds a role in, each with its topic and run counts (``n_topics``,
    ``n_runs``) and the user's roles there."""
    campaigns = access.visible_campaigns(user).annotate(
        n_topics=Count("topics", distinct=True), n_runs=Count("runs", distinct=True)
    )
    return [(c, sorted(access.roles(user, c))) for c in campaigns.order_by("slug")]


def _import_link(campaign: Campaign, what: str, label: str) -> StepLink:
    return StepLink(label, reverse("campaigns:import", args=[campaign.slug]) + f"#import-{what}")


def _topics_step(campaign: Campaign) -> StepState:
    n = Topic.objects.filter(campaign=campaign).count()
    if not n:
        return StepState("not started", "no topic yet", _import_link(campaign, "topics", "Import topics"))
    return StepState("done", f"{n} topics", _import_link(campaign, "topics", "Import more topics"))


def _runs_step(campaign: Campaign) -> StepState:
    n = Run.objects.filter(campaign=campaign).count()
    if not n:
        return StepState("not started", "no run yet", _import_link(campaign, "runs", "Import runs"))
    return StepState("done", f"{n} runs", _import_link(campaign, "runs", "Import more runs"))


def _documents_imports(campaign: Campaign) -> tuple[StepLink, ...]:
    """The latest finished documents import, whose report (pooled documents in no file, text that
    was not UTF-8...) lives on its job's page."""
    from campaigns.services.import_jobs import IMPORTS  # campaigns.services imports this module

    job = (
        Job.objects.filter(campaign=campaign, kind=IMPORTS["documents"].job, status=Job.Status.DONE)
        .order_by("-created_at")
        .first()
    )
    if job is None:
        return ()
    result = job.result or {}
    missing = f", {result['not_found']} pooled in no file" if result.get("not_found") else ""
    when = f"{job.created_at:%Y-%m-%d %H:%M}"
    label = f"Latest documents import ({when}): {result.get('stored', 0)} stored{missing}"
    return (StepLink(label, reverse("jobs:job", args=[job.id])),)


def _documents_step(campaign: Campaign) -> StepState:
    n = Document.objects.filter(campaign=campaign).count()
    if not n:
        return StepState(
            "not started",
            "no document text: assessors would see bare docnos",
            _import_link(campaign, "documents", "Import documents"),
            _documents_imports(campaign),
        )
    return StepState(
        "done",
        f"{n} documents stored",
        _import_link(campaign, "documents", "Import more documents"),
        _documents_imports(campaign),
    )


# the kernel's own steps; the apps above register theirs (campaigns.sections.step_register)
KERNEL_STEPS = (
    Step("topics", "Topics", 10, _topics_step, "The information needs the runs answer."),
    Step("runs", "Runs", 20, _runs_step, "The participants' ranked results, one file per run."),
    Step(
        "documents", "Documents", 30, _documents_step, "The text assessors read when judging.", optional=True
    ),
)


def campaign_overview(*, campaign: Campaign) -> dict[str, Any]:
    """What a campaign's overview page shows: the steps of its workflow with the next action, its
    data, the sections of the apps above, the latest jobs and the people."""
    steps = campaign_steps(campaign, KERNEL_STEPS)
    following = next(
        ((s, st) for s, st in steps if st.state != "done" and st.action and not s.optional), None
    )
    return {
        "campaign": campaign,
        "steps": steps,
        "next_step": following,
        "topics": Topic.objects.filter(campaign=campaign).order_by("number"),
        "runs": campaign_runs(campaign=campaign),
        "sections": campaign_sections(campaign),
        "qrels_sets": campaign_qrels_sets(campaign=campaign),
        "document_count": Document.objects.filter(campaign=campaign).count(),
        "jobs": Job.objects.filter(campaign=campaign).order_by("-created_at")[:10],
        "members": Membership.objects.filter(campaign=campaign).select_related("user").order_by("role"),
    }


# why an organizer may not reset or deactivate an account (shown on the people page, and the refusal)
NOT_YOURS_TO_MANAGE = {
    "own": "your own account: change its password on My account",
    "staff": "a site administrator's account: only a site administrator manages it",
    "origin": "not created through this campaign's invitation: a site administrator manages it",
    "elsewhere": "used in another campaign too: a site administrator manages it",
}


def members_management(*, campaign: Campaign, users: Sequence[Any], by: Any) -> dict[int, str | None]:
    """For each of ``users``, why the organizer ``by`` may not reset its password or deactivate it
    (a key of NOT_YOURS_TO_MANAGE), or None when they may: an account created through this campaign
    (an invitation of a new account, a machine assessor) that has never had a role in any other
    campaign, not staff, not ``by``'s own. Two queries, however many users."""
    pks = [u.pk for u in users]
    origins = {o.user_id: o for o in AccountOrigin.objects.filter(user_id__in=pks)}
    elsewhere = set(
        Membership.objects.filter(user_id__in=pks)
        .exclude(campaign=campaign)
        .values_list("user_id", flat=True)
    )
    out: dict[int, str | None] = {}
    for u in users:
        origin = origins.get(u.pk)
        if u.pk == by.pk:
            out[u.pk] = "own"
        elif u.is_staff or u.is_superuser:
            out[u.pk] = "staff"
        elif origin is None or origin.campaign_id != campaign.pk:
            out[u.pk] = "origin"
        elif origin.joined_elsewhere is not None or u.pk in elsewhere:
            out[u.pk] = "elsewhere"
        else:
            out[u.pk] = None
    return out


@dataclass(frozen=True)
class LoginLinkState:
    """A login link as its page sees it: the row (None if no such link was made) and why it does not
    log in now, or None when pressing its button logs in: "unknown" (never made), "used", "revoked",
    "expired", or "account" (deactivated, or no longer its campaign's to manage). The page that opens
    it says each in a sentence."""

    link: LoginLink | None
    refused: str | None


def login_link_state(*, token: str) -> LoginLinkState:
    """Whether the login link ``token`` logs in now. Only an unused, unrevoked, unexpired link of an
    active account that its campaign's organizers may still manage does (members_management: never
    staff, a superuser, an account used in another campaign since, or a machine assessor)."""
    link = login_link_found(token=token)
    if link is None:
        return LoginLinkState(None, "unknown")
    if link.used_at is not None:
        return LoginLinkState(link, "used")
    if link.revoked_at is not None:
        return LoginLinkState(link, "revoked")
    if link.expires <= timezone.now():
        return LoginLinkState(link, "expired")
    user = link.user
    origin = getattr(user, "origin", None)
    # the campaign's organizers may manage it (the maker's own account never had a link: not ``by``)
    why = members_management(campaign=link.campaign, users=[user], by=AnonymousUser())[user.pk]
    if not user.is_active or why is not None or (origin is not None and origin.machine):
        return LoginLinkState(link, "account")
    return LoginLinkState(link, None)


def member_manageable(*, campaign: Campaign, user: Any, by: Any) -> bool:
    """Whether the organizer ``by`` may reset or deactivate ``user``'s account (members_management)."""
    return members_management(campaign=campaign, users=[user], by=by)[user.pk] is None


def campaign_topic_numbers(*, campaign: Campaign) -> list[str]:
    return list(Topic.objects.filter(campaign=campaign).order_by("number").values_list("number", flat=True))


def campaign_runs(*, campaign: Campaign) -> QuerySet[Run]:
    return Run.objects.filter(campaign=campaign).select_related("group").order_by("tag")


def campaign_taken_tags(*, campaign: Campaign) -> dict[str, str]:
    """The campaign's run tags, each with the phrase the validation report gives for reusing it."""
    return {
        tag: f"is already the tag of a run in campaign '{campaign.slug}'"
        for tag in Run.objects.filter(campaign=campaign).values_list("tag", flat=True)
    }


def runs_check(
    *,
    campaign: Campaign,
    paths: Sequence[PathLike],
    max_docs: int | None = None,
    filenames: Sequence[str] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[RunReport]:
    """The validation reports the import would give, without storing anything.

    ``filenames``: the names to show when ``paths`` are temporary copies of uploads.
    """
    topics = campaign_topic_numbers(campaign=campaign)
    taken = campaign_taken_tags(campaign=campaign)
    limit = campaign.max_docs_per_topic if max_docs is None else max_docs
    names = [str(p) for p in paths] if filenames is None else list(filenames)
    reports = []
    for i, (path, name) in enumerate(zip(paths, names, strict=True)):
        report = validate_run(path, topics=topics, max_docs=limit, taken_tags=taken)
        report.shown_as(name)
        if report.tag and report.tag not in taken:
            taken[report.tag] = f"is also the tag of {name}"
        reports.append(report)
        if progress is not None:
            progress("validating runs", i + 1, len(paths))
    return reports


def run_ranking(*, run: Run, depth: int | None = None, numbers: Mapping[int, str] | None = None) -> RankedRun:
    """A stored run as the format layer's Run (canonical order), optionally only its top ``depth``.

    ``numbers`` (topic id -> number) saves a query per run when many runs of a campaign are read.
    The lines arrive as arrays (:func:`campaigns.stored_runs.run_lines`), scores bit for bit.
    """
    if numbers is None:
        numbers = dict(Topic.objects.filter(campaign_id=run.campaign_id).values_list("id", "number"))
    return ranking_from_lines(run, run_lines(run.pk, depth=depth), numbers)


def ranking_from_lines(run: Run, lines: StoredLines, numbers: Mapping[int, str]) -> RankedRun:
    """:func:`run_ranking` of lines already read (no database access: any thread may call it)."""
    ids = lines.topic_ids.tolist()
    docnos, scores, counts = lines.docnos, lines.scores, lines.counts
    if any(t not in numbers for t in ids):  # a topic deleted since the import: its lines are gone
        known = np.array([t in numbers for t in ids], dtype=bool)
        keep = np.repeat(known, counts)
        docnos, scores, counts = docnos[keep], scores[keep], counts[known]
        ids = [t for t in ids if t in numbers]
    # each stored block is one topic: the topics' byte order and each line's code come from the
    # blocks, without comparing 50,000 topic strings
    order = sorted(range(len(ids)), key=lambda i: numbers[ids[i]].encode())
    block_code = np.empty(len(ids), dtype=np.int64)
    block_code[order] = np.arange(len(ids))
    coded = ([numbers[ids[i]] for i in order], np.repeat(block_code, counts))
    # unique: the import refused a docno twice in a topic, and (run, topic, docno) is a unique key
    return run_from_arrays(run.tag, np.zeros(0, "S1"), docnos, scores, tag=run.tag, unique=True, coded=coded)


def document_get(*, campaign: Campaign, docno: str) -> Document | None:
    return Document.objects.filter(campaign=campaign, docno=docno).first()


def documents_stored(*, campaign: Campaign, docnos: Collection[str] | None = None) -> set[str]:
    """The docnos with stored text: all of the campaign's, or those among ``docnos``."""
    stored = Document.objects.filter(campaign=campaign)
    if docnos is None:
        return set(stored.values_list("docno", flat=True))
    wanted = sorted(set(docnos))
    found: set[str] = set()
    for a in range(0, len(wanted), 500):  # a bounded IN list: SQLite caps a statement's parameters
        found.update(stored.filter(docno__in=wanted[a : a + 500]).values_list("docno", flat=True))
    return found


def documents_missing(*, campaign: Campaign, docnos: Collection[str]) -> list[str]:
    """Which of ``docnos`` have no stored text (to import before judging starts)."""
    found = documents_stored(campaign=campaign, docnos=docnos)
    return sorted(set(docnos) - found)


def campaign_rankings(
    *,
    runs: Sequence[Run],
    depth: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[RankedRun]:
    """:func:`run_ranking` of each run, their blocks read a batch to a query (:func:`run_blocks`)."""
    out = []
    campaigns = {r.campaign_id for r in runs}
    numbers = dict(Topic.objects.filter(campaign_id__in=campaigns).values_list("id", "number"))
    blocks = run_blocks([run.pk for run in runs])
    for i, (run, block) in enumerate(zip(runs, blocks, strict=True)):
        out.append(ranking_from_lines(run, lines_from_block(block, depth), numbers))
        if progress is not None:
            progress("reading runs", i + 1, len(runs))
    return out


def campaign_qrels_sets(*, campaign: Campaign) -> QuerySet[QrelsSet]:
    return QrelsSet.objects.filter(campaign=campaign).defer("content").order_by("name")


def qrels_set_load(*, qrels_set: QrelsSet) -> Qrels:
    content = bytes(QrelsSet.objects.filter(pk=qrels_set.pk).values_list("content", flat=True).get())
    qrels = read_qrels_bytes(content, f"qrels set '{qrels_set.name}'")  # read where it lies
    if qrels is not None:
        return qrels
    # not laid out plainly: the strict reader reads files (gzip transparently)
    fd, name = tempfile.mkstemp(suffix=".qrels.gz")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(content)
        return read_qrels(name)
    finally:
        os.unlink(name)
