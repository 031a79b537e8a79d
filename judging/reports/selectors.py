"""Reads behind adjudication, consensus, the agreement report and the exports: stored judgments as core types.

Assessors appear by username. Nothing here writes; the agreement math is :mod:`judging.agreement`'s
and the consensus rules :mod:`judging.consensus`'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.db.models import QuerySet

from campaigns.access import Role, has_role
from campaigns.models import Campaign, Document, Topic
from campaigns.selectors import campaign_rankings, campaign_runs
from engine.measures.base import EvalOptions
from jobs.models import Job
from judging.agreement import DEFAULT_MEASURES, AgreementReport, agreement_report, report_as_dict
from judging.agreement.summary_table import SUMMARY_ALPHA
from judging.consensus import (
    DEFAULT_MACHINE_RULE,
    KINDS,
    MACHINE,
    MACHINE_RULES,
    Disagreement,
    Item,
    disagreement_kind,
    disagreements,
    final_labels,
    to_people,
)
from judging.errors import JudgingRefused
from judging.models import (
    Adjudication,
    AdjudicationSettings,
    Assignment,
    AssignmentItem,
    Grade,
    Judgment,
    MachineJudge,
)
from pooling.models import Pool
from pooling.selectors import campaign_pools
from trec.progress import ProgressCallback, quiet_progress

READERS = (Role.ADJUDICATOR, Role.ORGANIZER)  # of disagreements and agreement reports

QUEUE_VIEWS = ("open", "decided", "all")
QUEUE_KINDS = ("all", *KINDS)
KIND_NAMES = {"all": "every kind", "human": "between people", "machine": "machine vs people"}
AGREEMENT_JOB = "agreement_report"


# ------------------------------------------------------------------------------------- votes


def campaign_votes(
    *, campaign: Campaign, humans_only: bool = False, topic: str | None = None, docno: str | None = None
) -> dict[Item, dict[str, int | None]]:
    """Every current judgment: (topic, docno) -> {assessor username: grade, None for can't judge}.

    ``humans_only`` leaves the machine assessors' judgments out: they never vote in a consensus
    (the adjudication queue does list their disagreements with people). ``topic`` and ``docno``
    keep one topic, one document."""
    judgments = Judgment.objects.filter(campaign=campaign)
    if topic is not None:
        judgments = judgments.filter(topic__number=topic)
    if docno is not None:
        judgments = judgments.filter(docno=docno)
    if humans_only:
        judgments = judgments.exclude(assessor__machine_judge__isnull=False)
    rows = judgments.values_list("topic__number", "docno", "assessor__username", "grade", "cant_judge")
    out: dict[Item, dict[str, int | None]] = {}
    for topic, docno, username, grade, cant_judge in rows:
        out.setdefault((topic, docno), {})[username] = None if cant_judge else grade
    return out


def campaign_decisions(
    *, campaign: Campaign, topic: str | None = None, docno: str | None = None
) -> dict[Item, Adjudication]:
    """Every decision, by (topic, docno); ``topic`` and ``docno`` keep one topic, one document."""
    rows = Adjudication.objects.filter(campaign=campaign).select_related("topic", "adjudicator")
    if topic is not None:
        rows = rows.filter(topic__number=topic)
    if docno is not None:
        rows = rows.filter(docno=docno)
    return {(a.topic.number, a.docno): a for a in rows}


def label_scale(*, campaign: Campaign) -> tuple[int, ...]:
    """The labels agreement is counted over: the campaign's grade values, with any grade in use
    (the scale keeps those, but be safe)."""
    values = set(Grade.objects.filter(campaign=campaign).values_list("value", flat=True))
    used = Judgment.objects.filter(campaign=campaign, grade__isnull=False).values_list("grade", flat=True)
    values |= {g for g in used if g is not None}
    values |= set(Adjudication.objects.filter(campaign=campaign).values_list("grade", flat=True))
    return tuple(sorted(values))


def consensus_labels(*, campaign: Campaign, rule: str) -> dict[Item, int | None]:
    """Final labels under ``rule`` (see :mod:`judging.consensus`); None where nobody could grade.

    The humans' labels: a machine assessor's judgments are not votes (its labels are a source of
    their own, and "human where judged, machine elsewhere" another; metrics.sources)."""
    decided = {item: a.grade for item, a in campaign_decisions(campaign=campaign).items()}
    try:
        return final_labels(campaign_votes(campaign=campaign, humans_only=True), rule, decided)
    except ValueError as exc:
        raise JudgingRefused(str(exc)) from exc


# ------------------------------------------------------------------------------ adjudication


@dataclass(frozen=True)
class AdjudicationRow:
    """One disagreement of the adjudication queue, with its decision if any."""

    topic: str
    docno: str
    distance: int
    votes: list[tuple[str, int | None]]  # (username, grade or None = can't judge), by username
    decision: Adjudication | None
    title: str = ""  # the document's stored title and text ("" when not stored or not asked for)
    text: str = ""
    # (username, grade or None, comment) of each vote, with :func:`with_documents`
    ballots: tuple[tuple[str, int | None, str], ...] = ()
    statement: Topic | None = None  # the topic, to read the document against
    kind: str = ""  # one of judging.consensus.KINDS: people's grades differ, or only a machine's


@dataclass(frozen=True)
class QueueCount:
    """How many disagreements of the queue are open (no decision) and decided."""

    open: int
    decided: int


@dataclass(frozen=True)
class AdjudicationQueue:
    """The adjudication queue: the rows shown, and how many disagreements are open or decided,
    in all and of each kind (:data:`judging.consensus.KINDS`: between people, or only a
    machine's grade differs), under the campaign's machine rule."""

    rows: list[AdjudicationRow]
    open: int  # disagreements without a decision
    decided: int
    by_kind: dict[str, QueueCount] = field(default_factory=dict)
    machine_rule: str = DEFAULT_MACHINE_RULE


def still_to_judge(*, campaign: Campaign, user: Any) -> Callable[[Item], bool]:
    """Whether ``user`` may still have to judge a (topic, docno): an item of one of their
    assignments they have not judged yet, or any document they have not judged of a topic where a
    queue deals them documents one at a time (the queue may deal it next).

    Nobody sees another person's label of such an item: it would bias their own judgment.
    """
    if not getattr(user, "is_authenticated", False):
        return lambda item: False
    mine = Assignment.objects.filter(campaign=campaign, assessor_id=user.pk)
    judged = set(
        Judgment.objects.filter(campaign=campaign, assessor_id=user.pk).values_list("topic__number", "docno")
    )
    listed = set(
        AssignmentItem.objects.filter(assignment__in=mine).values_list("assignment__topic__number", "docno")
    )
    open_items = listed - judged
    queued = set(mine.filter(order=Assignment.Order.QUEUE).values_list("topic__number", flat=True))
    return lambda item: item in open_items or (item[0] in queued and item not in judged)


def final_labels_withheld(*, campaign: Campaign, user: Any) -> Callable[[Item], bool] | None:
    """What the final labels (consensus, adjudicated, binary exports) leave out for ``user``: the
    documents they may still have to judge (:func:`still_to_judge`), for an adjudicator who also
    assesses; None when nothing is (organizers read everything of their campaign)."""
    if not getattr(user, "is_authenticated", False) or has_role(user, campaign, Role.ORGANIZER):
        return None
    return still_to_judge(campaign=campaign, user=user)


def withheld_count(*, campaign: Campaign, user: Any) -> int:
    """How many documents with a final label :func:`final_labels_withheld` leaves out for ``user``."""
    withheld = final_labels_withheld(campaign=campaign, user=user)
    if withheld is None:
        return 0
    items = set(campaign_votes(campaign=campaign, humans_only=True))
    items |= set(campaign_decisions(campaign=campaign))
    return sum(1 for item in items if withheld(item))


def machine_rule_get(*, campaign: Campaign) -> str:
    """The campaign's rule for which machine disagreements go to people (the default without a row)."""
    rule = (
        AdjudicationSettings.objects.filter(campaign=campaign).values_list("machine_rule", flat=True).first()
    )
    return rule or DEFAULT_MACHINE_RULE


def campaign_machines(*, campaign: Campaign) -> set[str]:
    """The usernames of the campaign's machine assessors."""
    return set(MachineJudge.objects.filter(campaign=campaign).values_list("user__username", flat=True))


def _disagreements_seen(
    campaign: Campaign, viewer: Any, *, topic: str | None = None, docno: str | None = None
) -> list[Disagreement]:
    """Every disagreement (of one document, with ``topic`` and ``docno``), without the documents
    ``viewer`` still has to judge themselves."""
    votes = campaign_votes(campaign=campaign, topic=topic, docno=docno)
    found: list[Disagreement] = disagreements(votes)
    if viewer is not None:
        hidden = still_to_judge(campaign=campaign, user=viewer)
        found = [d for d in found if not hidden((d.topic, d.docno))]
    return found


def _count(found: Sequence[Disagreement], decisions: Collection[Item]) -> QueueCount:
    decided = sum(1 for d in found if (d.topic, d.docno) in decisions)
    return QueueCount(open=len(found) - decided, decided=decided)


def adjudication_queue(
    *,
    campaign: Campaign,
    show: str = "open",
    topic: str | None = None,
    kind: str = "all",
    viewer: Any = None,
    docno: str | None = None,
) -> AdjudicationQueue:
    """The disagreements (:func:`judging.consensus.disagreements` order), with their decisions.

    Those only a machine causes are in it as the campaign's machine rule says
    (:func:`judging.consensus.to_people`); a decision on one the rule leaves out stays (the
    adjudicated labels keep it) but is not listed or counted here.
    ``show``: ``open`` (undecided, the default), ``decided`` or ``all``; ``topic`` keeps one topic;
    ``kind``: ``all``, or one of :data:`judging.consensus.KINDS` (``human``: people's grades
    differ; ``machine``: only a machine's). The counts are over every topic and kind.
    ``viewer``: the person reading; the documents they still have to judge themselves
    (:func:`still_to_judge`) are left out, and out of the counts. ``docno`` (with ``topic``) reads
    that one document only, counts included: is it in the viewer's queue?
    """
    if show not in QUEUE_VIEWS:
        raise JudgingRefused(f"unknown queue view '{show}' (one of {', '.join(QUEUE_VIEWS)})")
    if kind not in QUEUE_KINDS:
        raise JudgingRefused(f"unknown kind of disagreement '{kind}' (one of {', '.join(QUEUE_KINDS)})")
    if docno is not None and topic is None:
        raise JudgingRefused("a document of the queue is named with its topic")
    one = topic if docno is not None else None  # one document: read only its votes and decision
    machines = campaign_machines(campaign=campaign)
    rule = machine_rule_get(campaign=campaign)
    seen = _disagreements_seen(campaign, viewer, topic=one, docno=docno)
    found = [d for d in seen if to_people(d, machines, rule)]
    kinds = {id(d): disagreement_kind(d, machines) for d in found}
    decisions = campaign_decisions(campaign=campaign, topic=one, docno=docno)
    total = _count(found, decisions)
    shown = [
        d
        for d in found
        if (topic is None or d.topic == topic)
        and (kind == "all" or kinds[id(d)] == kind)
        and (show == "all" or (show == "decided") == ((d.topic, d.docno) in decisions))
    ]
    rows = [
        AdjudicationRow(
            topic=d.topic,
            docno=d.docno,
            distance=d.distance,
            votes=sorted(d.votes.items()),
            decision=decisions.get((d.topic, d.docno)),
            kind=kinds[id(d)],
        )
        for d in shown
    ]
    return AdjudicationQueue(
        rows=rows,
        open=total.open,
        decided=total.decided,
        by_kind={k: _count([d for d in found if kinds[id(d)] == k], decisions) for k in KINDS},
        machine_rule=rule,
    )


def machine_rule_counts(*, campaign: Campaign) -> dict[str, QueueCount]:
    """Per machine rule, the disagreements only a machine causes that it would send to people
    (open and decided): what the organizer weighs when choosing one."""
    machines = campaign_machines(campaign=campaign)
    found = [d for d in _disagreements_seen(campaign, None) if disagreement_kind(d, machines) == MACHINE]
    decisions = campaign_decisions(campaign=campaign)
    return {
        rule: _count([d for d in found if to_people(d, machines, rule)], decisions) for rule in MACHINE_RULES
    }


def queue_item(*, campaign: Campaign, topic: str, docno: str, viewer: Any) -> AdjudicationRow:
    """The disagreement (``topic``, ``docno``) of ``viewer``'s adjudication queue, decided or not
    (:func:`adjudication_queue` says what is in it); :class:`JudgingRefused` saying why when it is
    not there: no such topic, nobody judged it, the viewer still has to judge it, or its assessors
    do not disagree."""
    rows = adjudication_queue(campaign=campaign, show="all", topic=topic, docno=docno, viewer=viewer).rows
    if rows:
        return rows[0]
    if not Topic.objects.filter(campaign=campaign, number=topic).exists():
        raise JudgingRefused(f"campaign '{campaign.slug}' has no topic '{topic}'")
    if not Judgment.objects.filter(campaign=campaign, topic__number=topic, docno=docno).exists():
        raise JudgingRefused(f"nobody judged '{docno}' for topic {topic}")
    if still_to_judge(campaign=campaign, user=viewer)((topic, docno)):
        raise JudgingRefused(f"you still have to judge '{docno}' for topic {topic} yourself: judge it first")
    if _disagreements_seen(campaign, viewer, topic=topic, docno=docno):
        rule = machine_rule_get(campaign=campaign)
        raise JudgingRefused(
            f"'{docno}' of topic {topic} is not in the adjudication queue: only a machine disagrees, "
            f"and the campaign's rule for machine disagreements ({rule}) does not send it to people"
        )
    raise JudgingRefused(
        f"'{docno}' of topic {topic} is not in the adjudication queue: its assessors do not disagree"
    )


@dataclass(frozen=True)
class AdjudicationLink:
    """A campaign the user adjudicates, with the disagreements open to them."""

    campaign: Campaign
    open: int


def adjudication_links(*, user: Any) -> list[AdjudicationLink]:
    """The campaigns where ``user`` is an adjudicator, each with its open queue as they see it."""
    if not getattr(user, "is_authenticated", False):
        return []
    campaigns = Campaign.objects.filter(
        memberships__user_id=user.pk, memberships__role=Role.ADJUDICATOR
    ).distinct()
    return [
        AdjudicationLink(c, adjudication_queue(campaign=c, viewer=user).open)
        for c in campaigns.order_by("slug")
    ]


def with_documents(*, campaign: Campaign, rows: Sequence[AdjudicationRow]) -> list[AdjudicationRow]:
    """The rows with their documents' stored title and text, each vote's comment and the topic's
    statement (for one page of the queue)."""
    docnos = sorted({r.docno for r in rows})
    stored: dict[str, tuple[str, str]] = {}
    comments: dict[tuple[str, str, str], str] = {}
    topics = {
        t.number: t for t in Topic.objects.filter(campaign=campaign, number__in={r.topic for r in rows})
    }
    for a in range(0, len(docnos), 500):  # a bounded IN list: SQLite caps a statement's parameters
        chunk = Document.objects.filter(campaign=campaign, docno__in=docnos[a : a + 500])
        stored.update((d, (title, text)) for d, title, text in chunk.values_list("docno", "title", "text"))
        said = Judgment.objects.filter(campaign=campaign, docno__in=docnos[a : a + 500]).exclude(comment="")
        for topic, docno, name, comment in said.values_list(
            "topic__number", "docno", "assessor__username", "comment"
        ):
            comments[topic, docno, name] = comment
    return [
        replace(
            r,
            title=stored.get(r.docno, ("", ""))[0],
            text=stored.get(r.docno, ("", ""))[1],
            ballots=tuple(
                (name, grade, comments.get((r.topic, r.docno, name), "")) for name, grade in r.votes
            ),
            statement=topics.get(r.topic),
        )
        for r in rows
    ]


def topic_titles(*, campaign: Campaign) -> dict[str, str]:
    """Topic number -> title."""
    return dict(Topic.objects.filter(campaign=campaign).values_list("number", "title"))


def topic_numbers_judged(*, campaign: Campaign) -> list[str]:
    """The topics with at least one judgment, in byte order of their numbers."""
    numbers = set(Judgment.objects.filter(campaign=campaign).values_list("topic__number", flat=True))
    return sorted(numbers, key=lambda t: t.encode())


# --------------------------------------------------------------------------------- judgments


def campaign_judgments(*, campaign: Campaign, assessor: str | None = None) -> QuerySet[Judgment]:
    """Current judgments with their assessor and topic, in (topic, docno, assessor) order."""
    rows = Judgment.objects.filter(campaign=campaign).select_related("assessor", "topic")
    if assessor is not None:
        rows = rows.filter(assessor__username=assessor)
    return rows.order_by("topic__number", "docno", "assessor__username")


def campaign_pool(*, campaign: Campaign, name: str | None) -> Pool:
    """The pool named ``name``, or the campaign's only pool when no name is given."""
    pools = list(campaign_pools(campaign=campaign))
    if name:
        for pool in pools:
            if pool.name == name:
                return pool
        raise JudgingRefused(f"campaign '{campaign.slug}' has no pool named '{name}'")
    if len(pools) == 1:
        return pools[0]
    if not pools:
        raise JudgingRefused(f"campaign '{campaign.slug}' has no pool")
    names = ", ".join(sorted(p.name for p in pools))
    raise JudgingRefused(f"campaign '{campaign.slug}' has several pools ({names}): choose one")


# --------------------------------------------------------------------------------- agreement


def agreement_jobs(*, campaign: Campaign, user: Any, limit: int = 10) -> QuerySet[Job]:
    """Earlier agreement reports the user may open: all of the campaign's for an organizer, else
    the user's own (the job page shows a job to its creator and the organizers)."""
    jobs = Job.objects.filter(campaign=campaign, kind=AGREEMENT_JOB)
    if not has_role(user, campaign, Role.ORGANIZER):
        jobs = jobs.filter(created_by=user)
    return jobs.order_by("-created_at")[:limit]


@dataclass(frozen=True)
class CalibrationLink:
    """Where a machine assessor's latest calibration against the humans is: a section of the
    latest finished agreement report (None: that report has none for it)."""

    job: Job
    anchor: str  # the report page's section of this machine ("" when the report has none for it)


def latest_calibration(*, campaign: Campaign, machine: str) -> CalibrationLink | None:
    """The latest finished agreement report of the campaign, with the anchor of ``machine``'s
    calibration in it if it calibrates it (a report older than the machine's judgments does not).
    Organizers read every report (the machine's page is theirs)."""
    job = (
        Job.objects.filter(campaign=campaign, kind=AGREEMENT_JOB, status=Job.Status.DONE)
        .order_by("-created_at")
        .first()
    )
    if job is None:
        return None
    calibrated = {c.get("machine") for c in (job.result or {}).get("calibrations") or []}
    return CalibrationLink(job, f"calibration-{machine}" if machine in calibrated else "")


@dataclass(frozen=True)
class AgreementParams:
    """The agreement report's parameters, as a job stores them."""

    threshold: int = 1
    bootstrap: int = 0
    seed: int = 0
    confidence: float = 0.95
    runs: bool = False
    measures: tuple[str, ...] = DEFAULT_MEASURES

    def as_dict(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "bootstrap": self.bootstrap,
            "seed": self.seed,
            "confidence": self.confidence,
            "runs": self.runs,
            "measures": list(self.measures),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgreementParams:
        return cls(
            threshold=int(data.get("threshold", 1)),
            bootstrap=int(data.get("bootstrap", 0)),
            seed=int(data.get("seed", 0)),
            confidence=float(data.get("confidence", 0.95)),
            runs=bool(data.get("runs", False)),
            measures=tuple(data.get("measures") or DEFAULT_MEASURES),
        )


def assessor_labels(*, campaign: Campaign) -> dict[str, list[tuple[str, str, int]]]:
    """Each assessor's graded judgments as (topic, docno, grade); "can't judge" is no label."""
    rows = (
        Judgment.objects.filter(campaign=campaign, cant_judge=False)
        .order_by("assessor__username", "topic__number", "docno")
        .values_list("assessor__username", "topic__number", "docno", "grade")
    )
    out: dict[str, list[tuple[str, str, int]]] = {}
    for username, topic, docno, grade in rows:
        if grade is not None:  # the database pairs cant_judge=False with a grade; be explicit
            out.setdefault(username, []).append((topic, docno, grade))
    # pairs follow this order: code-point order of the names, whatever the database's collation
    return {name: out[name] for name in sorted(out)}


def _rankings_asked(campaign: Campaign, params: AgreementParams, progress: ProgressCallback | None) -> Any:
    """The campaign's stored runs ranked, when the report asks for the system rankings."""
    if not params.runs:
        return None
    stored = list(campaign_runs(campaign=campaign))
    return campaign_rankings(runs=stored, progress=progress) if stored else None


def _report_arguments(campaign: Campaign, params: AgreementParams, runs: Any) -> dict[str, Any]:
    """The agreement core's keyword arguments for the campaign's report (and its calibrations)."""
    return {
        "threshold": params.threshold,
        "scale": label_scale(campaign=campaign),
        "bootstrap": params.bootstrap,
        "seed": params.seed,
        "confidence": params.confidence,
        "runs": runs,
        "measures": params.measures,
        "options": EvalOptions(level=params.threshold),
    }


def campaign_agreement(
    *, campaign: Campaign, params: AgreementParams, progress: ProgressCallback | None = None
) -> AgreementReport:
    """The agreement report of the campaign's stored judgments (:func:`judging.agreement.agreement_report`).

    Labels are the graded judgments, per assessor; the label scale is the campaign's, so every
    pair's tables (and the weighted κs' category positions) span the whole scale. With
    ``params.runs``, the campaign's stored runs are ranked under each assessor's judgments.
    """
    progress = progress or quiet_progress
    progress("reading judgments", 0, 1)
    labels = assessor_labels(campaign=campaign)
    progress("reading judgments", 1, 1)
    if len(labels) < 2:
        raise JudgingRefused("agreement needs graded judgments from at least two assessors")
    runs = _rankings_asked(campaign, params, progress)
    progress("computing agreement", 0, 1)
    try:
        report = agreement_report(labels, **_report_arguments(campaign, params, runs))
    except ValueError as exc:  # an unknown measure, a grade off the scale...
        raise JudgingRefused(str(exc)) from exc
    progress("computing agreement", 1, 1)
    return report


# -------------------------------------------------------------------- the report as page data

READING_NAMES = {
    "concatenated": "one table summed over the topics, then the statistic",
    "de_vries": "De Vries et al. 2008: (mean P_o − mean P_e)/(1 − mean P_e), means over the topics",
    "mean_per_topic": "the mean of the per-topic values, over the topics where it is defined",
}
STAT_NAMES = {
    "p_o": "P_o (percent agreement)",
    "cohen": "Cohen κ (unweighted)",
    "linear": "weighted κ, linear",
    "quadratic": "weighted κ, quadratic",
    "pooled": "pooled κ (IIR §8.5; Scott π)",
    "ac1": "Gwet AC1",
    "alpha_nominal": "Krippendorff α, nominal",
    "alpha_ordinal": "Krippendorff α, ordinal",
    "alpha_interval": "Krippendorff α, interval (grade values)",
    "alpha_ratio": "Krippendorff α, ratio (grade values)",
    "overlap": "Voorhees overlap (concatenated = micro, mean per topic = macro)",
    "binary_cohen": "binarized: Cohen κ",
    "binary_pooled": "binarized: pooled κ",
    "binary_ac1": "binarized: Gwet AC1",
    "fleiss": "Fleiss κ",
}
_OVERALL = ("cohen", "linear", "quadratic", "pooled", "ac1")
# where the summary's κ paradox flag holds (judging.agreement.summary_table.SummaryRow.paradox)
_PARADOX_IN = {"kappa": "κ", "binary": "binarized κ (relevant = grade ≥ {t})"}


def _no_ci(stat: dict[str, Any], *, bootstrap: bool) -> str:
    """Why a summary coefficient has no interval: α's is the topic bootstrap's, which needs one
    (B > 0) over two topics or more; the others lack one only when the value is undefined."""
    if stat["value"] is None:
        return ""
    if stat["statistic"] == SUMMARY_ALPHA:
        return "no CI: one topic" if bootstrap else "no CI: B = 0"
    return "no CI"


def _ci(p: dict[str, Any], reading: str) -> list[float | None] | None:
    return p["ci"].get(reading)


def _pooled_rows(pooled: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "stat": stat,
            "name": STAT_NAMES.get(stat, stat),
            "concatenated": p["concatenated"],
            "de_vries": p["de_vries"],
            "mean_per_topic": p["mean_per_topic"],
            "topics": p["topics"],
            "ci_concatenated": _ci(p, "concatenated"),
            "ci_de_vries": _ci(p, "de_vries"),
            "ci_mean_per_topic": _ci(p, "mean_per_topic"),
        }
        for stat, p in pooled.items()
    ]


def _overall_rows(table: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = [{"name": STAT_NAMES["p_o"], "value": table["p_o"]}]
    for key in _OVERALL:
        k = table[key]
        ci = [k["ci_low"], k["ci_high"]]
        rows.append({"name": STAT_NAMES[key], "value": k["value"], "se": k["se"], "ci": ci})
    rows.append({"name": STAT_NAMES["alpha_nominal"], "value": table["alpha_nominal"]})
    rows.append({"name": STAT_NAMES["alpha_ordinal"], "value": table["alpha_ordinal"]})
    ov = table["overlap"]
    rows.append(
        {"name": f"Voorhees overlap ({ov['intersection']}/{ov['union']}, micro)", "value": ov["value"]}
    )
    return _checked_ci(rows)


def _binary_rows(binary: dict[str, Any]) -> list[dict[str, Any]]:
    """The statistics of the table binarized at the threshold (TREC's binary κ), graded rows' shape."""
    k = binary["cohen"]
    rows: list[dict[str, Any]] = [
        {"name": STAT_NAMES["p_o"], "value": binary["p_o"]},
        {"name": "Cohen κ", "value": k["value"], "se": k["se"], "ci": [k["ci_low"], k["ci_high"]]},
        {"name": STAT_NAMES["pooled"], "value": binary["pooled"]["value"]},
        {"name": STAT_NAMES["ac1"], "value": binary["ac1"]["value"]},
    ]
    return _checked_ci(rows)


def _checked_ci(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for row in rows:
        if "ci" in row and any(x is None or not math.isfinite(x) for x in row["ci"]):
            row["ci"] = None
    return rows


def agreement_result(
    report: AgreementReport, params: AgreementParams, *, display: bool = True
) -> dict[str, Any]:
    """The report as JSON (:func:`judging.agreement.report_as_dict`, per topic) with its parameters;
    ``display`` adds the rows the report page renders (named statistics, matrices, mean scores)."""
    data = report_as_dict(report, per_topic=True)
    data["parameters"] = params.as_dict()
    data["readings"] = READING_NAMES
    if not display:
        return data
    for row in data["summary"]:
        row["stats"] = [row["kappa"], row["weighted_kappa"], row["ac1"], row["alpha"]]
        for stat in row["stats"]:
            stat["no_ci"] = _no_ci(stat, bootstrap=report.bootstrap is not None)
        row["paradox_text"] = ", ".join(_PARADOX_IN[w].format(t=report.threshold) for w in row["paradox_in"])
    for pair in data["pairs"]:
        overall = pair["overall"]
        pair["matrix_rows"] = [
            {"label": label, "counts": counts}
            for label, counts in zip(overall["labels"], overall["matrix"], strict=True)
        ]
        pair["overall_rows"] = _overall_rows(overall)
        binary = overall["binary"]
        pair["binary_rows"] = _binary_rows(binary)
        pair["binary_matrix_rows"] = [
            {"label": label, "counts": counts}
            for label, counts in zip(binary["labels"], binary["matrix"], strict=True)
        ]
        pair["pooled_rows"] = _pooled_rows(pair["pooled"])
        pair["topic_rows"] = [{"topic": t, **s} for t, s in pair["per_topic"].items()]
    group = data["group"]
    if group is not None:
        group["pooled_rows"] = _pooled_rows(group["pooled"])
        group["topic_rows"] = [{"topic": t, **s} for t, s in group["per_topic"].items()]
    systems = data["systems"]
    if systems is not None:
        systems["mean_rows"] = [
            {
                "measure": m,
                "run": r,
                "values": [systems["means"][a].get(m, {}).get(r) for a in data["assessors"]],
            }
            for m in systems["measures"]
            for r in systems["runs"]
        ]
        for c in systems["correlations"]:  # RBO's upper end; reports stored before RBO have neither
            low, residual = c.get("rbo_min"), c.get("rbo_residual")
            c["rbo_max"] = None if low is None or residual is None else low + residual
    return data


# ------------------------------------------------------------------------------ machine calibration


def campaign_calibrations(
    *,
    campaign: Campaign,
    params: AgreementParams,
    progress: ProgressCallback | None = None,
    rule: str = "majority",
) -> list[Any]:
    """Each machine assessor with judgments, calibrated against the consensus of the human
    assessors (:func:`judging.agreement.calibration.calibrate`): the machines' votes never count in
    that consensus. Empty when the campaign has no machine or no human judgments."""
    from judging.agreement.calibration import calibrate

    labels = assessor_labels(campaign=campaign)
    machines = set(MachineJudge.objects.filter(campaign=campaign).values_list("user__username", flat=True))
    humans = {name: rows for name, rows in labels.items() if name not in machines}
    judged = [name for name in sorted(machines) if labels.get(name)]
    if not humans or not judged:
        return []
    runs = _rankings_asked(campaign, params, progress)
    out = []
    for name in judged:
        try:
            out.append(
                calibrate(humans, labels[name], name, rule=rule, **_report_arguments(campaign, params, runs))
            )
        except ValueError as exc:
            raise JudgingRefused(str(exc)) from exc
    return out


def calibration_result(calibration: Any, params: AgreementParams) -> dict[str, Any]:
    """A calibration as JSON, with the rows the report page renders (the pair's rows are the
    agreement report's own)."""
    data = agreement_result(calibration.report, params)
    pair = data["pairs"][0]
    return {
        "machine": calibration.machine,
        "rule": calibration.rule,
        "humans": list(calibration.humans),
        "pair": pair,
        "systems": data["systems"],
        "shifts": [
            {
                "measure": s.measure,
                "run": s.run,
                "human_rank": s.human_rank,
                "machine_rank": s.machine_rank,
                "change": s.change,
            }
            for s in calibration.shifts()
        ],
        "topics": [
            {
                "topic": t.topic,
                "items": t.items,
                "agree": t.agree,
                "disagree": t.disagree,
                "p_o": t.p_o,
                "largest": t.largest,
            }
            for t in calibration.topics
        ],
    }
