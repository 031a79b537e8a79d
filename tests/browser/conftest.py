"""Browser tests: a real headless Chromium, driven by Playwright, against pytest-django's ``live_server``.

The browser is Debian's ``chromium`` (``/usr/bin/chromium``, or the binary named by ``WORKBENCH_CHROMIUM``),
which ``./workbench.sh test`` installs with apt-get when it can. Playwright's own browser downloads are
never used (``playwright install`` needs internet access that developers' machines and CI do not have).
Without the binary these tests skip with the reason, except under CI (``CI`` set), where they fail.

Fixtures (every test under tests/browser is marked ``browser``; deselect with ``-m "not browser"``):

``browser``   the package's one headless Chromium (``playwright.sync_api.Browser``).
``page``      a fresh ``Page`` in a new browser context (own cookies) per test, whose ``base_url`` is the
              live server, so ``page.goto("/")`` works; uses ``live_server``, hence ``transactional_db``.
              The test fails at teardown if any page of the context reported a Content-Security-Policy
              violation (the ``securitypolicyviolation`` event, or a console message about the policy).
``log_in``    ``log_in(page, username, password)`` logs in through the real login form and returns once
              the browser has left the login page (fails with the page's error text otherwise).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright
from playwright.sync_api import Error as PlaywrightError
from pytest_django.live_server_helper import LiveServer

CHROMIUM = os.environ.get("WORKBENCH_CHROMIUM", "/usr/bin/chromium")
# Container-friendly flags: as root Chromium refuses to start without --no-sandbox, and Docker's small
# /dev/shm makes renderers crash without --disable-dev-shm-usage.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage"]
TIMEOUT_MS = 15_000

LogIn = Callable[[Page, str, str], None]

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in item.path.parents:
            item.add_marker(pytest.mark.browser)


def _chromium_or_skip() -> str:
    path = shutil.which(CHROMIUM)
    if path:
        return path
    reason = (
        f"Chromium not found at {CHROMIUM}: run ./workbench.sh test (installs Debian's chromium as root "
        "or with passwordless sudo), or 'sudo apt-get install chromium', or set WORKBENCH_CHROMIUM"
    )
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the browser tests: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="package")
def playwright() -> Iterator[Playwright]:
    _chromium_or_skip()  # before starting Playwright's driver
    # Playwright's sync API runs an asyncio event loop on the test thread (in a greenlet) for as long as
    # it is started, so Django's async-safety check sees a "running loop" and raises
    # SynchronousOnlyOperation on every ORM call the test thread makes (creating users, call_command,
    # transactional_db's flush). Those calls are plain synchronous code, never run inside the loop, so
    # the check is a false positive: DJANGO_ALLOW_ASYNC_UNSAFE is the documented switch. It is set only
    # while Playwright runs (package scope) instead of for the whole session, so the check stays on for
    # the rest of the suite; the live server's threads have no loop and are unaffected either way.
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as pw:
            yield pw


@pytest.fixture(scope="package")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(
        executable_path=_chromium_or_skip(), headless=True, args=CHROMIUM_ARGS
    )
    yield browser
    browser.close()


# Every document reports the Content-Security-Policy violations the browser finds in it to the test
# (an init script runs before the page's own HTML and scripts; the exposed function survives
# navigations); the browser's console messages about CSP count too. The page fixture fails the test
# at teardown, naming each violation.
_REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.__workbenchCspViolation(
    `${e.effectiveDirective} refused ${e.blockedURI || "inline"} on ${e.documentURI}` +
      (e.sourceFile ? ` (${e.sourceFile}:${e.lineNumber})` : "") + (e.sample ? `: ${e.sample}` : "")
  );
});
"""


def watch_csp_violations(context: BrowserContext) -> list[str]:
    """The list that every CSP violation reported in ``context``'s pages is appended to, from now on."""
    violations: list[str] = []

    def report(text: str) -> None:
        violations.append(text)

    context.expose_function("__workbenchCspViolation", report)
    context.add_init_script(_REPORT_CSP_VIOLATIONS)
    context.on(
        "console",
        lambda m: violations.append(f"console: {m.text}") if "Content Security Policy" in m.text else None,
    )
    return violations


def flush_csp_reports(page: Page) -> None:
    """Wait for the reports still on their way from ``page`` (one round trip to it)."""
    if not page.is_closed():
        with contextlib.suppress(PlaywrightError):
            page.evaluate("0")


@pytest.fixture
def page(browser: Browser, live_server: LiveServer) -> Iterator[Page]:
    """A fresh page in its own context; the test fails if the browser reported any CSP violation."""
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(TIMEOUT_MS)
    violations = watch_csp_violations(context)
    page = context.new_page()
    yield page
    flush_csp_reports(page)
    context.close()
    if violations:
        pytest.fail("Content-Security-Policy violations:\n" + "\n".join(violations), pytrace=False)


def _log_in(page: Page, username: str, password: str) -> None:
    login_path = reverse("login")
    page.goto(login_path)
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.click("form button[type=submit]")
    if urlsplit(page.url).path == login_path:
        errors = page.locator(".errors").all_inner_texts()
        pytest.fail(f"log in as {username!r} failed: {errors or page.content()[:500]}", pytrace=False)


@pytest.fixture
def log_in() -> LogIn:
    """``log_in(page, username, password)``: log in through the real login form (lands on the home page)."""
    return _log_in
