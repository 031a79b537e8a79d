"""Failed logins are throttled (django-axes): the login form, the admin's and API basic auth alike."""

from __future__ import annotations

import base64
from datetime import timedelta
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from campaigns.accounts.services import api_token_create
from campaigns.models import Campaign
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db
TRIES = 30


@pytest.fixture(autouse=True)
def _axes_on(settings: Any) -> None:
    settings.AXES_ENABLED = True  # tests/conftest.py turns it off for client.login()


def _log_in(client: Client, password: str) -> Any:
    return client.post(reverse("login"), {"username": "olga", "password": password})


def _logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def _basic(password: str) -> str:
    return "Basic " + base64.b64encode(f"olga:{password}".encode()).decode()


def test_the_right_password_logs_in(campaign: Campaign, organizer: Any) -> None:
    client = Client()
    assert _log_in(client, PASSWORD).status_code == 302 and _logged_in(client)


def test_wrong_passwords_lock_the_login_even_for_the_right_one(campaign: Campaign, organizer: Any) -> None:
    client = Client()
    answers = [_log_in(client, f"guess-{i}").status_code for i in range(TRIES)]
    assert answers[0] == 200  # the form again, with its error
    assert answers[-1] == 429
    locked = _log_in(client, PASSWORD)
    assert locked.status_code == 429 and not _logged_in(client)
    page = locked.content.decode()
    assert "Logging in is locked for now" in page and "15 minutes" in page
    assert "<header>" in page  # the site's styled page, not a bare message
    # API basic auth from the same address is locked too
    assert APIClient().get(reverse("api:campaigns"), HTTP_AUTHORIZATION=_basic(PASSWORD)).status_code == 429
    # after the cool-off the right password works again
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert _log_in(client, PASSWORD).status_code == 302 and _logged_in(client)


def test_the_lock_holds_only_for_that_address(campaign: Campaign, organizer: Any) -> None:
    for i in range(TRIES):
        _log_in(Client(REMOTE_ADDR="203.0.113.9"), f"guess-{i}")
    colleague = Client(REMOTE_ADDR="198.51.100.7")
    assert _log_in(colleague, PASSWORD).status_code == 302 and _logged_in(colleague)


def test_failed_api_basic_auth_counts_and_locks(campaign: Campaign, organizer: Any) -> None:
    api = APIClient()
    url = reverse("api:campaigns")
    answers = [api.get(url, HTTP_AUTHORIZATION=_basic(f"guess-{i}")).status_code for i in range(TRIES)]
    assert answers[0] in (401, 403)
    assert AccessAttempt.objects.get().failures_since_start >= 10
    assert answers[-1] == 429
    refused = api.get(url, HTTP_AUTHORIZATION=_basic(PASSWORD))
    assert refused.status_code == 429
    assert refused["Content-Type"].startswith("application/json")
    assert "too many failed logins" in refused.json()["errors"][0]
    # the login form from the same address is locked as well
    assert _log_in(Client(), PASSWORD).status_code == 429


def test_api_tokens_are_not_affected_by_a_password_lockout(campaign: Campaign, organizer: Any) -> None:
    _, token = api_token_create(user=organizer, name="ci")
    for i in range(TRIES):
        _log_in(Client(), f"guess-{i}")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.get(reverse("api:campaigns")).status_code == 200


def test_behind_a_proxy_the_forwarded_address_counts(
    campaign: Campaign, organizer: Any, settings: Any
) -> None:
    settings.WORKBENCH_BEHIND_PROXY = True
    for i in range(TRIES):  # the proxy appends the real address; the first entry is the client's say
        _log_in(Client(HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.9"), f"guess-{i}")
    assert _log_in(Client(HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.9"), PASSWORD).status_code == 429
    colleague = Client(HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.7")  # same proxy, another address
    assert _log_in(colleague, PASSWORD).status_code == 302 and _logged_in(colleague)
