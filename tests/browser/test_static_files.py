"""Static files reach the browser under the live server, where DEBUG is False (pytest-django serves
them with django.contrib.staticfiles' handler, as StaticLiveServerTestCase does)."""

from __future__ import annotations

from django.conf import settings
from playwright.sync_api import Page, Response, expect


def test_admin_stylesheets_are_served_and_applied(page: Page) -> None:
    assert settings.DEBUG is False
    css: list[Response] = []
    page.on("response", lambda r: css.append(r) if r.request.resource_type == "stylesheet" else None)
    page.goto("/admin/login/")
    expect(page.locator("#login-form")).to_be_visible()
    assert css, "the admin login page requested no stylesheet"
    assert {r.status for r in css} == {200}, [(r.url, r.status) for r in css]
    assert any(r.url.endswith("/static/admin/css/base.css") for r in css)
    loaded = page.evaluate(
        "[...document.styleSheets].filter(s => (s.href || '').endsWith('/admin/css/base.css'))"
        ".map(s => s.cssRules.length)"
    )
    assert loaded and loaded[0] > 0
