"""One-time login links, the services: made with new accounts (one or many), stored as a digest, used
once (also when two requests press the button at the same moment), ending at their expiry and when
revoked (a newer link, a password reset, the account deactivated or its sessions ended), and never
made for, nor logging into, an account its campaign's organizers may not manage."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection, connections
from django.utils import timezone

from campaigns.accounts.models import AccountOrigin, LoginLink
from campaigns.accounts.services import login_link_mark_used, token_digest
from campaigns.errors import CampaignDataError
from campaigns.models import Campaign, Membership
from campaigns.selectors import login_link_state
from campaigns.services import campaign_create, invitation_accept, invitation_create, member_invite
from campaigns.services import login_links as login_links_module
from campaigns.services.login_links import LoginLinkRefused, login_link_use
from campaigns.services.members import (
    MAX_NEW_ACCOUNTS,
    member_active_set,
    member_login_link,
    member_password_reset,
    member_sessions_end,
    members_create,
)

pytestmark = pytest.mark.django_db


def _new(campaign: Campaign, organizer: Any, *names: str, password: bool = False) -> list[Any]:
    return members_create(
        campaign=campaign,
        accounts=[(n, f"{n}@example.org") for n in names],
        roles=["assessor"],
        by=organizer,
        password=password,
        link=True,
    )


def _refused(token: str) -> str:
    with pytest.raises(LoginLinkRefused) as caught:
        login_link_use(token=token)
    assert caught.value.state.refused is not None
    return caught.value.state.refused


# --------------------------------------------------------------------------- making them


def test_new_accounts_get_a_link_each_stored_only_as_a_digest_and_no_password(
    campaign: Campaign, organizer: Any, django_assert_max_num_queries: Any
) -> None:
    made = _new(campaign, organizer, "amy", "ben", "cleo")
    assert [m.user.username for m in made] == ["amy", "ben", "cleo"]
    for m in made:
        assert m.password is None and not m.user.has_usable_password()  # nothing hashed
        assert m.link.startswith("wbl_") and len(m.link) > 40
        row = LoginLink.objects.get(user=m.user)
        assert row.digest == token_digest(m.link) and m.link not in {row.digest}
        assert (row.campaign, row.created_by, row.used_at, row.revoked_at) == (
            campaign,
            organizer,
            None,
            None,
        )
        assert row.expires == m.link_expires
        # the setting's 7 days by default
        assert timedelta(days=7) - timedelta(minutes=1) < row.expires - timezone.now() <= timedelta(days=7)
        assert AccountOrigin.objects.get(user=m.user).campaign == campaign
        assert Membership.objects.filter(user=m.user, campaign=campaign, role="assessor").exists()
    assert len({m.link for m in made}) == 3
    assert User.objects.get(username="amy").email == "amy@example.org"


def test_the_link_lifetime_is_the_operators_setting(
    campaign: Campaign, organizer: Any, settings: Any
) -> None:
    settings.WORKBENCH_LOGIN_LINK_DAYS = 2
    (made,) = _new(campaign, organizer, "amy")
    left = made.link_expires - timezone.now()
    assert timedelta(days=2) - timedelta(minutes=1) < left <= timedelta(days=2)


def test_a_link_beside_a_password(campaign: Campaign, organizer: Any) -> None:
    (made,) = _new(campaign, organizer, "amy", password=True)
    assert made.password and made.user.check_password(made.password) and made.link


def test_a_new_account_needs_a_password_or_a_link(campaign: Campaign, organizer: Any) -> None:
    with pytest.raises(CampaignDataError, match="a password, a login link, or both"):
        members_create(
            campaign=campaign,
            accounts=[("amy", "")],
            roles=["assessor"],
            by=organizer,
            password=False,
            link=False,
        )
    assert not User.objects.filter(username="amy").exists()


def test_many_accounts_are_all_made_or_none_with_every_problem_by_line(
    campaign: Campaign, organizer: Any, assessor: Any
) -> None:
    accounts = [("amy", ""), ("alice", ""), ("ben", ""), ("amy", ""), ("x" * 151, "")]
    with pytest.raises(CampaignDataError) as caught:
        members_create(
            campaign=campaign, accounts=accounts, roles=["assessor"], by=organizer, password=False, link=True
        )
    problems = caught.value.problems
    assert problems == [
        "line 2: the username 'alice' cannot be used for a new account: choose another, or invite someone "
        "who already has an account, by their exact username",
        "line 4: 'amy' is on line 1 too",
        "line 5: a username is 1 to 150 characters without spaces",
    ]
    assert not User.objects.filter(username__in=["amy", "ben"]).exists()
    assert not LoginLink.objects.exists()
    with pytest.raises(CampaignDataError, match="unknown role"):
        members_create(
            campaign=campaign,
            accounts=[("amy", "")],
            roles=["owner"],
            by=organizer,
            password=False,
            link=True,
        )
    with pytest.raises(CampaignDataError, match=f"at most {MAX_NEW_ACCOUNTS} new accounts"):
        members_create(
            campaign=campaign,
            accounts=[(f"a{i}", "") for i in range(MAX_NEW_ACCOUNTS + 1)],
            roles=["assessor"],
            by=organizer,
            password=False,
            link=True,
        )


def test_a_new_link_revokes_the_previous_one(campaign: Campaign, organizer: Any) -> None:
    (made,) = _new(campaign, organizer, "amy")
    link, token = member_login_link(campaign=campaign, user=made.user, by=organizer)
    assert token != made.link and link.digest == token_digest(token)
    assert _refused(made.link) == "revoked"
    assert login_link_use(token=token).user == made.user
    # one open link per account at most, by the database's own constraint
    assert LoginLink.objects.filter(user=made.user, used_at=None, revoked_at=None).count() == 0


def test_links_are_never_made_for_accounts_the_organizer_may_not_manage(
    campaign: Campaign, organizer: Any, assessor: Any
) -> None:
    # an account made elsewhere (here: with the fixtures, no origin)
    with pytest.raises(CampaignDataError, match="not created through this campaign"):
        member_login_link(campaign=campaign, user=assessor, by=organizer)
    # staff and superusers, even ones this campaign created
    (made,) = _new(campaign, organizer, "amy")
    for flag in ("is_staff", "is_superuser"):
        User.objects.filter(pk=made.user.pk).update(**{flag: True})
        with pytest.raises(CampaignDataError, match="site administrator's account"):
            member_login_link(campaign=campaign, user=made.user, by=organizer)
        User.objects.filter(pk=made.user.pk).update(**{flag: False})
    # one's own account
    own, _ = member_invite(campaign=campaign, username="co", roles=["organizer"], by=organizer)
    with pytest.raises(CampaignDataError, match="your own account"):
        member_login_link(campaign=campaign, user=own, by=own)
    # another campaign's organizer
    other = campaign_create(slug="other", name="Other", organizer=organizer)
    with pytest.raises(CampaignDataError, match="not created through this campaign"):
        member_login_link(campaign=other, user=made.user, by=organizer)
    # a deactivated account is reactivated first
    member_active_set(campaign=campaign, user=made.user, by=organizer, active=False)
    with pytest.raises(CampaignDataError, match="deactivated: reactivate it first"):
        member_login_link(campaign=campaign, user=made.user, by=organizer)
    assert LoginLink.objects.filter(user=made.user).count() == 1


# ----------------------------------------------------------------------------- using them


def test_a_link_logs_in_once(campaign: Campaign, organizer: Any) -> None:
    (made,) = _new(campaign, organizer, "amy")
    assert login_link_state(token=made.link).refused is None
    link = login_link_use(token=made.link)
    assert link.user == made.user and link.used_at is not None
    assert LoginLink.objects.get(pk=link.pk).used_at == link.used_at
    with pytest.raises(LoginLinkRefused) as again:
        login_link_use(token=made.link)
    state = again.value.state
    assert state.refused == "used" and state.link is not None and state.link.used_at == link.used_at


def test_an_unknown_or_mangled_link_logs_nobody_in(campaign: Campaign, organizer: Any) -> None:
    (made,) = _new(campaign, organizer, "amy")
    assert _refused("wbl_made-up") == "unknown"
    assert _refused(made.link[:-1]) == "unknown"
    assert _refused(token_digest(made.link)) == "unknown"  # the stored digest is no link
    assert login_link_state(token=made.link).refused is None


def test_a_link_expires(campaign: Campaign, organizer: Any) -> None:
    (made,) = _new(campaign, organizer, "amy")
    LoginLink.objects.filter(user=made.user).update(expires=timezone.now() - timedelta(seconds=1))
    assert _refused(made.link) == "expired"
    assert LoginLink.objects.get(user=made.user).used_at is None


@pytest.mark.parametrize("how", ["password reset", "deactivated", "sessions ended"])
def test_a_link_is_revoked_by_the_organizers_actions(campaign: Campaign, organizer: Any, how: str) -> None:
    (made,) = _new(campaign, organizer, "amy")
    if how == "password reset":
        member_password_reset(campaign=campaign, user=made.user, by=organizer)
    elif how == "deactivated":
        member_active_set(campaign=campaign, user=made.user, by=organizer, active=False)
        member_active_set(campaign=campaign, user=made.user, by=organizer, active=True)  # stays revoked
    else:
        assert member_sessions_end(campaign=campaign, user=made.user, by=organizer) == (0, 1)
    assert _refused(made.link) == "revoked"


def test_a_deactivated_account_is_not_logged_in_by_its_link(campaign: Campaign, organizer: Any) -> None:
    """Even a link revoked past the services (a row changed by hand) checks the account when used."""
    (made,) = _new(campaign, organizer, "amy")
    User.objects.filter(pk=made.user.pk).update(is_active=False)
    assert _refused(made.link) == "account"


def test_a_link_stops_working_when_its_account_is_no_longer_the_campaigns(
    campaign: Campaign, organizer: Any
) -> None:
    (made,) = _new(campaign, organizer, "amy")
    other = campaign_create(slug="other", name="Other", organizer=organizer)
    invitation = invitation_create(campaign=other, username="amy", roles=["assessor"], by=organizer)
    invitation_accept(user=made.user, invitation_id=invitation.pk)
    assert _refused(made.link) == "account"


@pytest.mark.parametrize("flag", ["is_staff", "is_superuser"])
def test_a_link_never_logs_in_staff_or_a_superuser(campaign: Campaign, organizer: Any, flag: str) -> None:
    """An account made with a link that a site administrator later made staff: the link is dead."""
    (made,) = _new(campaign, organizer, "amy")
    User.objects.filter(pk=made.user.pk).update(**{flag: True})
    assert _refused(made.link) == "account"
    assert LoginLink.objects.get(user=made.user).used_at is None


def test_a_machine_assessors_account_is_never_logged_in_by_a_link(campaign: Campaign, organizer: Any) -> None:
    (made,) = _new(campaign, organizer, "amy")
    AccountOrigin.objects.filter(user=made.user).update(machine=True)
    assert _refused(made.link) == "account"
    with pytest.raises(CampaignDataError, match="machine assessor"):
        member_login_link(campaign=campaign, user=made.user, by=organizer)


def test_of_two_requests_that_read_the_link_unused_only_one_marks_it(
    campaign: Campaign, organizer: Any
) -> None:
    """The interleaving of a race, step by step (both databases): both requests have read the link as
    unused; the first to write marks it, the second's conditional UPDATE changes nothing."""
    (made,) = _new(campaign, organizer, "amy")
    first, second = (LoginLink.objects.get(user=made.user) for _ in range(2))
    assert first.used_at is None and second.used_at is None
    assert login_link_mark_used(link=first) is True
    assert login_link_mark_used(link=second) is False and second.used_at is None
    assert LoginLink.objects.get(pk=first.pk).used_at == first.used_at


