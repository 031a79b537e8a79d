"""One-time login links, the pages and the API: the organizer makes them with new accounts (one, or
many from the People page's box, shown once with their CSV) or anew for an account; the link opens a
page whose button logs in once and lands on the assignments; a second use, an expired, revoked or
made-up link says so; made-up links count in the per-address login throttle. Also how long a login
lasts, an organizer's "End sessions", and choosing a first password after logging in by a link."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from campaigns.accounts.models import AccountSession, LoginFailure, LoginLink
from campaigns.accounts.services import token_digest
from campaigns.models import Campaign
from campaigns.services.members import member_login_link, members_create
from tests.conftest import PASSWORD, python_stdout

pytestmark = pytest.mark.django_db

# read by tests/test_access.py: the page a login link opens is for anyone (the link is the credential)
LOGIN_LINK_ROUTES = ("login_link",)
LINK = re.compile(r"http://testserver/accounts/link/(wbl_[A-Za-z0-9_-]+)/")


@pytest.fixture
def web(organizer: Any) -> Client:
    client = Client()
    assert client.login(username=organizer.username, password=PASSWORD)
    return client


@pytest.fixture
def api(organizer: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(organizer)
    return client


def _made(campaign: Campaign, organizer: Any, *names: str) -> dict[str, str]:
    """New accounts with links: username -> the link's path."""
    made = members_create(
        campaign=campaign,
        accounts=[(n, "") for n in names],
        roles=["assessor"],
        by=organizer,
        password=False,
        link=True,
    )
    return {m.user.username: reverse("login_link", args=[m.link]) for m in made}


def _logged_in_as(client: Client) -> str | None:
    user_id = client.session.get("_auth_user_id")
    return User.objects.get(pk=user_id).username if user_id else None


