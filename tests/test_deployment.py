"""The README's deployment, started as deployed and checked through real HTTP.

README "Deploying" runs the workbench in production mode under gunicorn with several workers, a
``jobs_worker`` beside them and PostgreSQL. Bugs that only several processes show (a session
cached in one worker's memory, a lock held in one process) are invisible to Django's test client,
which is one process: so this module starts that deployment for real, on a database of its own,
and talks to it as a browser behind the TLS-terminating proxy would (``X-Forwarded-Proto: https``,
the client's address appended to ``X-Forwarded-For``). Only HTTPS itself is missing: the proxy's
headers stand in for it, so every production setting (the HTTPS redirect, secure cookies, HSTS)
is on exactly as deployed.

gunicorn's access log names the worker process of each request (``%(p)s``), so a check "on every
worker" is one that saw each of the three workers answer.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.test_deploy import ROOT

pytestmark = pytest.mark.deployment

WORKERS = 3
README = ROOT / "README.md"
DEMO_USER, DEMO_PASSWORD = "organizer", "deployment-test-password"
DEMO_RUN = ROOT / "demo" / "runs" / "bm25.run"


class MailSink:
    """The operator's SMTP server, stood in for on loopback: keeps every message it is given."""

    def __init__(self) -> None:
        import socketserver
        import threading

        sink = self
        self.messages: list[str] = []

        class Session(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                self.wfile.write(b"220 sink ESMTP\r\n")
                while line := self.rfile.readline():
                    verb = line.strip().upper()
                    if verb.startswith((b"EHLO", b"HELO")):
                        self.wfile.write(b"250 sink\r\n")
                    elif verb == b"DATA":
                        self.wfile.write(b"354 end with .\r\n")
                        body = []
                        while (data := self.rfile.readline()) not in (b".\r\n", b""):
                            body.append(data)
                        sink.messages.append(b"".join(body).decode("utf-8", "replace"))
                        self.wfile.write(b"250 kept\r\n")
                    elif verb == b"QUIT":
                        self.wfile.write(b"221 bye\r\n")
                        return
                    else:  # MAIL FROM, RCPT TO, RSET, NOOP
                        self.wfile.write(b"250 ok\r\n")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Session)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _readme_block() -> str:
    text = README.read_text()
    section = text[text.index("## Deploying") :]
    return section[section.index("```sh") : section.index("```", section.index("```sh") + 5)]


def readme_gunicorn_options() -> list[str]:
    """The options of README "Deploying"'s gunicorn command line but ``--bind``: the deployment
    below starts gunicorn with exactly these (workers, worker class, threads, timeout)."""
    import shlex

    line = next(ln for ln in _readme_block().splitlines() if ln.startswith("gunicorn workbench.wsgi"))
    words = shlex.split(line.split("#")[0].replace("&", ""))[2:]
    at = words.index("--bind")
    return words[:at] + words[at + 2 :]


def _postgres_url() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        pytest.skip("the deployment test runs on PostgreSQL as README 'Deploying' does: set DATABASE_URL")
    return url


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Deployment:
    """The running deployment: its address, environment and the processes' logs."""

    base: str
    env: dict[str, str]
    access_log: Path
    worker_log: Path
    mail: MailSink
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def origin(self) -> str:
        return "https://" + urlsplit(self.base).netloc

    def manage(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip

    def account(self, username: str, password: str, email: str) -> None:
        """An account made by the site's administrator (``manage.py shell``, as an operator would)."""
        code = (
            "from django.contrib.auth.models import User; "
            f"User.objects.create_user({username!r}, {email!r}, {password!r})"
        )
        done = self.manage("shell", "-c", code)
        assert done.returncode == 0, done.stderr[-2000:]

    def access_lines(self) -> list[str]:
        return self.access_log.read_text(errors="replace").splitlines() if self.access_log.exists() else []


class Browser:
    """One person's browser behind the proxy: its cookies (secure ones included: the proxy speaks
    HTTPS to it), a fresh connection per request (as a proxy spreads them, so that every worker
    takes some; gunicorn's threaded workers would keep one alive), and the headers the proxy adds."""

    def __init__(self, deployment: Deployment) -> None:
        self.deployment = deployment
        self.cookies: dict[str, str] = {}
        self.frozen = False  # replaying a cookie: what the server answers does not change it
        self.http = httpx.Client(
            base_url=deployment.base,
            follow_redirects=False,
            timeout=60,
            limits=httpx.Limits(max_keepalive_connections=0),
        )

    def close(self) -> None:
        self.http.close()

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {
            "X-Forwarded-Proto": "https",
            "X-Forwarded-For": "203.0.113.7",
            "Referer": self.deployment.origin + path,
            **kwargs.pop("headers", {}),
        }
        if method != "GET":
            headers["Origin"] = self.deployment.origin
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        response = self.http.request(method, path, headers=headers, **kwargs)
        for value in [] if self.frozen else response.headers.get_list("set-cookie"):
            jar: SimpleCookie = SimpleCookie()
            jar.load(value)
            for name, morsel in jar.items():
                if morsel["max-age"] == "0" or not morsel.value or morsel.value == '""':
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        return response

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, **kwargs)

    def csrf_token(self, path: str) -> str:
        page = self.get(path)
        assert page.status_code == 200, f"GET {path}: {page.status_code}"
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert found, f"no CSRF token in {path}"
        return found.group(1)

    def post_form(self, path: str, data: dict[str, str], *, form_page: str | None = None) -> httpx.Response:
        token = self.csrf_token(form_page or path)
        return self.request("POST", path, data={"csrfmiddlewaretoken": token, **data})

    def log_in(self, username: str, password: str) -> httpx.Response:
        answer = self.post_form("/accounts/login/", {"username": username, "password": password})
        assert answer.status_code == 302, f"log in as {username}: {answer.status_code} {answer.text[:300]}"
        assert "sessionid" in self.cookies
        return answer


