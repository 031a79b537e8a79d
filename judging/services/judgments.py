"""Writes of judgments: one judgment recorded with its history, and the assessor's save-and-next.

A judgment is saved the moment the assessor gives it. Two requests for the same (assessor, topic,
document) — two tabs, a double click, a retry after a timeout — meet at the database: the row is
locked (or created under its unique constraint, the loser of the race retrying as an update), so
there is always exactly one current judgment and every real change is one history event.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F

from judging.assess.selectors import (
    AssessorProgress,
    assignment_progress,
    document_text,
    judgment_target,
)
from judging.errors import JudgingRefused
from judging.models import Assignment, AssignmentItem, Judgment, JudgmentEvent
from judging.services.assignments import assignment_next_item
from judging.services.scale import grade_check
from pooling.services import queue_record


@transaction.atomic
def judgment_record(
    *,
    assessor: User,
    assignment: Assignment,
    docno: str,
    grade: int | None,
    cant_judge: bool = False,
    comment: str = "",
    active_ms: int = 0,
    item: AssignmentItem | None = None,
) -> Judgment:
    """Save the assessor's judgment of ``docno`` now; a repeat with the same values changes nothing.

    The document must be an item of the assessor's own assignment; a caller that has already read
    that item passes it as ``item`` and saves the lookup. A queue assignment's queue takes the
    judgment too; asking it for the next document is :func:`judgment_save`'s part.
    """
    if assignment.assessor_id != assessor.pk:
        raise JudgingRefused("this assignment belongs to another assessor")
    known = item is not None and item.assignment_id == assignment.pk and item.docno == docno
    if not known and not AssignmentItem.objects.filter(assignment=assignment, docno=docno).exists():
        raise JudgingRefused(f"document '{docno}' is not in this assignment")
    campaign = assignment.campaign
    grade_check(campaign=campaign, grade=grade, cant_judge=cant_judge)
    comment = comment.strip()
    active_ms = max(0, min(int(active_ms), 24 * 3600 * 1000))
    key = {"assessor": assessor, "topic_id": assignment.topic_id, "docno": docno}
    # of=self and no ordering: lock the judgment row only, never the topic or campaign rows a join
    # would bring in (every save of the campaign would queue on them and deadlock)
    judgment = Judgment.objects.select_for_update(of=("self",)).filter(**key).order_by().first()
    created = False
    if judgment is None:
        try:
            with transaction.atomic():  # a savepoint: losing the race must not break the outer transaction
                judgment = Judgment.objects.create(
                    campaign=campaign,
                    grade=grade,
                    cant_judge=cant_judge,
                    comment=comment,
                    active_ms=active_ms,
                    **key,
                )
                created = True
        except IntegrityError:
            judgment = Judgment.objects.select_for_update(of=("self",)).get(**key)
    if created:
        JudgmentEvent.objects.create(
            judgment=judgment,
            assessor=assessor,
            new_grade=grade,
            new_cant_judge=cant_judge,
            comment=comment,
            active_ms=active_ms,
        )
    elif (judgment.grade, judgment.cant_judge, judgment.comment) != (grade, cant_judge, comment):
        JudgmentEvent.objects.create(
            judgment=judgment,
            assessor=assessor,
            old_grade=judgment.grade,
            new_grade=grade,
            old_cant_judge=judgment.cant_judge,
            new_cant_judge=cant_judge,
            comment=comment,
            active_ms=active_ms,
        )
        judgment.grade, judgment.cant_judge, judgment.comment = grade, cant_judge, comment
        judgment.active_ms += active_ms
        judgment.revision += 1
        judgment.save(update_fields=["grade", "cant_judge", "comment", "active_ms", "revision", "updated_at"])
    else:
        # the same judgment again: no history event, but a visit that re-read the document still
        # counts its time (a network retry of the same save would count twice: rare, and the
        # alternative loses every re-confirming visit)
        if active_ms:
            Judgment.objects.filter(pk=judgment.pk).update(active_ms=F("active_ms") + active_ms)
            judgment.refresh_from_db(fields=["active_ms"])
        return judgment
    if assignment.order == Assignment.Order.QUEUE:
        # "can't judge" reaches the queue as not relevant, so it moves on; the judgment keeps saying
        # "can't judge" for agreement, consensus and exports
        queue_grade = 0 if grade is None else grade
        queue_record(pool=assignment.pool, topic=assignment.topic.number, docno=docno, grade=queue_grade)
    return judgment


@dataclass(frozen=True)
class NextDocument:
    """Where the assessor goes next, and how far along they are."""

    # a queue's next document (dealt by the save), else the next item in order; None at the end
    following: AssignmentItem | None
    progress: AssessorProgress

    @property
    def done(self) -> bool:
        """Nothing left to judge; a queue was just asked, so its answer is the word."""
        return self.following is None if self.progress.queue else self.progress.done


@dataclass(frozen=True)
class JudgmentSaved(NextDocument):
    """What the assessor's page and API answer a save with: the judgment, what to judge next,
    progress, and the document asked for with the save (``document_text`` with its item), if any."""

    item: AssignmentItem
    judgment: Judgment
    document: tuple[AssignmentItem, dict[str, Any]] | None = None


def judgment_save(
    *,
    assessor: User,
    assignment: Assignment,
    position: int | None = None,
    docno: str | None = None,
    grade: int | None = None,
    cant_judge: bool = False,
    comment: str = "",
    active_ms: int = 0,
    document: int | None = None,
) -> JudgmentSaved:
    """The assessor's save-and-next, the one operation behind the judging page's form, its script
    and the API: find the item (by ``position``, ``docno`` or both), record the judgment, and for a
    queue assignment deal the queue's next document, so that no read ever has to ask the queue.

    ``document``, the position of one of the two items after this one (or of a queue's next
    document), asks for that document's text with the answer: the judging page reads one document
    ahead this way and a client that reads none asks for the following one, so that the assessor's
    next read needs no request of its own. Any other position is ignored (fetch it on its own).

    Only the writes (and a queue's dealing) run in a transaction: the reads before and after it
    hold no lock, which on SQLite is the one write lock every save of every assessor waits for.

    A grade sent with "can't judge" is refused (:func:`judging.services.scale.grade_check`), on
    every edge alike: the database keeps either a grade or "can't judge", never both.
    """
    target = judgment_target(assignment=assignment, position=position, docno=docno)
    item, following, ahead = target.item, target.following, list(target.ahead)
    queue = assignment.order == Assignment.Order.QUEUE
    # a queue's dealing belongs with the save; otherwise judgment_record is the one transaction
    with transaction.atomic() if queue else contextlib.nullcontext():
        judgment = judgment_record(
            assessor=assessor,
            assignment=assignment,
            docno=item.docno,
            grade=grade,
            cant_judge=cant_judge,
            comment=comment,
            active_ms=active_ms,
            item=item,
        )
        if queue:
            following = assignment_next_item(assignment=assignment)
            ahead = [following] if following is not None else []
    progress = assignment_progress(assignment=assignment)
    wanted = next((i for i in ahead if i.position == document), None) if document is not None else None
    carried = None if wanted is None else (wanted, document_text(assignment=assignment, docno=wanted.docno))
    return JudgmentSaved(
        following=following, progress=progress, item=item, judgment=judgment, document=carried
    )


def assignment_deal(*, assessor: User, assignment: Assignment) -> NextDocument:
    """Ask a queue assignment's queue for its next document, now (an explicit POST, never a GET).

    Saves and the dealing of an assignment already ask the queue; this is for a queue assignment
    left with nothing to judge and the queue not asked (one dealt before saves asked it). Asking
    is idempotent: the queue hands out the same document until it is judged.
    """
    if assignment.assessor_id != assessor.pk:
        raise JudgingRefused("this assignment belongs to another assessor")
    following = assignment_next_item(assignment=assignment)
    return NextDocument(following=following, progress=assignment_progress(assignment=assignment))