def _token(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[1]


# ------------------------------------------------------------------------------- the link's page


def test_opening_a_link_only_shows_the_button_which_logs_in_and_lands_on_the_assignments(
    campaign: Campaign, organizer: Any
) -> None:
    link = _made(campaign, organizer, "amy")["amy"]
    browser = Client(HTTP_USER_AGENT="lab browser")
    page = browser.get(link)
    body = page.content.decode()
    assert page.status_code == 200 and "Start judging as amy" in body and "TREC demo" in body
    assert '<form method="post" id="login-link-start">' in body and "csrfmiddlewaretoken" in body
    assert page["Cache-Control"].startswith("max-age=0") and "no-store" in page["Cache-Control"]
    # opening it (a mail scanner, a preview) logged nobody in and left the link unused
    assert _logged_in_as(browser) is None
    assert LoginLink.objects.get(user__username="amy").used_at is None

    pressed = browser.post(link)
    assert pressed.status_code == 302 and pressed["Location"] == reverse("home")
    assert _logged_in_as(browser) == "amy"
    landed = browser.get(reverse("home"), follow=True)
    assert landed.redirect_chain[-1][0] == reverse("judging:assess_home")
    text = landed.content.decode()
    assert "Welcome, amy: you are logged in until" in text
    assert "no password yet" in text and f'href="{reverse("accounts:password_set")}"' in text
    # recorded like any login: listed on My account, ended with the others
    assert AccountSession.objects.get(user__username="amy").user_agent == "lab browser"
    assert LoginLink.objects.get(user__username="amy").used_at is not None


def test_a_second_use_says_when_the_link_was_used(campaign: Campaign, organizer: Any) -> None:
    link = _made(campaign, organizer, "amy")["amy"]
    assert Client().post(link).status_code == 302
    used_at = timezone.localtime(LoginLink.objects.get(user__username="amy").used_at)
    for again in (Client().get(link), Client().post(link)):
        body = again.content.decode()
        assert again.status_code == 410
        assert f"This link was used at {used_at:%H:%M} (UTC)" in body
        assert "Log in with your password, or ask your organizer for a new link." in body
        assert "Start judging" not in body
    second = Client()
    second.post(link)
    assert _logged_in_as(second) is None


def test_expired_revoked_and_made_up_links_say_why(campaign: Campaign, organizer: Any) -> None:
    links = _made(campaign, organizer, "amy", "ben")
    LoginLink.objects.filter(user__username="amy").update(expires=timezone.now() - timedelta(minutes=1))
    expired = Client().get(links["amy"])
    assert expired.status_code == 410 and "This login link has expired" in expired.content.decode()
    member_login_link(campaign=campaign, user=User.objects.get(username="ben"), by=organizer)
    revoked = Client().post(links["ben"])
    assert revoked.status_code == 410 and "This login link was replaced" in revoked.content.decode()
    made_up = Client().get(reverse("login_link", args=["wbl_nothing-like-it"]))
    assert made_up.status_code == 404 and "This login link does not work" in made_up.content.decode()
    assert LoginLink.objects.filter(used_at__isnull=False).count() == 0


def test_a_link_needs_the_pages_csrf_token(campaign: Campaign, organizer: Any) -> None:
    """Another site cannot post the button for a visitor (logging them in as an account of its own)."""
    link = _made(campaign, organizer, "amy")["amy"]
    strict = Client(enforce_csrf_checks=True)
    assert strict.post(link).status_code == 403
    assert _logged_in_as(strict) is None and LoginLink.objects.get().used_at is None


def test_a_browser_logged_in_as_someone_else_is_told_and_a_logged_in_owner_keeps_the_link(
    campaign: Campaign, organizer: Any, web: Client
) -> None:
    link = _made(campaign, organizer, "amy")["amy"]
    page = web.get(link).content.decode()
    assert 'id="other-account"' in page and "starting logs olga out here" in page
    assert web.post(link).status_code == 302 and _logged_in_as(web) == "amy"
    # the owner, logged in: the page says so and has no button (a second link is not spent)
    fresh, token = member_login_link(campaign=campaign, user=User.objects.get(username="amy"), by=organizer)
    again = web.get(reverse("login_link", args=[token])).content.decode()
    assert "already logged in as amy" in again and 'id="login-link-start"' not in again
    assert LoginLink.objects.get(pk=fresh.pk).used_at is None


# --------------------------------------------------------------------------- the throttle


@pytest.fixture
def throttled(settings: Any) -> None:
    settings.AXES_ENABLED = True
    settings.WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT = 12


def test_made_up_links_count_as_failed_logins_and_a_locked_address_opens_no_link(
    campaign: Campaign, organizer: Any, throttled: None
) -> None:
    links = _made(campaign, organizer, "amy", "ben")
    guesser = Client(REMOTE_ADDR="203.0.113.9")
    for i in range(11):
        assert guesser.get(reverse("login_link", args=[f"wbl_guess-{i}"])).status_code == 404
    assert LoginFailure.objects.filter(address="203.0.113.9").count() == 11
    assert guesser.post(reverse("login_link", args=["wbl_guess-post"])).status_code == 404
    # the limit is reached: every link is refused from that address, a genuine one too
    for answer in (guesser.get(links["amy"]), guesser.post(links["amy"])):
        assert (
            answer.status_code == 429
            and "Too many failed logins from this address" in answer.content.decode()
        )
    assert _logged_in_as(guesser) is None and LoginLink.objects.get(user__username="amy").used_at is None
    assert LoginFailure.objects.filter(address="203.0.113.9").count() == 12  # refusals are not counted
    # another address is not concerned
    colleague = Client(REMOTE_ADDR="198.51.100.7")
    assert colleague.post(links["amy"]).status_code == 302 and _logged_in_as(colleague) == "amy"


def test_reopening_a_used_or_replaced_link_is_no_guess(
    campaign: Campaign, organizer: Any, throttled: None
) -> None:
    """A lab behind one address whose assessors reopen their used links must not lock itself out."""
    links = _made(campaign, organizer, "amy")
    lab = Client(REMOTE_ADDR="192.0.2.1")
    assert lab.post(links["amy"]).status_code == 302
    for _ in range(20):
        assert Client(REMOTE_ADDR="192.0.2.1").get(links["amy"]).status_code == 410
    assert not LoginFailure.objects.exists()


# ------------------------------------------------------------------------ how long a login lasts


def _setting(name: str, **env: str) -> str:
    import os

    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("WORKBENCH_SESSION", "WORKBENCH_LOGIN_LINK"))
    }
    code = (
        "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'workbench.settings'); "
        f"django.setup(); from django.conf import settings as s; print(s.{name})"
    )
    return python_stdout("-c", code, env={**clean, **env}).strip()


