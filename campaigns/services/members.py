"""Writes of memberships: roles in a campaign, new accounts made for it (with a password, a one-time
login link, or both; one or many at once), and what its organizers may do to the accounts it created
(reset the password, make a new login link, end the sessions, deactivate)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from campaigns.accounts.models import LoginLink
from campaigns.accounts.services import (
    account_credentials_revoke,
    account_origin_joined,
    account_origin_record,
    account_sessions_end,
    login_link_issue,
    login_links_revoke,
)
from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, Membership
from campaigns.selectors import NOT_YOURS_TO_MANAGE, members_management

# accounts made by one request: 500 new accounts are a few seconds of inserts (no password hashed
# when they get login links only); a larger class is added in parts
MAX_NEW_ACCOUNTS = 500


@dataclass(frozen=True)
class NewAccount:
    """An account just made, with what its owner logs in with, given this once: the generated
    password and the login link's secret (the edge makes it a URL), each None when not asked for."""

    user: User
    password: str | None
    link: str | None
    link_expires: datetime | None


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
    """A new account ``username`` with the roles in ``campaign``, and its generated password (see
    members_create, which also gives login links)."""
    (made,) = members_create(
        campaign=campaign, accounts=[(username, email)], roles=roles, by=by, password=True, link=False
    )
    assert made.password is not None
    return made.user, made.password


def members_create(
    *,
    campaign: Campaign,
    accounts: Sequence[tuple[str, str]],
    roles: Sequence[str],
    by: User | None,
    password: bool,
    link: bool,
) -> list[NewAccount]:
    """New accounts, one per (username, e-mail) of ``accounts``, with the roles in ``campaign``: all of
    them, or none and every problem said (by line when there are several).

    Each gets a generated ``password``, a one-time login ``link`` (campaigns.services.login_links), or
    both, returned once (the database keeps a password hash and a link digest). An account with a link
    only has no usable password: nothing is hashed to make it, and its owner chooses a password after
    logging in by the link. A taken username is refused, never attached: someone who already has an
    account is invited instead (campaigns.services.invitations), and joins only by accepting. The
    accounts' origin is this campaign, whose organizers may then manage them while they are used
    nowhere else.
    """
    if not password and not link:
        raise CampaignDataError("a new account logs in with a password, a login link, or both: choose one")
    if not accounts:
        raise CampaignDataError("give at least one username")
    if len(accounts) > MAX_NEW_ACCOUNTS:
        raise CampaignDataError(
            f"at most {MAX_NEW_ACCOUNTS} new accounts at once, not {len(accounts)}: add them in parts"
        )
    if not roles:
        raise CampaignDataError("choose at least one role")
    _roles_checked(roles)  # said once, not for every line
    many = len(accounts) > 1
    names = [username.strip() for username, _ in accounts]
    taken = set(User.objects.filter(username__in=names).values_list("username", flat=True))
    problems: list[str] = []
    seen: dict[str, int] = {}
    for line, name in enumerate(names, 1):
        where = f"line {line}: " if many else ""
        try:
            username_and_roles_checked(name, roles)
        except CampaignDataError as exc:
            problems.append(where + exc.problems[0])
            continue
        if name in seen:
            problems.append(f"{where}'{name}' is on line {seen[name]} too")
        elif name in taken:
            problems.append(where + _taken(name))
        seen.setdefault(name, line)
    if problems:
        raise CampaignDataError(problems)
    made: list[NewAccount] = []
    try:
        with transaction.atomic():
            for name, (_, email) in zip(names, accounts, strict=True):
                secret = secrets.token_urlsafe(12) if password else None
                # password None: an unusable password, no hash computed
                user = User.objects.create_user(username=name, email=email.strip(), password=secret)
                account_origin_record(user=user, campaign=campaign, created_by=by)
                membership_add(campaign=campaign, user=user, roles=roles)
                row, token = login_link_issue(user=user, campaign=campaign, by=by) if link else (None, None)
                made.append(NewAccount(user, secret, token, row.expires if row else None))
    except IntegrityError:  # taken a moment ago by a concurrent request: never attached
        raise CampaignDataError(
            _taken(names[0])
            if not many
            else "a username was taken by someone else meanwhile: no account was created; try again"
        ) from None
    return made


def _taken(username: str) -> str:
    return (
        f"the username '{username}' cannot be used for a new account: choose another, or invite "
        "someone who already has an account, by their exact username"
    )


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
        login_links_revoke(user=locked)  # for good: reactivated, it gets a new link if it needs one
    return locked


@transaction.atomic
def member_sessions_end(*, campaign: Campaign, user: User, by: User) -> tuple[int, int]:
    """End every session of an account the campaign created (each browser logged in as it must log in
    again) and revoke its unused login link; its password and API tokens stay (a reset revokes those).
    Returns (sessions ended, links revoked)."""
    locked = _account_owned(campaign=campaign, user=user, by=by)
    links = login_links_revoke(user=locked)
    return account_sessions_end(user=locked), links


@transaction.atomic
def member_login_link(*, campaign: Campaign, user: User, by: User) -> tuple[LoginLink, str]:
    """A new one-time login link for an account the campaign created (its previous unused link stops
    working); the link's secret is returned once. Never for a machine assessor or a deactivated
    account."""
    locked = _account_owned(campaign=campaign, user=user, by=by)
    if hasattr(locked, "origin") and locked.origin.machine:
        raise CampaignDataError(f"'{locked.username}' is a machine assessor: it never logs in")
    if not locked.is_active:
        raise CampaignDataError(f"'{locked.username}' is deactivated: reactivate it first")
    return login_link_issue(user=locked, campaign=campaign, by=by)
