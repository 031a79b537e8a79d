"""Content-Security-Policy in the browser: the check every browser test runs (conftest's ``page``)
sees violations, and the pages no other browser test opens (errors, the admin, the API's browsable
pages) report none."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page, Route, expect
from pytest_django.live_server_helper import LiveServer

from tests.browser.conftest import LogIn, flush_csp_reports, watch_csp_violations

PROBE = """<!doctype html><html><head><title>probe</title></head>
<body><p style="color:red">styled</p><script>document.title = "ran";</script></body></html>"""


def test_the_check_sees_an_inline_script_and_an_inline_style(
    browser: Browser, live_server: LiveServer
) -> None:
    context = browser.new_context(base_url=live_server.url)
    violations = watch_csp_violations(context)

    def serve(route: Route) -> None:  # the workbench's own policy, on a page that breaks it twice
        head = live_server.url + "/accounts/login/"
        policy = context.request.get(head).headers["content-security-policy"]
        route.fulfill(body=PROBE, content_type="text/html", headers={"Content-Security-Policy": policy})

    page = context.new_page()
    page.route("**/csp-probe", serve)
    page.goto("/csp-probe")
    flush_csp_reports(page)
    assert page.title() == "probe"  # the inline script did not run
    context.close()
    text = "\n".join(violations)
    assert "script-src" in text and "style-src" in text, violations


def _superuser() -> Any:
    return get_user_model().objects.create_superuser("root", "root@example.org", "root-password-1")


def test_error_admin_and_api_pages_report_no_violation(page: Page, log_in: LogIn) -> None:
    _superuser()
    answers = []
    page.on("response", lambda r: answers.append(r) if r.request.resource_type == "document" else None)
    page.goto("/accounts/login/")
    log_in(page, "root", "root-password-1")
    for path, status in [
        ("/", 200),
        ("/no-such-page/", 404),
        ("/admin/", 200),
        ("/admin/campaigns/campaign/", 200),
        ("/admin/campaigns/campaign/add/", 200),
        ("/admin/auth/user/1/change/", 200),
        ("/api/campaigns/", 200),  # DRF's browsable page: the one allowance, style="" attributes
        ("/api/no-such-thing/", 404),
        ("/accounts/me/", 200),
    ]:
        answer = page.goto(path)
        assert answer is not None and answer.status == status, (path, answer and answer.status)
        expect(page.locator("body")).to_be_visible()
    for answer in answers:
        policy = answer.headers.get("content-security-policy", "")
        assert (
            "script-src 'self'" in policy
            and "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
        )
