"""Writes of accounts: API tokens (create, the token returned once; revoke; use by the API), the
sessions of an account (recorded at login, ended on request or with a password change or reset),
one-time login links (issued, revoked, used), where an account came from, and the per-address count
of failed logins."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone

from campaigns import access
from campaigns.accounts.models import AccountOrigin, AccountSession, ApiToken, LoginFailure, LoginLink
from campaigns.errors import InputRefused
from campaigns.models import Campaign

TOKEN_PREFIX = "wbt_"  # recognisable in a leaked file or a secret scanner's rules
LOGIN_LINK_PREFIX = "wbl_"
# used, revoked and expired links are kept this long after they expire (a second use is told when the
# link was used, not that it never existed), then deleted as new links are made
LOGIN_LINK_KEPT = timedelta(days=30)
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


def api_tokens_revoke_all(*, user: Any) -> int:
    """Revoke every token of ``user`` (a password reset: whoever had the password may have made one)."""
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    return deleted


# ------------------------------------------------------------------------------------ sessions


def account_session_record(*, user: Any, session: Any, user_agent: str = "") -> AccountSession | None:
    """Note that the login session ``session`` (a SessionStore) is ``user``'s, so it can be listed and
    ended later. Called at login only: ordinary requests never touch the record."""
    if not session.session_key:  # the login flushed a stale session: its new key is made now
        session.save()
    key = session.session_key
    if not Session.objects.filter(session_key=key).exists():
        return None  # not a database-backed session (never configured: settings keep them in the database)
    row, _ = AccountSession.objects.update_or_create(
        session_id=key, defaults={"user": user, "user_agent": user_agent[:300]}
    )
    return row


def _session_store() -> Any:
    return import_module(settings.SESSION_ENGINE).SessionStore()


def account_sessions_end(*, user: Any, keep: str | None = None) -> int:
    """End every session of ``user`` but ``keep`` (a session key), in the shared store itself (the
    database, and the cache in front of it when one is configured): their cookies are refused at once
    by every process. Returns how many were ended.

    Sessions recorded at login are found by their record; sessions with no record (opened before
    records were kept) are found by reading the unexpired ones that have none."""
    keys = set(AccountSession.objects.filter(user=user).values_list("session_id", flat=True))
    uid = str(user.pk)
    unrecorded = Session.objects.filter(expire_date__gt=timezone.now(), account_session__isnull=True)
    for row in unrecorded.iterator():
        if row.get_decoded().get("_auth_user_id") == uid:
            keys.add(row.session_key)
    keys.discard(keep or "")
    store = _session_store()
    for key in keys:
        store.delete(key)  # the cache entry and the row (the record goes with the row)
    return len(keys)


def account_password_changed(*, user: Any, session: Any, user_agent: str = "") -> int:
    """After ``user`` changed their own password in ``session``: every other session of theirs ends
    (from the store, not only by the stale password hash), this one stays and is recorded under the
    new key the change gave it. Returns how many others ended."""
    ended = account_sessions_end(user=user, keep=session.session_key)
    account_session_record(user=user, session=session, user_agent=user_agent)
    return ended


def account_credentials_revoke(*, user: Any, keep: str | None = None) -> tuple[int, int]:
    """After a password reset: end every session of ``user`` (but ``keep``), revoke its API tokens and
    its unused login link. Returns (sessions ended, tokens revoked)."""
    login_links_revoke(user=user)
    return account_sessions_end(user=user, keep=keep), api_tokens_revoke_all(user=user)


# --------------------------------------------------------------------------------- login links


def login_link_issue(*, user: Any, campaign: Campaign, by: Any | None) -> tuple[LoginLink, str]:
    """A new one-time login link for ``user``, made by ``campaign``'s organizer ``by``; the link's
    secret is in the answer only (the database keeps its digest). The account's previous unused link
    is revoked. Who may is the caller's to decide (campaigns.services.login_links)."""
    now = timezone.now()
    LoginLink.objects.filter(expires__lt=now - LOGIN_LINK_KEPT).delete()
    login_links_revoke(user=user)
    token = LOGIN_LINK_PREFIX + secrets.token_urlsafe(32)
    row = LoginLink.objects.create(
        user=user,
        campaign=campaign,
        created_by=by,
        digest=token_digest(token),
        expires=now + timedelta(days=settings.WORKBENCH_LOGIN_LINK_DAYS),
    )
    return row, token


def login_links_revoke(*, user: Any) -> int:
    """Revoke ``user``'s unused login link (a newer link, a password reset, the account deactivated or
    its sessions ended): it no longer logs anybody in. How many were revoked (0 or 1)."""
    return LoginLink.objects.filter(user=user, used_at=None, revoked_at=None).update(
        revoked_at=timezone.now()
    )


def login_link_mark_used(*, link: LoginLink) -> bool:
    """Mark ``link`` used if it is still unused, unrevoked and unexpired; whether this call did.

    One conditional UPDATE: of two requests using the same link at once exactly one changes the row
    (PostgreSQL makes the second wait for the first's row lock and then finds it used; SQLite's
    writes are serialized), so a link logs in once however many browsers press its button."""
    now = timezone.now()
    won = LoginLink.objects.filter(pk=link.pk, used_at=None, revoked_at=None, expires__gt=now).update(
        used_at=now
    )
    if won:
        link.used_at = now
    return bool(won)


# ------------------------------------------------------------------------------------- origins


def account_origin_record(
    *, user: Any, campaign: Campaign, created_by: Any | None, machine: bool = False
) -> AccountOrigin:
    """Record that ``campaign`` created ``user`` (an invitation of a new account, a machine assessor):
    its organizers may manage the account until it takes a role in another campaign."""
    return AccountOrigin.objects.create(user=user, campaign=campaign, created_by=created_by, machine=machine)


def account_origin_joined(*, user: Any, campaign: Campaign) -> None:
    """``user`` takes a role in ``campaign``: if the account was created by another campaign, its
    organizers lose the right to manage it, for good."""
    AccountOrigin.objects.filter(user=user, joined_elsewhere__isnull=True).exclude(campaign=campaign).update(
        joined_elsewhere=timezone.now()
    )