def _wait_until_up(deployment: Deployment, proc: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"gunicorn exited with {proc.returncode}")
        try:
            login = httpx.get(deployment.base + "/accounts/login/", headers={"X-Forwarded-Proto": "https"})
            if login.is_success:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError("gunicorn did not answer within two minutes")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    import psycopg

    url = _postgres_url()
    parts = urlsplit(url)
    name = f"wb_deployment_{secrets.token_hex(4)}"
    admin_url = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    tmp = tmp_path_factory.mktemp("deployment")
    mail = MailSink()
    port = _free_port()
    host = f"127.0.0.1:{port}"
    # README "Deploying"'s variables (test_the_readme_lists_what_the_test_sets checks the list);
    # X-Forwarded-Proto from the "proxy" (the test) stands in for TLS
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WORKBENCH_", "DJANGO_"))}
    env.update(
        WORKBENCH_ENV="production",
        WORKBENCH_ALLOWED_HOSTS="127.0.0.1",
        WORKBENCH_CSRF_TRUSTED_ORIGINS=f"https://{host}",
        WORKBENCH_BEHIND_PROXY="1",
        DATABASE_URL=parts._replace(path=f"/{name}").geturl(),
        WORKBENCH_SECRET_KEY=secrets.token_urlsafe(50),
        WORKBENCH_STATIC_ROOT=str(tmp / "static"),
        WORKBENCH_UPLOAD_DIR=str(tmp / "uploads"),
        XDG_DATA_HOME=str(tmp / "data"),
        WORKBENCH_DEMO_PASSWORD=DEMO_PASSWORD,
        WORKBENCH_EMAIL_HOST="127.0.0.1",
        WORKBENCH_EMAIL_PORT=str(mail.port),
        WORKBENCH_EMAIL_USE_TLS="0",
        PYTHONUNBUFFERED="1",
    )
    deployment = Deployment(f"http://{host}", env, tmp / "access.log", tmp / "worker.log", mail)
    try:
        for step in (("migrate", "--no-input"), ("collectstatic", "--no-input"), ("workbench_demo",)):
            done = deployment.manage(*step)
            assert done.returncode == 0, f"manage.py {' '.join(step)}: {done.stderr[-2000:]}"
        with (tmp / "gunicorn.log").open("wb") as log:
            web = subprocess.Popen(
                [
                    sys.executable, "-m", "gunicorn", "workbench.wsgi", "--bind", host,
                    *readme_gunicorn_options(),
                    "--access-logfile", str(deployment.access_log),
                    "--access-logformat", "%(p)s %(m)s %(U)s %(s)s",
                ],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        deployment.processes.append(web)
        with deployment.worker_log.open("wb") as log:
            worker = subprocess.Popen(
                [sys.executable, "manage.py", "jobs_worker", "--interval", "0.2"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        deployment.processes.append(worker)
        _wait_until_up(deployment, web)
        yield deployment
    finally:
        for proc in deployment.processes:
            _stop(proc)
        mail.close()
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def browser(deployment: Deployment) -> Iterator[Browser]:
    one = Browser(deployment)
    yield one
    one.close()


def _served_by(deployment: Deployment, before: int, path: str) -> list[tuple[int, int]]:
    """(worker pid, status) of each request for ``path`` logged after line ``before``."""
    out = []
    for line in deployment.access_lines()[before:]:
        pid, _, logged, status = line.split(" ")
        if logged == path:
            out.append((int(pid.strip("<>")), int(status)))
    return out


def _on_every_worker(deployment: Deployment, browser: Browser, path: str, count: int) -> list[int]:
    """``count`` requests for ``path``, three at a time so that every worker takes some; their statuses.
    Asserts that each of the workers answered at least one."""
    from concurrent.futures import ThreadPoolExecutor

    before = len(deployment.access_lines())
    with ThreadPoolExecutor(WORKERS) as pool:
        statuses = list(pool.map(lambda _: browser.get(path).status_code, range(count)))
    deadline = time.monotonic() + 10
    while len(served := _served_by(deployment, before, path)) < count and time.monotonic() < deadline:
        time.sleep(0.1)  # the access log is written after the answer
    workers = {pid for pid, _ in served}
    assert len(workers) == WORKERS, f"{count} requests reached {len(workers)} of {WORKERS} workers: {served}"
    return statuses


# ------------------------------------------------------------------------------ the checks


def test_check_deploy_is_clean_with_the_readme_settings(deployment: Deployment) -> None:
    done = deployment.manage("check", "--deploy", "--fail-level", "WARNING")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


def test_the_readme_lists_what_the_test_sets(deployment: Deployment) -> None:
    """The variables the README's deployment block exports are the ones this module starts with."""
    block = _readme_block()
    exported = set(re.findall(r"^export (\w+)=", block, re.M))
    assert exported, "README 'Deploying' exports no variable"
    unset = sorted(exported - set(deployment.env))
    assert not unset, f"README exports {unset}, which this test does not set"
    assert f"--workers {WORKERS}" in block and "jobs_worker" in block
    # the gunicorn started here is README's: threads beside each worker, so that a login being
    # hashed does not hold up the saves that process serves
    options = readme_gunicorn_options()
    assert options[options.index("--workers") + 1] == str(WORKERS)
    assert options[options.index("--worker-class") + 1] == "gthread"
    assert int(options[options.index("--threads") + 1]) > 1


def test_logout_ends_the_session_on_every_worker(deployment: Deployment, browser: Browser) -> None:
    browser.log_in(DEMO_USER, DEMO_PASSWORD)
    old = dict(browser.cookies)
    # every worker serves the session first (a per-process session cache would now hold it)
    assert set(_on_every_worker(deployment, browser, "/", 12)) == {200}
    assert browser.post_form("/accounts/logout/", {}, form_page="/").status_code == 302
    assert "sessionid" not in browser.cookies
    browser.cookies, browser.frozen = old, True  # the old cookie, replayed on every request
    statuses = _on_every_worker(deployment, browser, "/", 30)
    assert 200 not in statuses, f"the logged-out cookie was served: {statuses}"
    assert set(statuses) == {302}


def test_security_headers_on_every_page_kind(deployment: Deployment, browser: Browser) -> None:
    login = browser.get("/accounts/login/")
    logged_in = browser.log_in(DEMO_USER, DEMO_PASSWORD)
    pages = [login, browser.get("/"), browser.get("/campaigns/demo/"), browser.get("/no/such/page/")]
    assert [p.status_code for p in pages] == [200, 200, 200, 404]
    for page in pages:
        h = page.headers
        assert h["strict-transport-security"].startswith("max-age=31536000"), page.url
        assert h["x-content-type-options"] == "nosniff"
        assert h["x-frame-options"] == "DENY"
        assert h["referrer-policy"] == "same-origin"
        assert h["cross-origin-opener-policy"] == "same-origin"
        csp = h.get("content-security-policy", "")
        scripts = csp.split("script-src", 1)[-1].split(";")[0]
        assert "script-src 'self'" in csp and "unsafe-inline" not in scripts, (page.url, csp)
    csrf = next(v for v in login.headers.get_list("set-cookie") if v.startswith("csrftoken="))
    assert "Secure" in csrf and "SameSite=Lax" in csrf
    session = next(v for v in logged_in.headers.get_list("set-cookie") if v.startswith("sessionid="))
    assert "Secure" in session and "HttpOnly" in session and "SameSite=Lax" in session
    # plain HTTP (no proxy saying https) is sent to HTTPS
    plain = httpx.get(deployment.base + "/accounts/login/", follow_redirects=False)
    assert plain.status_code == 301 and plain.headers["location"].startswith("https://")


def test_a_token_upload_is_done_by_the_jobs_worker(deployment: Deployment, browser: Browser) -> None:
    browser.log_in(DEMO_USER, DEMO_PASSWORD)
    made = browser.post_form("/accounts/me/tokens/", {"name": "deployment test"}, form_page="/accounts/me/")
    assert made.status_code == 302 and made.headers["location"] == "/accounts/me/", made.headers
    page = browser.get("/accounts/me/").text
    token = re.search(r"(wbt_[A-Za-z0-9_-]{20,})", page)
    assert token, "the new token is not shown on My account"
    script = httpx.Client(
        base_url=deployment.base,
        headers={"Authorization": f"Token {token.group(1)}", "X-Forwarded-Proto": "https"},
        timeout=60,
    )
    with script:
        run = DEMO_RUN.read_bytes().replace(b" bm25\n", b" deployed\n")
        answer = script.post("/api/campaigns/demo/runs/import/", files={"files": ("deployed.run", run)})
        assert answer.status_code == 202, answer.text[:500]
        job_url = answer.json()["url"]
        deadline = time.monotonic() + 120
        while (job := script.get(job_url).json())["status"] in ("queued", "running"):
            assert time.monotonic() < deadline, f"the job did not finish: {job}"
            time.sleep(0.3)
    assert job["status"] == "done", job
    runs = browser.get("/api/campaigns/demo/runs/").json()
    assert "deployed" in {r["tag"] for r in (runs["results"] if isinstance(runs, dict) else runs)}


def _token(browser: Browser) -> str:
    made = browser.post_form("/accounts/me/tokens/", {"name": "a script"}, form_page="/accounts/me/")
    assert made.status_code == 302
    found = re.search(r"(wbt_[A-Za-z0-9_-]{20,})", browser.get("/accounts/me/").text)
    assert found, "the new token is not shown on My account"
    return found.group(1)


def _token_statuses(deployment: Deployment, token: str, count: int) -> list[int]:
    """``count`` API calls with ``token``, three at a time; asserts every worker answered some."""
    from concurrent.futures import ThreadPoolExecutor

    path = "/api/campaigns/"
    headers = {"Authorization": f"Token {token}", "X-Forwarded-Proto": "https"}
    before = len(deployment.access_lines())
    with ThreadPoolExecutor(WORKERS) as pool:
        statuses = list(
            pool.map(lambda _: httpx.get(deployment.base + path, headers=headers).status_code, range(count))
        )
    deadline = time.monotonic() + 10
    while len(served := _served_by(deployment, before, path)) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len({pid for pid, _ in served}) == WORKERS, served
    return statuses


def test_a_password_change_ends_the_other_sessions_on_every_worker(deployment: Deployment) -> None:
    deployment.account("changer", "first-password-1", "changer@example.org")
    here, elsewhere = Browser(deployment), Browser(deployment)
    try:
        here.log_in("changer", "first-password-1")
        elsewhere.log_in("changer", "first-password-1")
        assert set(_on_every_worker(deployment, elsewhere, "/accounts/me/", 9)) == {200}
        changed = here.post_form(
            "/accounts/me/password/",
            {
                "old_password": "first-password-1",
                "new_password1": "second-pass-2",
                "new_password2": "second-pass-2",
            },
        )
        assert changed.status_code == 302, changed.text[:500]
        elsewhere.frozen = True
        statuses = _on_every_worker(deployment, elsewhere, "/accounts/me/", 30)
        assert 200 not in statuses, f"the other session was still served: {statuses}"
        assert set(_on_every_worker(deployment, here, "/accounts/me/", 9)) == {200}  # this one stays
    finally:
        here.close()
        elsewhere.close()


def test_a_reset_by_e_mail_ends_every_session_and_token_on_every_worker(deployment: Deployment) -> None:
    deployment.account("forgetful", "old-password-1", "forgetful@example.org")
    them, stranger = Browser(deployment), Browser(deployment)
    try:
        them.log_in("forgetful", "old-password-1")
        token = _token(them)
        assert set(_token_statuses(deployment, token, 9)) == {200}
        before = len(deployment.mail.messages)
        asked = stranger.post_form("/accounts/password-reset/", {"email": "forgetful@example.org"})
        assert asked.status_code == 302
        deadline = time.monotonic() + 30
        while len(deployment.mail.messages) == before:
            assert time.monotonic() < deadline, "no reset mail reached the SMTP server"
            time.sleep(0.1)
        mail = deployment.mail.messages[-1].replace("=\r\n", "")
        link = re.search(r"https?://[^/\s]+(/accounts/password-reset/[^/\s]+/[^/\s]+/)", mail)
        assert link, mail
        opened = stranger.get(link.group(1))
        assert opened.status_code == 302, opened.status_code  # Django moves the token into the session
        form_page = opened.headers["location"]
        done = stranger.post_form(
            form_page, {"new_password1": "new-password-2", "new_password2": "new-password-2"}
        )
        assert done.status_code == 302 and done.headers["location"] == "/accounts/password-reset/done/"
        them.frozen = True
        statuses = _on_every_worker(deployment, them, "/accounts/me/", 30)
        assert 200 not in statuses, f"the session was still served after the reset: {statuses}"
        refused = _token_statuses(deployment, token, 30)
        # refused as any unknown token is (DRF answers 403 where session authentication comes first)
        assert set(refused) == {403}, f"the token still worked after the reset: {refused}"
        Browser(deployment).log_in("forgetful", "new-password-2")
    finally:
        them.close()
        stranger.close()
