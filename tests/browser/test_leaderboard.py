"""The leaderboard, a run page and the significance matrix in a real browser, with real SVG charts.

The organizer evaluates the demo campaign through the page (the embedded worker runs the job while
the page shows its progress bar), then checks the table against the engine, sorts it by clicking
headers, opens a run page with its per-topic bars and P-R curve, and computes a significance matrix.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

from django.core.management import call_command
from playwright.sync_api import Page, expect

from campaigns.models import QrelsSet
from engine.evaluate import Judgments, evaluate_run
from engine.names import parse_measures
from metrics.models import Evaluation, EvaluationRun
from metrics.services import evaluation_run
from metrics.sources import JudgmentSource
from tests.browser.conftest import LogIn
from tests.conftest import WorkerProcess, demo_dir, demo_runs

SHOTS = Path(os.environ.get("WORKBENCH_SCREENSHOTS", "/tmp/workbench-screenshots"))
DEMO_RUNS = ("bm25", "bm25_rm3", "dense_retriever", "random_baseline")
TOPICS = 5


def engine(measure: str) -> dict[str, float]:
    """``measure`` of each demo run through the engine, on the demo files."""
    from trec import read_qrels

    judgments = Judgments(read_qrels(demo_dir() / "qrels.txt"))
    ms = parse_measures([measure])
    return {r.name: evaluate_run(judgments, r, ms).summary[measure] for r in demo_runs()}


def column(page: Page, index: int) -> list[str]:
    return page.locator(f"#leaderboard tbody tr td:nth-child({index})").all_inner_texts()


def test_organizer_evaluates_sorts_and_reads_the_leaderboard(
    page: Page, log_in: LogIn, worker_process: Callable[..., WorkerProcess]
) -> None:
    worker_process()  # a real `manage.py jobs_worker` process runs the evaluation
    call_command("workbench_demo", stdout=io.StringIO())
    Evaluation.objects.all().delete()  # the demo stores one; this test evaluates from the page
    log_in(page, "organizer", "organizer-demo")
    page.goto("/campaigns/demo/evaluation/")
    # the demo's imported reference judgments are the default source; nothing evaluated yet
    expect(page.locator("#source-label")).to_contain_text("imported judgments 'reference'")
    expect(page.locator("#leaderboard")).to_have_count(0)
    page.get_by_role("button", name="Evaluate all runs").click()
    # the job runs on the worker process; the page shows its progress bar (if still running) and
    # reloads itself when it ends
    expect(page.locator("#leaderboard tbody tr")).to_have_count(len(DEMO_RUNS), timeout=20_000)
    evaluation = Evaluation.objects.get()
    assert evaluation.job is not None and evaluation.job.done == len(DEMO_RUNS)

    header = page.locator("#leaderboard thead th").all_inner_texts()
    assert [h.strip(" ▼▲") for h in header] == [
        "#",
        "Run",
        "bpref",
        "infAP",
        "AP",
        "nDCG@10",
        "P@10",
        "judged@10",
    ]
    aps = engine("map")
    runs = column(page, 2)
    assert set(runs) == set(DEMO_RUNS) and runs[-1] == "random_baseline"
    assert column(page, 5) == [f"{aps[r]:.4f}" for r in runs]
    shown = [float(v) for v in column(page, 5)]
    assert shown == sorted(shown, reverse=True)  # best AP first

    # the charts: one bar per run (in leaderboard order), one 11-point P-R curve per run
    bars = page.locator("#leaderboard-chart rect.chart-bar")
    expect(bars).to_have_count(len(DEMO_RUNS))
    assert [bars.nth(i).get_attribute("data-label") for i in range(4)] == runs
    assert [bars.nth(i).get_attribute("data-value") for i in range(4)] == column(page, 5)
    widths = [float(bars.nth(i).bounding_box()["width"]) for i in range(4)]  # type: ignore[index]
    assert widths == sorted(widths, reverse=True) and widths[-1] > 0
    expect(page.locator("#pr-chart g.series")).to_have_count(len(DEMO_RUNS))
    expect(page.locator("#pr-chart g.series").first.locator("circle.point")).to_have_count(11)

    # sorting by clicking a header: bpref best first, then reversed; then by run name
    bpref = page.locator("#leaderboard thead th", has_text="bpref")
    bpref.click()
    expect(bpref).to_have_attribute("aria-sort", "descending")
    values = [float(v) for v in column(page, 3)]
    assert values == sorted(values, reverse=True)
    assert column(page, 1) == ["1", "2", "3", "4"]  # positions follow the order
    bpref.click()
    expect(bpref).to_have_attribute("aria-sort", "ascending")
    assert [float(v) for v in column(page, 3)] == sorted(values)
    page.locator("#leaderboard thead th", has_text="Run").click()
    assert column(page, 2) == sorted(DEMO_RUNS)


def test_run_page_draws_per_topic_bars_against_median_and_best(page: Page, log_in: LogIn) -> None:
    call_command("workbench_demo", stdout=io.StringIO())
    qset = QrelsSet.objects.get(name="reference")
    evaluation = evaluation_run(
        campaign=qset.campaign, source=JudgmentSource(kind="qrels", qrels_set=qset.pk)
    )
    log_in(page, "organizer", "organizer-demo")
    page.goto("/campaigns/demo/evaluation/")
    page.locator("#leaderboard").get_by_role("link", name="bm25", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Run bm25")

    row = EvaluationRun.objects.get(evaluation=evaluation, tag="bm25")
    bars = page.locator("#topic-chart rect.chart-bar")
    expect(bars).to_have_count(TOPICS)
    expect(page.locator("#topic-chart line.median")).to_have_count(TOPICS)
    expect(page.locator("#topic-chart line.best")).to_have_count(TOPICS)
    assert [bars.nth(i).get_attribute("data-topic") for i in range(TOPICS)] == row.topics
    assert [bars.nth(i).get_attribute("data-value") for i in range(TOPICS)] == [
        f"{v:.4f}" for v in row.per_topic["map"]
    ]
    # a bar's drawn height is proportional to its value (the best tick of a topic bm25 wins sits on top)
    heights = [bars.nth(i).bounding_box()["height"] for i in range(TOPICS)]  # type: ignore[index]
    ratio = [h / v for h, v in zip(heights, row.per_topic["map"], strict=True) if v > 0]
    assert max(ratio) - min(ratio) < 0.02 * max(ratio)
    # the P-R curve of the run and the median of all runs, 11 points each
    expect(page.locator("#pr-chart circle.point")).to_have_count(22)
    expect(page.locator("#per-topic tbody tr")).to_have_count(TOPICS)

    # another measure redraws the bars; the per-topic table sorts by a click
    page.select_option("#measure", "P_10")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("heading", name="P@10 per topic")).to_be_visible()
    assert page.locator("#topic-chart rect.chart-bar").first.get_attribute("data-value") == (
        f"{row.per_topic['P_10'][0]:.4f}"
    )
    page.locator("#per-topic thead th", has_text="P@10").click()
    cells = [float(v) for v in page.locator("#per-topic tbody tr td:nth-child(2)").all_inner_texts()]
    assert cells == sorted(cells, reverse=True)


def test_significance_matrix_in_the_browser(page: Page, log_in: LogIn) -> None:
    call_command("workbench_demo", stdout=io.StringIO())
    qset = QrelsSet.objects.get(name="reference")
    evaluation = evaluation_run(
        campaign=qset.campaign, source=JudgmentSource(kind="qrels", qrels_set=qset.pk)
    )
    log_in(page, "organizer", "organizer-demo")
    # from the campaign page, as an organizer finds it: the leaderboard, then its significance link
    page.goto("/campaigns/demo/")
    page.locator("a[href='/campaigns/demo/evaluation/']").first.click()
    page.locator("#significance-link").click()
    expect(page).to_have_url(f"/campaigns/demo/evaluation/{evaluation.pk}/significance/")
    page.select_option("#test", "sign")
    page.select_option("#correction", "bonferroni")
    page.get_by_role("button", name="Compare").click()
    rows = page.locator("#significance tbody tr")
    expect(rows).to_have_count(len(DEMO_RUNS))
    expect(page.locator("#significance td[data-direction]")).to_have_count(12)
    expect(page.get_by_role("heading", level=2).first).to_contain_text("sign test, Bonferroni")
    # the best run is the first row, and it is ahead (▲) of every other run
    expect(rows.first.locator("th")).to_contain_text("dense_retriever")
    assert rows.first.locator("td[data-direction]").all_inner_texts()[0].startswith("▲")
    # below the matrix: effect sizes for the 6 pairs, the ANOVA table, Friedman/Nemenyi, conventions
    expect(page.locator("#effect-sizes tbody tr")).to_have_count(6)
    expect(page.locator("#standardized-effects tbody tr")).to_have_count(6)
    expect(page.locator("#standardized-effects thead")).to_contain_text("Hedges' gav")
    expect(page.locator("#kendall-w")).to_have_text(f"{_kendall_w_of_map():.3f}")
    expect(page.locator("#anova tbody tr")).to_have_count(4)
    expect(page.locator("#nemenyi tbody tr")).to_have_count(6)
    expect(page.locator("#conventions")).to_contain_text("two-sided")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "significance.png"), full_page=True)
    for width, height in ((1366, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(SHOTS / f"significance-top-{width}.png"))
        page.locator("#standardized-effects").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"significance-effects-{width}.png"))
        page.locator("#friedman-summary").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"significance-friedman-{width}.png"))
        # the wide tables scroll inside their box; nothing else of the page is wider than the screen
        # (the site header's own width is the base template's)
        wide = page.evaluate(
            "Array.from(document.querySelectorAll('main *'))"
            f".filter((e) => e.getBoundingClientRect().right > {width + 1} && !e.closest('.scroll-x'))"
            ".map((e) => e.tagName + '#' + e.id + '.' + e.className)"
        )
        assert wide == []


def _kendall_w_of_map() -> float:
    """Kendall's W of the demo runs on map, through the engine: χ²_F / (topics × (runs − 1))."""
    from scipy import stats

    scores = list(engine_per_topic("map").values())
    return float(stats.friedmanchisquare(*scores).statistic) / (TOPICS * (len(scores) - 1))


