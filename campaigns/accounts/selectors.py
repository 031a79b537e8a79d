"""Reads of accounts: API tokens, open sessions, pending invitations, login links, the per-address login
throttle."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from campaigns.accounts.models import AccountSession, ApiToken, Invitation, LoginFailure, LoginLink
from campaigns.accounts.services import token_digest


def api_tokens_listed(*, user: Any) -> QuerySet[ApiToken]:
    """The user's own tokens, newest first (never the token values: only their digests are kept)."""
    return ApiToken.objects.filter(user=user)


def login_link_found(*, token: str) -> LoginLink | None:
    """The login link whose secret is ``token`` (with its account and campaign), used or not; None for
    a link never made (or deleted long after it expired)."""
    return (
        LoginLink.objects.select_related("user", "user__origin", "campaign")
        .filter(digest=token_digest(token))
        .first()
    )


def login_links_latest(*, user_ids: Any) -> dict[int, LoginLink]:
    """The most recent login link of each account of ``user_ids``, by account id (one query)."""
    out: dict[int, LoginLink] = {}
    for link in LoginLink.objects.filter(user_id__in=user_ids).order_by("user_id", "-created", "-id"):
        out.setdefault(link.user_id, link)
    return out


def login_address_locked(*, address: str) -> bool:
    """Whether ``address`` made WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT failed logins or token attempts,
    any usernames, within the cool-off (AXES_COOLOFF_TIME): then it may not log in until fewer do."""
    limit = settings.WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT
    since = timezone.now() - settings.AXES_COOLOFF_TIME
    return LoginFailure.objects.filter(address=address[:64], at__gte=since)[:limit].count() >= limit


def account_sessions_listed(*, user: Any) -> QuerySet[AccountSession]:
    """The user's unexpired login sessions, newest first (with their expiry)."""
    return AccountSession.objects.filter(user=user, session__expire_date__gt=timezone.now()).select_related(
        "session"
    )


def invitations_pending(*, user: Any) -> QuerySet[Invitation]:
    """The invitations waiting for ``user``'s answer, newest first."""
    return Invitation.objects.filter(user=user, accepted_at=None, declined_at=None).select_related(
        "campaign", "invited_by"
    )


def campaign_invitations_pending(*, campaign: Any) -> QuerySet[Invitation]:
    """The campaign's invitations nobody has answered yet (the organizer is not told whether an
    account of that username exists)."""
    return Invitation.objects.filter(campaign=campaign, accepted_at=None, declined_at=None).select_related(
        "invited_by"
    )
