"""The agreement report's calibration table words the largest rank change truthfully: a run that
moves is named with its two ranks, and when no run moves the table says so (not "bm25: 5 → 5")."""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string


def _shown(shifts: list[dict[str, Any]]) -> str:
    correlations = [
        {"measure": s["measure"], "tau_b": 1.0, "tau_ap_ab": 1.0, "tau_ap_ba": 1.0} for s in shifts
    ]
    calibration = {
        "machine": "llm",
        "rule": "majority",
        "humans": ["alice"],
        "pair": {"items": 3, "only_a": 0, "only_b": 0, "overall": {"labels": []}, "matrix_rows": []},
        "systems": {"correlations": correlations},
        "shifts": shifts,
        "topics": [],
    }
    page = render_to_string(
        "judging/results/agreement.html", {"result": {"decimals": 3, "calibrations": [calibration]}}
    )
    return " ".join(page.split())


def _shift(measure: str, run: str, human: int, machine: int) -> dict[str, Any]:
    return {
        "measure": measure,
        "run": run,
        "human_rank": human,
        "machine_rank": machine,
        "change": machine - human,
    }


def test_no_rank_change_is_said_in_words() -> None:
    shown = _shown([_shift("map", "bm25", 5, 5)])
    assert "bm25: 5 → 5" not in shown
    assert '<td class="text">no rank changed</td>' in shown


def test_a_run_that_moves_is_named_with_both_ranks() -> None:
    shown = _shown([_shift("map", "bm25", 5, 2), _shift("P_10", "dense", 1, 1)])
    assert "bm25: 5 → 2" in shown and "no rank changed" in shown and "dense: 1 → 1" not in shown
