"""What the adjudication page and its API show: one disagreement (its document, each assessor's
grade and comment, the topic's statement, the decision) and the page's state for its script.

The page and the API answer the same JSON for a disagreement (:func:`item_json`), so the page's
first item and the ones its script reads later look alike.
"""

from __future__ import annotations

from typing import Any

from campaigns.models import Campaign
from judging.models import Adjudication, MachineJudge
from judging.reports.selectors import AdjudicationQueue, AdjudicationRow, queue_item, with_documents


def machine_names(*, campaign: Campaign) -> set[str]:
    """The usernames of the campaign's machine assessors (their votes are marked as such)."""
    return set(MachineJudge.objects.filter(campaign=campaign).values_list("user__username", flat=True))


def decision_json(d: Adjudication) -> dict[str, Any]:
    return {
        "grade": d.grade,
        "adjudicator": d.adjudicator.username,
        "note": d.note,
        "decided_at": d.decided_at.isoformat(),
    }


def row_json(row: AdjudicationRow) -> dict[str, Any]:
    """A disagreement of the queue as a list shows it: where it is, how far apart, its decision."""
    return {
        "topic": row.topic,
        "docno": row.docno,
        "distance": row.distance,
        "kind": row.kind,
        "decision": None if row.decision is None else decision_json(row.decision),
    }


def item_json(row: AdjudicationRow, machines: set[str]) -> dict[str, Any]:
    """A disagreement read with :func:`judging.reports.selectors.with_documents`, as the page
    shows it: the votes with their comments (assessors by username, machines marked), the
    document's stored title and text, the topic's statement and the decision."""
    topic = row.statement
    return row_json(row) | {
        "votes": [
            {
                "assessor": name,
                "grade": grade,
                "cant_judge": grade is None,
                "comment": comment,
                "machine": name in machines,
            }
            for name, grade, comment in row.ballots
        ],
        "title": row.title,
        "text": row.text,
        "stored": bool(row.text),
        "statement": None
        if topic is None
        else {
            "number": topic.number,
            "title": topic.title,
            "description": topic.description,
            "narrative": topic.narrative,
        },
    }


def adjudication_item(*, campaign: Campaign, topic: str, docno: str, viewer: Any) -> dict[str, Any]:
    """One disagreement of ``viewer``'s queue with everything the page shows of it (refused, with
    the reason, when it is not in their queue)."""
    row = queue_item(campaign=campaign, topic=topic, docno=docno, viewer=viewer)
    return item_json(with_documents(campaign=campaign, rows=[row])[0], machine_names(campaign=campaign))


def page_state(
    *,
    campaign: Campaign,
    queue: AdjudicationQueue,
    shown: list[AdjudicationRow],
    index: int,
    viewer: Any,
    show: str,
    topic: str,
    kind: str = "all",
    urls: dict[str, str],
) -> dict[str, Any]:
    """The page script's state: every disagreement of the view (all topics: the script filters by
    topic and moves between topics itself), the one on the screen (``index`` in ``shown``, the
    view's rows of the chosen topic) with its document, and the counts."""
    current = None
    if index < len(shown):
        read = with_documents(campaign=campaign, rows=[shown[index]])[0]
        current = item_json(read, machine_names(campaign=campaign))
    return {
        "me": viewer.username,
        "show": show,
        "topic": topic,
        "kind": kind,
        "items": [row_json(r) for r in queue.rows],
        "index": index,
        "current": current,
        "open": queue.open,
        "decided": queue.decided,
        "urls": urls,
    }
