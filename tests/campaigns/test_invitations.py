"""No account takeover: an existing account joins a campaign only by accepting an invitation, and an
organizer resets or deactivates only the accounts their campaign created and nobody used elsewhere."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from campaigns import access
from campaigns.access import has_role
from campaigns.accounts.models import AccountOrigin, Invitation
from campaigns.errors import CampaignDataError, CampaignNotFound
from campaigns.models import Campaign, Membership
from campaigns.services import (
    campaign_create,
    invitation_accept,
    invitation_create,
    invitation_decline,
    invitation_withdraw,
    member_invite,
    membership_add,
    membership_remove,
)
from campaigns.services.members import member_active_set, member_password_reset
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def _roles(user: Any, campaign: Campaign) -> set[str]:
    return set(Membership.objects.filter(user=user, campaign=campaign).values_list("role", flat=True))


@pytest.fixture
def victim(db: None) -> Any:
    """Someone's own account, used in no campaign: the target of the takeover this file rules out."""
    return User.objects.create_user("victim", password="victims-own-password")


@pytest.fixture
def created(campaign: Campaign, organizer: Any) -> Any:
    """An account this campaign's invitation created."""
    user, _ = member_invite(campaign=campaign, username="ivan", roles=["assessor"], by=organizer)
    return user


# ------------------------------------------------------------------------------ the takeover


def test_an_existing_account_is_only_invited_never_attached(
    campaign: Campaign, organizer: Any, victim: Any
) -> None:
    invitation = invitation_create(campaign=campaign, username="victim", roles=["assessor"], by=organizer)
    assert invitation.pending and invitation.user == victim
    assert _roles(victim, campaign) == set()
    # so the organizer cannot reach the account: not a member, and not theirs to manage had it been
    with pytest.raises(CampaignDataError):
        member_invite(campaign=campaign, username="victim", roles=["assessor"], by=organizer)
    membership_add(campaign=campaign, user=victim, roles=["assessor"])  # say a site admin added it
    with pytest.raises(CampaignDataError, match="not created through this campaign"):
        member_password_reset(campaign=campaign, user=victim, by=organizer)
    with pytest.raises(CampaignDataError, match="not created through this campaign"):
        member_active_set(campaign=campaign, user=victim, by=organizer, active=False)
    victim.refresh_from_db()
    assert victim.check_password("victims-own-password") and victim.is_active


def test_an_accepted_invitation_gives_the_roles(campaign: Campaign, organizer: Any, victim: Any) -> None:
    invitation = invitation_create(campaign=campaign, username="victim", roles=["assessor"], by=organizer)
    again = invitation_create(campaign=campaign, username="victim", roles=["adjudicator"], by=organizer)
    assert again.pk == invitation.pk and again.roles == ["adjudicator", "assessor"]  # one invitation
    accepted = invitation_accept(user=victim, invitation_id=invitation.pk)
    assert accepted.accepted_at is not None and not accepted.pending
    assert _roles(victim, campaign) == {"assessor", "adjudicator"}
    # answered once: neither accepted again nor declined after
    with pytest.raises(access.NotVisible):
        invitation_accept(user=victim, invitation_id=invitation.pk)
    with pytest.raises(access.NotVisible):
        invitation_decline(user=victim, invitation_id=invitation.pk)
    # joining did not make the account the campaign's to manage
    with pytest.raises(CampaignDataError, match="not created through this campaign"):
        member_password_reset(campaign=campaign, user=victim, by=organizer)


def test_a_declined_invitation_gives_nothing(campaign: Campaign, organizer: Any, victim: Any) -> None:
    invitation = invitation_create(campaign=campaign, username="victim", roles=["organizer"], by=organizer)
    declined = invitation_decline(user=victim, invitation_id=invitation.pk)
    assert declined.declined_at is not None and declined.accepted_at is None
    with pytest.raises(access.NotVisible):
        invitation_accept(user=victim, invitation_id=invitation.pk)
    assert _roles(victim, campaign) == set()
    # a new invitation may be made after a refusal (the owner answers it again)
    assert invitation_create(campaign=campaign, username="victim", roles=["assessor"], by=organizer).pending


def test_only_the_invited_account_answers(
    campaign: Campaign, organizer: Any, victim: Any, outsider: Any
) -> None:
    invitation = invitation_create(campaign=campaign, username="victim", roles=["assessor"], by=organizer)
    for answer in (invitation_accept, invitation_decline):
        with pytest.raises(access.NotVisible):
            answer(user=outsider, invitation_id=invitation.pk)
        with pytest.raises(access.NotVisible):
            answer(user=organizer, invitation_id=invitation.pk)
    assert _roles(outsider, campaign) == set() and Invitation.objects.get().pending


