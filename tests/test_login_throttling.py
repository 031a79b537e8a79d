"""Failed logins are throttled: per username and address (django-axes), and per address across
usernames (workbench.throttling), on the login form, the admin, API basic auth and API tokens."""

from __future__ import annotations

import base64
import io
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from campaigns.accounts.services import api_token_create
from campaigns.models import Campaign
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parent.parent
TRIES = 30


@pytest.fixture(autouse=True)
def _axes_on(settings: Any) -> None:
    settings.AXES_ENABLED = True  # tests/conftest.py turns it off for client.login()


def _log_in(client: Client, password: str) -> Any:
    return client.post(reverse("login"), {"username": "olga", "password": password})


def _logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def _basic(password: str, username: str = "olga") -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


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


# ----------------------------------------------------- per address, across usernames (password spraying)

SPRAYER, NEIGHBOUR = "203.0.113.66", "198.51.100.20"


@pytest.fixture
def address_limit(settings: Any) -> int:
    """The documented default: five times the per-account limit, over the same cool-off."""
    assert (settings.WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT, settings.AXES_FAILURE_LIMIT) == (50, 10)
    return int(settings.WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT)


def _spray(address: str, count: int, start: int = 0) -> list[int]:
    """One wrong password for ``count`` different usernames, from ``address``."""
    client = Client(REMOTE_ADDR=address)
    return [
        client.post(reverse("login"), {"username": f"user{i}", "password": "Winter2026!"}).status_code
        for i in range(start, start + count)
    ]


def _age_failures(minutes: int) -> None:
    from campaigns.accounts.models import LoginFailure

    LoginFailure.objects.update(at=timezone.now() - timedelta(minutes=minutes))


def test_spraying_usernames_locks_the_address_at_its_limit(
    campaign: Campaign, organizer: Any, address_limit: int
) -> None:
    answers = _spray(SPRAYER, address_limit)
    assert answers[:-1] == [200] * (address_limit - 1)  # the form again: each username failed once
    assert answers[-1] == 429
    # now even the right password of a real account is refused from that address, with the reason
    locked = Client(REMOTE_ADDR=SPRAYER)
    answer = _log_in(locked, PASSWORD)
    assert answer.status_code == 429 and not _logged_in(locked)
    page = answer.content.decode()
    assert "from this address, whatever the username" in page and "<header>" in page
    assert f"manage.py login_address_reset {SPRAYER}" in page
    # another address is unaffected
    neighbour = Client(REMOTE_ADDR=NEIGHBOUR)
    assert _log_in(neighbour, PASSWORD).status_code == 302 and _logged_in(neighbour)
    # the lock lasts while the limit's failures fall within the cool-off (15 minutes)
    _age_failures(14)
    assert _log_in(Client(REMOTE_ADDR=SPRAYER), PASSWORD).status_code == 429
    _age_failures(16)
    free = Client(REMOTE_ADDR=SPRAYER)
    assert _log_in(free, PASSWORD).status_code == 302 and _logged_in(free)


def test_below_the_address_limit_nothing_is_locked(
    campaign: Campaign, organizer: Any, address_limit: int
) -> None:
    assert set(_spray(SPRAYER, address_limit - 1)) == {200}
    client = Client(REMOTE_ADDR=SPRAYER)
    assert _log_in(client, PASSWORD).status_code == 302 and _logged_in(client)


def test_the_per_username_limit_locks_first_and_only_that_username(
    campaign: Campaign, organizer: Any, assessor: Any, address_limit: int
) -> None:
    client = Client(REMOTE_ADDR=SPRAYER)
    answers = [_log_in(client, f"guess-{i}").status_code for i in range(10)]
    assert answers == [200] * 9 + [429]  # olga from this address: axes' per-account limit, 10
    assert "for this account from this address" in _log_in(client, PASSWORD).content.decode()
    # alice from the same address is not locked: 11 failures are far below the address's limit
    alice = Client(REMOTE_ADDR=SPRAYER)
    answer = alice.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert answer.status_code == 302 and _logged_in(alice)


def test_a_successful_login_does_not_reset_the_address_count(
    campaign: Campaign, organizer: Any, address_limit: int
) -> None:
    _spray(SPRAYER, address_limit - 1)
    client = Client(REMOTE_ADDR=SPRAYER)
    assert _log_in(client, PASSWORD).status_code == 302  # the sprayer's own valid account
    assert _spray(SPRAYER, 1, start=1000) == [429]


