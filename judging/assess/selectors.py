"""Reads of the assessor's page and API: my assignments, one assignment's state, the document to read.

Nothing here names a run, a rank or a score, nor another assessor's labels: an assessor judges a
document for its own sake, and what the systems or colleagues thought would bias the judgment.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from django.db.models import Count, Exists, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce

from campaigns import access
from campaigns.access import AnyUser, Role
from campaigns.models import Document, Membership
from judging.errors import JudgingRefused
from judging.models import Assignment, AssignmentItem, Grade, Judgment
from judging.selectors import campaign_grades, grades_json
from pooling.models import Pool

# Short English stopword list: the title's function words would mark half of every document.
_STOPWORD_TEXT = """
    a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers him his how i if in into is it its itself just me more most my no nor not
    now of off on once only or other our ours out over own same she should so some such than that the
    their theirs them then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Snowball's stemmers keep state while they work: one per thread (the server answers in threads)
_stemmers = threading.local()


# Kept per process: stemming every distinct word of a document took 13 ms of a 2,000-word
# document's fetch; a campaign's vocabulary repeats from document to document (the lookups are
# thread-safe, each thread stemming with its own stemmer on a miss)
@functools.lru_cache(maxsize=100_000)
def _stem(word: str) -> str:
    """The English Snowball (Porter 2) stem: 'battery' and 'batteries' are both 'batteri'."""
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        import snowballstemmer  # its 30 languages' modules cost 30 ms: not at every process's start

        stemmer = _stemmers.english = snowballstemmer.stemmer("english")
    return str(stemmer.stemWord(word))


def topic_terms(title: str) -> list[str]:
    """The title's words worth highlighting as Snowball stems, stopwords and 1-letter words left out."""
    out: list[str] = []
    for word in _WORD.findall(title.lower()):
        if len(word) < 2 or word in STOPWORDS:
            continue
        stem = _stem(word)
        if stem not in out:
            out.append(stem)
    return out


def highlight_example(title: str, *statements: str, words: int = 2) -> str:
    """Words worth marking beyond the title's, for the highlight box's placeholder: the first
    ``words`` of the topic's statements (description, narrative) of five letters or more, not
    stopwords, whose stems no title word (nor an earlier pick) has. Empty when there are none."""
    taken = set(topic_terms(title))
    picked: list[str] = []
    for text in statements:
        for word in _WORD.findall(text.lower()):
            if len(word) < 5 or word in STOPWORDS or word.isdigit() or _stem(word) in taken:
                continue
            taken.add(_stem(word))
            picked.append(word)
            if len(picked) == words:
                return " ".join(picked)
    return " ".join(picked)


def marked_words(text: str, terms: list[str]) -> list[str]:
    """The distinct words of ``text`` (lowercased) that are a form of one of the stems ``terms``,
    longest first: the client marks exactly these words, so 'battery' marks 'batteries' too."""
    wanted = set(terms)
    if not wanted:
        return []
    found = {w for w in set(_WORD.findall(text.lower())) if len(w) >= 2 and _stem(w) in wanted}
    return sorted(found, key=lambda w: (-len(w), w))


# ---------------------------------------------------------------------------------- assignments


@dataclass(frozen=True)
class AssignmentRow:
    """One line of the assessor's home page: an assignment, judged over total."""

    assignment: Assignment
    judged: int
    total: int
    # the assessor's assignments of this topic (several pools may deal it), and which one this is:
    # told apart by number, never by the pool's name (it may name runs)
    part: int = 1
    parts: int = 1

    @property
    def percent(self) -> int:
        return round(100 * self.judged / self.total) if self.total else 100


def _queue_total(assignment: Assignment, items: int, sizes: dict[str, Any] | None) -> int:
    """A queue assignment grows as it goes: its end is the budget or the topic's candidates."""
    candidates = int(((sizes or {}).get(assignment.topic.number) or {}).get("judge", items))
    total = candidates if assignment.budget is None else min(assignment.budget, candidates)
    return max(total, items)


