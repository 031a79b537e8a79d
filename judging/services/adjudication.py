"""Writes of adjudication: the adjudicator's final grade of a document the assessors disagree on,
and its withdrawal (what the page's undo sends)."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from campaigns.access import Role, has_role
from campaigns.models import Campaign, Topic
from judging.consensus import Item
from judging.errors import JudgingRefused
from judging.models import Adjudication
from judging.reports.selectors import AdjudicationRow, queue_item, with_documents
from judging.services.scale import grade_check


@dataclass(frozen=True)
class AdjudicationDecided:
    """A decision recorded: the decision, the adjudicator's own one it replaced (grade, note) if
    any, and the disagreement asked to be read ahead, with its document (None when not asked, or
    no longer in the queue)."""

    decision: Adjudication
    previous: tuple[int, str] | None
    ahead: AdjudicationRow | None = None


def _taken(decision: Adjudication, topic: str) -> JudgingRefused:
    return JudgingRefused(
        f"topic {topic}, '{decision.docno}' was already decided by {decision.adjudicator.username} "
        f"(final grade {decision.grade}): only they can change it"
    )


def _locked(topic: Topic, docno: str) -> Adjudication | None:
    rows = Adjudication.objects.select_for_update().select_related("adjudicator")
    return rows.filter(topic=topic, docno=docno).first()


def _check_role(adjudicator: User, campaign: Campaign) -> None:
    if not has_role(adjudicator, campaign, Role.ADJUDICATOR, Role.ORGANIZER):
        raise JudgingRefused("deciding disagreements needs the adjudicator role")


@transaction.atomic
def adjudication_decide(
    *,
    adjudicator: User,
    campaign: Campaign,
    topic: str,
    docno: str,
    grade: int,
    note: str = "",
    ahead: Item | None = None,
) -> AdjudicationDecided:
    """Record (or change their own) final grade of the disagreement (topic number ``topic``, ``docno``).

    The one operation behind the adjudication page's form, its script and the API's decide
    endpoint. Refused unless the document is in the adjudicator's queue
    (:func:`judging.reports.selectors.queue_item`) and undecided or decided by them: someone
    else's decision is never overwritten. ``ahead``: a disagreement to send back with the answer
    (the one the page shows next), so that deciding and moving on is one request.
    """
    _check_role(adjudicator, campaign)
    queue_item(campaign=campaign, topic=topic, docno=docno, viewer=adjudicator)
    grade_check(campaign=campaign, grade=grade, cant_judge=False)
    found = Topic.objects.get(campaign=campaign, number=topic)
    note = note.strip()
    existing = _locked(found, docno)
    if existing is not None and existing.adjudicator_id != adjudicator.pk:
        raise _taken(existing, topic)
    if existing is not None:
        previous: tuple[int, str] | None = (existing.grade, existing.note)
        existing.grade, existing.note = grade, note
        existing.save(update_fields=["grade", "note", "decided_at"])
        decision = existing
    else:
        previous = None
        try:
            with transaction.atomic():  # a savepoint: another adjudicator may be creating it now
                decision = Adjudication.objects.create(
                    campaign=campaign,
                    topic=found,
                    docno=docno,
                    adjudicator=adjudicator,
                    grade=grade,
                    note=note,
                )
        except IntegrityError:
            other = _locked(found, docno)
            if other is None:  # pragma: no cover - the unique constraint names the row that exists
                raise
            raise _taken(other, topic) from None
    return AdjudicationDecided(decision, previous, _ahead(campaign, adjudicator, ahead))


def _ahead(campaign: Campaign, viewer: User, item: Item | None) -> AdjudicationRow | None:
    if item is None:
        return None
    try:
        row = queue_item(campaign=campaign, topic=item[0], docno=item[1], viewer=viewer)
    except JudgingRefused:
        return None  # the page reads it on its own and is told why
    return with_documents(campaign=campaign, rows=[row])[0]


@transaction.atomic
def adjudication_withdraw(
    *, adjudicator: User, campaign: Campaign, topic: str, docno: str, grade: int
) -> None:
    """Withdraw the adjudicator's own decision of (``topic``, ``docno``), which must still be
    ``grade``: the page's undo of a first decision. The document is open in the queue again.

    Refused when there is no decision, when it is someone else's, or when it has changed since
    (a stale undo never removes a newer decision).
    """
    _check_role(adjudicator, campaign)
    found = Topic.objects.filter(campaign=campaign, number=topic).first()
    if found is None:
        raise JudgingRefused(f"campaign '{campaign.slug}' has no topic '{topic}'")
    existing = _locked(found, docno)
    if existing is None:
        raise JudgingRefused(f"topic {topic}, '{docno}' has no decision to withdraw")
    if existing.adjudicator_id != adjudicator.pk:
        raise _taken(existing, topic)
    if existing.grade != grade:
        raise JudgingRefused(
            f"topic {topic}, '{docno}' has final grade {existing.grade} now, not {grade}: nothing withdrawn"
        )
    existing.delete()
