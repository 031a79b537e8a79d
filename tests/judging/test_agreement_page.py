"""The agreement report page renders the SE / test / PABAK blocks and the conventions legend from
the same report objects as the command (``agreement_result`` → the result template)."""

from __future__ import annotations

from typing import Any

import pytest
from django.template.loader import render_to_string

from judging.agreement import agreement_report
from judging.reports.selectors import AgreementParams, agreement_result


def _page(label_sets: dict[str, list[tuple[str, str, int]]]) -> tuple[str, dict[str, Any]]:
    result = agreement_result(agreement_report(label_sets), AgreementParams())
    result["decimals"] = 4  # the job page sets it from the user's preference
    html = render_to_string("judging/results/agreement.html", {"result": result, "job": None})
    return html, result


def _rare() -> dict[str, list[tuple[str, str, int]]]:
    cells = [(0, 0)] * 85 + [(0, 1)] * 5 + [(1, 0)] * 5 + [(1, 1)] * 5
    return {
        "alice": [("1", f"d{k}", x) for k, (x, _) in enumerate(cells)],
        "bob": [("1", f"d{k}", y) for k, (_, y) in enumerate(cells)],
    }


def test_page_shows_pair_ses_pabak_and_the_paradox_warning() -> None:
    html, result = _page(_rare())
    i = result["pairs"][0]["inference"]
    assert 'id="inference-alice-bob"' in html and 'id="prevalence-alice-bob"' in html
    assert 'data-stat="ac2_quadratic"' in html
    # PABAK = 2 · 0.9 − 1 = 0.8, printed with the page's decimals
    assert i["binary"]["pabak"] == pytest.approx(0.8, abs=1e-12)
    assert '<td class="value">0.8000</td>' in html and '<td class="value">-0.8000</td>' in html
    assert "κ paradox" in html
    assert 'id="agreement-conventions"' in html and "POSITION" in html


def test_page_shows_the_group_block_for_three_assessors() -> None:
    sets = _rare()
    sets["carol"] = [(t, d, g) for t, d, g in sets["alice"][:60]]
    html, result = _page(sets)
    g = result["group"]["inference"]
    assert 'id="group-inference"' in html and 'data-stat="conger"' in html and 'data-stat="light"' in html
    assert g["fleiss_missing"]["items"] == 100 and g["fleiss_complete"]["items"] == 60


def test_the_report_leads_with_the_summary_table_and_collapses_the_rest() -> None:
    sets = _rare()
    sets["carol"] = [(t, d, g) for t, d, g in sets["alice"][:60]]
    html, result = _page(sets)
    summary = html.index('id="agreement-summary"')
    assert summary < html.index("<details") and summary == html.index("<table") + len("<table ")
    # one row per pair, then the group
    assert html.count('data-kind="pair"') == 3 and html.count('data-kind="group"') == 1
    assert 'data-a="alice" data-b="bob"' in html and "All 3 assessors" in html
    # conventions, pairs, group and rankings are collapsed details, none open
    for part in ("agreement-conventions-details", "details-alice-bob", "group-details", "systems-details"):
        assert f'id="{part}">' in html, part
    assert " open>" not in html and " open " not in html
    # alice and bob are RARE: P_o 0.9, κ 0.4444: the paradox, on the row's own κ
    row = result["summary"][0]
    assert row["paradox_in"] == ["kappa"] and row["paradox_text"] == "κ"
    assert '<tr class="pair paradox-flag"' in html
    assert '<td data-stat="cohen"><span class="value">0.4444</span>' in html


def test_a_report_stored_before_the_summary_table_keeps_its_sections_open() -> None:
    result = agreement_result(agreement_report(_rare()), AgreementParams())
    result["decimals"] = 4
    del result["summary"]  # a job result stored by an earlier version
    html = render_to_string("judging/results/agreement.html", {"result": result, "job": None})
    assert 'id="agreement-summary"' not in html
    assert 'id="details-alice-bob" open>' in html
