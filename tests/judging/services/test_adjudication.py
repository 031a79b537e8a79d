"""Adjudication: the role and a disagreement of the adjudicator's queue needed, a decision changed
by its adjudicator only, withdrawn (the page's undo), the next disagreement carried along."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from campaigns.models import Campaign, Document
from campaigns.services import membership_add
from judging.models import Adjudication, Assignment
from judging.services import (
    JudgingRefused,
    adjudication_decide,
    adjudication_withdraw,
    assignments_create,
    judgment_record,
)
from pooling.models import Pool
from tests.conftest import PASSWORD
from tests.judging.services.helpers import items, topic

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(loaded: Campaign, pool: Pool, assessor: Any, co_assessor: Any) -> tuple[Assignment, Assignment]:
    """alice's and bob's assignments of topic 401, the same documents in the same order."""
    a, b = assignments_create(
        campaign=loaded, pool=pool, assessors=[assessor, co_assessor], topics=[topic(loaded, "401")], k=2
    )
    return (a, b) if a.assessor == assessor else (b, a)


def test_adjudication_needs_the_role_and_a_disagreement(
    loaded: Campaign, pair: tuple[Assignment, Assignment], assessor: Any, co_assessor: Any, adjudicator: Any
) -> None:
    a, b = pair
    doc = items(a)[0]
    with pytest.raises(JudgingRefused, match="nobody judged"):
        adjudication_decide(adjudicator=adjudicator, campaign=loaded, topic="401", docno=doc, grade=1)
    judgment_record(assessor=assessor, assignment=a, docno=doc, grade=0)
    with pytest.raises(JudgingRefused, match="not in the adjudication queue: its assessors do not disagree"):
        adjudication_decide(adjudicator=adjudicator, campaign=loaded, topic="401", docno=doc, grade=1)
    judgment_record(assessor=co_assessor, assignment=b, docno=doc, grade=0)  # they agree
    with pytest.raises(JudgingRefused, match="do not disagree"):
        adjudication_decide(adjudicator=adjudicator, campaign=loaded, topic="401", docno=doc, grade=1)
    judgment_record(assessor=co_assessor, assignment=b, docno=doc, grade=2)
    with pytest.raises(JudgingRefused, match="adjudicator role"):
        adjudication_decide(adjudicator=assessor, campaign=loaded, topic="401", docno=doc, grade=1)
    first = adjudication_decide(adjudicator=adjudicator, campaign=loaded, topic="401", docno=doc, grade=1)
    assert first.previous is None
    changed = adjudication_decide(
        adjudicator=adjudicator, campaign=loaded, topic="401", docno=doc, grade=2, note="changed"
    )
    assert changed.previous == (1, "")
    decision = Adjudication.objects.get(topic=topic(loaded, "401"), docno=doc)
    assert (decision.grade, decision.note) == (2, "changed")


def test_someone_elses_decision_is_never_overwritten_nor_withdrawn(
    loaded: Campaign, pair: tuple[Assignment, Assignment], assessor: Any, co_assessor: Any, adjudicator: Any
) -> None:
    a, b = pair
    doc = items(a)[0]
    judgment_record(assessor=assessor, assignment=a, docno=doc, grade=0)
    judgment_record(assessor=co_assessor, assignment=b, docno=doc, grade=2)
    zed = get_user_model().objects.create_user("zed", password=PASSWORD)
    membership_add(campaign=loaded, user=zed, roles=["adjudicator"])
    adjudication_decide(adjudicator=zed, campaign=loaded, topic="401", docno=doc, grade=0)
    message = f"topic 401, '{doc}' was already decided by zed \\(final grade 0\\): only they can change it"
    with pytest.raises(JudgingRefused, match=message):
        adjudication_decide(adjudicator=adjudicator, campaign=loaded, topic="401", docno=doc, grade=2)
    with pytest.raises(JudgingRefused, match=message):
        adjudication_withdraw(adjudicator=adjudicator, campaign=loaded, topic="401", docno=doc, grade=0)
    decision = Adjudication.objects.get(docno=doc)
    assert (decision.adjudicator.username, decision.grade) == ("zed", 0)


def test_a_withdrawal_needs_the_decision_as_it_still_is(
    loaded: Campaign, pair: tuple[Assignment, Assignment], assessor: Any, co_assessor: Any, adjudicator: Any
) -> None:
    a, b = pair
    doc = items(a)[0]
    judgment_record(assessor=assessor, assignment=a, docno=doc, grade=0)
    judgment_record(assessor=co_assessor, assignment=b, docno=doc, grade=2)
    with pytest.raises(JudgingRefused, match="has no decision to withdraw"):
        adjudication_withdraw(adjudicator=adjudicator, campaign=loaded, topic="401", docno=doc, grade=1)
    adjudication_decide(adjudicator=adjudicator, campaign=loaded, topic="401", docno=doc, grade=2)
    with pytest.raises(JudgingRefused, match="has final grade 2 now, not 1: nothing withdrawn"):
        adjudication_withdraw(adjudicator=adjudicator, campaign=loaded, topic="401", docno=doc, grade=1)
    assert Adjudication.objects.filter(docno=doc).exists()
    adjudication_withdraw(adjudicator=adjudicator, campaign=loaded, topic="401", docno=doc, grade=2)
    assert not Adjudication.objects.exists()


def test_a_decision_carries_the_disagreement_asked_for_with_its_document(
    loaded: Campaign, pair: tuple[Assignment, Assignment], assessor: Any, co_assessor: Any, adjudicator: Any
) -> None:
    a, b = pair
    first, second, agreed = items(a)[:3]
    for doc, (x, y) in ((first, (0, 2)), (second, (1, 2)), (agreed, (1, 1))):
        judgment_record(assessor=assessor, assignment=a, docno=doc, grade=x, comment=f"alice on {doc}")
        judgment_record(assessor=co_assessor, assignment=b, docno=doc, grade=y)
    Document.objects.update_or_create(
        campaign=loaded, docno=second, defaults={"title": "Second", "text": "the second's text"}
    )
    decided = adjudication_decide(
        adjudicator=adjudicator, campaign=loaded, topic="401", docno=first, grade=1, ahead=("401", second)
    )
    ahead = decided.ahead
    assert ahead is not None and (ahead.topic, ahead.docno, ahead.distance) == ("401", second, 1)
    assert ahead.ballots == (("alice", 1, f"alice on {second}"), ("bob", 2, ""))
    assert ahead.statement is not None and ahead.statement.number == "401"
    assert (ahead.title, ahead.text) == ("Second", "the second's text")
    # one not in the queue is not carried (the page asks for it and is told why); the decision stands
    other = adjudication_decide(
        adjudicator=adjudicator, campaign=loaded, topic="401", docno=second, grade=1, ahead=("401", agreed)
    )
    assert other.ahead is None and Adjudication.objects.count() == 2


def test_two_adjudicators_at_the_same_moment_the_second_is_refused(
    loaded: Campaign,
    pair: tuple[Assignment, Assignment],
    assessor: Any,
    co_assessor: Any,
    adjudicator: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ada read "no decision yet" just before zed's was stored: her insert meets the unique
    constraint, and she is told who decided instead of overwriting it."""
    import judging.services.adjudication as module

    a, b = pair
    doc = items(a)[0]
    judgment_record(assessor=assessor, assignment=a, docno=doc, grade=0)
    judgment_record(assessor=co_assessor, assignment=b, docno=doc, grade=2)
    zed = get_user_model().objects.create_user("zed", password=PASSWORD)
    membership_add(campaign=loaded, user=zed, roles=["adjudicator"])
    adjudication_decide(adjudicator=zed, campaign=loaded, topic="401", docno=doc, grade=0)
    real = module._locked
    reads: list[int] = []

    def before_zed_committed(found: Any, docno: str) -> Any:
        reads.append(1)
        return None if len(reads) == 1 else real(found, docno)

    monkeypatch.setattr(module, "_locked", before_zed_committed)
    with pytest.raises(JudgingRefused, match="already decided by zed"):
        adjudication_decide(adjudicator=adjudicator, campaign=loaded, topic="401", docno=doc, grade=2)
    decision = Adjudication.objects.get(docno=doc)
    assert (decision.adjudicator.username, decision.grade) == ("zed", 0)
