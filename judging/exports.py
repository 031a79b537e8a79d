"""The campaign's judgments as files: qrels per assessor, consensus, adjudicated, binarized, prels, CSV.

Every qrels-like file goes through the format layer's writers (:mod:`trec`), so what the
workbench writes is what its readers read back. Kinds (:data:`EXPORT_KINDS`):

- ``assessor``: one assessor's qrels ``qid 0 docno grade``; "can't judge" is written -1 (in the
  pool, not judged: the qrels convention);
- ``consensus``: the final labels under ``rule`` (:mod:`judging.consensus`), -1 where nobody could
  grade the document;
- ``adjudicated``: the consensus under the ``adjudicated`` rule (the decision, else the majority);
- ``binary``: the consensus under ``rule`` with grade ≥ ``threshold`` → 1, below → 0, -1 kept;
- ``prel``: a sample_eval prel ``qid 0 docno stratum rel`` of a pool (its strata) with the consensus
  grades; listed documents not sampled or not graded are -1;
- ``mq``: a Million Query prel ``qid docno rel method iprob`` of a pool's sampled documents (their
  inclusion probabilities) with the consensus grades, -1 where not graded;
- ``csv``: every current judgment: assessor, topic, docno, grade, cant_judge, comment, created_at,
  updated_at (ISO 8601, UTC) and active_seconds (active time, idle stretches left out).

Who may export what (:data:`ADJUDICATOR_KINDS`): organizers everything; adjudicators the final
labels only (consensus, adjudicated, binary), which name no assessor. Assessors nothing.

``withhold`` leaves documents out of the final labels (every kind built on them: consensus,
adjudicated, binary, prel, mq): an adjudicator who still has documents to judge gets the files
without those (:func:`judging.reports.selectors.final_labels_withheld`), and
:attr:`ExportFile.withheld` says how many were left out; the file name says it too
(``...-withheld-3.qrels``), since qrels have no comment lines to carry it.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Callable
from datetime import UTC
from typing import Any, NamedTuple

import numpy as np

from campaigns.access import Role
from campaigns.models import Campaign
from judging.consensus import RULES, Item, binarize
from judging.errors import JudgingRefused
from judging.reports.selectors import READERS, campaign_judgments, campaign_pool, consensus_labels
from judging.selectors import campaign_assessors
from pooling.selectors import pool_as_core
from trec import write_mq_prel, write_prel, write_qrels
from trec.csvout import SafeWriter, neutralise
from trec.qrels import Qrels, qrels_from_arrays

EXPORT_KINDS = ("assessor", "consensus", "adjudicated", "binary", "prel", "mq", "csv")
ADJUDICATOR_KINDS = frozenset({"consensus", "adjudicated", "binary"})
# the kinds built on the final labels: what ``withhold`` filters
FINAL_LABEL_KINDS = frozenset({"consensus", "adjudicated", "binary", "prel", "mq"})
CSV_COLUMNS = (
    "assessor",
    "topic",
    "docno",
    "grade",
    "cant_judge",
    "comment",
    "created_at",
    "updated_at",
    "active_seconds",
)
UNJUDGED = -1
SUFFIX = {
    "assessor": "qrels",
    "consensus": "qrels",
    "adjudicated": "qrels",
    "binary": "qrels",
    "prel": "prel",
    "mq": "mq.prel",
    "csv": "csv",
}


Withhold = Callable[[Item], bool]


class ExportFile(NamedTuple):
    """An export: its text, a file name, and how many documents ``withhold`` left out of it."""

    text: str
    filename: str
    withheld: int = 0


def export_roles(kind: str) -> tuple[str, ...]:
    """Who may download ``kind``: adjudicators the final labels, organizers everything."""
    return READERS if kind in ADJUDICATOR_KINDS else (Role.ORGANIZER,)


def _qrels(labels: dict[Item, int | None]) -> Qrels:
    if not labels:
        raise JudgingRefused("nothing to export: the campaign has no judgments yet")
    items = list(labels)
    return qrels_from_arrays(
        np.array([t.encode() for t, _ in items], dtype="S"),
        np.array([d.encode() for _, d in items], dtype="S"),
        np.array([UNJUDGED if g is None else g for g in labels.values()], dtype=np.int64),
    )


def _written(writer: Callable[[Any, str], None], data: Any, suffix: str) -> str:
    """The text a trec writer produces (the writers take paths: one temporary file)."""
    fd, name = tempfile.mkstemp(suffix=f".{suffix}")
    os.close(fd)
    try:
        writer(data, name)
        with open(name, encoding="utf-8") as f:
            return f.read()
    finally:
        os.unlink(name)


def _filename(*parts: str, ext: str) -> str:
    """``slug-part-part.ext`` with anything but letters, digits, '-' and '_' made '-'."""
    stem = "-".join("".join(c if c.isalnum() or c in "-_" else "-" for c in p) for p in parts if p)
    return f"{stem}.{ext}"


def assessor_qrels(*, campaign: Campaign, assessor: str | None) -> Qrels:
    if not assessor:
        raise JudgingRefused("choose the assessor whose judgments to export")
    rows = campaign_judgments(campaign=campaign, assessor=assessor).values_list(
        "topic__number", "docno", "grade", "cant_judge"
    )
    labels: dict[Item, int | None] = {(t, d): None if cj else g for t, d, g, cj in rows}
    if not labels:
        known = ", ".join(campaign_assessors(campaign=campaign)) or "nobody has judged yet"
        raise JudgingRefused(f"no judgments by '{assessor}' in campaign '{campaign.slug}' ({known})")
    return _qrels(labels)


def consensus_qrels(*, campaign: Campaign, rule: str, threshold: int | None = None) -> Qrels:
    """The final labels as qrels; binarized at ``threshold`` when given."""
    return _final_qrels(campaign, rule, threshold, None)[0]


def _final_qrels(
    campaign: Campaign, rule: str, threshold: int | None, withhold: Withhold | None
) -> tuple[Qrels, int]:
    """:func:`consensus_qrels` without the documents ``withhold`` names, and how many it left out."""
    if rule not in RULES:
        raise JudgingRefused(f"unknown consensus rule '{rule}' (one of {', '.join(RULES)})")
    labels = consensus_labels(campaign=campaign, rule=rule)
    withheld = 0
    if withhold is not None:
        kept = {k: g for k, g in labels.items() if not withhold(k)}
        withheld = len(labels) - len(kept)
        if labels and not kept:
            raise JudgingRefused(
                f"every final label ({withheld}) is of a document you still have to judge yourself: "
                "judge them first"
            )
        labels = kept
    if threshold is not None:
        labels = {k: None if g is None else binarize(g, threshold) for k, g in labels.items()}
    return _qrels(labels), withheld


def hybrid_qrels(*, campaign: Campaign, rule: str, machine: str | None) -> Qrels:
    """The humans' final labels under ``rule`` where a human graded the document, the machine
    assessor ``machine``'s grade elsewhere ("human where judged, machine elsewhere")."""
    if not machine:
        raise JudgingRefused("choose the machine assessor whose labels fill in")
    human = {k: g for k, g in consensus_labels(campaign=campaign, rule=rule).items() if g is not None}
    rows = campaign_judgments(campaign=campaign, assessor=machine).values_list(
        "topic__number", "docno", "grade"
    )
    labels: dict[Item, int | None] = {(t, d): g for t, d, g in rows if g is not None}
    labels.update(human)
    return _qrels(labels)


