"""The "My account" page: the person's API tokens, created (shown once) and revoked here."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe

from campaigns.accounts.selectors import api_tokens_listed
from campaigns.accounts.services import api_token_create, api_token_revoke
from campaigns.views import access_as_http, refusals_as_messages

# the new token waits in the session for the one page view that shows it (post, redirect, get)
SHOWN_ONCE = "accounts_new_api_token"


@require_safe
@login_required
def account(request: HttpRequest) -> HttpResponse:
    new = request.session.pop(SHOWN_ONCE, None)
    return render(
        request, "accounts/account.html", {"tokens": api_tokens_listed(user=request.user), "new": new}
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
