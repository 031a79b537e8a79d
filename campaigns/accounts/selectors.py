"""Reads of API tokens."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from campaigns.accounts.models import ApiToken


def api_tokens_listed(*, user: Any) -> QuerySet[ApiToken]:
    """The user's own tokens, newest first (never the token values: only their digests are kept)."""
    return ApiToken.objects.filter(user=user)
