"""API tokens: a script's credential, stored only as a digest (the token itself is shown once)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


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
