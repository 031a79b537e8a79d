"""A refused run import seen in the browser: the refusal in the error's red (not a full blue bar),
each error once, the lines counted as read, refused and accepted; at a desktop's width and a
phone's (nothing wider than the screen)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from campaigns.models import Campaign
from tests.browser.conftest import LogIn
from tests.conftest import PASSWORD

SHOTS = Path(os.environ.get("WORKBENCH_SCREENSHOTS", "/tmp/workbench-screenshots"))
ERROR_RED = "rgb(170, 17, 17)"  # #a11, base.css's error colour
BROKEN = (
    "401 Q0 d1 1 0.5 broken\n"
    "401 Q0 d2 2 abc broken\n"
    "401 Q0 d3 3\n"
    "999 Q0 d4 1 0.2 broken\n"
    "401 Q0 d1 5 0.1 broken\n"
)


@pytest.mark.parametrize("width", [1366, 390])
def test_a_refused_run_import_in_the_browser(
    page: Page, log_in: LogIn, loaded: Campaign, organizer: Any, tmp_path: Path, width: int
) -> None:
    run = tmp_path / "broken.run"
    run.write_text(BROKEN)
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, organizer.username, PASSWORD)
    page.goto(reverse("campaigns:import", args=[loaded.slug]))
    page.locator("#runs-files").set_input_files(str(run))
    page.locator("#import-runs").get_by_role("button", name="Validate and import").click()
    expect(page.locator("#job-status")).to_have_text("failed")

    refused = page.locator("#job-errors")
    expect(refused).to_contain_text("Nothing of this job was stored")
    assert refused.evaluate("e => getComputedStyle(e).borderLeftColor") == ERROR_RED
    expect(page.locator("progress")).to_have_count(0)
    for line in (
        "broken.run:2: error:",
        "broken.run:3: error:",
        "broken.run:4: error:",
        "broken.run:5: error:",
    ):
        expect(page.get_by_text(line)).to_have_count(1)
    row = page.locator("tr.file").filter(has_text="broken.run")
    expect(row.locator("td")).to_have_text(
        ["broken.run", "broken", "5", "4", "1", "2", "4 error(s) 1 warning(s)"]
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"import-refused-{width}.png"), full_page=True)
