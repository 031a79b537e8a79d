"""The page a one-time login link opens (campaigns.services.login_links).

Opening the link (GET) only shows whose it is and a button, "Start judging as <username>"; pressing it
(POST) spends the link and logs in. Mail scanners, chat previews and browsers' prefetching open links
on their own, so a link spent by its GET would be used up before its owner saw it (and whoever had
run the scanner would hold the session). The POST also carries the CSRF check, so another site cannot
log a visitor into an account of its choosing.

Here in the top layer because a made-up or garbled link counts as a failed login of its address
(workbench.throttling, as a wrong password or API token does), and every link, valid or not, is
refused while the address is locked.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from campaigns.selectors import LoginLinkState, login_link_state
from campaigns.services.login_links import LoginLinkRefused, login_link_use
from workbench.errors import login_locked_out
from workbench.throttling import address_failure_counts, address_is_locked, throttling_on

# the session remembers which backend logged it in; a link checks no password, so ModelBackend's
# get_user (an active account) is the one that reads the session on later requests
LINK_BACKEND = "django.contrib.auth.backends.ModelBackend"


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def login_link(request: HttpRequest, token: str) -> HttpResponse:
    if throttling_on() and address_is_locked(request):
        return login_locked_out(request)
    if request.method == "POST":
        try:
            with transaction.atomic():  # a login that fails leaves the link unused
                link = login_link_use(token=token)
                login(request, link.user, backend=LINK_BACKEND)
        except LoginLinkRefused as exc:
            return _refused(request, exc.state)
        until = date_format(localtime(request.session.get_expiry_date()), "j F Y, H:i")
        messages.success(request, f"Welcome, {link.user.username}: you are logged in until {until} (UTC).")
        if not link.user.has_usable_password():
            messages.info(
                request,
                "Your account has no password yet: to log in again later without a new link, choose one "
                "on My account.",
                extra_tags="choose-password",
            )
        return redirect("home")  # an assessor's home is their assignments
    state = login_link_state(token=token)
    if state.refused is not None:
        return _refused(request, state)
    assert state.link is not None
    user = request.user
    return render(
        request,
        "registration/login_link.html",
        {
            "link": state.link,
            "already": user.is_authenticated and user.pk == state.link.user_id,
            "other": user.is_authenticated and user.pk != state.link.user_id,
            "session_days": settings.SESSION_COOKIE_AGE // (24 * 3600),
        },
    )


def _refused(request: HttpRequest, state: LoginLinkState) -> HttpResponse:
    if state.refused == "unknown" and throttling_on():
        # no such link was ever made: a guess or a mangled copy, counted as a failed login. A used,
        # expired or revoked link was genuine: reopening it is not guessing (a lab of assessors behind
        # one address reopening theirs must not lock the address)
        address_failure_counts(request)
    status = 404 if state.refused == "unknown" else 410
    return render(request, "registration/login_link_refused.html", {"state": state}, status=status)
