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
