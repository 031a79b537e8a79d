"""Adjudication: the role and a judged document needed, a decision changed."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns.models import Campaign
from judging.models import Adjudication
from judging.services import (
    JudgingRefused,
    adjudication_decide,
    assignments_create,
    judgment_record,
)
from pooling.models import Pool
from tests.judging.services.helpers import items, topic

pytestmark = pytest.mark.django_db


def test_adjudication_needs_the_role_and_a_judged_document(
    loaded: Campaign, pool: Pool, assessor: Any, adjudicator: Any
) -> None:
    t = topic(loaded, "401")
    (a,) = assignments_create(campaign=loaded, pool=pool, assessors=[assessor], topics=[t])
    doc = items(a)[0]
    with pytest.raises(JudgingRefused, match="nobody judged"):
        adjudication_decide(adjudicator=adjudicator, campaign=loaded, topic=t.number, docno=doc, grade=1)
    judgment_record(assessor=assessor, assignment=a, docno=doc, grade=0)
    with pytest.raises(JudgingRefused, match="adjudicator role"):
        adjudication_decide(adjudicator=assessor, campaign=loaded, topic=t.number, docno=doc, grade=1)
    adjudication_decide(adjudicator=adjudicator, campaign=loaded, topic=t.number, docno=doc, grade=1)
    adjudication_decide(
        adjudicator=adjudicator, campaign=loaded, topic=t.number, docno=doc, grade=2, note="changed"
    )
    decision = Adjudication.objects.get(topic=t, docno=doc)
    assert (decision.grade, decision.note) == (2, "changed")
