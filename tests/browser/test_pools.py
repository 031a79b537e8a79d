"""An organizer builds a pool in the browser: form, live progress, per-topic sizes, commit."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import Permission, User
from playwright.sync_api import Page, expect

from campaigns.services import campaign_create, membership_add, runs_import, topics_import
from jobs.models import Job
from pooling.models import Pool
from tests.browser.conftest import LogIn
from tests.conftest import WorkerProcess, demo_dir, demo_run_paths


def test_organizer_builds_watches_and_commits_a_pool(
    page: Page, log_in: LogIn, worker_process: Callable[..., WorkerProcess]
) -> None:
    # a real worker process (manage.py jobs_worker) runs the job while the page polls its progress
    worker = worker_process()
    organizer = User.objects.create_user("org", password="pw-organizer-1")
    organizer.user_permissions.add(Permission.objects.get(codename="add_campaign"))
    campaign = campaign_create(slug="demo", name="Demo")
    membership_add(campaign=campaign, user=organizer, roles=["organizer"])
    topics_import(campaign=campaign, path=demo_dir() / "topics.txt")
    runs_import(campaign=campaign, paths=demo_run_paths())

    log_in(page, "org", "pw-organizer-1")
    page.goto("/campaigns/demo/")
    expect(page.locator("#run-count")).to_have_text("4")
    page.get_by_role("link", name="Build a pool").click()
    page.fill("#name", "strata")
    page.select_option("#strategy", "stratified")
    # only the stratified parameters are shown
    expect(page.locator("#strata")).to_be_visible()
    expect(page.locator("#rrf_k")).to_be_hidden()
    page.fill("#strata", "5,20")
    page.fill("#rates", "1,0.5")
    page.get_by_role("button", name="Build draft pool").click()

    # the job page: a progress bar, then the result when the worker is done (the page reloads itself)
    expect(page.locator("#job progress")).to_be_attached()
    expect(page.locator("#job-status")).to_have_text("done", timeout=20_000)
    job = Job.objects.get(kind="pool_build")
    assert job.status == Job.Status.DONE and job.total > 0 and job.done == job.total
    assert job.worker.endswith(f":{worker.pid}")
    page.locator("#pool-link").click()

    pool = Pool.objects.get(campaign=campaign, name="strata")
    expect(page.locator("#pool-status")).to_have_text("draft")
    rows = page.locator("#pool-sizes tbody tr")
    expect(rows).to_have_count(len(pool.sizes))
    first = sorted(pool.sizes, key=str.encode)[0]
    cells = rows.first.locator("td")
    expect(cells.nth(0)).to_have_text(first)
    expect(cells.nth(1)).to_have_text(str(pool.sizes[first]["judge"]))
    expect(cells.nth(2)).to_have_text(str(pool.sizes[first]["universe"]))
    page.locator("#commit").click()
    expect(page.locator("#pool-status")).to_have_text("committed")
    pool.refresh_from_db()
    assert pool.status == Pool.Status.COMMITTED
