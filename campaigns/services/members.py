"""Writes of memberships: roles in a campaign, new accounts made for it, and what its organizers may
do to the accounts it created (reset the password, deactivate)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from campaigns.accounts.services import (
    account_credentials_revoke,
    account_origin_joined,
    account_origin_record,
    account_sessions_end,
)
from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, Membership
from campaigns.selectors import NOT_YOURS_TO_MANAGE, members_management


def membership_add(*, campaign: Campaign, user: User, roles: Sequence[str]) -> list[Membership]:
    """Give ``user`` the ``roles`` in ``campaign`` (roles already held are kept as they are).

    An account created by another campaign is from now on managed by a site administrator only."""
    _roles_checked(roles)
    out = []
    for role in roles:
        try:
            with transaction.atomic():
                member, _ = Membership.objects.get_or_create(campaign=campaign, user=user, role=role)
        except IntegrityError:  # a concurrent request gave the same role first
            member = Membership.objects.get(campaign=campaign, user=user, role=role)
        out.append(member)
    if roles:
        account_origin_joined(user=user, campaign=campaign)
    return out


def _roles_checked(roles: Sequence[str]) -> None:
    unknown = sorted(set(roles) - set(Membership.Role.values))
    if unknown:
        raise CampaignDataError(
            f"unknown role(s) {', '.join(unknown)} (one of {', '.join(Membership.Role.values)})"
        )


def username_and_roles_checked(username: str, roles: Sequence[str]) -> str:
    """The username stripped, or refused (1 to 150 characters, no spaces); at least one known role."""
    username = username.strip()
    if not username or len(username) > 150 or any(c.isspace() for c in username):
        raise CampaignDataError("a username is 1 to 150 characters without spaces")
    if not roles:
        raise CampaignDataError("choose at least one role")
    _roles_checked(roles)
    return username


def member_invite(
    *, campaign: Campaign, username: str, roles: Sequence[str], email: str = "", by: User | None = None
) -> tuple[User, str]:
    """A new account ``username`` with the roles in ``campaign``, and its generated password.

    The password is returned once for the organizer to pass on (only its hash is stored). A taken
    username is refused, never attached: someone who already has an account is invited instead
    (campaigns.services.invitations), and joins only by accepting. The account's origin is this
    campaign, whose organizers may then manage it while it is used nowhere else.
    """
    username = username_and_roles_checked(username, roles)
    password = secrets.token_urlsafe(12)
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, email=email.strip(), password=password)
            account_origin_record(user=user, campaign=campaign, created_by=by)
    except IntegrityError:  # taken (or taken a moment ago by a concurrent invitation): never attached
        raise CampaignDataError(
            f"the username '{username}' cannot be used for a new account: choose another, or invite "
            "someone who already has an account, by their exact username"
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

    Only an account this campaign created (its invitation of a new account, or a machine assessor)
    and never used in another campaign: not the organizer's own, not staff. So an organizer never
    takes over an account someone else made or uses; a site administrator handles those.
    """
    locked = User.objects.select_for_update().get(pk=user.pk)
    why = members_management(campaign=campaign, users=[locked], by=by)[locked.pk]
    if why is not None:
        raise CampaignDataError(f"'{locked.username}' is {NOT_YOURS_TO_MANAGE[why]}")
    return locked


@transaction.atomic
def member_password_reset(*, campaign: Campaign, user: User, by: User) -> str:
    """A new generated password for an account the campaign created (returned once; only its hash is
    stored). Every session of the account ends and its API tokens are revoked: whoever knew the old
    password may have made them."""
    locked = _account_owned(campaign=campaign, user=user, by=by)
    if hasattr(locked, "origin") and locked.origin.machine:
        raise CampaignDataError(
            f"'{locked.username}' is a machine assessor: it never logs in, so it has no password to reset"
        )
    password = secrets.token_urlsafe(12)
    locked.set_password(password)
    locked.save(update_fields=["password"])
    account_credentials_revoke(user=locked)
    return password


@transaction.atomic
def member_active_set(*, campaign: Campaign, user: User, by: User, active: bool) -> User:
    """Deactivate an account the campaign created (it can no longer log in, its sessions end; its
    judgments stay), or reactivate it."""
    locked = _account_owned(campaign=campaign, user=user, by=by)
    if locked.is_active != active:
        locked.is_active = active
        locked.save(update_fields=["is_active"])
    if not active:  # its tokens are refused while it is inactive (and work again if reactivated)
        account_sessions_end(user=locked)
    return locked
