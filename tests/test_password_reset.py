"""A forgotten password, reset by e-mail with Django's own views: the link, the new password, and then
every session of the account ended and its API tokens revoked. An organizer's reset of an account
their campaign created does the same."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.core import mail
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns.accounts.models import ApiToken
from campaigns.accounts.services import api_token_create
from campaigns.models import Campaign
from campaigns.services import member_invite
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

# open to anyone, like the login page (tests/test_access.py leaves them out of its tables)
PASSWORD_RESET_ROUTES = (
    "password_reset",
    "password_reset_done",
    "password_reset_confirm",
    "password_reset_complete",
)
LINK = re.compile(r"https?://[^/\s]+(/accounts/password-reset/[^\s]+/)")


def _logged_in_client(user: Any) -> Client:
    client = Client()
    assert client.post(reverse("login"), {"username": user.username, "password": PASSWORD}).status_code == 302
    return client


def _logged_in(client: Client) -> bool:
    return client.get(reverse("accounts:account")).status_code == 200


def _token_works(token: str) -> bool:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return api.get(reverse("api:campaigns")).status_code == 200


def _mailed_link() -> str:
    assert len(mail.outbox) == 1
    found = LINK.search(str(mail.outbox[0].body))
    assert found, mail.outbox[0].body
    return found.group(1)


def test_the_login_page_links_to_the_reset(db: None) -> None:
    page = Client().get(reverse("login")).content.decode()
    assert f'href="{reverse("password_reset")}"' in page and "Forgot your password?" in page


def test_a_reset_by_email_ends_every_session_and_revokes_the_tokens(
    campaign: Campaign, organizer: Any
) -> None:
    organizer.email = "olga@example.org"
    organizer.save()
    laptop, phone = _logged_in_client(organizer), _logged_in_client(organizer)
    _, token = api_token_create(user=organizer, name="nightly upload")
    assert _token_works(token)

    anonymous = Client()
    form = anonymous.get(reverse("password_reset"))
    assert form.status_code == 200 and "Forgot your password?" in form.content.decode()
    sent = anonymous.post(reverse("password_reset"), {"email": "OLGA@example.org"})
    assert sent.status_code == 302 and sent["Location"] == reverse("password_reset_done")
    message = mail.outbox[0]
    assert message.to == ["olga@example.org"] and "olga" in str(message.body)
    assert "relevance workbench" in message.subject
    link = _mailed_link()

    # the link leads to the form (Django moves the token into the session first)
    form = anonymous.get(link, follow=True)
    assert "Choose a new password" in form.content.decode()
    set_url = form.redirect_chain[-1][0]
    done = anonymous.post(set_url, {"new_password1": "fresh-pass-42", "new_password2": "fresh-pass-42"})
    assert done.status_code == 302 and done["Location"] == reverse("password_reset_complete")
    organizer.refresh_from_db()
    assert organizer.check_password("fresh-pass-42")

    # every session of the account is gone from the store itself (checked before any request, which
    # would flush a session whose password hash is stale), and its cookies are refused
    assert not Session.objects.filter(
        session_key__in=[c.cookies[settings.SESSION_COOKIE_NAME].value for c in (laptop, phone)]
    ).exists()
    assert not _logged_in(laptop) and not _logged_in(phone)
    # its tokens are revoked: the API refuses them
    assert not _token_works(token) and not ApiToken.objects.filter(user=organizer).exists()
    # the link works once
    used = anonymous.get(link, follow=True).content.decode()
    assert "This link does not work" in used
    # and the new password logs in
    assert Client().login(username=organizer.username, password="fresh-pass-42")


def test_a_reset_requested_for_an_unknown_address_answers_the_same_and_sends_nothing(db: None) -> None:
    answer = Client().post(reverse("password_reset"), {"email": "nobody@example.org"})
    assert answer.status_code == 302 and answer["Location"] == reverse("password_reset_done")
    assert mail.outbox == []


def test_a_reset_while_logged_in_as_that_account_logs_this_browser_out_too(
    campaign: Campaign, organizer: Any
) -> None:
    organizer.email = "olga@example.org"
    organizer.save()
    browser = _logged_in_client(organizer)
    browser.post(reverse("password_reset"), {"email": "olga@example.org"})
    form = browser.get(_mailed_link(), follow=True)
    done = browser.post(
        form.redirect_chain[-1][0], {"new_password1": "fresh-pass-42", "new_password2": "fresh-pass-42"}
    )
    assert done.status_code == 302
    assert not _logged_in(browser)
    assert "Your new password is set" in browser.get(done["Location"]).content.decode()


def test_an_organizers_reset_ends_the_sessions_and_revokes_the_tokens(
    campaign: Campaign, organizer: Any
) -> None:
    user, password = member_invite(campaign=campaign, username="ivan", roles=["assessor"], by=organizer)
    ivan = Client()
    assert ivan.post(reverse("login"), {"username": "ivan", "password": password}).status_code == 302
    _, token = api_token_create(user=user, name="ivan's script")
    assert _logged_in(ivan) and _token_works(token)
    reset = _logged_in_client(organizer).post(
        reverse("judging:member_password_reset", args=[campaign.slug, user.pk]), follow=True
    )
    assert "new password for" in reset.content.decode()
    assert not _logged_in(ivan) and not _token_works(token)


# ---------------------------------------------------------------------------------- e-mail settings


def _mailer(tmp_path: Any, **env: str) -> dict[str, Any]:
    import json
    import os

    from tests.conftest import python_stdout

    clean = {k: v for k, v in os.environ.items() if not k.startswith(("WORKBENCH_", "DJANGO_"))}
    clean["XDG_DATA_HOME"] = str(tmp_path)  # production generates its key there
    code = (
        "import django, json, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'workbench.settings'); "
        "django.setup(); from django.conf import settings as s; "
        "print(json.dumps([s.MAILERS['default'], s.DEFAULT_FROM_EMAIL]))"
    )
    mailer, sender = json.loads(python_stdout("-c", code, env={**clean, **env}))
    return {**mailer, "from": sender}


def test_email_goes_to_the_console_by_default_and_to_smtp_when_the_operator_says(tmp_path: Any) -> None:
    assert _mailer(tmp_path)["BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    smtp = _mailer(
        tmp_path,
        WORKBENCH_EMAIL_HOST="smtp.example.org",
        WORKBENCH_EMAIL_HOST_USER="judge",
        WORKBENCH_EMAIL_HOST_PASSWORD="mail-secret",
        WORKBENCH_DEFAULT_FROM_EMAIL="judge@example.org",
    )
    assert smtp["BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert smtp["OPTIONS"] == {
        "host": "smtp.example.org",
        "port": 587,
        "username": "judge",
        "password": "mail-secret",
        "use_tls": True,
        "timeout": 30,
    }
    assert smtp["from"] == "judge@example.org"
    other = _mailer(
        tmp_path, WORKBENCH_EMAIL_HOST="mx", WORKBENCH_EMAIL_PORT="2525", WORKBENCH_EMAIL_USE_TLS="0"
    )
    assert (other["OPTIONS"]["port"], other["OPTIONS"]["use_tls"]) == (2525, False)
    # production never prints reset links where nobody reads them: the machine's own mail server
    production = _mailer(tmp_path, WORKBENCH_ENV="production", WORKBENCH_ALLOWED_HOSTS="judge.example.org")
    assert production["BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (production["OPTIONS"]["host"], production["OPTIONS"]["port"]) == ("localhost", 25)
