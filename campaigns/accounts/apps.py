"""The accounts app (label ``accounts``): API tokens, login sessions, account origins and invitations,
and the pages that manage them."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig


def _session_record_at_login(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """Every login through django.contrib.auth (the login form, the admin, the test client) records
    its session, so that the account's sessions can be listed and ended."""
    from campaigns.accounts.services import account_session_record

    session = getattr(request, "session", None)
    if session is not None:
        account_session_record(user=user, session=session, user_agent=request.META.get("HTTP_USER_AGENT", ""))


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "campaigns.accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        user_logged_in.connect(_session_record_at_login, dispatch_uid="accounts_session_record")
