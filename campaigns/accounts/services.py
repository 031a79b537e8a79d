"""Writes of API tokens (create: the token is returned once; revoke; use by the API) and of the
per-address count of failed logins."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from campaigns import access
from campaigns.accounts.models import ApiToken, LoginFailure
from campaigns.errors import InputRefused

TOKEN_PREFIX = "wbt_"  # recognisable in a leaked file or a secret scanner's rules
MAX_TOKENS = 50
# last_used is a hint for revoking stale tokens: one write an hour at most, not one per API call
LAST_USED_PRECISION = timedelta(hours=1)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@transaction.atomic
def api_token_create(*, user: Any, name: str) -> tuple[ApiToken, str]:
    """A new token for ``user``; the token itself is in the answer only (the database keeps its digest)."""
    name = name.strip()
    problems = []
    if not name:
        problems.append("name: give the token a name (what script or machine uses it)")
    elif len(name) > 100:
        problems.append("name: at most 100 characters")
    if ApiToken.objects.filter(user=user).count() >= MAX_TOKENS:
        problems.append(f"at most {MAX_TOKENS} tokens per account: revoke unused ones first")
    if problems:
        raise InputRefused(problems)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken.objects.create(user=user, name=name, prefix=token[:12], digest=token_digest(token))
    return row, token


@transaction.atomic
def api_token_revoke(*, user: Any, token_id: int) -> ApiToken:
    """Revoke one of the user's own tokens (anyone else's is NotVisible); the API refuses it at once."""
    row = ApiToken.objects.filter(user=user, pk=token_id).first()
    if row is None:
        raise access.NotVisible(f"no API token {token_id}")
    row.delete()
    return row


def api_token_use(*, token: str) -> ApiToken | None:
    """The token's row (with its user) when it is valid and its user active, noting when it was used."""
    row = ApiToken.objects.select_related("user").filter(digest=token_digest(token)).first()
    if row is None or not row.user.is_active:
        return None
    now = timezone.now()
    if row.last_used is None or now - row.last_used > LAST_USED_PRECISION:
        ApiToken.objects.filter(pk=row.pk).update(last_used=now)
        row.last_used = now
    return row


def login_failure_record(*, address: str) -> int:
    """Note a failed login or token attempt from ``address``; the failures from it within the
    cool-off (AXES_COOLOFF_TIME), this one included. Older failures of every address are dropped."""
    now = timezone.now()
    since = now - settings.AXES_COOLOFF_TIME
    LoginFailure.objects.filter(at__lt=since).delete()
    LoginFailure.objects.create(address=address[:64], at=now)
    return LoginFailure.objects.filter(address=address[:64], at__gte=since).count()


def login_failures_forget(*, address: str) -> int:
    """Unlock ``address`` at once (its recorded failures are deleted); how many there were."""
    deleted, _ = LoginFailure.objects.filter(address=address[:64]).delete()
    return deleted