def assessor_assignments(*, user: AnyUser) -> list[AssignmentRow]:
    """The user's own assignments in campaigns where they are an assessor, with judged / total."""
    if not user.is_authenticated:
        return []
    items = (
        AssignmentItem.objects.filter(assignment_id=OuterRef("pk"))
        .order_by()
        .values("assignment_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    judged = (
        Judgment.objects.filter(
            assessor_id=OuterRef("assessor_id"),
            topic_id=OuterRef("topic_id"),
            docno__in=AssignmentItem.objects.filter(assignment_id=OuterRef(OuterRef("pk"))).values("docno"),
        )
        .order_by()
        .values("topic_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    zero = Value(0, output_field=IntegerField())
    rows = (
        Assignment.objects.filter(assessor_id=user.pk)
        .select_related("campaign", "topic", "pool")
        .defer("pool__queue_state", "pool__spec", "pool__runs")
        .annotate(
            n_items=Coalesce(Subquery(items, output_field=IntegerField()), zero),
            n_judged=Coalesce(Subquery(judged, output_field=IntegerField()), zero),
        )
    )
    out = []
    for a in rows:
        if not access.has_role(user, a.campaign, Role.ASSESSOR):
            continue
        n_items, n_judged = a.n_items, a.n_judged
        total = _queue_total(a, n_items, a.pool.sizes) if a.order == Assignment.Order.QUEUE else n_items
        out.append(AssignmentRow(a, n_judged, total))
    out.sort(key=lambda r: (r.assignment.campaign.slug, r.assignment.topic.number.encode(), r.assignment.pk))
    parts = Counter(r.assignment.topic_id for r in out)
    seen: Counter[int] = Counter()
    numbered = []
    for r in out:
        seen[r.assignment.topic_id] += 1
        numbered.append(replace(r, part=seen[r.assignment.topic_id], parts=parts[r.assignment.topic_id]))
    return numbered


def assessor_assignment(*, user: AnyUser, pk: int) -> Assignment:
    """The user's own assignment ``pk``; NotVisible (404) for anyone else's, even an organizer's view.

    Judging is personal: an organizer follows progress on the organizer pages, not in here.
    AccessDenied (403) when it is theirs but they no longer hold the assessor role.

    One query: the assignment with its campaign and topic, and whether the user holds a role (and
    the assessor role) in the campaign, which every request of the judging page checks.
    """
    if not user.is_authenticated:
        raise access.NotVisible(f"no assignment {pk}")
    held = Membership.objects.filter(campaign_id=OuterRef("campaign_id"), user_id=user.pk)
    assignment = (
        Assignment.objects.select_related("campaign", "topic")
        .annotate(held_any=Exists(held), held_assessor=Exists(held.filter(role=Role.ASSESSOR)))
        .filter(pk=pk, assessor_id=user.pk)
        .first()
    )
    superuser = bool(getattr(user, "is_superuser", False))  # every role, as campaigns.access says
    if assignment is None or not (assignment.held_any or superuser):
        raise access.NotVisible(f"no assignment {pk}")
    if not (assignment.held_assessor or superuser):
        raise access.AccessDenied("judging needs the assessor role in this campaign")
    return assignment


# ---------------------------------------------------------------------------------------- state


@dataclass(frozen=True)
class AssessorProgress:
    """How far the assessor is in one assignment (the organizer's view is ``AssignmentProgress``)."""

    judged: int
    total: int  # the items, or for a queue assignment the documents it may grow to
    items: int
    queue: bool = False

    @property
    def done(self) -> bool:
        """No document left to judge: every item judged and, for a queue, as many as it may grow to
        (its budget, or its candidates). Counted, never asked: asking a queue writes. A queue that
        stops sooner says so when asked (a save, or :func:`judging.services.assignment_deal`)."""
        return self.judged >= self.items and self.judged >= self.total

    def as_dict(self) -> dict[str, int]:
        return {"judged": self.judged, "total": self.total}


def _judged_items(assignment: Assignment) -> Any:
    return Judgment.objects.filter(
        assessor_id=assignment.assessor_id,
        topic_id=assignment.topic_id,
        docno__in=AssignmentItem.objects.filter(assignment=assignment).values("docno"),
    )


def assignment_progress(*, assignment: Assignment) -> AssessorProgress:
    """Judged items of the assignment over its size (one query; a queue's size is its end)."""
    mine = Judgment.objects.filter(
        assessor_id=assignment.assessor_id, topic_id=assignment.topic_id, docno=OuterRef("docno")
    )
    counts = AssignmentItem.objects.filter(assignment=assignment).aggregate(
        items=Count("pk"), judged=Count("pk", filter=Q(Exists(mine)))
    )
    items, judged = counts["items"], counts["judged"]
    if assignment.order != Assignment.Order.QUEUE:
        return AssessorProgress(judged, items, items)
    sizes = Pool.objects.filter(pk=assignment.pool_id).values_list("sizes", flat=True).first()
    return AssessorProgress(judged, _queue_total(assignment, items, sizes), items, queue=True)


def item_json(item: AssignmentItem, judgment: Judgment | None) -> dict[str, Any]:
    """One item as the client sees it: where it is, what it is, my own judgment of it."""
    return {
        "position": item.position,
        "docno": item.docno,
        "grade": judgment.grade if judgment else None,
        "cant_judge": judgment.cant_judge if judgment else False,
        "comment": judgment.comment if judgment else "",
        "judged": judgment is not None,
    }


def assignment_items(*, assignment: Assignment) -> list[dict[str, Any]]:
    """Every item in order, each with the assessor's own judgment (never a colleague's)."""
    items = list(AssignmentItem.objects.filter(assignment=assignment).order_by("position"))
    mine = {j.docno: j for j in _judged_items(assignment)}
    return [item_json(i, mine.get(i.docno)) for i in items]


def assignment_state(*, assignment: Assignment, grades: list[Grade]) -> dict[str, Any]:
    """What the judging page and the API hand the client: the topic, the scale, the items, progress."""
    topic = assignment.topic
    items = assignment_items(assignment=assignment)
    progress = assignment_progress(assignment=assignment)
    return {
        "assignment": assignment.pk,
        "campaign": {
            "slug": assignment.campaign.slug,
            "name": assignment.campaign.name,
            "guidelines": assignment.campaign.guidelines,
        },
        "queue": assignment.order == Assignment.Order.QUEUE,
        "done": progress.done,
        "topic": {
            "number": topic.number,
            "title": topic.title,
            "description": topic.description,
            "narrative": topic.narrative,
        },
        "terms": topic_terms(topic.title),
        "scale": grades_json(grades),
        "items": items,
        "progress": progress.as_dict(),
    }


# ------------------------------------------------------------------------------------- document


def assignment_item(*, assignment: Assignment, position: int) -> AssignmentItem:
    """The item at ``position``; NotVisible (404) when there is none."""
    item = AssignmentItem.objects.filter(assignment=assignment, position=position).first()
    if item is None:
        raise access.NotVisible(f"no document at position {position} of this assignment")
    return item


# how far past the judged item a save reads: the following item, and the one after it that the
# judging page reads ahead (a save may carry that one's document, see judgment_save)
READ_AHEAD = 2


@dataclass(frozen=True)
class JudgmentTarget:
    """The item a judgment is about, and the items after it in the assignment's order (at most
    ``READ_AHEAD``; none after the last)."""

    item: AssignmentItem
    ahead: tuple[AssignmentItem, ...]

    @property
    def following(self) -> AssignmentItem | None:
        return self.ahead[0] if self.ahead else None


def judgment_target(
    *, assignment: Assignment, position: int | None = None, docno: str | None = None
) -> JudgmentTarget:
    """The item a judgment is about, by position, docno or both, with the items that follow it
    (one query: the items from the target on); refused (never a 'not found' that tells more) when
    it is not in the assignment."""
    if position is None and not docno:
        raise JudgingRefused("say which document: its position or its docno")
    items = AssignmentItem.objects.filter(assignment=assignment)
    start: Any = position
    if position is None:
        start = Subquery(items.filter(docno=docno).values("position")[:1])
    rows = list(items.filter(position__gte=start).order_by("position")[: 1 + READ_AHEAD])
    item = rows[0] if rows else None
    if (
        item is None
        or (position is not None and item.position != position)
        or (docno and item.docno != docno)
    ):
        raise JudgingRefused("this document is not in the assignment")
    return JudgmentTarget(item, tuple(rows[1:]))


def document_text(*, assignment: Assignment, docno: str) -> dict[str, Any]:
    """The document's title and text as plain text (escaping is the renderer's job), whether it is
    stored, and the words to mark: one query."""
    document = (
        Document.objects.filter(campaign_id=assignment.campaign_id, docno=docno)
        .only("title", "text")
        .order_by()
        .first()
    )
    title, text = (document.title, document.text) if document else ("", "")
    return {
        "title": title,
        "text": text,
        "stored": document is not None,
        "marks": marked_words(f"{title}\n{text}", topic_terms(assignment.topic.title)),
    }


def item_document(*, assignment: Assignment, item: AssignmentItem) -> dict[str, Any]:
    """The document of an item as plain text (escaping is the renderer's job), with my judgment."""
    judgment = (
        Judgment.objects.filter(
            assessor_id=assignment.assessor_id, topic_id=assignment.topic_id, docno=item.docno
        )
        .order_by()
        .first()
    )
    return item_json(item, judgment) | document_text(assignment=assignment, docno=item.docno)


# ------------------------------------------------------------------------------------- the page


def next_assignment(*, assignment: Assignment, rows: list[AssignmentRow]) -> AssignmentRow | None:
    """Where the assessor goes at the end of ``assignment``: the next of their assignments ``rows``
    (:func:`assessor_assignments`) that still has documents to judge, wrapping round to earlier
    ones; None when none has."""
    at = next((i for i, r in enumerate(rows) if r.assignment.pk == assignment.pk), -1)
    for row in rows[at + 1 :] + rows[: max(at, 0)]:
        if row.judged < row.total:
            return row
    return None


def where_text(index: int, items: list[dict[str, Any]]) -> str:
    """The judging page's position line: the document shown, or past the last one what is left
    (the page's script words it the same way as the assessor moves)."""
    n = len(items)
    if index < n:
        return f"document {index + 1} of {n}"
    if not n:
        return "no document yet"
    unjudged = sum(not i["judged"] for i in items)
    return f"end of the list: {unjudged} of {n} unjudged" if unjudged else f"all {n} judged"


def judging_page(*, assignment: Assignment, wanted: int | None = None) -> dict[str, Any]:
    """What the judging page renders: the state its script starts from (with ``index``, the item
    shown), the document shown (``wanted``, else the first still to judge, else the end) and its
    neighbours. Reads only: a queue's next document was dealt by the last save."""
    grades = campaign_grades(campaign=assignment.campaign)
    state = assignment_state(assignment=assignment, grades=grades)
    items = state["items"]
    positions = [i["position"] for i in items]
    if wanted in positions:
        index = positions.index(wanted)
    else:  # the first document still to judge, or the end when all are judged
        index = next((n for n, i in enumerate(items) if not i["judged"]), len(items))
    current = None
    if index < len(items):
        item = assignment_item(assignment=assignment, position=items[index]["position"])
        current = item_document(assignment=assignment, item=item)
    state["index"] = index
    state["marks"] = current["marks"] if current else []
    judged, total = state["progress"]["judged"], state["progress"]["total"]
    rows = assessor_assignments(user=assignment.assessor)
    return {
        "next_assignment": next_assignment(assignment=assignment, rows=rows),
        "this_assignment": next((r for r in rows if r.assignment.pk == assignment.pk), None),
        "assignment": assignment,
        "campaign": assignment.campaign,
        "topic": assignment.topic,
        "highlight_example": highlight_example(
            assignment.topic.title, assignment.topic.description, assignment.topic.narrative
        ),
        "scale": grades,
        "state": state,
        "current": current,
        "position": index + 1,
        "count": len(items),
        "where": where_text(index, items),
        "previous": items[index - 1]["position"] if index > 0 else None,
        "following": items[index + 1]["position"] if index + 1 < len(items) else None,
        "judged": judged,
        "total": total,
        "percent": round(100 * judged / total) if total else 100,
        "done": state["done"],
    }