def test_a_login_lasts_the_operators_days_by_default_fourteen() -> None:
    assert _setting("SESSION_COOKIE_AGE") == str(14 * 24 * 3600)
    assert _setting("SESSION_COOKIE_AGE", WORKBENCH_SESSION_DAYS="30") == str(30 * 24 * 3600)
    assert _setting("WORKBENCH_LOGIN_LINK_DAYS") == "7"
    assert _setting("WORKBENCH_LOGIN_LINK_DAYS", WORKBENCH_LOGIN_LINK_DAYS="2") == "2"
    assert _setting("SESSION_SAVE_EVERY_REQUEST") == "False"  # no write per request to extend it


def test_a_session_opened_by_a_link_or_a_password_lasts_the_setting(
    campaign: Campaign, organizer: Any, settings: Any
) -> None:
    settings.SESSION_COOKIE_AGE = 3 * 24 * 3600
    browser = Client()
    browser.post(_made(campaign, organizer, "amy")["amy"])
    typed = Client()
    typed.post(reverse("login"), {"username": organizer.username, "password": PASSWORD})
    for client in (browser, typed):
        key = client.cookies[django_settings.SESSION_COOKIE_NAME].value
        left = Session.objects.get(session_key=key).expire_date - timezone.now()
        assert timedelta(days=3) - timedelta(minutes=1) < left <= timedelta(days=3)


# --------------------------------------------------------------------- a password of one's own


def test_after_a_link_the_person_may_choose_a_password_and_log_in_with_it(
    campaign: Campaign, organizer: Any
) -> None:
    browser = Client()
    browser.post(_made(campaign, organizer, "amy")["amy"])
    mine = browser.get(reverse("accounts:account")).content.decode()
    assert "Your account has no password" in mine and "Choose a password" in mine
    # the change form wants a current password it does not have: sent to choose one
    assert browser.get(reverse("accounts:password_change"))["Location"] == reverse("accounts:password_set")
    form = browser.get(reverse("accounts:password_set"))
    assert form.status_code == 200 and "Choose a password" in form.content.decode()
    mismatch = browser.post(
        reverse("accounts:password_set"), {"new_password1": "amy-own-pass-1", "new_password2": "other-pass-1"}
    )
    assert mismatch.status_code == 200 and not User.objects.get(username="amy").has_usable_password()
    done = browser.post(
        reverse("accounts:password_set"),
        {"new_password1": "amy-own-pass-1", "new_password2": "amy-own-pass-1"},
        follow=True,
    )
    assert "Your password is set: log in with it from now on." in done.content.decode()
    assert _logged_in_as(browser) == "amy"  # this session stays
    again = Client()
    assert again.post(reverse("login"), {"username": "amy", "password": "amy-own-pass-1"}).status_code == 302
    # with a password, a session alone never replaces it: the current one is asked for
    assert browser.get(reverse("accounts:password_set"))["Location"] == reverse("accounts:password_change")


# ------------------------------------------------------------------------------ the People page


def test_a_new_account_with_a_link_from_the_people_page(web: Client, campaign: Campaign) -> None:
    url = reverse("judging:people", args=[campaign.slug])
    answer = web.post(
        url, {"account": "new", "username": "amy", "roles": ["assessor"], "login": "link"}, follow=True
    )
    page = answer.content.decode()
    assert "account &#x27;amy&#x27; created with a one-time login link" in page
    assert 'id="revealed-password"' not in page  # no password was made
    (token,) = set(LINK.findall(page))
    assert LoginLink.objects.get(user__username="amy").digest == token_digest(token)
    assert not User.objects.get(username="amy").has_usable_password()
    # shown once
    again = web.get(url).content.decode()
    assert token not in again and 'id="links"' not in again
    assert "not used yet (works until" in again

    both = web.post(
        url, {"account": "new", "username": "ben", "roles": ["assessor"], "login": "both"}, follow=True
    )
    page = both.content.decode()
    password = page.split('<code id="revealed-password" class="secret">')[1].split("</code>")[0]
    assert User.objects.get(username="ben").check_password(password) and len(set(LINK.findall(page))) == 1


