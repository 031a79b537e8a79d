"""Sessions that end everywhere: kept in a store every process shares (the database, or Redis in front
of it), recorded per account at login, ended by logout, by "log out everywhere else" and by a password
change, in the store itself, so no process keeps answering to an old cookie."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.accounts.models import AccountSession
from campaigns.accounts.services import api_token_create
from campaigns.models import Campaign
from tests.conftest import PASSWORD, ROOT, python_stdout, worker_env

pytestmark = pytest.mark.django_db

REDIS_URL = os.environ.get("WORKBENCH_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def _client(user: Any, agent: str = "test-browser") -> Client:
    """Logged in through the login form, as a browser announcing itself as ``agent``."""
    client = Client(HTTP_USER_AGENT=agent)
    answer = client.post(reverse("login"), {"username": user.username, "password": PASSWORD})
    assert answer.status_code == 302, answer.content
    return client


def _copy(client: Client) -> Client:
    """A second browser holding the same session cookie (a stolen or forgotten one)."""
    other = Client()
    other.cookies[settings.SESSION_COOKIE_NAME] = client.cookies[settings.SESSION_COOKIE_NAME].value
    return other


def _key(client: Client) -> str:
    return str(client.cookies[settings.SESSION_COOKIE_NAME].value)


def _logged_in(client: Client) -> bool:
    """The account page answers (200), not the redirect to log in; and the API takes the session."""
    page = client.get(reverse("accounts:account")).status_code
    api = client.get(reverse("api:campaigns")).status_code
    assert (page == 200) == (api == 200), (page, api)
    return page == 200


# ------------------------------------------------------------------------------- the settings


def _session_settings(**env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("WORKBENCH_CACHE", "DJANGO_"))}
    code = (
        "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'workbench.settings'); "
        "django.setup(); from django.conf import settings as s; "
        "print(s.SESSION_ENGINE, s.CACHES['default']['BACKEND'], s.CACHES['default'].get('LOCATION', ''))"
    )
    return python_stdout("-c", code, env={**clean, **env}).strip()


def test_sessions_are_never_kept_in_a_cache_of_one_process() -> None:
    """By default in the database; with WORKBENCH_CACHE_URL in Redis with the database behind it. A
    per-process cache (LocMem) in front of the sessions would let each gunicorn worker keep its own
    copy of a session after logout: never configured."""
    engine, backend, _ = (_session_settings() + " ").split(" ", 2)
    assert engine == "django.contrib.sessions.backends.db"
    engine, backend, location = _session_settings(WORKBENCH_CACHE_URL="redis://cache.internal:6379/2").split()
    assert engine == "django.contrib.sessions.backends.cached_db"
    assert backend == "django.core.cache.backends.redis.RedisCache"
    assert location == "redis://cache.internal:6379/2"
    # and the settings this test process runs with
    assert settings.SESSION_ENGINE in (
        "django.contrib.sessions.backends.db",
        "django.contrib.sessions.backends.cached_db",
    )
    if settings.SESSION_ENGINE.endswith("cached_db"):
        assert settings.CACHES[settings.SESSION_CACHE_ALIAS]["BACKEND"].endswith("RedisCache")


def test_a_cache_url_that_is_not_redis_stops_start_up() -> None:
    with pytest.raises(subprocess.CalledProcessError) as failed:
        _session_settings(WORKBENCH_CACHE_URL="memcached://127.0.0.1:11211")
    assert "WORKBENCH_CACHE_URL must be a Redis URL" in failed.value.stderr


# --------------------------------------------------------------------------------- logout


def test_after_logout_the_old_cookie_is_refused(campaign: Campaign, organizer: Any) -> None:
    client = _client(organizer)
    stolen = _copy(client)
    key = _key(client)
    assert _logged_in(stolen) and Session.objects.filter(session_key=key).exists()
    assert client.post(reverse("logout")).status_code == 302
    # gone from the store itself, not only from this browser
    assert not Session.objects.filter(session_key=key).exists()
    assert not AccountSession.objects.filter(session_id=key).exists()
    assert not _logged_in(stolen)
    assert stolen.post(reverse("api:campaign_create"), {"slug": "after-logout"}).status_code == 403


# ------------------------------------------------- two processes: no process keeps its own copy

# A second Django process on the same database (and cache): it answers, for each session key read on
# its standard input, whether a request bearing that cookie would be logged in. It lives across the
# parent's logout, as a gunicorn worker does, so a copy it kept in a cache of its own would show.
OTHER_PROCESS = """
import os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "workbench.settings")
import django
django.setup()
from importlib import import_module
from django.conf import settings
store = import_module(settings.SESSION_ENGINE).SessionStore
print("ready", settings.SESSION_ENGINE, flush=True)
for line in sys.stdin:
    session = store(line.strip())
    print("valid" if session.get("_auth_user_id") else "gone", flush=True)
