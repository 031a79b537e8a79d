"""Logging in by a one-time link: how a new assessor starts without a password to type, and the server
without a password to hash (a password check costs a deliberately slow hash; 200 assessors logging in
at nine o'clock would queue behind 200 of them). The organizer makes the links with the accounts
(campaigns.services.members); this module uses one.

A link logs in once: the page it opens asks for a button press (a POST), so that a mail scanner or a
browser's prefetch opening the link (a GET) never spends it, and the press marks it used in one
conditional UPDATE, so two presses at once log in once."""

from __future__ import annotations

from django.db import transaction

from campaigns.accounts.models import LoginLink
from campaigns.accounts.services import login_link_mark_used
from campaigns.errors import CampaignDataError
from campaigns.selectors import LoginLinkState, login_link_state

REFUSALS = {
    "unknown": "this is not a login link of this site (or not all of it was copied)",
    "used": "this login link was used already",
    "revoked": "this login link was replaced by a newer one or withdrawn",
    "expired": "this login link has expired",
    "account": "this login link's account cannot log in by link (deactivated, or no longer its campaign's)",
}


class LoginLinkRefused(CampaignDataError):
    """The link does not log in; ``state`` says why (LoginLinkState.refused) and holds the link."""

    def __init__(self, state: LoginLinkState) -> None:
        assert state.refused is not None
        super().__init__(REFUSALS[state.refused])
        self.state = state


@transaction.atomic
def login_link_use(*, token: str) -> LoginLink:
    """Spend the login link ``token``: its row, marked used, whose ``user`` the caller logs in (in the
    same transaction, so a failed login leaves the link unused). Refused (LoginLinkRefused) when the
    link does not log in (login_link_state), or when another request spent it first."""
    state = login_link_state(token=token)
    if state.refused is not None:
        raise LoginLinkRefused(state)
    link = state.link
    assert link is not None
    if not login_link_mark_used(link=link):
        link.refresh_from_db()
        raise LoginLinkRefused(LoginLinkState(link, login_link_state(token=token).refused or "used"))
    return link
