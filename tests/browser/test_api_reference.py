"""The API reference in a real browser, under the strict Content-Security-Policy (the ``page``
fixture fails on any violation): reached from My account, it renders every operation of the
schema, and "Authorize" with an API token makes "Try it out" call as that token, without the
browser's session."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Page, expect

from campaigns.accounts.models import ApiToken
from campaigns.accounts.services import api_token_create
from campaigns.models import Campaign
from tests.browser.conftest import LogIn
from tests.conftest import PASSWORD

SHOTS = Path(os.environ.get("WORKBENCH_SCREENSHOTS", "/tmp/workbench-screenshots"))


def _operations() -> int:
    schema = Client().get(reverse("schema"), HTTP_ACCEPT="application/json").json()
    return sum(len(ops) for ops in schema["paths"].values())


@pytest.mark.parametrize("width", [1366, 390])
def test_from_my_account_to_the_reference_and_a_call_with_a_token(
    page: Page, log_in: LogIn, campaign: Campaign, organizer: Any, width: int
) -> None:
    _, token = api_token_create(user=organizer, name="reference test")
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, organizer.username, PASSWORD)
    page.get_by_role("link", name="My account").click()
    expect(page.locator("#api-tokens")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # My account fits a phone
    page.locator("#api-tokens").get_by_role("link", name="API reference").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("API reference")
    # Swagger UI (1.5 MB) and the schema load after the page: give them time on a busy machine
    expect(page.locator(".opblock")).to_have_count(_operations(), timeout=60_000)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"api-reference-{width}.png"))

    page.locator(".swagger-ui .auth-wrapper button.authorize").click()
    scheme = page.locator(".auth-container").filter(has_text="tokenAuth")
    scheme.locator("input").fill(f"Token {token}")
    scheme.locator("button.authorize").click()  # its accessible name is "Apply credentials"
    expect(scheme.locator("button", has_text="Logout")).to_be_visible()
    page.screenshot(path=str(SHOTS / f"api-reference-authorized-{width}.png"))
    page.locator(".modal-ux .close-modal").click()

    listing = page.locator(".opblock-get").filter(has=page.locator('[data-path="/api/campaigns/"]'))
    listing.locator(".opblock-summary").click()
    listing.get_by_role("button", name="Try it out").click()
    with page.expect_request(re.compile(r"/api/campaigns/$")) as sent:
        listing.get_by_role("button", name="Execute").click()
    headers = sent.value.all_headers()
    assert headers.get("authorization") == f"Token {token}"
    assert "sessionid" not in headers.get("cookie", "")  # the token alone, not the browser's session
    expect(listing.locator(".live-responses-table tbody td.response-col_status").first).to_have_text("200")
    expect(listing.locator(".live-responses-table")).to_contain_text(campaign.slug)
    assert ApiToken.objects.get(user=organizer).last_used is not None
    page.screenshot(path=str(SHOTS / f"api-reference-tried-{width}.png"), full_page=False)