def engine_per_topic(measure: str) -> dict[str, list[float]]:
    """``measure`` per topic of each demo run through the engine, on the demo files."""
    from trec import read_qrels

    judgments = Judgments(read_qrels(demo_dir() / "qrels.txt"))
    ms = parse_measures([measure])
    return {r.name: list(evaluate_run(judgments, r, ms).per_topic[measure]) for r in demo_runs()}


def test_the_page_follows_a_queued_evaluation_until_it_ends(
    page: Page, log_in: LogIn, settings: object
) -> None:
    call_command("workbench_demo", stdout=io.StringIO())
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}  # type: ignore[attr-defined]  # waits for a worker
    log_in(page, "organizer", "organizer-demo")
    page.goto("/campaigns/demo/evaluation/")
    page.get_by_role("button", name="Evaluate all runs").click()
    expect(page.locator("#job-progress")).to_be_attached()
    expect(page.locator("#job-status")).to_have_text("queued")
    expect(page.locator("#evaluate-form")).to_have_count(0)  # no second evaluation of the same source
    # a worker takes it; the page's poll sees it finished and reloads
    call_command("jobs_worker", "--batch", "--no-startup-delay", verbosity=0)
    expect(page.locator("#leaderboard tbody tr")).to_have_count(len(DEMO_RUNS), timeout=20_000)
    expect(page.locator("#job-progress")).to_have_count(0)
