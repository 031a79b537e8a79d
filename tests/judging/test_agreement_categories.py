"""Which categories a table counts over (docs/agreement.md#input-labels-items-and-tables): a topic's
statistics depend only on that topic's labels (and the scale, when one is given); the group counts
every grade any assessor gave, the grades of singly-judged items included."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judging.agreement import agreement_report, align, group_agreement, pair_agreement, rating_counts
from judging.agreement.inference import gwet_raw

# topic "1": grades 0, 1 and 3 (no 2), rows A, columns B
TOPIC_1 = [(0, 0)] * 6 + [(0, 1)] * 2 + [(1, 1)] * 4 + [(1, 3)] * 1 + [(3, 3)] * 3 + [(3, 0)] * 1
# topic "2", two versions: with grades 0 and 1 only, or with 2 and 4 too
TOPIC_2_PLAIN = [(0, 0)] * 5 + [(1, 1)] * 3 + [(0, 1)] * 2
TOPIC_2_WIDE = [(0, 0)] * 5 + [(2, 2)] * 3 + [(0, 4)] * 2
STATISTICS = ("p_o", "cohen", "linear", "quadratic", "pooled", "ac1", "alpha_nominal", "alpha_ordinal")


def _sets(*topics: tuple[str, list[tuple[int, int]]]) -> dict[str, list[tuple[str, str, int]]]:
    a, b = [], []
    for topic, cells in topics:
        for k, (x, y) in enumerate(cells):
            a.append((topic, f"{topic}-d{k}", x))
            b.append((topic, f"{topic}-d{k}", y))
    return {"A": a, "B": b}


def _values(table: object) -> dict[str, float]:
    return {s: float(getattr(v, "value", v)) for s in STATISTICS for v in [getattr(table, s)]}


def test_a_topics_statistics_do_not_change_when_another_topic_uses_more_grades() -> None:
    plain = pair_agreement(align(_sets(("1", TOPIC_1), ("2", TOPIC_2_PLAIN))), "A", "B")
    wide = pair_agreement(align(_sets(("1", TOPIC_1), ("2", TOPIC_2_WIDE))), "A", "B")
    assert plain.labels == (0, 1, 3) and wide.labels == (0, 1, 2, 3, 4)  # the pair: every topic
    one, other = plain.per_topic["1"], wide.per_topic["1"]
    # AC1 (q) and the weighted κs (positions) were those of the pair's five grades: 0.7194 and
    # linear 0.6610 where topic 1 alone gives 0.6526 and 0.6559
    for stat, value in _values(one).items():
        assert _values(other)[stat] == pytest.approx(value, abs=1e-12, nan_ok=True), stat
    assert one.labels == other.labels == (0, 1, 3)  # topic 1: its own grades
    # the mean-per-topic reading averages those same per-topic values
    for p in (plain, wide):
        per = [t.ac1.value for t in p.per_topic.values()]
        assert p.pooled["ac1"].mean_per_topic == pytest.approx(float(np.mean(per)), abs=1e-12)


def test_per_topic_values_without_a_scale_equal_the_references_on_the_topics_own_table() -> None:
    sm = pytest.importorskip("statsmodels.stats.inter_rater", reason="statsmodels is in the test extra")
    krippendorff = pytest.importorskip("krippendorff", reason="krippendorff is in the test extra")
    p = pair_agreement(align(_sets(("1", TOPIC_1), ("2", TOPIC_2_WIDE))), "A", "B")
    t = p.per_topic["1"]
    # the topic's own table over its grades 0, 1, 3 (positions 0, 1, 2)
    own = np.zeros((3, 3), dtype=np.int64)
    pos = {0: 0, 1: 1, 3: 2}
    for x, y in TOPIC_1:
        own[pos[x], pos[y]] += 1
    assert t.counts.tolist() == own.tolist()
    assert t.cohen.value == pytest.approx(sm.cohens_kappa(own).kappa, abs=1e-12)
    assert t.linear.value == pytest.approx(sm.cohens_kappa(own, wt="linear").kappa, abs=1e-12)
    assert t.quadratic.value == pytest.approx(sm.cohens_kappa(own, wt="quadratic").kappa, abs=1e-12)
    data = np.array([[pos[x] for x, _ in TOPIC_1], [pos[y] for _, y in TOPIC_1]], dtype=float)
    for level in ("nominal", "ordinal"):
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert getattr(t, f"alpha_{level}") == pytest.approx(expected, abs=1e-12)
    # Gwet's AC1 with q = 3 categories: P_e = Σ π_k(1 − π_k)/(q − 1), π the pooled shares
    n = len(TOPIC_1)
    p_o = np.trace(own) / n
    pi = (own.sum(axis=0) + own.sum(axis=1)) / (2 * n)
    p_e = float((pi * (1 - pi)).sum() / 2)
    assert t.ac1.value == pytest.approx((p_o - p_e) / (1 - p_e), abs=1e-12)


def test_with_a_scale_every_topic_counts_over_the_scale_whatever_the_other_topics_hold() -> None:
    sm = pytest.importorskip("statsmodels.stats.inter_rater", reason="statsmodels is in the test extra")
    scale = (0, 1, 2, 3, 4)
    plain = pair_agreement(align(_sets(("1", TOPIC_1), ("2", TOPIC_2_PLAIN))), "A", "B", scale=scale)
    wide = pair_agreement(align(_sets(("1", TOPIC_1), ("2", TOPIC_2_WIDE))), "A", "B", scale=scale)
    one = plain.per_topic["1"]
    assert one.labels == wide.per_topic["1"].labels == scale
    for stat, value in _values(one).items():
        assert _values(wide.per_topic["1"])[stat] == pytest.approx(value, abs=1e-12), stat
    # weights on the scale's positions: grade 3 is position 3, so 1 vs 3 is two steps of four
    full = np.zeros((5, 5), dtype=np.int64)
    for x, y in TOPIC_1:
        full[x, y] += 1
    assert one.linear.value == pytest.approx(sm.cohens_kappa(full, wt="linear").kappa, abs=1e-12)
    assert one.quadratic.value == pytest.approx(sm.cohens_kappa(full, wt="quadratic").kappa, abs=1e-12)


def test_a_topic_with_one_grade_has_no_ac1_without_a_scale_and_ac1_one_with_it() -> None:
    sets = _sets(("1", TOPIC_1), ("2", [(0, 0)] * 4))
    assert math.isnan(pair_agreement(align(sets), "A", "B").per_topic["2"].ac1.value)
    scaled = pair_agreement(align(sets), "A", "B", scale=(0, 1, 2, 3)).per_topic["2"]
    assert scaled.ac1.value == 1.0 and math.isnan(scaled.cohen.value)


def test_the_bootstrap_resamples_the_same_per_topic_values_the_report_shows() -> None:
    sets = _sets(("1", TOPIC_1), ("2", TOPIC_2_WIDE), ("3", TOPIC_2_PLAIN))
    p = agreement_report(sets, bootstrap=300, seed=4).pairs[0]
    per = sorted(t.ac1.value for t in p.per_topic.values())
    low, high = p.pooled["ac1"].ci["mean_per_topic"]
    # a resample drawing one topic three times gives that topic's value: the extremes are reachable
    assert per[0] - 1e-12 <= low <= high <= per[-1] + 1e-12


# --------------------------------------------------------------------------- the group


def _group_sets() -> dict[str, dict[str, dict[str, int]]]:
    # grade 3 is given once, on an item only A judged: no agreement information, but a category
    return {
        "A": {"1": {"a": 0, "b": 1, "c": 2, "d": 0, "e": 3}},
        "B": {"1": {"a": 0, "b": 1, "c": 1, "d": 0}},
        "C": {"1": {"a": 0, "b": 2, "c": 2, "d": 1}},
    }


def test_the_groups_labels_include_grades_given_only_on_singly_judged_items() -> None:
    g = group_agreement(align(_group_sets()))
    assert g.single == 1
    assert g.labels == (0, 1, 2, 3)
    assert g.inference is not None
    # every group coefficient counts over those labels: AC1 on the items judged by all (q = 4)...
    ratings = align(_group_sets())
    full = ratings.judged.all(axis=1)
    complete = rating_counts(ratings.grades[full], ratings.judged[full], g.labels)
    assert g.inference.ac1_complete.value == pytest.approx(gwet_raw(complete, "ac1").value, abs=1e-12)
    # ... and the missing-data AC1 (which always kept the singly-judged items) the same q
    every = rating_counts(ratings.grades, ratings.judged, g.labels)
    assert g.inference.ac1_missing.value == pytest.approx(gwet_raw(every, "ac1").value, abs=1e-12)


def test_the_groups_alpha_is_krippendorffs_whatever_the_unused_categories() -> None:
    krippendorff = pytest.importorskip("krippendorff", reason="krippendorff is in the test extra")
    g = group_agreement(align(_group_sets()))
    data = np.full((3, 5), np.nan)
    for r, labels in enumerate(_group_sets().values()):
        for i, doc in enumerate("abcde"):
            if doc in labels["1"]:
                data[r, i] = labels["1"][doc]
    for level in ("nominal", "ordinal", "interval"):
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert g.pooled[f"alpha_{level}"].concatenated == pytest.approx(expected, abs=1e-12), level
