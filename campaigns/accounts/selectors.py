"""Reads of accounts: API tokens, open sessions, pending invitations."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from campaigns.accounts.models import AccountSession, ApiToken, Invitation


def api_tokens_listed(*, user: Any) -> QuerySet[ApiToken]:
    """The user's own tokens, newest first (never the token values: only their digests are kept)."""
    return ApiToken.objects.filter(user=user)


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