def test_an_invitation_of_a_name_nobody_has_reaches_nobody(
    campaign: Campaign, organizer: Any, victim: Any
) -> None:
    for name in ("nobody", "VICTIM", "victi"):
        invitation = invitation_create(campaign=campaign, username=name, roles=["assessor"], by=organizer)
        assert invitation.user is None and invitation.pending
    User.objects.create_user("nobody", password="x")  # made afterwards: not the one invited
    assert not Invitation.objects.exclude(user=None).exists()


def test_an_invitation_is_withdrawn_by_its_campaign_only(
    campaign: Campaign, organizer: Any, victim: Any
) -> None:
    other = campaign_create(slug="other", name="Other")
    invitation = invitation_create(campaign=campaign, username="victim", roles=["assessor"], by=organizer)
    with pytest.raises(CampaignNotFound):
        invitation_withdraw(campaign=other, invitation_id=invitation.pk)
    invitation_withdraw(campaign=campaign, invitation_id=invitation.pk)
    with pytest.raises(access.NotVisible):
        invitation_accept(user=victim, invitation_id=invitation.pk)


def test_an_invitation_needs_a_username_and_known_roles(campaign: Campaign, organizer: Any) -> None:
    with pytest.raises(CampaignDataError, match="1 to 150 characters"):
        invitation_create(campaign=campaign, username=" ", roles=["assessor"], by=organizer)
    with pytest.raises(CampaignDataError, match="at least one role"):
        invitation_create(campaign=campaign, username="x", roles=[], by=organizer)
    with pytest.raises(CampaignDataError, match="unknown role"):
        invitation_create(campaign=campaign, username="x", roles=["owner"], by=organizer)


# ----------------------------------------------------------------------- whose account it is


def test_a_new_account_records_its_campaign_and_its_organizer_manages_it(
    campaign: Campaign, organizer: Any, created: Any
) -> None:
    origin = AccountOrigin.objects.get(user=created)
    assert (origin.campaign, origin.created_by, origin.machine, origin.joined_elsewhere) == (
        campaign,
        organizer,
        False,
        None,
    )
    password = member_password_reset(campaign=campaign, user=created, by=organizer)
    created.refresh_from_db()
    assert created.check_password(password)
    assert not member_active_set(campaign=campaign, user=created, by=organizer, active=False).is_active


def test_an_account_that_joins_another_campaign_is_never_managed_again(
    campaign: Campaign, organizer: Any, created: Any
) -> None:
    other = campaign_create(slug="other", name="Other")
    invitation = invitation_create(campaign=other, username="ivan", roles=["assessor"], by=None)
    invitation_accept(user=created, invitation_id=invitation.pk)
    with pytest.raises(CampaignDataError, match="used in another campaign"):
        member_password_reset(campaign=campaign, user=created, by=organizer)
    # leaving the other campaign again changes nothing: "ever", not "now"
    membership_remove(campaign=other, user=created, role="assessor")
    assert not Membership.objects.filter(user=created, campaign=other).exists()
    assert AccountOrigin.objects.get(user=created).joined_elsewhere is not None
    with pytest.raises(CampaignDataError, match="used in another campaign"):
        member_active_set(campaign=campaign, user=created, by=organizer, active=False)


def test_a_role_elsewhere_given_past_the_services_counts_too(
    campaign: Campaign, organizer: Any, created: Any
) -> None:
    """A membership a site administrator adds in the admin (no service call) is seen as it stands."""
    Membership.objects.create(campaign=campaign_create(slug="adm", name="Adm"), user=created, role="assessor")
    with pytest.raises(CampaignDataError, match="used in another campaign"):
        member_password_reset(campaign=campaign, user=created, by=organizer)


def test_an_account_that_creates_a_campaign_is_used_elsewhere(
    campaign: Campaign, organizer: Any, created: Any
) -> None:
    from django.contrib.auth.models import Permission

    created.user_permissions.add(Permission.objects.get(codename="add_campaign"))
    created = User.objects.get(pk=created.pk)  # permissions are cached on the object
    campaign_create(slug="own", name="Own", organizer=created)
    with pytest.raises(CampaignDataError, match="used in another campaign"):
        member_password_reset(campaign=campaign, user=created, by=organizer)


def test_another_campaigns_organizer_never_manages_the_account(
    campaign: Campaign, organizer: Any, created: Any
) -> None:
    other = campaign_create(slug="other", name="Other", organizer=organizer)
    with pytest.raises(CampaignDataError, match="not created through this campaign"):
        member_password_reset(campaign=other, user=created, by=organizer)


