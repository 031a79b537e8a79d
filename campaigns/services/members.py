"""Writes of memberships: roles in a campaign, and invitations of new accounts."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, Membership


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
    *, campaign: Campaign, username: str, roles: Sequence[str], email: str = ""
) -> tuple[User, str | None]:
    """Give ``username`` the roles, creating the account if it does not exist yet.

    Returns the user and, for a new account, its generated password (shown once to the organizer,
    who passes it on; only its hash is stored).
    """
    username = username.strip()
    if not username or len(username) > 150 or any(c.isspace() for c in username):
        raise CampaignDataError("a username is 1 to 150 characters without spaces")
    if not roles:
        raise CampaignDataError("choose at least one role")
    password = None
    user = User.objects.filter(username=username).first()
    if user is None:
        password = secrets.token_urlsafe(12)
        try:
            with transaction.atomic():
                user = User.objects.create_user(username=username, email=email.strip(), password=password)
        except IntegrityError:  # invited twice at once: the other request created the account
            user, password = User.objects.get(username=username), None
    membership_add(campaign=campaign, user=user, roles=roles)
    return user, password


def membership_remove(*, campaign: Campaign, user: User, role: str) -> None:
    Membership.objects.filter(campaign=campaign, user=user, role=role).delete()