def test_token_guessing_locks_the_address_valid_tokens_too(
    campaign: Campaign, organizer: Any, address_limit: int
) -> None:
    _, token = api_token_create(user=organizer, name="ci")
    url = reverse("api:campaigns")
    guesser = APIClient(REMOTE_ADDR=SPRAYER)
    guesses = [f"Token wbt_guess{i}" for i in range(address_limit - 2)] + [
        "Token",
        "Token a b",
    ]  # malformed too
    answers = [guesser.get(url, HTTP_AUTHORIZATION=g).status_code for g in guesses]
    assert set(answers[:-1]) in ({401}, {403}) and answers[-1] == 429  # refused (DRF: 403 here), then locked
    refused = guesser.get(url, HTTP_AUTHORIZATION=f"Token {token}")
    assert refused.status_code == 429 and refused["Content-Type"].startswith("application/json")
    assert "from this address, whatever the username" in refused.json()["errors"][0]
    # the login form from that address is locked as well, and the token works from elsewhere
    assert _log_in(Client(REMOTE_ADDR=SPRAYER), PASSWORD).status_code == 429
    assert APIClient(REMOTE_ADDR=NEIGHBOUR).get(url, HTTP_AUTHORIZATION=f"Token {token}").status_code == 200


def test_basic_auth_spraying_locks_the_address(
    campaign: Campaign, organizer: Any, address_limit: int
) -> None:
    url = reverse("api:campaigns")
    api = APIClient(REMOTE_ADDR=SPRAYER)
    answers = [
        api.get(url, HTTP_AUTHORIZATION=_basic("Winter2026!", f"user{i}")).status_code
        for i in range(address_limit)
    ]
    assert set(answers[:-1]) in ({401}, {403}) and answers[-1] == 429  # refused (DRF: 403 here), then locked
    refused = api.get(url, HTTP_AUTHORIZATION=_basic(PASSWORD))
    assert refused.status_code == 429 and "whatever the username" in refused.json()["errors"][0]
    assert APIClient(REMOTE_ADDR=NEIGHBOUR).get(url, HTTP_AUTHORIZATION=_basic(PASSWORD)).status_code == 200


def test_the_form_basic_auth_and_tokens_share_one_count(
    campaign: Campaign, organizer: Any, address_limit: int
) -> None:
    third = address_limit // 3
    url = reverse("api:campaigns")
    api = APIClient(REMOTE_ADDR=SPRAYER)
    _spray(SPRAYER, third)
    for i in range(third):
        api.get(url, HTTP_AUTHORIZATION=_basic("Winter2026!", f"other{i}"))
    for i in range(address_limit - 2 * third - 1):
        api.get(url, HTTP_AUTHORIZATION=f"Token wbt_guess{i}")
    assert _log_in(Client(REMOTE_ADDR=SPRAYER), PASSWORD).status_code == 302  # one short of the limit
    assert api.get(url, HTTP_AUTHORIZATION="Token wbt_last").status_code == 429


def test_an_administrator_unlocks_an_address(campaign: Campaign, organizer: Any, address_limit: int) -> None:
    _spray(SPRAYER, address_limit)
    out = io.StringIO()
    call_command("login_address_reset", SPRAYER, stdout=out)
    assert f"{SPRAYER}: {address_limit} failed attempts forgotten" in out.getvalue()
    client = Client(REMOTE_ADDR=SPRAYER)
    assert _log_in(client, PASSWORD).status_code == 302 and _logged_in(client)


def test_an_address_limit_below_the_account_limit_or_not_a_number_stops_start_up() -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_LOGIN")}
    code = "import django; django.setup()"
    for value, why in [
        ("5", "must be at least WORKBENCH_LOGIN_FAILURE_LIMIT (10)"),
        ("many", "WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT must be a whole number at least 1, not 'many'"),
    ]:
        env = {
            **environment,
            "WORKBENCH_LOGIN_ADDRESS_FAILURE_LIMIT": value,
            "DJANGO_SETTINGS_MODULE": "workbench.settings",
        }
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)
        assert done.returncode != 0 and why in done.stderr, done.stderr