def test_staff_and_superusers_are_never_managed_by_an_organizer(
    campaign: Campaign, organizer: Any, created: Any
) -> None:
    for flag in ("is_staff", "is_superuser"):
        User.objects.filter(pk=created.pk).update(**{flag: True})
        created.refresh_from_db()
        with pytest.raises(CampaignDataError, match="site administrator's account"):
            member_password_reset(campaign=campaign, user=created, by=organizer)
        User.objects.filter(pk=created.pk).update(**{flag: False})


def test_ones_own_account_is_changed_on_my_account(campaign: Campaign, organizer: Any) -> None:
    own, _ = member_invite(campaign=campaign, username="co-organizer", roles=["organizer"], by=organizer)
    with pytest.raises(CampaignDataError, match="your own account"):
        member_password_reset(campaign=campaign, user=own, by=own)


def test_a_machine_assessor_is_the_campaigns_and_never_gets_a_password(
    campaign: Campaign, organizer: Any, settings: Any
) -> None:
    from judging.llm.config import JudgeConfig
    from judging.llm.endpoints import Endpoint
    from judging.services.machine import machine_judge_create

    local = "http://127.0.0.1:9/v1"
    settings.WORKBENCH_JUDGE_ENDPOINTS = {"local": {"base_url": local, "allow_private": True}}
    config = JudgeConfig(Endpoint("local", local, allow_private=True), model="m")
    judge = machine_judge_create(
        campaign=campaign, username="llm", config=config, price_input=Decimal(0), created_by=organizer
    )
    origin = AccountOrigin.objects.get(user=judge.user)
    assert (origin.campaign, origin.created_by, origin.machine) == (campaign, organizer, True)
    with pytest.raises(CampaignDataError, match="machine assessor"):
        member_password_reset(campaign=campaign, user=judge.user, by=organizer)
    judge.user.refresh_from_db()
    assert not judge.user.has_usable_password()
    assert not member_active_set(campaign=campaign, user=judge.user, by=organizer, active=False).is_active


# ------------------------------------------------------------------------------ the pages


def _web(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_the_invited_person_sees_the_invitation_on_the_home_page_and_accepts_it(
    campaign: Campaign, organizer: Any, assessor: Any
) -> None:
    other = campaign_create(slug="second", name="Second round", organizer=organizer)
    invitation = invitation_create(campaign=other, username="alice", roles=["adjudicator"], by=organizer)
    web = _web(assessor)
    # an assessor is normally sent straight to their work; an invitation is shown first
    home = web.get(reverse("home"))
    assert home.status_code == 200
    page = home.content.decode()
    assert "You are invited" in page and "Second round" in page and "adjudicator" in page
    accept = reverse("accounts:invitation_accept", args=[invitation.pk])
    assert f'action="{accept}"' in page
    answer = web.post(accept, {"next": reverse("home")})
    assert answer.status_code == 302 and answer["Location"] == reverse("home")
    assert _roles(assessor, other) == {"adjudicator"}
    assert web.get(reverse("home"))["Location"] == reverse("judging:assess_home")  # nothing pending now


def test_my_account_lists_invitations_and_declines_one(
    campaign: Campaign, organizer: Any, outsider: Any
) -> None:
    invitation = invitation_create(campaign=campaign, username="oscar", roles=["assessor"], by=organizer)
    web = _web(outsider)
    page = web.get(reverse("accounts:account")).content.decode()
    assert 'id="invitations"' in page and "TREC demo" in page and "olga" in page
    answer = web.post(reverse("accounts:invitation_decline", args=[invitation.pk]), follow=True)
    assert "You declined the invitation" in answer.content.decode()
    assert 'id="invitations"' not in answer.content.decode()
    assert _roles(outsider, campaign) == set()
    # someone else's invitation, or an answered one: not found
    assert web.post(reverse("accounts:invitation_accept", args=[invitation.pk])).status_code == 404


def test_the_answer_goes_back_only_to_this_sites_pages(
    campaign: Campaign, organizer: Any, outsider: Any
) -> None:
    invitation = invitation_create(campaign=campaign, username="oscar", roles=["assessor"], by=organizer)
    answer = _web(outsider).post(
        reverse("accounts:invitation_accept", args=[invitation.pk]), {"next": "https://evil.example/"}
    )
    assert answer["Location"] == reverse("accounts:account")
    assert has_role(outsider, campaign, "assessor")
