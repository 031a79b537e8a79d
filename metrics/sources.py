"""Which judgments a campaign's runs are evaluated against, read from the store (a selector):
the source itself, its key, label and form choices, the default a page opens with, and its judgments.

A source names whose labels count (the consensus under a rule, the adjudicated labels, one
assessor's, or an imported qrels set) and optionally a pool. With a pool, every pooled document
nobody graded stays in the judgments as pooled-but-unjudged (rel -1), which is what bpref and infAP
need to tell "judged non-relevant" from "never looked at"; and a sampled pool (strata, inclusion
probabilities) brings its design along, so xinfAP, xinfNDCG and statAP are computed from the store
directly, with no hand-exported prel.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

import numpy as np

from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, QrelsSet
from campaigns.selectors import campaign_qrels_sets, qrels_set_load
from engine.evaluate import Judgments
from judging.consensus import RULES
from judging.models import Judgment, MachineJudge
from judging.selectors import campaign_assessors
from metrics.models import Evaluation
from pooling.models import Pool
from pooling.selectors import campaign_pools, pool_as_core
from pooling.strategies import PoolSelection
from trec import Qrels
from trec.qrels import qrels_from_dict

KINDS = ("consensus", "adjudicated", "assessor", "machine", "hybrid", "qrels")


@dataclass(frozen=True)
class JudgmentSource:
    kind: str = "consensus"
    rule: str = "majority"
    assessor: str | None = None
    qrels_set: int | None = None
    pool: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise CampaignDataError(f"unknown judgment source '{self.kind}' (one of {', '.join(KINDS)})")
        if self.kind == "consensus" and self.rule not in RULES:
            raise CampaignDataError(f"unknown consensus rule '{self.rule}' (one of {', '.join(RULES)})")
        if self.kind == "assessor" and not self.assessor:
            raise CampaignDataError("name the assessor whose judgments count")
        if self.kind in ("machine", "hybrid") and not self.assessor:
            raise CampaignDataError("name the machine assessor whose labels count")
        if self.kind == "hybrid" and self.rule not in RULES:
            raise CampaignDataError(f"unknown consensus rule '{self.rule}' (one of {', '.join(RULES)})")
        if self.kind == "qrels" and self.qrels_set is None:
            raise CampaignDataError("choose the imported judgments to use")

    def describe(self) -> str:
        what = {
            "consensus": f"human consensus ({self.rule})",
            "adjudicated": "adjudicated, else the humans' majority",
            "assessor": f"assessor {self.assessor}",
            "machine": f"machine assessor {self.assessor}",
            "hybrid": f"humans ({self.rule}) where judged, machine {self.assessor} elsewhere",
            "qrels": "imported judgments",
        }[self.kind]
        return what + (" with the pool's unjudged documents" if self.pool is not None else "")


@dataclass(frozen=True)
class SourcedJudgments:
    judgments: Judgments
    source: JudgmentSource
    pool: Pool | None
    sampled: bool  # the pool is a sampling design: xinfAP, xinfNDCG, statAP apply


def _labels(campaign: Campaign, source: JudgmentSource) -> Qrels:
    if source.kind == "qrels":  # before the import below, which only the other kinds need
        qset = QrelsSet.objects.filter(campaign=campaign, pk=int(source.qrels_set or 0)).first()
        if qset is None:
            raise CampaignDataError("those imported judgments are not in this campaign")
        return qrels_set_load(qrels_set=qset)
    # imported here: judging.exports brings the agreement reports and scipy.stats (about a second),
    # which every process loading the metrics app (every manage.py command) would otherwise pay,
    # and an evaluation against imported qrels needs none of it (25 ms of a job of 0.4 s)
    from judging.exports import assessor_qrels, consensus_qrels, hybrid_qrels

    if source.kind in ("machine", "hybrid"):
        if not MachineJudge.objects.filter(campaign=campaign, user__username=source.assessor).exists():
            raise CampaignDataError(f"'{source.assessor}' is not a machine assessor of this campaign")
        if source.kind == "hybrid":
            return hybrid_qrels(campaign=campaign, rule=source.rule, machine=source.assessor)
    if source.kind in ("assessor", "machine"):
        return assessor_qrels(campaign=campaign, assessor=source.assessor)
    rule = "adjudicated" if source.kind == "adjudicated" else source.rule
    if not Judgment.objects.filter(campaign=campaign).exists():
        return qrels_from_dict({})  # judging has not started: every run scores what unjudged topics score
    return consensus_qrels(campaign=campaign, rule=rule)


def _judged_topics(labels: Qrels) -> set[str]:
    """Topics with at least one graded document: the others are not judged yet and stay out of
    every mean (a topic of pooled-unjudged lines only would score 0 and drag every run down)."""
    return {
        topic
        for t, topic in enumerate(labels.topics)
        if bool(np.any(labels.rels[int(labels.offsets[t]) : int(labels.offsets[t + 1])] >= 0))
    }


def _only_topics(core: PoolSelection, keep: set[str]) -> PoolSelection:
    """The pool restricted to ``keep``'s topics (documents, strata and probabilities alike)."""
    chosen = [i for i, t in enumerate(core.topics) if t in keep]
    rows = (
        np.concatenate([np.arange(core.offsets[i], core.offsets[i + 1]) for i in chosen])
        if chosen
        else np.zeros(0, dtype=np.int64)
    )
    sizes = np.array([core.offsets[i + 1] - core.offsets[i] for i in chosen], dtype=np.int64)
    return replace(
        core,
        topics=tuple(core.topics[i] for i in chosen),
        offsets=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        docnos=core.docnos[rows],
        sampled=core.sampled[rows],
        strata=None if core.strata is None else core.strata[rows],
        iprobs=None if core.iprobs is None else core.iprobs[rows],
    )