"""


class OtherProcess:
    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", OTHER_PROCESS],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.engine = self._line().split()[-1]

    def _line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(
                f"the other process ended: {self.proc.stderr.read() if self.proc.stderr else ''}"
            )
        return line.strip()

    def ask(self, key: str) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.write(key + "\n")
        self.proc.stdin.flush()
        return self._line()

    def stop(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(30)


def _redis_reachable() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(params=["database", "redis"])
def shared_store(
    request: pytest.FixtureRequest, settings: Any, worker_process: Any
) -> Iterator[Callable[[], OtherProcess]]:
    """The session store of the settings (``database``, or ``redis`` as WORKBENCH_CACHE_URL makes it),
    in this process and in other processes started by the returned function. (``worker_process``: the
    test database is then a committed file or server database another process can open.)"""
    env = worker_env()
    env.pop("WORKBENCH_CACHE_URL", None)
    if request.param == "redis":
        if not _redis_reachable():
            pytest.skip("no Redis on 127.0.0.1:6379 (the shared session cache's test needs one)")
        prefix = f"test-{uuid.uuid4().hex}"  # other test runs may share the server
        settings.CACHES = {
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": REDIS_URL,
                "KEY_PREFIX": prefix,
            }
        }
        settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
        env.update(WORKBENCH_CACHE_URL=REDIS_URL, WORKBENCH_CACHE_PREFIX=prefix)
    else:
        settings.SESSION_ENGINE = "django.contrib.sessions.backends.db"
    started: list[OtherProcess] = []

    def start() -> OtherProcess:
        started.append(OtherProcess(env))
        return started[-1]

    yield start
    for other in started:
        other.stop()


def test_a_session_ended_in_one_process_is_refused_by_another(
    shared_store: Callable[[], OtherProcess], campaign: Campaign, organizer: Any
) -> None:
    other = shared_store()
    assert other.engine == settings.SESSION_ENGINE
    client = _client(organizer)
    key = _key(client)
    assert other.ask(key) == "valid"  # the other process has read it (and cached it, if it could)
    assert other.ask(key) == "valid"
    client.post(reverse("logout"))
    assert other.ask(key) == "gone"
    # a password change ends the other sessions for every process too
    first, second = _client(organizer), _client(organizer)
    assert other.ask(_key(second)) == "valid"
    changed = first.post(
        reverse("accounts:password_change"),
        {"old_password": PASSWORD, "new_password1": "a-new-pass-123", "new_password2": "a-new-pass-123"},
    )
    assert changed.status_code == 302
    assert other.ask(_key(second)) == "gone" and other.ask(_key(first)) == "valid"


# -------------------------------------------------------------------- the account's sessions


def test_login_records_the_session_and_my_account_lists_it(campaign: Campaign, organizer: Any) -> None:
    client = _client(organizer, agent="Firefox on the lab machine")
    _client(organizer, agent="curl on a laptop")
    rows = AccountSession.objects.filter(user=organizer)
    assert rows.count() == 2 and _key(client) in {r.session_id for r in rows}
    page = client.get(reverse("accounts:account")).content.decode()
    assert "Firefox on the lab machine" in page and "curl on a laptop" in page
    assert page.count("this browser") == 1
    assert 'action="/accounts/me/sessions/end-others/"' in page


def test_log_out_everywhere_else_ends_every_other_session_and_keeps_this_one(
    campaign: Campaign, organizer: Any, assessor: Any
) -> None:
    here, laptop, phone = _client(organizer), _client(organizer), _client(organizer)
    colleague = _client(assessor)
    # a session opened before sessions were recorded (no record) is found and ended as well
    AccountSession.objects.filter(session_id=_key(phone)).delete()
    answer = here.post(reverse("accounts:sessions_end_others"), follow=True)
    assert "2 other sessions ended" in answer.content.decode()
    assert _logged_in(here) and not _logged_in(laptop) and not _logged_in(phone)
    assert _logged_in(colleague)
    assert not Session.objects.filter(session_key__in=[_key(laptop), _key(phone)]).exists()
    again = here.post(reverse("accounts:sessions_end_others"), follow=True)
    assert "No other session was open" in again.content.decode()


def test_a_password_change_ends_the_other_sessions_and_keeps_this_one(
    campaign: Campaign, organizer: Any
) -> None:
    here, elsewhere = _client(organizer), _client(organizer)
    old_elsewhere = _key(elsewhere)
    _, token = api_token_create(user=organizer, name="script")
    page = here.get(reverse("accounts:password_change"))
    assert page.status_code == 200 and "Change your password" in page.content.decode()
    wrong = here.post(
        reverse("accounts:password_change"),
        {"old_password": "not-it", "new_password1": "a-new-pass-123", "new_password2": "a-new-pass-123"},
    )
    assert wrong.status_code == 200 and "incorrectly" in wrong.content.decode()
    assert _logged_in(elsewhere)
    done = here.post(
        reverse("accounts:password_change"),
        {"old_password": PASSWORD, "new_password1": "a-new-pass-123", "new_password2": "a-new-pass-123"},
        follow=True,
    )
    assert "Your password is changed. 1 other session ended." in done.content.decode()
    # gone from the store (checked first: a request would flush a session with a stale password hash)
    assert not Session.objects.filter(session_key=old_elsewhere).exists()
    assert _logged_in(here) and not _logged_in(elsewhere)
    # this browser's session got a new key, and is still recorded under it
    assert AccountSession.objects.filter(user=organizer).get().session_id == _key(here)
    organizer.refresh_from_db()
    assert organizer.check_password("a-new-pass-123")
    # a change by the owner keeps their scripts' tokens (a reset does not)
    assert Client().get(reverse("api:campaigns"), HTTP_AUTHORIZATION=f"Token {token}").status_code == 200


def test_ordinary_requests_never_read_or_write_the_session_records(
    campaign: Campaign, organizer: Any
) -> None:
    client = _client(organizer)
    client.get(reverse("campaigns:campaigns"))  # warm
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("campaigns:campaigns")).status_code == 200
        assert client.get(reverse("api:campaigns")).status_code == 200
    assert not [q["sql"] for q in queries if "accounts_accountsession" in q["sql"]]
    # the session itself: one read a request, no write
    session_sql = [q["sql"] for q in queries if "django_session" in q["sql"]]
    assert len(session_sql) == 2 and all(q.lstrip().upper().startswith("SELECT") for q in session_sql)


def test_expired_sessions_leave_the_list_and_clearsessions_removes_their_records(
    campaign: Campaign, organizer: Any
) -> None:
    from django.core.management import call_command
    from django.utils import timezone

    client, old = _client(organizer), _client(organizer)
    Session.objects.filter(session_key=_key(old)).update(expire_date=timezone.now())
    page = client.get(reverse("accounts:account")).content.decode()
    assert page.count('<tr class="current">') == 1 and page.count('<td class="text">test-browser') == 1
    call_command("clearsessions")
    assert list(AccountSession.objects.values_list("session_id", flat=True)) == [_key(client)]


def test_the_login_page_of_a_stale_session_records_the_new_one(
    campaign: Campaign, organizer: Any, assessor: Any
) -> None:
    """Logging in over another account's session flushes it: the new session is the one recorded."""
    client = _client(assessor)
    before = _key(client)
    answer = client.post(reverse("login"), {"username": organizer.username, "password": PASSWORD})
    assert answer.status_code == 302
    after = _key(client)
    assert after != before and not Session.objects.filter(session_key=before).exists()
    assert AccountSession.objects.get(session_id=after).user == organizer
