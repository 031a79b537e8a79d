"""Writes of memberships: roles in a campaign, and invitations of new accounts."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, Membership
from campaigns.selectors import member_manageable


def membership_add(*, campaign: Campaign, user: User, roles: Sequence[str]) -> list[Membership]:
    """Give ``user`` the ``roles`` in ``campaign`` (roles already held are kept as they are)."""
    unknown = sorted(set(roles) - set(Membership.Role.values))
    if unknown:
        raise CampaignDataError(
            f"unknown role(s) {', '.join(unknown)} (one of {', '.join(Membership.Role.values)})"
        )
    out = []
    for role in roles:
        try:
            with transaction.atomic():
                member, _ = Membership.objects.get_or_create(campaign=campaign, user=user, role=role)
        except IntegrityError:  # a concurrent request gave the same role first
            member = Membership.objects.get(campaign=campaign, user=user, role=role)
        out.append(member)
    return out


def member_invite(
    *, campaign: Campaign, username: str, roles: Sequence[str], email: str = "", existing: bool = False
) -> tuple[User, str | None]:
    """Give ``username`` the roles: a new account (``existing=False``), or one that exists already.

    A new account gets a generated password, returned once for the organizer to pass on (only its
    hash is stored); a taken username is refused, never attached. Only when the organizer asks for
    an existing account (``existing=True``) is the active account of exactly that username given
    the roles, and its password stays unknown to the organizer (None).
    """
    username = username.strip()
    if not username or len(username) > 150 or any(c.isspace() for c in username):
        raise CampaignDataError("a username is 1 to 150 characters without spaces")
    if not roles:
        raise CampaignDataError("choose at least one role")
    if existing:
        user = User.objects.filter(username=username, is_active=True).first()
        if user is None:
            raise CampaignDataError(
                f"no active account is named exactly '{username}': check the spelling, or create an account"
            )
        membership_add(campaign=campaign, user=user, roles=roles)
        return user, None
    password = secrets.token_urlsafe(12)
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, email=email.strip(), password=password)
    except IntegrityError:  # taken (or taken a moment ago by a concurrent invitation): never attached
        raise CampaignDataError(
            f"the username '{username}' cannot be used for a new account: choose another, or add "
            "someone who already has an account as an existing account, by their exact username"
        ) from None
    membership_add(campaign=campaign, user=user, roles=roles)
    return user, password


def membership_remove(*, campaign: Campaign, user: User, role: str) -> None:
    """Take ``role`` in ``campaign`` from ``user``; the campaign keeps at least one organizer.

    The person's judgments and assignments stay (reassign the assignments on the assignments page).
    """
    with transaction.atomic():
        organizers = Membership.objects.select_for_update().filter(
            campaign=campaign, role=Membership.Role.ORGANIZER
        )
        if role == Membership.Role.ORGANIZER and list(organizers.values_list("user_id", flat=True)) == [
            user.pk
        ]:
            raise CampaignDataError(
                "the campaign's last organizer keeps the role: add another organizer first"
            )
        Membership.objects.filter(campaign=campaign, user=user, role=role).delete()


def _account_owned(*, campaign: Campaign, user: User, by: User) -> User:
    """The account, if the campaign's organizer ``by`` may reset or deactivate it, else refused.

    Only an account that belongs to this campaign alone: not the organizer's own, not staff, and a
    member of no other campaign (whose organizers or the account's owner did not consent). So an
    organizer never takes over an account used elsewhere; a site administrator handles those.
    """
    locked = User.objects.select_for_update().get(pk=user.pk)
    if locked.pk == by.pk:
        raise CampaignDataError("manage your own account on the account page")
    if not member_manageable(campaign=campaign, user=locked, by=by):
        raise CampaignDataError(
            f"'{locked.username}' is not an account of this campaign alone: a site administrator manages it"
        )
    return locked


@transaction.atomic
def member_password_reset(*, campaign: Campaign, user: User, by: User) -> str:
    """A new generated password for a campaign-only account (returned once; only its hash is stored)."""
    locked = _account_owned(campaign=campaign, user=user, by=by)
    password = secrets.token_urlsafe(12)
    locked.set_password(password)
    locked.save(update_fields=["password"])
    return password


@transaction.atomic
def member_active_set(*, campaign: Campaign, user: User, by: User, active: bool) -> User:
    """Deactivate a campaign-only account (it can no longer log in; its judgments stay), or reactivate it."""
    locked = _account_owned(campaign=campaign, user=user, by=by)
    if locked.is_active != active:
        locked.is_active = active
        locked.save(update_fields=["is_active"])
    return locked
