"""Creating a campaign: one service for the page, the API and the commands, its creator made organizer."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns import access
from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, Membership
from campaigns.services import campaign_create

pytestmark = pytest.mark.django_db


def test_the_creator_becomes_the_campaigns_organizer(organizer: Any) -> None:
    campaign = campaign_create(slug="robust-2026", name="Robust 2026", organizer=organizer)
    assert campaign.name == "Robust 2026"
    assert access.roles(organizer, campaign) == frozenset({"organizer"})


def test_a_campaign_made_by_a_command_has_no_member_and_takes_its_slug_as_name(db: None) -> None:
    campaign = campaign_create(slug="cli-made")
    assert campaign.name == "cli-made"
    assert not Membership.objects.filter(campaign=campaign).exists()


def test_creating_needs_the_permission_and_leaves_nothing_behind(assessor: Any) -> None:
    with pytest.raises(access.AccessDenied, match="creating campaigns needs the organizer permission"):
        campaign_create(slug="mine", organizer=assessor)
    assert not Campaign.objects.filter(slug="mine").exists()


@pytest.mark.parametrize(
    ("slug", "problem"),
    [
        ("has spaces", "'has spaces' is not a valid campaign slug (letters, digits, hyphens, underscores)"),
        ("trec-demo", "campaign 'trec-demo' already exists"),  # the ``campaign`` fixture's slug
    ],
)
def test_a_bad_or_taken_slug_is_refused(organizer: Any, slug: str, problem: str) -> None:
    with pytest.raises(CampaignDataError) as refused:
        campaign_create(slug=slug, organizer=organizer)
    assert refused.value.problems == [problem]
    assert Campaign.objects.count() == 1


def test_a_campaign_allows_at_least_one_document_per_topic(db: None) -> None:
    with pytest.raises(CampaignDataError, match="at least one document per topic"):
        campaign_create(slug="none", max_docs_per_topic=0)
    assert not Campaign.objects.exists()