def judgments_csv(*, campaign: Campaign) -> str:
    """Every current judgment, one row each (:data:`CSV_COLUMNS`); user names, topics and docnos
    that start like a spreadsheet formula are quoted by :class:`~trec.csvout.SafeWriter`, and the
    free-text comment always is (:func:`~trec.csvout.neutralise`), even when it reads as a number."""
    out = io.StringIO()
    writer = SafeWriter(out)
    writer.writerow(CSV_COLUMNS)
    for j in campaign_judgments(campaign=campaign).iterator():
        writer.writerow(
            [
                j.assessor.username,
                j.topic.number,
                j.docno,
                "" if j.grade is None else j.grade,
                "true" if j.cant_judge else "false",
                neutralise(j.comment),
                j.created_at.astimezone(UTC).isoformat(),
                j.updated_at.astimezone(UTC).isoformat(),
                f"{j.active_ms / 1000:.3f}",
            ]
        )
    return out.getvalue()


def export_file(
    *,
    campaign: Campaign,
    kind: str,
    assessor: str | None = None,
    rule: str = "majority",
    threshold: int = 1,
    pool: str | None = None,
    withhold: Withhold | None = None,
) -> ExportFile:
    """The export's text and a file name for it; :class:`JudgingRefused` on a bad request.
    ``withhold``: documents to leave out of the final labels (see the module's docstring)."""
    if kind not in EXPORT_KINDS:
        raise JudgingRefused(f"unknown export '{kind}' (one of {', '.join(EXPORT_KINDS)})")
    if rule not in RULES:
        raise JudgingRefused(f"unknown consensus rule '{rule}' (one of {', '.join(RULES)})")
    if kind == "binary" and threshold < 1:
        raise JudgingRefused(f"the relevance threshold is a grade of 1 or more, found {threshold}")
    slug = campaign.slug
    if kind == "csv":
        return ExportFile(judgments_csv(campaign=campaign), _filename(slug, "judgments", ext="csv"))
    if kind == "assessor":
        text = _written(write_qrels, assessor_qrels(campaign=campaign, assessor=assessor), "qrels")
        return ExportFile(text, _filename(slug, assessor or "", ext="qrels"))
    if kind == "adjudicated":
        rule = "adjudicated"
    if kind in ("consensus", "adjudicated", "binary"):
        qrels, withheld = _final_qrels(campaign, rule, threshold if kind == "binary" else None, withhold)
        parts = (slug, rule, f"ge{threshold}" if kind == "binary" else "", _withheld_part(withheld))
        return ExportFile(_written(write_qrels, qrels, "qrels"), _filename(*parts, ext="qrels"), withheld)
    stored = campaign_pool(campaign=campaign, name=pool)
    core = pool_as_core(pool=stored)
    if len(core.docnos) == 0:
        raise JudgingRefused(f"pool '{stored.name}' has no documents")
    # before any judgment, every listed document is -1 (the pool's own export says the same)
    grades, withheld = (
        _final_qrels(campaign, rule, None, withhold) if campaign_assessors(campaign=campaign) else (None, 0)
    )
    if kind == "prel":
        text = _written(write_prel, core.to_prel(grades), "prel")
    else:
        text = _written(write_mq_prel, core.to_mq_prel(grades), "prel")
    name = _filename(slug, stored.name, rule, _withheld_part(withheld), ext=SUFFIX[kind])
    return ExportFile(text, name, withheld)


def _withheld_part(withheld: int) -> str:
    """The file name's mark of a partial export ("" for a whole one)."""
    return f"withheld-{withheld}" if withheld else ""
