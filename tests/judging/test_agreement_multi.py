"""Krippendorff's α at the interval and ratio levels, Conger's and Light's κ, and the group report."""

from __future__ import annotations

import numpy as np
import pytest

from judging.agreement import agreement_report, cohen_kappa, confusion_matrix, rating_counts
from judging.agreement.multi import (
    conger_kappa,
    krippendorff_alpha_values,
    krippendorff_alpha_values_table,
    light_kappa,
)

# items × raters on grades {0, 1, 3}; -1 = not judged
RAW = np.array(
    [
        [0, 0, 0, -1],
        [1, 1, 3, 1],
        [3, 3, 3, 3],
        [0, 1, 0, 0],
        [1, -1, 1, -1],
        [3, 1, -1, 3],
        [0, 0, -1, -1],
        [1, 3, 3, 1],
        [0, -1, -1, -1],
        [3, 3, 1, 3],
    ]
)
JUDGED = RAW >= 0


@pytest.mark.parametrize("level", ["interval", "ratio"])
def test_alpha_on_grade_values_matches_the_krippendorff_package(level: str) -> None:
    kr = pytest.importorskip("krippendorff", reason="krippendorff is in the test extra")
    counts = rating_counts(np.where(JUDGED, RAW, 0), JUDGED, [0, 1, 3])
    data = np.where(JUDGED, RAW, np.nan).T.astype(float)  # raters × units
    ref = kr.alpha(reliability_data=data, level_of_measurement=level)
    assert krippendorff_alpha_values(counts, [0, 1, 3], level) == pytest.approx(ref, abs=1e-9)


@pytest.mark.parametrize("level", ["interval", "ratio"])
def test_two_coder_alpha_on_values_matches_the_krippendorff_package(level: str) -> None:
    kr = pytest.importorskip("krippendorff", reason="krippendorff is in the test extra")
    a, b = [0, 1, 3, 3, 0, 1, 0, 3], [0, 3, 3, 1, 0, 1, 1, 3]
    table = confusion_matrix(a, b, [0, 1, 3]).counts
    ref = kr.alpha(reliability_data=np.array([a, b], dtype=float), level_of_measurement=level)
    assert krippendorff_alpha_values_table(table, [0, 1, 3], level) == pytest.approx(ref, abs=1e-9)


def test_interval_alpha_uses_values_not_positions() -> None:
    table = [[3, 1, 0], [1, 3, 1], [0, 1, 3]]
    assert krippendorff_alpha_values_table(table, [0, 1, 3]) != pytest.approx(
        krippendorff_alpha_values_table(table, [0, 1, 2]), abs=1e-6
    )


def test_ratio_alpha_is_undefined_with_negative_grades() -> None:
    assert np.isnan(krippendorff_alpha_values_table([[2, 1], [1, 2]], [-2, 1], "ratio"))


def test_conger_kappa_matches_irrcac() -> None:
    # Provenance: irrCAC 0.4.4, `CAC(pd.DataFrame(FULL), categories=[0, 1, 3], digits=15).conger()`
    # → coefficient_value 0.293478260869565 (pa 0.566666666666667, pe 0.386666666666667)
    full = RAW[JUDGED.all(axis=1)]
    assert conger_kappa(full, [0, 1, 3]) == pytest.approx(0.293478260869565, abs=1e-9)


def test_conger_kappa_of_two_raters_is_cohens_kappa() -> None:
    a, b = [0, 1, 3, 3, 0, 1, 0, 3, 1], [0, 3, 3, 1, 0, 1, 1, 3, 1]
    expected = cohen_kappa(confusion_matrix(a, b).counts).value
    assert conger_kappa(np.array([a, b]).T, [0, 1, 3]) == pytest.approx(expected, abs=1e-12)


def test_light_kappa_is_the_mean_of_pairwise_statsmodels_kappas() -> None:
    sm = pytest.importorskip("statsmodels.stats.inter_rater", reason="statsmodels is in the test extra")
    kappas = []
    for x in range(4):
        for y in range(x + 1, 4):
            both = JUDGED[:, x] & JUDGED[:, y]
            kappas.append(
                sm.cohens_kappa(confusion_matrix(RAW[both, x], RAW[both, y], [0, 1, 3]).counts).kappa
            )
    value, pairs = light_kappa(np.where(JUDGED, RAW, 0), JUDGED)
    assert pairs == 6
    assert value == pytest.approx(float(np.mean(kappas)), abs=1e-12)


def _label_sets() -> dict[str, list[tuple[str, str, int]]]:
    return {
        f"r{k}": [("1", f"d{i}", int(RAW[i, k])) for i in range(len(RAW)) if JUDGED[i, k]] for k in range(4)
    }


def test_group_report_carries_conger_light_alpha_and_missing_data_versions() -> None:
    report = agreement_report(_label_sets())
    g = report.group
    assert g is not None and g.inference is not None
    i = g.inference
    assert i.conger == pytest.approx(0.293478260869565, abs=1e-9)
    assert i.light == pytest.approx(light_kappa(np.where(JUDGED, RAW, 0), JUDGED)[0], abs=1e-12)
    assert i.fleiss_complete.value == pytest.approx(g.fleiss.value, abs=1e-12)
    assert i.fleiss_complete.items == 5 and i.fleiss_missing.items == 9 and i.missing_items == 10
    counts = rating_counts(np.where(JUDGED, RAW, 0), JUDGED, [0, 1, 3])
    pairable = counts[JUDGED.sum(axis=1) >= 2]
    assert i.alpha_interval == pytest.approx(krippendorff_alpha_values(pairable, [0, 1, 3]), abs=1e-12)
