"""Campaign data invariants held by the database itself (``pooling.models``)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.db.models import RestrictedError
from django.utils import timezone

from campaigns.models import Campaign, Document, Group, Run, RunArrays, Topic

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign() -> Campaign:
    return Campaign.objects.create(slug="robust", name="Robust")


@pytest.fixture
def topic(campaign: Campaign) -> Topic:
    return Topic.objects.create(campaign=campaign, number="51", title="airbus subsidies")


@pytest.fixture
def run(campaign: Campaign) -> Run:
    return Run.objects.create(campaign=campaign, tag="bm25", submitted_at=timezone.now())


def violates(create: object) -> bool:
    """Whether the database refuses what ``create()`` writes (inside a savepoint, so the test goes on)."""
    try:
        with transaction.atomic():
            create()  # type: ignore[operator]
    except IntegrityError:
        return True
    return False


def test_topic_numbers_are_strings_unique_per_campaign(campaign: Campaign, topic: Topic) -> None:
    other = Campaign.objects.create(slug="other", name="Other")
    assert violates(lambda: Topic.objects.create(campaign=campaign, number="51", title="again"))
    # '051' is another topic than '51', and another campaign may use '51'
    assert not violates(lambda: Topic.objects.create(campaign=campaign, number="051", title="padded"))
    assert not violates(lambda: Topic.objects.create(campaign=other, number="51", title="elsewhere"))


def test_run_tags_are_unique_per_campaign(campaign: Campaign, run: Run) -> None:
    other = Campaign.objects.create(slug="other", name="Other")
    now = timezone.now()
    assert violates(lambda: Run.objects.create(campaign=campaign, tag="bm25", submitted_at=now))
    assert not violates(lambda: Run.objects.create(campaign=other, tag="bm25", submitted_at=now))


def test_priorities_are_unique_within_a_group_and_positive(campaign: Campaign) -> None:
    team = Group.objects.create(campaign=campaign, name="team")
    now = timezone.now()
    Run.objects.create(campaign=campaign, tag="a", group=team, priority=1, submitted_at=now)
    assert violates(
        lambda: Run.objects.create(campaign=campaign, tag="b", group=team, priority=1, submitted_at=now)
    )
    assert violates(
        lambda: Run.objects.create(campaign=campaign, tag="c", group=team, priority=0, submitted_at=now)
    )
    # runs without a group do not compete for priorities
    Run.objects.create(campaign=campaign, tag="d", priority=1, submitted_at=now)
    assert not violates(lambda: Run.objects.create(campaign=campaign, tag="e", priority=1, submitted_at=now))


def test_group_names_are_unique_per_campaign(campaign: Campaign) -> None:
    Group.objects.create(campaign=campaign, name="team")
    assert violates(lambda: Group.objects.create(campaign=campaign, name="team"))


def test_a_run_has_one_block_of_lines(run: Run) -> None:
    # what a block holds is the import's (tests/campaigns/test_import_runs.py); one per run is the key's
    RunArrays.objects.create(run=run, data=b"first")
    assert violates(lambda: RunArrays.objects.create(run=run, data=b"second"))


def test_documents_are_unique_per_campaign(campaign: Campaign) -> None:
    other = Campaign.objects.create(slug="other", name="Other")
    Document.objects.create(campaign=campaign, docno="d1", text="text")
    assert violates(lambda: Document.objects.create(campaign=campaign, docno="d1", text="again"))
    assert not violates(lambda: Document.objects.create(campaign=other, docno="d1", text="elsewhere"))


def test_docnos_sort_in_byte_order_on_every_database(campaign: Campaign) -> None:
    # byte order is what the canonical order compares (strcmp); a locale collation would
    # interleave cases and ignore punctuation
    docnos = ["b", "B", "a-2", "a10", "a2", "Z", "é", "_x"]
    for d in docnos:
        Document.objects.create(campaign=campaign, docno=d, text="t")
    stored = list(
        Document.objects.filter(campaign=campaign).order_by("docno").values_list("docno", flat=True)
    )
    assert stored == sorted(docnos, key=lambda d: d.encode())


def test_deleting_a_run_removes_its_lines_only(run: Run, topic: Topic, campaign: Campaign) -> None:
    other = Run.objects.create(campaign=campaign, tag="other", submitted_at=timezone.now())
    RunArrays.objects.create(run=run, data=b"lines")
    RunArrays.objects.create(run=other, data=b"lines")
    run.delete()
    assert list(RunArrays.objects.values_list("run__tag", flat=True)) == ["other"]


def test_deleting_a_campaign_removes_all_of_its_data(run: Run, topic: Topic, campaign: Campaign) -> None:
    team = Group.objects.create(campaign=campaign, name="team")
    Run.objects.create(campaign=campaign, tag="grouped", group=team, submitted_at=timezone.now())
    RunArrays.objects.create(run=run, data=b"lines")
    Document.objects.create(campaign=campaign, docno="d1", text="t")
    campaign.delete()
    for model in (Topic, Group, Run, RunArrays, Document):
        assert not model.objects.exists(), model


def test_a_group_with_runs_cannot_be_deleted_alone(campaign: Campaign) -> None:
    team = Group.objects.create(campaign=campaign, name="team")
    Run.objects.create(campaign=campaign, tag="a", group=team, submitted_at=timezone.now())
    with pytest.raises(RestrictedError):
        team.delete()
