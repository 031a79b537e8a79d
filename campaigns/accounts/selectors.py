"""Reads of API tokens and of the per-address login throttle."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from campaigns.accounts.models import ApiToken, LoginFailure


def api_tokens_listed(*, user: Any) -> QuerySet[ApiToken]:
    """The user's own tokens, newest first (never the token values: only their digests are kept)."""
    return ApiToken.objects.filter(user=user)


def login_address_locked(*, address: str) -> bool:
    """Whether ``address`` made WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT failed logins or token attempts,
    any usernames, within the cool-off (AXES_COOLOFF_TIME): then it may not log in until fewer do."""
    limit = settings.WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT
    since = timezone.now() - settings.AXES_COOLOFF_TIME
    return LoginFailure.objects.filter(address=address[:64], at__gte=since)[:limit].count() >= limit