def _merged(labels: Qrels, pooled: Qrels) -> Qrels:
    """The labels, plus every pooled document they lack as rel -1, on the judged topics only."""
    judged = _judged_topics(labels)
    table: dict[str, dict[str, int]] = {}
    for q in (pooled, labels):  # labels second: a grade replaces the pool's -1
        for t, topic in enumerate(q.topics):
            if topic not in judged:
                continue
            a, b = int(q.offsets[t]), int(q.offsets[t + 1])
            row = table.setdefault(topic, {})
            for docno, rel in zip(q.docnos[a:b].tolist(), q.rels[a:b].tolist(), strict=True):
                if q is labels or docno.decode() not in row:
                    row[docno.decode()] = int(rel)
    return qrels_from_dict(table)


def source_judgments(*, campaign: Campaign, source: JudgmentSource) -> SourcedJudgments:
    labels = _labels(campaign, source)
    if source.pool is None:
        return SourcedJudgments(Judgments(labels), source, None, False)
    pool = Pool.objects.filter(campaign=campaign, pk=source.pool).first()
    if pool is None:
        raise CampaignDataError("that pool is not in this campaign")
    core = pool_as_core(pool=pool)
    sampled = core.iprobs is not None and bool(np.any(core.inclusion_probabilities() < 1.0))
    if sampled:
        core = _only_topics(core, _judged_topics(labels))
        prel = core.to_prel(labels)
        mq = core.to_mq_prel(labels)
        return SourcedJudgments(Judgments(prel.qrels, prel=prel, mq=mq), source, pool, True)
    return SourcedJudgments(Judgments(_merged(labels, core.to_qrels())), source, pool, False)


# ------------------------------------------------------------------------- keys, labels, choices


def source_normalized(source: JudgmentSource) -> JudgmentSource:
    """The source with the fields its kind ignores reset, so equal choices compare equal."""
    return JudgmentSource(
        kind=source.kind,
        rule=source.rule if source.kind in ("consensus", "hybrid") else "majority",
        assessor=source.assessor if source.kind in ("assessor", "machine", "hybrid") else None,
        qrels_set=source.qrels_set if source.kind == "qrels" else None,
        pool=source.pool,
    )