def test_many_assessors_at_once_get_their_links_shown_once_with_a_csv(
    web: Client, campaign: Campaign
) -> None:
    url = reverse("judging:people", args=[campaign.slug])
    lines = "amy amy@example.org\r\nben\r\ncleo, cleo@example.org\r\n"
    answer = web.post(
        reverse("judging:people_create_many", args=[campaign.slug]),
        {"lines": lines, "roles": ["assessor"]},
        follow=True,
    )
    page = answer.content.decode()
    assert "3 accounts created, each with a one-time login link" in page
    shown = LINK.findall(page.split('id="links-table"')[1].split("</table>")[0])
    assert len(shown) == 3
    csv_text = page.split('<textarea id="links-csv"')[1].split(">", 1)[1].split("</textarea>")[0]
    rows = list(csv.reader(io.StringIO(csv_text.replace("&#x27;", "'").replace("&amp;", "&"))))
    assert rows[0] == ["username", "email", "login_link", "expires"]
    assert [r[:2] for r in rows[1:]] == [
        ["amy", "amy@example.org"],
        ["ben", ""],
        ["cleo", "cleo@example.org"],
    ]
    assert [LINK.fullmatch(r[2]).group(1) for r in rows[1:]] == shown  # type: ignore[union-attr]
    assert 'data-download="links-csv"' in page and f'data-filename="{campaign.slug}-login-links.csv"' in page
    for name, token in zip(["amy", "ben", "cleo"], shown, strict=True):
        user = User.objects.get(username=name)
        assert LoginLink.objects.get(user=user).digest == token_digest(token)
        assert not user.has_usable_password()
    assert not any(token in web.get(url).content.decode() for token in shown)
    assert not Session.objects.filter(session_data__contains=shown[0]).exists()  # popped from the session


def test_the_box_says_each_wrong_line_and_keeps_what_was_typed(
    web: Client, campaign: Campaign, assessor: Any
) -> None:
    lines = "amy\n\nalice\nben not-an-address\ncleo a b"
    answer = web.post(
        reverse("judging:people_create_many", args=[campaign.slug]),
        {"lines": lines, "roles": ["assessor"]},
        follow=True,
    )
    page = answer.content.decode()
    assert "line 2 is empty: one account a line" in page
    assert "line 4: &#x27;not-an-address&#x27; is not an e-mail address" in page
    assert "line 5: a username, then optionally an e-mail address, not 3 words" in page
    assert ">amy\n\nalice\nben not-an-address\ncleo a b</textarea>" in page
    assert not User.objects.filter(username__in=["amy", "ben", "cleo"]).exists()
    taken = web.post(
        reverse("judging:people_create_many", args=[campaign.slug]),
        {"lines": "amy\nalice", "roles": ["assessor"]},
        follow=True,
    ).content.decode()
    assert "line 2: the username &#x27;alice&#x27; cannot be used for a new account" in taken
    assert not User.objects.filter(username="amy").exists()


def test_a_new_link_for_an_account_from_the_people_page(
    web: Client, campaign: Campaign, organizer: Any
) -> None:
    old = _made(campaign, organizer, "amy")["amy"]
    amy = User.objects.get(username="amy")
    page = web.post(
        reverse("judging:member_login_link", args=[campaign.slug, amy.pk]), follow=True
    ).content.decode()
    assert "new login link for &#x27;amy&#x27; (any earlier one no longer works)" in page
    (token,) = set(LINK.findall(page))
    assert Client().get(old).status_code == 410
    assert Client().post(reverse("login_link", args=[token])).status_code == 302


def test_end_sessions_logs_an_account_out_everywhere(
    web: Client, campaign: Campaign, organizer: Any, assessor: Any
) -> None:
    links = _made(campaign, organizer, "amy")
    amy = User.objects.get(username="amy")
    laptop = Client()
    laptop.post(links["amy"])
    _, token = member_login_link(campaign=campaign, user=amy, by=organizer)
    phone = Client()
    phone.post(reverse("login_link", args=[token]))
    _, unused = member_login_link(campaign=campaign, user=amy, by=organizer)
    colleague = Client()
    assert colleague.login(username=assessor.username, password=PASSWORD)
    people = web.get(reverse("judging:people", args=[campaign.slug])).content.decode()
    end = reverse("judging:member_sessions_end", args=[campaign.slug, amy.pk])
    assert f'action="{end}"' in people
    page = web.post(end, follow=True).content.decode()
    assert (
        "&#x27;amy&#x27; must log in again: 2 sessions ended; its unused login link no longer works" in page
    )
    assert _logged_in_as(laptop) is None and _logged_in_as(phone) is None
    assert laptop.get(reverse("accounts:account")).status_code == 302
    assert _logged_in_as(colleague) == "alice" and _logged_in_as(web) == "olga"
    assert Client().get(reverse("login_link", args=[unused])).status_code == 410
    # not an account of this campaign's making: refused with the reason, nothing ended
    refused = web.post(
        reverse("judging:member_sessions_end", args=[campaign.slug, assessor.pk]), follow=True
    ).content.decode()
    assert "not created through this campaign" in refused and _logged_in_as(colleague) == "alice"


