"""The summary table every agreement report leads with (docs/agreement.md#the-summary-table): one
row per pair and one for the group, each coefficient with its CI, and the κ paradox flag."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from judging.agreement import agreement_report, report_as_dict, summary_rows
from judging.cli import text_lines
from tests.judging.test_agreement_report import noisy_assessors

Z95 = 1.959963984540054


def _cells(cells: list[tuple[int, int]], topic: str = "1") -> dict[str, list[tuple[str, str, int]]]:
    return {
        "alice": [(topic, f"d{k}", x) for k, (x, _) in enumerate(cells)],
        "bob": [(topic, f"d{k}", y) for k, (_, y) in enumerate(cells)],
    }


# Manning et al.'s table, grade 0 first: P_o 0.925, κ 0.7761194 (docs/agreement.md#worked-examples)
IIR = [(0, 0)] * 70 + [(0, 1)] * 10 + [(1, 0)] * 20 + [(1, 1)] * 300
# rare relevant documents: P_o 0.9, κ 0.444, AC1 0.878 (Byrt, Bishop & Carlin's paradox)
RARE = [(0, 0)] * 85 + [(0, 1)] * 5 + [(1, 0)] * 5 + [(1, 1)] * 5


def test_a_pairs_row_is_its_concatenated_tables_kappa_weighted_kappa_ac1_and_alpha() -> None:
    sm = pytest.importorskip("statsmodels.stats.inter_rater", reason="statsmodels is in the test extra")
    krippendorff = pytest.importorskip("krippendorff", reason="krippendorff is in the test extra")
    sets = noisy_assessors(topics=6, docs=25, seed=1)
    two = {k: sets[k] for k in list(sets)[:2]}
    report = agreement_report(two, bootstrap=200, seed=3)
    (row,) = summary_rows(report)
    p = report.pairs[0]
    assert (row.kind, row.a, row.b, row.items) == ("pair", p.a, p.b, p.items)
    table = p.overall.counts
    ref = sm.cohens_kappa(table)
    assert row.kappa.value == pytest.approx(ref.kappa, abs=1e-12)
    # statsmodels' interval is κ ± z·SE with the same (non-null) SE
    assert (row.kappa.ci_low, row.kappa.ci_high) == pytest.approx((ref.kappa_low, ref.kappa_upp), abs=1e-9)
    linear = sm.cohens_kappa(table, wt="linear")
    assert row.weighted_kappa.statistic == "linear"
    assert row.weighted_kappa.value == pytest.approx(linear.kappa, abs=1e-12)
    assert row.weighted_kappa.ci_low == pytest.approx(
        max(-1, linear.kappa - Z95 * linear.std_kappa), abs=1e-9
    )
    assert p.inference is not None
    assert (row.ac1.value, row.ac1.ci_low) == (p.inference.ac1.value, p.inference.ac1.ci_low)
    # α ordinal on every shared item once (the concatenated reading), its CI from the topic bootstrap
    a, b = (np.array([g for _, _, g in sorted(rows)], dtype=float) for rows in two.values())
    assert row.alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=np.vstack([a, b]), level_of_measurement="ordinal"), abs=1e-9
    )
    assert (row.alpha.ci_low, row.alpha.ci_high) == p.pooled["alpha_ordinal"].ci["concatenated"]
    assert row.alpha.ci_method == "topic bootstrap (200 resamples)"
    assert row.p_o == p.overall.p_o


def test_the_groups_row_uses_the_missing_data_coefficients_on_the_items_judged_by_two() -> None:
    report = agreement_report(noisy_assessors(topics=5, docs=20, seed=2))
    g = report.group
    assert g is not None and g.inference is not None
    row = summary_rows(report)[-1]
    assert (row.kind, row.a, row.b, row.assessors) == ("group", "all", "all", g.assessors)
    assert row.items == g.pairable == g.inference.fleiss_missing.items
    assert row.kappa.statistic == "fleiss" and row.kappa.value == g.inference.fleiss_missing.value
    assert row.weighted_kappa.statistic == "fleiss_linear"
    assert g.inference.fleiss_linear is not None
    assert row.weighted_kappa.value == g.inference.fleiss_linear.value
    assert row.ac1.value == g.inference.ac1_missing.value
    assert row.alpha.value == g.pooled["alpha_ordinal"].concatenated
    assert row.p_o == g.inference.fleiss_missing.p_o
    # no bootstrap: α has no interval, and says so by having no method
    assert math.isnan(row.alpha.ci_low) and row.alpha.ci_method == ""
    assert [r.kind for r in summary_rows(report)] == ["pair", "pair", "pair", "group"]


def test_the_paradox_flag_marks_high_agreement_with_low_kappa_not_skewed_prevalence_alone() -> None:
    (rare,) = summary_rows(agreement_report(_cells(RARE)))
    assert rare.paradox == ("kappa",)  # a 0/1 table at threshold 1 is its own binarized table
    assert rare.ac1.value == pytest.approx(0.8780488, abs=5e-8)
    (iir,) = summary_rows(agreement_report(_cells(IIR)))
    assert iir.kappa.value == pytest.approx(0.7761194, abs=5e-8)
    assert iir.paradox == ()  # 300 of 400 relevant for both, yet κ is high: no paradox


def test_the_binarized_tables_paradox_is_flagged_when_the_graded_kappa_shows_none() -> None:
    # graded 0–2: the assessors never agree on the grade of a relevant document, so graded
    # P_o = 78/100 < 0.8: no paradox there
    cells = [(0, 0)] * 78 + [(0, 1)] * 6 + [(1, 0)] * 6 + [(1, 2)] * 5 + [(2, 1)] * 5
    report = agreement_report(_cells(cells))
    (row,) = summary_rows(report)
    assert report.pairs[0].overall.p_o == pytest.approx(0.78, abs=1e-12)
    # binarized at 1: [[78, 6], [6, 10]], P_o 0.88, P_e = 0.84² + 0.16² = 0.7312, κ = 0.1488/0.2688 = 0.5536
    binary = report.pairs[0].overall.binary.cohen
    assert binary.value == pytest.approx((0.88 - 0.7312) / (1 - 0.7312), abs=1e-12)
    assert row.paradox == ("binary",)


def test_json_text_and_the_python_api_lead_with_the_summary() -> None:
    import relevance_workbench as rw

    report = agreement_report(noisy_assessors(topics=4, docs=15, seed=4), bootstrap=100, seed=1)
    data = report_as_dict(report)
    assert next(iter(data)) == "summary"
    assert {"assessors", "pairs", "group", "conventions"} <= set(data)  # the rest is still there
    first = data["summary"][0]
    assert set(first) >= {"a", "b", "items", "p_o", "kappa", "weighted_kappa", "ac1", "alpha", "paradox"}
    assert first["kappa"]["ci"] == pytest.approx(
        [report.pairs[0].overall.cohen.ci_low, report.pairs[0].overall.cohen.ci_high]
    )
    assert data["summary"][-1]["kind"] == "group"
    json.dumps(data, allow_nan=False)  # NaN is null
    lines = text_lines(report)
    start = next(i for i, line in enumerate(lines) if line.startswith("summary"))
    assert start < lines.index("conventions:")
    assert lines[start + 1].split()[:4] == ["a", "b", "items", "P_o"]
    assert lines[start + 1 + len(data["summary"])].split()[:2] == ["all", "all"]
    as_qrels = {
        name: {t: {d: g for s, d, g in rows if s == t} for t, _, _ in rows}
        for name, rows in noisy_assessors(topics=4, docs=15, seed=4).items()
    }
    got = rw.agreement(as_qrels)
    assert next(iter(got.to_dict())) == "summary"