def source_dict(source: JudgmentSource) -> dict[str, Any]:
    s = source_normalized(source)
    return {"kind": s.kind, "rule": s.rule, "assessor": s.assessor, "qrels_set": s.qrels_set, "pool": s.pool}


def source_from_dict(data: dict[str, Any]) -> JudgmentSource:
    """A source from :func:`source_dict`'s shape; raises CampaignDataError on a bad one."""
    try:
        return source_normalized(
            JudgmentSource(
                kind=str(data.get("kind") or "consensus"),
                rule=str(data.get("rule") or "majority"),
                assessor=data.get("assessor") or None,
                qrels_set=None if data.get("qrels_set") in (None, "") else int(data["qrels_set"]),
                pool=None if data.get("pool") in (None, "") else int(data["pool"]),
            )
        )
    except (TypeError, ValueError) as exc:
        raise CampaignDataError(f"bad judgment source: {exc}") from exc


def source_key(source: JudgmentSource) -> str:
    s = source_normalized(source)
    what = {
        "consensus": s.rule,
        "assessor": s.assessor,
        "machine": s.assessor,
        "hybrid": f"{s.rule}:{s.assessor}",
        "qrels": str(s.qrels_set),
        "adjudicated": "",
    }[s.kind]
    return f"{s.kind}:{what}|pool:{'' if s.pool is None else s.pool}"


def source_query(source: JudgmentSource) -> str:
    """The leaderboard page's query string choosing this source."""
    return urlencode({k: "" if v is None else v for k, v in source_dict(source).items()})


def source_label(*, campaign: Campaign, source: JudgmentSource) -> str:
    """How the source reads on a page: what counts, and which pool's unjudged documents ride along."""
    s = source_normalized(source)
    text = s.describe()
    if s.kind == "qrels" and s.qrels_set is not None:
        qsets = QrelsSet.objects.filter(campaign=campaign, pk=s.qrels_set)
        name = qsets.values_list("name", flat=True).first()
        text = f"imported judgments '{name}'" if name else text
    if s.pool is not None:
        pool = Pool.objects.filter(campaign=campaign, pk=s.pool).values_list("name", flat=True).first()
        base = text.removesuffix(" with the pool's unjudged documents")
        text = f"{base} with pool '{pool}'" if pool else text
    return text


@dataclass(frozen=True)
class SourceChoices:
    """What the source form offers for a campaign."""

    kinds: tuple[str, ...]
    rules: tuple[str, ...]
    assessors: list[str]
    machines: list[str]
    qrels_sets: list[QrelsSet]
    pools: list[Pool]
    has_judgments: bool


def source_choices(*, campaign: Campaign) -> SourceChoices:
    return SourceChoices(
        kinds=KINDS,
        rules=tuple(r for r in RULES if r != "adjudicated"),  # "adjudicated" is its own kind
        assessors=campaign_assessors(campaign=campaign),
        machines=list(
            MachineJudge.objects.filter(campaign=campaign)
            .order_by("user__username")
            .values_list("user__username", flat=True)
        ),
        qrels_sets=list(campaign_qrels_sets(campaign=campaign)),
        pools=list(campaign_pools(campaign=campaign)),
        has_judgments=Judgment.objects.filter(campaign=campaign).exists(),
    )


def default_source(*, campaign: Campaign) -> JudgmentSource:
    """The source a page opens with: the last one evaluated; else the consensus with the latest
    committed pool once judging started; else the latest imported judgments; else the consensus."""
    last = Evaluation.objects.filter(campaign=campaign).order_by("-created_at", "-pk").first()
    if last is not None:
        try:
            return source_from_dict(last.source)
        except CampaignDataError:
            pass
    if Judgment.objects.filter(campaign=campaign).exists():
        pool = campaign_pools(campaign=campaign).filter(status=Pool.Status.COMMITTED).first()
        return JudgmentSource(pool=pool.pk if pool else None)
    qset = QrelsSet.objects.filter(campaign=campaign).order_by("-imported_at", "-pk").first()
    if qset is not None:
        return JudgmentSource(kind="qrels", qrels_set=qset.pk)
    return JudgmentSource()