@pytest.mark.django_db(transaction=True)
def test_two_requests_using_one_link_at_once_log_in_once(
    campaign: Campaign, organizer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two threads, each its own connection, press the button at once, both having read the link as
    unused before either marks it: one logs in, the other is told the link was used. PostgreSQL makes
    the second UPDATE wait for the first's row lock, then finds the row used."""
    if connection.vendor == "sqlite":
        pytest.skip(
            "SQLite serializes writing transactions (BEGIN IMMEDIATE), and its in-memory test database "
            "refuses a second writer outright; the race is PostgreSQL's (the step-by-step test above runs "
            "on both)"
        )
    (made,) = _new(campaign, organizer, "amy")
    both_read = threading.Barrier(2, timeout=30)
    original = login_links_module.login_link_mark_used

    def mark_when_both_read(*, link: LoginLink) -> bool:
        both_read.wait()  # both transactions have read the link as unused
        return original(link=link)

    monkeypatch.setattr(login_links_module, "login_link_mark_used", mark_when_both_read)
    outcomes: list[str] = []

    def press() -> None:
        try:
            outcomes.append(f"logged in {login_link_use(token=made.link).user.username}")
        except LoginLinkRefused as exc:
            outcomes.append(f"refused: {exc.state.refused}")
        except Exception as exc:  # said in the assertion rather than lost in a thread
            outcomes.append(f"error: {exc!r}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=press) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcomes) == ["logged in amy", "refused: used"]
    assert LoginLink.objects.get(user=made.user).used_at is not None
