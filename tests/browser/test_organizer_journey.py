"""An organizer builds a campaign from nothing through its guided overview, clicking only what the
pages offer: create it, import topics, runs and documents, build and commit a pool, add people,
assign, reassign. Screenshots of the steps go to ``WORKBENCH_SCREENSHOTS`` when it is set."""

from __future__ import annotations

import os
from pathlib import Path

from django.contrib.auth.models import Permission, User
from playwright.sync_api import Page, expect

from judging.models import Assignment
from pooling.models import Pool
from tests.browser.conftest import LogIn
from tests.conftest import demo_dir, demo_run_paths


def shot(page: Page, name: str) -> None:
    folder = os.environ.get("WORKBENCH_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def back_to_campaign(page: Page) -> None:
    page.locator("nav.crumbs").get_by_role("link", name="Journey 2026").click()
    expect(page.locator("#steps")).to_be_visible()


def expect_step(page: Page, key: str, state: str) -> None:
    expect(page.locator(f"#step-{key}")).to_have_attribute("data-state", state)


def test_an_organizer_builds_a_campaign_from_nothing_through_the_guided_page(
    page: Page, log_in: LogIn
) -> None:
    organizer = User.objects.create_user("org", password="pw-organizer-1")
    organizer.user_permissions.add(Permission.objects.get(codename="add_campaign"))
    log_in(page, "org", "pw-organizer-1")

    page.locator("header").get_by_role("link", name="Campaigns").click()
    page.fill("#slug", "journey")
    page.fill("#name", "Journey 2026")
    page.get_by_role("button", name="Create campaign").click()
    expect(page.locator("h1")).to_have_text("Journey 2026")
    expect(page.locator("#steps > li.current")).to_have_id("step-topics")
    shot(page, "01-empty-campaign")

    # topics, then runs, each from the current step's own action
    page.locator("#steps > li.current .step-action a").click()
    page.locator("#topics-files").set_input_files(str(demo_dir() / "topics.txt"))
    page.locator("#import-topics").get_by_role("button", name="Import topics").click()
    expect(page.locator("#job-status")).to_have_text("done")
    back_to_campaign(page)
    expect_step(page, "topics", "done")
    expect(page.locator("#topic-count")).to_have_text("5")
    expect(page.locator("#steps > li.current")).to_have_id("step-runs")

    page.locator("#step-runs .step-action a").click()
    page.locator("#runs-files").set_input_files([str(p) for p in demo_run_paths()])
    page.get_by_role("button", name="Validate and import").click()
    expect(page.locator("#job-status")).to_have_text("done")
    back_to_campaign(page)
    expect(page.locator("#run-count")).to_have_text(str(len(demo_run_paths())))
    # documents are optional, so the page points at the pool; the organizer imports them anyway
    expect(page.locator("#steps > li.current")).to_have_id("step-pool")
    page.locator("#step-documents .step-action a").click()
    page.locator("#documents-files").set_input_files(str(demo_dir() / "documents.tsv"))
    page.locator("#import-documents").get_by_role("button", name="Import documents").click()
    expect(page.locator("#job-status")).to_have_text("done")
    back_to_campaign(page)
    expect_step(page, "documents", "done")
    shot(page, "02-data-imported")

    # the pool: build a draft, then the step points at committing it
    page.locator("#steps > li.current .step-action a").click()
    page.fill("#name", "depth10")
    page.select_option("#strategy", "depth")
    page.fill("#depth", "10")
    page.get_by_role("button", name="Build draft pool").click()
    expect(page.locator("#job-status")).to_have_text("done")
    back_to_campaign(page)
    expect_step(page, "pool", "in progress")
    page.locator("#step-pool .step-action a").click()
    page.locator("#commit").click()
    expect(page.locator("#pool-status")).to_have_text("committed")
    back_to_campaign(page)
    expect_step(page, "pool", "done")
    expect(page.locator("#steps > li.current")).to_have_id("step-people")

    # people: two new assessors, each password shown once with a copy button
    page.locator("#steps > li.current .step-action a").click()
    for name in ("alice", "bob"):
        page.fill("#username", name)
        page.get_by_role("button", name="Add", exact=True).click()
        expect(page.locator("#revealed h2")).to_have_text(f"Password of {name}")
        password = page.locator("#revealed-password").inner_text()
        assert User.objects.get(username=name).check_password(password)
    page.locator("#copy-password").click()
    expect(page.locator("#copy-done")).to_be_visible()
    shot(page, "03-people-password-once")
    back_to_campaign(page)
    expect_step(page, "people", "done")

    # assignments: deal the pool to both, one assessor per document
    page.locator("#steps > li.current .step-action a").click()
    page.locator("#assessors").get_by_role("button", name="Select all shown").click()
    page.get_by_role("button", name="Create assignments").click()
    expect(page.locator("#assessors input:checked")).to_have_count(2)  # the form kept its choice
    pool = Pool.objects.get(name="depth10")
    expect(page.locator("#assignments tbody tr")).to_have_count(Assignment.objects.filter(pool=pool).count())
    # reassign alice's first topic to bob: nothing judged yet, so it all moves
    first = Assignment.objects.filter(pool=pool, assessor__username="alice").order_by("topic__number").first()
    assert first is not None
    row = page.locator(f"#assignment-{first.pk}")
    row.locator("summary").click()
    row.get_by_role("button", name="Reassign").click()
    expect(page.locator(".messages")).to_contain_text("is now bob")
    assert not Assignment.objects.filter(pk=first.pk).exists()
    assert Assignment.objects.filter(pool=pool, topic=first.topic, assessor__username="bob").exists()
    shot(page, "04-assignments")

    back_to_campaign(page)
    expect_step(page, "assignments", "done")
    expect_step(page, "judging", "not started")
    expect(page.locator("#steps > li.current")).to_have_id("step-judging")
    shot(page, "05-ready-to-judge")
