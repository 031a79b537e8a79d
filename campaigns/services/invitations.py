"""Invitations: the only way an existing account joins a campaign. The organizer names a username and
roles; the account's owner, logged in, accepts (the roles are given) or declines. Whether an account
of that username exists is never told to the organizer: the invitation is made and answered alike."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from campaigns import access
from campaigns.accounts.models import Invitation
from campaigns.errors import CampaignDataError, CampaignNotFound
from campaigns.models import Campaign
from campaigns.services.members import NewAccount, members_create, membership_add, username_and_roles_checked


def invitation_create(
    *, campaign: Campaign, username: str, roles: Sequence[str], by: User | None
) -> Invitation:
    """Invite the account of exactly ``username`` (case and all; an active one) to take ``roles``.

    Nothing is given until its owner accepts. A pending invitation of the same username to the same
    campaign gets the new roles added instead of a second invitation. The answer is the same whether
    or not such an account exists."""
    username = username_and_roles_checked(username, roles)
    user = User.objects.filter(username=username, is_active=True).first()
    for _ in range(2):  # a concurrent invitation of the same name may make the pending one first
        try:
            with transaction.atomic():
                pending = (
                    Invitation.objects.select_for_update()
                    .filter(campaign=campaign, username=username, accepted_at=None, declined_at=None)
                    .first()
                )
                if pending is None:
                    return Invitation.objects.create(
                        campaign=campaign,
                        username=username,
                        user=user,
                        roles=sorted(set(roles)),
                        invited_by=by,
                    )
                pending.roles = sorted(set(pending.roles) | set(roles))
                pending.user, pending.invited_by = user, by
                pending.save(update_fields=["roles", "user", "invited_by"])
                return pending
        except IntegrityError:
            continue
    raise CampaignDataError(f"the invitation of '{username}' is being changed by someone else: try again")


def member_add(
    *,
    campaign: Campaign,
    username: str,
    roles: Sequence[str],
    by: User | None,
    existing: bool,
    email: str = "",
    login: str = "password",
) -> Invitation | NewAccount:
    """The People form's one action, for the page and the API alike: someone who has an account
    (``existing``) is invited; anyone else gets a new account of this campaign, logging in with a
    generated password, a one-time login link or both (``login``: password, link, both)."""
    if existing:
        return invitation_create(campaign=campaign, username=username, roles=roles, by=by)
    (made,) = members_create(
        campaign=campaign,
        accounts=[(username, email)],
        roles=roles,
        by=by,
        password=login in ("password", "both"),
        link=login in ("link", "both"),
    )
    return made


def _pending_for(*, user: Any, invitation_id: int) -> Invitation:
    found = (
        Invitation.objects.select_for_update()
        .select_related("campaign")
        .filter(pk=invitation_id, user=user, accepted_at=None, declined_at=None)
        .first()
    )
    if found is None:
        raise access.NotVisible(f"no invitation {invitation_id} is waiting for your answer")
    return found


@transaction.atomic
def invitation_accept(*, user: User, invitation_id: int) -> Invitation:
    """``user`` accepts one of their pending invitations: they take its roles in its campaign."""
    invitation = _pending_for(user=user, invitation_id=invitation_id)
    membership_add(campaign=invitation.campaign, user=user, roles=invitation.roles)
    invitation.accepted_at = timezone.now()
    invitation.save(update_fields=["accepted_at"])
    return invitation


@transaction.atomic
def invitation_decline(*, user: User, invitation_id: int) -> Invitation:
    """``user`` declines one of their pending invitations: no role is given."""
    invitation = _pending_for(user=user, invitation_id=invitation_id)
    invitation.declined_at = timezone.now()
    invitation.save(update_fields=["declined_at"])
    return invitation


@transaction.atomic
def invitation_withdraw(*, campaign: Campaign, invitation_id: int) -> Invitation:
    """The campaign's organizer withdraws a pending invitation (an answered one stays as it was)."""
    found = (
        Invitation.objects.select_for_update()
        .filter(pk=invitation_id, campaign=campaign, accepted_at=None, declined_at=None)
        .first()
    )
    if found is None:
        raise CampaignNotFound(f"campaign '{campaign.slug}' has no pending invitation {invitation_id}")
    found.delete()
    return found