# ----------------------------------------------------------------------------------- the API


def test_the_api_gives_a_link_beside_or_instead_of_a_password(api: APIClient, campaign: Campaign) -> None:
    base = f"/api/judging/campaigns/{campaign.slug}/people"
    plain = api.post(f"{base}/invite/", {"username": "amy", "roles": ["assessor"]}, format="json")
    assert plain.status_code == 201 and set(plain.data) == {"username", "roles", "password"}
    link = api.post(
        f"{base}/invite/", {"username": "ben", "roles": ["assessor"], "login": "link"}, format="json"
    )
    assert link.status_code == 201 and "password" not in link.data
    token = LINK.fullmatch(link.data["login_link"]).group(1)  # type: ignore[union-attr]
    assert LoginLink.objects.get(user__username="ben").digest == token_digest(token)
    assert link.data["link_expires"] == LoginLink.objects.get(user__username="ben").expires
    both = api.post(
        f"{base}/invite/", {"username": "cleo", "roles": ["assessor"], "login": "both"}, format="json"
    )
    assert {"password", "login_link", "link_expires"} <= set(both.data)


def test_the_api_makes_many_accounts_with_links(api: APIClient, campaign: Campaign, assessor: Any) -> None:
    url = f"/api/judging/campaigns/{campaign.slug}/people/create/"
    accounts = [{"username": "amy", "email": "amy@example.org"}, {"username": "ben"}]
    answer = api.post(url, {"accounts": accounts, "roles": ["assessor"]}, format="json")
    assert answer.status_code == 201
    assert [(a["username"], a["email"], a["roles"]) for a in answer.data] == [
        ("amy", "amy@example.org", ["assessor"]),
        ("ben", "", ["assessor"]),
    ]
    for a in answer.data:
        token = LINK.fullmatch(a["login_link"]).group(1)  # type: ignore[union-attr]
        assert LoginLink.objects.get(user__username=a["username"]).digest == token_digest(token)
    as_lines = api.post(url, {"lines": "cleo\ndan dan@example.org", "roles": ["adjudicator"]}, format="json")
    assert as_lines.status_code == 201 and [a["username"] for a in as_lines.data] == ["cleo", "dan"]
    refused = api.post(
        url, {"accounts": [{"username": "eve"}, {"username": "alice"}], "roles": ["assessor"]}, format="json"
    )
    assert refused.status_code == 400 and refused.data["errors"][0].startswith("line 2: the username 'alice'")
    assert not User.objects.filter(username="eve").exists()
    empty = api.post(url, {"roles": ["assessor"]}, format="json")
    assert empty.status_code == 400 and "give at least one username" in empty.data["errors"][0]


def test_the_api_makes_a_new_link_and_ends_sessions(
    api: APIClient, campaign: Campaign, organizer: Any, assessor: Any
) -> None:
    old = _made(campaign, organizer, "amy")["amy"]
    amy = User.objects.get(username="amy")
    base = f"/api/judging/campaigns/{campaign.slug}/people/{amy.pk}"
    fresh = api.post(f"{base}/login-link/")
    assert (
        fresh.status_code == 200 and fresh.data["username"] == "amy" and fresh.data["roles"] == ["assessor"]
    )
    assert Client().get(old).status_code == 410
    browser = Client()
    browser.post(LINK.fullmatch(fresh.data["login_link"]).group(0).replace("http://testserver", ""))  # type: ignore[union-attr]
    assert _logged_in_as(browser) == "amy"
    ended = api.post(f"{base}/end-sessions/")
    assert ended.status_code == 200 and ended.data == {
        "username": "amy",
        "sessions_ended": 1,
        "links_revoked": 0,
    }
    assert _logged_in_as(browser) is None
    # accounts the organizer may not manage, their own included: refused with the reason
    for user in (assessor, organizer):
        for action in ("login-link", "end-sessions"):
            answer = api.post(f"/api/judging/campaigns/{campaign.slug}/people/{user.pk}/{action}/")
            assert answer.status_code == 400 and "'" + user.username + "' is" in answer.data["errors"][0]
