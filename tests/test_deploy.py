"""Safe by default: no debug page for anyone, a secret key of its own, production mode's refusals,
`manage.py check --deploy` clean under the README's production settings, and styled error pages."""

from __future__ import annotations

import io
import os
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.test import Client, RequestFactory
from django.urls import reverse

from campaigns.models import Campaign
from tests.conftest import PASSWORD
from workbench.errors import server_error
from workbench.secret_key import secret_key_load

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a fresh machine: no WORKBENCH_* variable, the key file under ``tmp_path``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WORKBENCH_", "DJANGO_"))}
    env.pop("DATABASE_URL", None)
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["WORKBENCH_SQLITE_PATH"] = str(tmp_path / "db.sqlite3")
    env.update(extra)
    return env


def _manage(tmp_path: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=ROOT,
        env=_env(tmp_path, **extra),
        capture_output=True,
        text=True,
        timeout=300,
    )


# what README "Deploying" documents (behind a TLS-terminating proxy)
PRODUCTION = {
    "WORKBENCH_ENV": "production",
    "WORKBENCH_ALLOWED_HOSTS": "judge.example.org",
    "WORKBENCH_CSRF_TRUSTED_ORIGINS": "https://judge.example.org",
    "WORKBENCH_BEHIND_PROXY": "1",
}


# ------------------------------------------------------------------------------ the secret key


def test_the_key_is_generated_once_outside_the_repository_readable_by_its_owner_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("WORKBENCH_SECRET_KEY", raising=False)
    monkeypatch.delenv("WORKBENCH_SECRET_KEY_FILE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    key = secret_key_load(production=True)
    path = tmp_path / "relevance-workbench" / "secret_key"
    assert path.read_text().strip() == key and len(key) >= 50
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert secret_key_load(production=True) == key  # kept: sessions survive a restart
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "elsewhere"))
    assert secret_key_load(production=False) != key  # each installation its own


def test_the_environment_variable_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_SECRET_KEY_FILE", str(tmp_path / "key"))
    monkeypatch.setenv("WORKBENCH_SECRET_KEY", "k" * 30 + "abcdefghijklmnopqrstuvwxyz")
    assert secret_key_load(production=True).startswith("kkk")
    assert not (tmp_path / "key").exists()


@pytest.mark.parametrize(
    "key", ["dev-only-insecure-key-change-me-for-any-deployment", "django-insecure-" + "x1y2z3" * 10, "short"]
)
def test_production_refuses_a_known_or_weak_key(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_SECRET_KEY", key)
    with pytest.raises(ImproperlyConfigured, match="known or weak key"):
        secret_key_load(production=True)
    assert secret_key_load(production=False) == key  # development runs on whatever it is given


# --------------------------------------------------------------------------- production mode


def test_check_deploy_is_clean_under_the_documented_production_settings(tmp_path: Path) -> None:
    done = _manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues (0 silenced)." in done.stdout
    assert "WARNING" not in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        ({"WORKBENCH_SECRET_KEY": "dev-only-insecure-key-change-me-for-any-deployment"}, "known or weak key"),
        ({"WORKBENCH_DEBUG": "1"}, "refuses WORKBENCH_DEBUG"),
        ({"WORKBENCH_ALLOWED_HOSTS": ""}, "needs WORKBENCH_ALLOWED_HOSTS"),
    ],
    ids=["default-key", "debug", "no-hosts"],
)
def test_production_mode_refuses_to_start(tmp_path: Path, extra: dict[str, str], why: str) -> None:
    done = _manage(tmp_path, "check", **{**PRODUCTION, **extra})
    assert done.returncode != 0
    assert why in done.stderr


def test_debug_is_off_unless_asked_for(tmp_path: Path) -> None:
    code = "from django.conf import settings; print(settings.DEBUG)"
    assert _manage(tmp_path, "shell", "-c", code).stdout.splitlines()[-1] == "False"
    assert _manage(tmp_path, "shell", "-c", code, WORKBENCH_DEBUG="1").stdout.splitlines()[-1] == "True"
    assert "WORKBENCH_DEBUG:-1" not in (ROOT / "workbench.sh").read_text()  # serve no longer turns it on


