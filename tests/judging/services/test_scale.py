"""The graded scale: the default one stored on first use, grades in use kept."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns.models import Campaign
from judging.services import (
    JudgingRefused,
    assignments_create,
    judgment_record,
    scale_ensure,
    scale_set,
)
from pooling.models import Pool
from tests.judging.services.helpers import items, topic

pytestmark = pytest.mark.django_db


def test_default_scale_is_created_on_first_use(campaign: Campaign) -> None:
    grades = scale_ensure(campaign=campaign)
    assert [(g.value, g.key) for g in grades] == [(0, "0"), (1, "1"), (2, "2")]


def test_scale_cannot_drop_a_grade_in_use(loaded: Campaign, pool: Pool, assessor: Any) -> None:
    (a,) = assignments_create(campaign=loaded, pool=pool, assessors=[assessor], topics=[topic(loaded, "401")])
    judgment_record(assessor=assessor, assignment=a, docno=items(a)[0], grade=2)
    with pytest.raises(JudgingRefused, match=r"\[2\] are already used"):
        scale_set(campaign=loaded, levels=[(0, "no", ""), (1, "yes", "")])
    scale_set(campaign=loaded, levels=[(0, "no", ""), (1, "yes", ""), (2, "very", ""), (3, "key", "")])
    assert [g.label for g in scale_ensure(campaign=loaded)] == ["no", "yes", "very", "key"]
