"""Accounts beyond Django's User: API tokens (a script's credential, stored only as a digest), the
sessions each account has open, where an account came from, and invitations to join a campaign."""

from __future__ import annotations

from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import models
from django.db.models import Q

from campaigns.models import Campaign


class ApiToken(models.Model):
    """``Authorization: Token <token>`` authenticates as ``user``; deleting the row revokes it.

    Tokens are 256 random bits, so a plain SHA-256 digest is safe to store and cheap to check on
    every API call (unlike a password hash, made slow on purpose)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, help_text="the token's first characters, to tell tokens apart")
    digest = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created", "-id")

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class LoginFailure(models.Model):
    """One failed login (the form, the admin, API basic auth) or refused API token, by address.

    django-axes counts failures per username and address; these rows count them per address across
    usernames, so spraying one password over many accounts is throttled too (``login_address_locked``).
    Rows older than the cool-off are deleted as new failures come in."""

    address = models.CharField(max_length=64)
    at = models.DateTimeField()

    class Meta:
        indexes = (
            models.Index(fields=["address", "at"], name="login_failure_address_at"),
            models.Index(fields=["at"], name="login_failure_at"),
        )

    def __str__(self) -> str:
        return f"{self.address} at {self.at:%Y-%m-%d %H:%M:%S}"


class AccountSession(models.Model):
    """A logged-in session of ``user``, recorded at login so that every session of an account can be
    listed and ended (logout elsewhere, a password change or reset).

    Written at login and removed with its session (logout, a new key at login, ``clearsessions``
    deleting expired ones): an ordinary request never reads or writes it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account_sessions"
    )
    session = models.OneToOneField(Session, on_delete=models.CASCADE, related_name="account_session")
    created = models.DateTimeField(auto_now_add=True)
    user_agent = models.CharField(max_length=300, blank=True, help_text="the browser it logged in with")

    class Meta:
        ordering = ("-created", "-id")

    def __str__(self) -> str:
        return f"{self.user} since {self.created:%Y-%m-%d %H:%M}"


class AccountOrigin(models.Model):
    """The campaign whose organizer created the account (an invitation of a new account, or a machine
    assessor). That campaign's organizers may reset its password or deactivate it until the account
    first takes a role in any other campaign; from then on (``joined_elsewhere``, never cleared) only
    a site administrator does. Accounts without an origin (made with createsuperuser, in the admin, or
    before origins were recorded) are a site administrator's alone."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="origin"
    )
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="created_accounts")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    machine = models.BooleanField(default=False, help_text="a machine assessor's account: it never logs in")
    joined_elsewhere = models.DateTimeField(
        null=True, blank=True, help_text="when the account first took a role in another campaign"
    )

    def __str__(self) -> str:
        return f"{self.user} (created in {self.campaign})"


class Invitation(models.Model):
    """An organizer's offer of roles in a campaign to an account that may exist: the roles are given
    only when the invited person, logged in, accepts. ``user`` is the active account of exactly that
    username when the invitation was made (none otherwise: the organizer is not told which)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invitations")
    username = models.CharField(max_length=150)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="invitations",
    )
    roles = models.JSONField(default=list)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    accepted_at = models.DateTimeField(null=True, blank=True)
    declined_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created", "-id")
        constraints = (
            models.UniqueConstraint(
                fields=["campaign", "username"],
                condition=Q(accepted_at__isnull=True, declined_at__isnull=True),
                name="accounts_invitation_one_pending",
            ),
            models.CheckConstraint(
                condition=Q(accepted_at__isnull=True) | Q(declined_at__isnull=True),
                name="accounts_invitation_accepted_or_declined",
            ),
        )

    @property
    def pending(self) -> bool:
        return self.accepted_at is None and self.declined_at is None

    def __str__(self) -> str:
        return f"{self.username} to {self.campaign} as {', '.join(self.roles)}"


class LoginLink(models.Model):
    """A one-time link that logs ``user`` in without a password: an organizer's way to start a new
    account (campaigns.services.login_links). Opening it shows a page whose button logs in and marks
    the link used; it also ends at ``expires``, or when revoked (a newer link, a password reset, the
    account deactivated or its sessions ended).

    Only the link's SHA-256 digest is kept (the link carries 256 random bits, like an API token), so a
    copy of the database logs nobody in. Used and revoked rows stay (until long after they expire) so
    a second use is told when the link was used rather than that it never existed."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="login_links")
    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="login_links", help_text="whose organizer made it"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    digest = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created", "-id")
        constraints = (
            # a new link revokes the account's previous one: never two that could log it in
            models.UniqueConstraint(
                fields=["user"],
                condition=Q(used_at__isnull=True, revoked_at__isnull=True),
                name="accounts_loginlink_one_open",
            ),
            models.CheckConstraint(
                condition=Q(used_at__isnull=True) | Q(revoked_at__isnull=True),
                name="accounts_loginlink_used_or_revoked",
            ),
        )
        indexes = (models.Index(fields=["expires"], name="login_link_expires"),)

    def __str__(self) -> str:
        return f"login link of {self.user} (until {self.expires:%Y-%m-%d %H:%M})"
