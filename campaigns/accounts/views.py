"""The "My account" page: the person's API tokens (created, shown once, revoked), their open sessions
(log out everywhere else), their invitations (accept, decline) and their password (change it; choose
a first one after logging in by a one-time link; reset a forgotten one by e-mail)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import SetPasswordForm
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST, require_safe

from campaigns.accounts.selectors import account_sessions_listed, api_tokens_listed, invitations_pending
from campaigns.accounts.services import (
    account_credentials_revoke,
    account_password_changed,
    account_sessions_end,
    api_token_create,
    api_token_revoke,
)
from campaigns.services import invitation_accept, invitation_decline
from campaigns.views import access_as_http, refusals_as_messages

# the new token waits in the session for the one page view that shows it (post, redirect, get)
SHOWN_ONCE = "accounts_new_api_token"


@require_safe
@login_required
def account(request: HttpRequest) -> HttpResponse:
    new = request.session.pop(SHOWN_ONCE, None)
    return render(
        request,
        "accounts/account.html",
        {
            "tokens": api_tokens_listed(user=request.user),
            "new": new,
            "sessions": account_sessions_listed(user=request.user),
            "invitations": invitations_pending(user=request.user),
        },
    )


@require_POST
@login_required
def api_token_create_page(request: HttpRequest) -> HttpResponse:
    with refusals_as_messages(request):
        row, token = api_token_create(user=request.user, name=request.POST.get("name", ""))
        request.session[SHOWN_ONCE] = {"id": row.pk, "name": row.name, "token": token}
    return redirect("accounts:account")


@require_POST
@login_required
def api_token_revoke_page(request: HttpRequest, token_id: int) -> HttpResponse:
    with access_as_http():
        row = api_token_revoke(user=request.user, token_id=token_id)
    messages.success(request, f"Token “{row.name}” revoked: scripts using it are refused from now on.")
    return redirect("accounts:account")


@require_POST
@login_required
def sessions_end_others(request: HttpRequest) -> HttpResponse:
    ended = account_sessions_end(user=request.user, keep=request.session.session_key)
    messages.success(
        request,
        f"Logged out everywhere else: {ended} other session{'' if ended == 1 else 's'} ended."
        if ended
        else "No other session was open.",
    )
    return redirect("accounts:account")


def _back(request: HttpRequest) -> HttpResponse:
    """To the page the form was on (this site's own pages only), else My account."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(target)
    return redirect("accounts:account")


@require_POST
@login_required
def invitation_accept_page(request: HttpRequest, pk: int) -> HttpResponse:
    with access_as_http():
        invitation = invitation_accept(user=request.user, invitation_id=pk)  # type: ignore[arg-type]
    messages.success(request, f"You are now {', '.join(invitation.roles)} in “{invitation.campaign.name}”.")
    return _back(request)


@require_POST
@login_required
def invitation_decline_page(request: HttpRequest, pk: int) -> HttpResponse:
    with access_as_http():
        invitation = invitation_decline(user=request.user, invitation_id=pk)  # type: ignore[arg-type]
    messages.success(request, f"You declined the invitation to “{invitation.campaign.name}”.")
    return _back(request)


class PasswordChange(auth_views.PasswordChangeView):
    """Django's password change (the old password, the new one twice), then every other session of
    the account ends; this one stays logged in."""

    success_url = reverse_lazy("accounts:account")
    done = "Your password is changed."

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.user.is_authenticated and not request.user.has_usable_password():
            return redirect("accounts:password_set")  # no current password to give: choose one
        return super().dispatch(request, *args, **kwargs)

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)  # saves it; this session gets a new key and the new hash
        ended = account_password_changed(
            user=form.user,
            session=self.request.session,
            user_agent=self.request.META.get("HTTP_USER_AGENT", ""),
        )
        elsewhere = f" {ended} other session{'' if ended == 1 else 's'} ended." if ended else ""
        messages.success(self.request, f"{self.done}{elsewhere}")
        return response


class PasswordSet(PasswordChange):
    """Choosing a first password (Django's SetPasswordForm: the new one twice), for an account that has
    none: one made with a login link only, whose owner logged in by it. An account with a password
    changes it with the current one (PasswordChange), so a session alone never replaces a password."""

    form_class = SetPasswordForm  # type: ignore[assignment]  # the same (user, data) arguments
    template_name = "registration/password_set_form.html"
    done = "Your password is set: log in with it from now on."

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.user.is_authenticated and request.user.has_usable_password():
            return redirect("accounts:password_change")
        return auth_views.PasswordChangeView.dispatch(self, request, *args, **kwargs)


class PasswordResetConfirm(auth_views.PasswordResetConfirmView):
    """Django's reset from an e-mailed link, then every session of the account ends and its API tokens
    are revoked: whoever knew the old password may have opened or made them."""

    success_url = reverse_lazy("password_reset_complete")

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        account_credentials_revoke(user=form.user, keep=self.request.session.session_key)
        if self.request.user.is_authenticated and self.request.user.pk == form.user.pk:
            logout(self.request)  # this browser's session too (ended through the request, not beside it)
        return response