# -------------------------------------------------------------- the served workbench, end to end


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str, host: str | None = None) -> tuple[int, str, str]:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers.get("Content-Type", ""), answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.headers.get("Content-Type", ""), refused.read().decode()


def test_the_served_workbench_shows_no_debug_page_to_anyone(tmp_path: Path) -> None:
    """`./workbench.sh serve`'s web server, started as it starts it (no WORKBENCH_DEBUG)."""
    secret = "postgres://workbench:hunter2-db-password@db.internal/workbench"
    assert _manage(tmp_path, "migrate", "--no-input").returncode == 0
    port = _free_port()
    server = subprocess.Popen(
        [PYTHON, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        # a DATABASE_URL-like secret in the environment, as the debug page would show it
        env=_env(tmp_path, WORKBENCH_SOME_URL=secret),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        status, _, body = _get(f"{base}/", host="evil.example")
        assert status == 400
        assert "hunter2" not in body and "DisallowedHost" not in body and "Traceback" not in body
        assert "Bad Request" in body
        status, _, body = _get(f"{base}/no/such/page/")
        assert status == 404
        assert "Page not found" in body and "urlpatterns" not in body.lower() and "api/schema" not in body
        status, kind, body = _get(f"{base}/api/no-such-endpoint/")
        assert status == 404 and kind.startswith("application/json") and '"errors"' in body
        # static files without DEBUG (WhiteNoise)
        status, kind, body = _get(f"{base}/static/admin/css/base.css")
        assert status == 200 and kind.startswith("text/css") and body
    finally:
        server.terminate()
        server.wait(timeout=30)


# ------------------------------------------------------------------------------ in the test client


@pytest.mark.django_db
def test_a_foreign_host_gets_a_plain_400() -> None:
    answer = Client(HTTP_HOST="evil.example").get("/")
    assert answer.status_code == 400
    body = answer.content.decode()
    assert "DATABASE" not in body and "SECRET" not in body and "Traceback" not in body


def test_a_404_page_is_styled_and_lists_no_urls(campaign: Campaign, organizer: Any) -> None:
    client = Client()
    assert client.login(username=organizer.username, password=PASSWORD)
    answer = client.get("/campaigns/nope/deeper/")
    assert answer.status_code == 404
    body = answer.content.decode()
    assert "Page not found" in body and "<header>" in body and "My account" in body
    assert "urlpatterns" not in body and "api/schema" not in body and "admin/" not in body


def test_a_403_page_is_styled_and_says_why(campaign: Campaign, assessor: Any) -> None:
    client = Client()
    assert client.login(username=assessor.username, password=PASSWORD)
    answer = client.get(reverse("campaigns:import", args=[campaign.slug]))
    assert answer.status_code == 403
    body = answer.content.decode()
    assert "You are not allowed to do this" in body and "<header>" in body
    assert "This needs the organizer role in campaign &#x27;trec-demo&#x27;." in body
    assert reverse("judging:assess_home") in body  # where to go


def test_a_500_is_a_styled_page_or_the_apis_error_shape() -> None:
    page = server_error(RequestFactory().get("/campaigns/x/"))
    assert page.status_code == 500
    assert "Something went wrong on the server" in page.content.decode()
    api = server_error(RequestFactory().get("/api/campaigns/"))
    assert api.status_code == 500 and api["Content-Type"] == "application/json"
    assert api.content.decode().startswith('{"errors": [')


@pytest.mark.django_db
def test_the_demo_organizer_is_not_staff_and_admin_refuses_them() -> None:
    user = get_user_model().objects.create_user("organizer", password="x", is_staff=True)  # an older demo
    call_command("workbench_demo", stdout=io.StringIO())
    user.refresh_from_db()
    assert not user.is_staff and not user.is_superuser
    client = Client()
    client.force_login(user)
    answer = client.get("/admin/")
    assert answer.status_code == 302 and "/admin/login/" in answer["Location"]


def test_a_csrf_refusal_is_styled_and_says_what_to_do(campaign: Campaign, organizer: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(organizer)
    answer = client.post(reverse("accounts:token_create"), {"name": "forged"})
    assert answer.status_code == 403
    body = answer.content.decode()
    assert "This form could not be accepted" in body and "<header>" in body and "reload the page" in body
