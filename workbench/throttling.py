"""Failed logins counted per address across usernames, beside django-axes' count per username and
address.

django-axes (8.3) compares one AXES_FAILURE_LIMIT with the largest failure count over its lockout
parameters, so adding ``ip_address`` to them would lock a whole lab behind one address at the
per-account limit (10); the limit may be a callable, but it is not told which parameter's count it
is compared with. A successful login also deletes every record that matches any parameter, so one
valid account would reset its address's count between sprays. And axes never sees API tokens. So
the address has its own count (campaigns.accounts' LoginFailure rows, in the database that every
gunicorn worker shares) and its own, higher limit, WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT, over the
same cool-off. This handler adds it to axes' checks, so the login form, the admin and API basic auth
are refused with axes' own lockout answer; workbench.authentication applies it to API tokens.
"""

from __future__ import annotations

from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from django.conf import settings
from django.http import HttpRequest

from campaigns.accounts.selectors import login_address_locked
from campaigns.accounts.services import login_failure_record
from workbench.errors import client_address


def throttling_on() -> bool:
    """django-axes' switch, AXES_ENABLED (off where tests log in with client.login()), is this one's too."""
    return bool(getattr(settings, "AXES_ENABLED", True))


def request_address(request: Any) -> str:
    """The client's address as django-axes counts it (AXES_CLIENT_IP_CALLABLE)."""
    return getattr(request, "axes_ip_address", None) or client_address(request)


def address_failure_counts(request: HttpRequest) -> bool:
    """Record a failed attempt from the request's address; whether the address is now locked."""
    failures = login_failure_record(address=request_address(request))
    return failures >= settings.WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT


def address_is_locked(request: HttpRequest) -> bool:
    return login_address_locked(address=request_address(request))


class AddressThrottlingHandler(AxesDatabaseHandler):
    """django-axes' database handler, also locking an address with too many failures of any usernames."""

    def is_locked(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> bool:
        return super().is_locked(request, credentials) or address_is_locked(request)

    def user_login_failed(
        self, sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
    ) -> None:
        # a refused attempt (the lock already held) was never checked: it is not another failure
        refused = request is not None and getattr(request, "axes_locked_out", False)
        super().user_login_failed(sender, credentials, request=request, **kwargs)
        if request is None or refused:
            return
        if address_failure_counts(request):
            request.axes_locked_out = True  # type: ignore[attr-defined]  # axes' middleware answers
            request.axes_credentials = credentials  # type: ignore[attr-defined]
