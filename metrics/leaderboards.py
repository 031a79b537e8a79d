"""Leaderboards: a stored evaluation's runs ranked by one measure, and the home page's boards."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Sum

from campaigns import access
from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, Membership, Run
from jobs.models import Job
from metrics.evaluations import (
    Evaluated,
    evaluation_failed,
    evaluation_latest,
    evaluation_pending,
    source_evaluate,
)
from metrics.models import Evaluation, EvaluationRun
from metrics.sources import JudgmentSource, default_source, source_label

SAMPLED_ONLY = ("xinfAP", "xinfNDCG", "statAP")
# the leaderboard's columns, in the order the issue lists them
COLUMNS = ("bpref", "infAP", "xinfAP", "xinfNDCG", "statAP", "map", "ndcg_cut_10", "P_10", "judged_10")
LABELS = {"map": "AP", "ndcg_cut_10": "nDCG@10", "P_10": "P@10", "judged_10": "judged@10"}
DEFAULT_SORT = "map"
RECALLS = tuple(i / 10 for i in range(11))
CURVE = tuple(f"iprec_at_recall_{r:.2f}" for r in RECALLS)
# the home page evaluates a campaign nobody evaluated yet in the request when it is this small
# (ranked documents over all its runs), and at most this many such campaigns per request
PREVIEW_MAX_DOCUMENTS = 50_000
PREVIEW_CAMPAIGNS = 3


@dataclass(frozen=True)
class Column:
    name: str
    label: str


def column_label(name: str) -> str:
    return LABELS.get(name, name)


def evaluation_columns(*, evaluation: Evaluation) -> list[Column]:
    """The leaderboard's columns this evaluation has, in leaderboard order (all have per-topic values)."""
    return [Column(n, column_label(n)) for n in COLUMNS if n in evaluation.measures]


@dataclass(frozen=True)
class BoardRow:
    tag: str
    result: int | None  # the EvaluationRun's pk (None in a preview, which stores nothing)
    values: list[float | None]


@dataclass
class Leaderboard:
    columns: list[Column]
    rows: list[BoardRow]  # sorted by ``sort``, best first
    sort: str
    sampled: bool
    missing: list[str]  # leaderboard measures this design cannot compute
    curves: dict[str, list[float | None]] = field(default_factory=dict)  # tag -> mean iP at RECALLS

    def values_of(self, name: str) -> list[float | None]:
        i = [c.name for c in self.columns].index(name)
        return [r.values[i] for r in self.rows]


def finite_or_none(value: Any) -> float | None:
    """A stored value as a float, or None when it is null or not a number."""
    if value is None:
        return None
    v = float(value)
    return v if math.isfinite(v) else None


def _board(
    names: Sequence[str], summaries: Sequence[tuple[str, int | None, dict[str, Any]]], sort: str | None
) -> Leaderboard:
    columns = [Column(n, column_label(n)) for n in COLUMNS if n in names]
    sampled = any(n in names for n in SAMPLED_ONLY)
    key = sort if sort in [c.name for c in columns] else DEFAULT_SORT
    rows = [BoardRow(tag, pk, [finite_or_none(s.get(c.name)) for c in columns]) for tag, pk, s in summaries]
    i = [c.name for c in columns].index(key)
    # best first; a value that is not a number sorts last; ties by tag
    rows.sort(key=lambda r: (r.values[i] is None, -(r.values[i] or 0.0), r.tag))
    curves = {tag: [finite_or_none(s.get(c)) for c in CURVE] for tag, _, s in summaries if CURVE[0] in s}
    return Leaderboard(columns, rows, key, sampled, [] if sampled else list(SAMPLED_ONLY), curves)


def leaderboard(*, evaluation: Evaluation, sort: str | None = None) -> Leaderboard:
    """The stored evaluation's runs with their 'all' values, best first by ``sort`` (default AP)."""
    rows = (
        EvaluationRun.objects.filter(evaluation=evaluation)
        .order_by("tag")
        .values_list("tag", "pk", "summary")
    )
    return _board(evaluation.measures, list(rows), sort)


def preview_leaderboard(evaluated: Evaluated, sort: str | None = None) -> Leaderboard:
    return _board(evaluated.measures, [(r.run, None, r.summary) for r in evaluated.results], sort)


@dataclass
class SourceBoard:
    """What the leaderboard page and ``GET evaluations/latest/`` show for one source."""

    source: JudgmentSource
    evaluation: Evaluation | None  # the latest finished evaluation of the source
    board: Leaderboard | None
    pending: Job | None  # its evaluation job still queued or running
    failed: Job | None  # its last evaluation job, when it failed after ``evaluation``


def source_board(*, campaign: Campaign, source: JudgmentSource | None, sort: str | None) -> SourceBoard:
    """The latest evaluation of ``source`` (default: :func:`metrics.sources.default_source`) as a
    leaderboard sorted by ``sort``, with its evaluation job still pending or the one that failed."""
    source = source or default_source(campaign=campaign)
    latest = evaluation_latest(campaign=campaign, source=source)
    pending = evaluation_pending(campaign=campaign, source=source)
    failed = (
        None
        if pending
        else evaluation_failed(campaign=campaign, source=source, after=latest and latest.created_at)
    )
    board = leaderboard(evaluation=latest, sort=sort) if latest else None
    return SourceBoard(source, latest, board, pending, failed)


# ------------------------------------------------------------------------------------ home page


@dataclass
class CampaignBoard:
    campaign: Campaign
    evaluation: Evaluation | None
    board: Leaderboard | None
    preview_source: str = ""  # set when the board was computed for the page, not stored
    problem: str = ""
    chart: str = ""  # the view's SVG of the board


def home_boards(*, user: Any, top: int = 10) -> list[CampaignBoard]:
    """The leaderboard of each campaign the user organizes: its latest evaluation, or for a small
    campaign nobody evaluated yet, its runs scored against the default source in the request
    (scored only: a preview stores nothing)."""
    out = []
    previews = 0
    for campaign in access.visible_campaigns(user).order_by("slug"):
        if not access.has_role(user, campaign, Membership.Role.ORGANIZER):
            continue
        latest = Evaluation.objects.filter(campaign=campaign).order_by("-created_at", "-pk").first()
        if latest is not None:
            board = leaderboard(evaluation=latest)
            board.rows = board.rows[:top]
            out.append(CampaignBoard(campaign, latest, board))
            continue
        size = Run.objects.filter(campaign=campaign).aggregate(n=Sum("document_count"))["n"] or 0
        if size == 0 or size > PREVIEW_MAX_DOCUMENTS or previews >= PREVIEW_CAMPAIGNS:
            out.append(CampaignBoard(campaign, None, None))
            continue
        previews += 1
        source = default_source(campaign=campaign)
        try:
            evaluated = source_evaluate(campaign=campaign, source=source)
        except CampaignDataError as exc:
            out.append(CampaignBoard(campaign, None, None, problem="; ".join(exc.problems)))
            continue
        board = preview_leaderboard(evaluated)
        board.rows = board.rows[:top]
        out.append(
            CampaignBoard(
                campaign, None, board, preview_source=source_label(campaign=campaign, source=source)
            )
        )
    return out
