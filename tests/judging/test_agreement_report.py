"""Agreement reports from assessors' labels: alignment, pooled readings, the group, the topic bootstrap."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judging.agreement import (
    PAIR_STATISTICS,
    agreement_report,
    align,
    group_agreement,
    labels_from_mapping,
    labels_from_qrels,
    pair_agreement,
    report_as_dict,
    table_agreement,
)
from trec.qrels import qrels_from_dict

# IIR §8.5 writes its tables relevant-first: row/column 0 is grade 1 (docs/agreement.md#worked-examples
# writes them grade 0 first).
IIR = [[300, 20], [10, 70]]
SECOND = [[5, 5], [5, 85]]


def labels_from_table(
    table: list[list[int]], topic: str, grades: tuple[int, ...] = (1, 0)
) -> tuple[list, list]:
    """Two assessors' (topic, docno, grade) rows that cross-tabulate to ``table``."""
    a, b, k = [], [], 0
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            for _ in range(count):
                a.append((topic, f"{topic}-d{k}", grades[i]))
                b.append((topic, f"{topic}-d{k}", grades[j]))
                k += 1
    return a, b


@pytest.fixture
def two_topics() -> dict[str, list]:
    a1, b1 = labels_from_table(IIR, "1")
    a2, b2 = labels_from_table(SECOND, "2")
    return {"A": a1 + a2, "B": b1 + b2}


# --------------------------------------------------------------------------- the three readings


def test_two_topic_example_gives_the_three_named_readings_of_measures(two_topics: dict[str, list]) -> None:
    p = agreement_report(two_topics).pairs[0]
    cohen = p.pooled["cohen"]
    assert cohen.mean_per_topic == pytest.approx(0.6102819, abs=5e-8)
    assert cohen.de_vries == pytest.approx(0.6601942, abs=5e-8)
    assert cohen.concatenated == pytest.approx(0.8242531, abs=5e-8)
    assert p.pooled["overlap"].mean_per_topic == pytest.approx(0.6212121, abs=5e-8)  # macro
    assert p.pooled["overlap"].concatenated == pytest.approx(0.8840580, abs=5e-8)  # micro


def test_the_readings_follow_their_definitions(two_topics: dict[str, list]) -> None:
    p = agreement_report(two_topics).pairs[0]
    t1, t2 = p.per_topic["1"].cohen, p.per_topic["2"].cohen
    assert t2.p_o == pytest.approx(0.9, abs=1e-12) and t2.p_e == pytest.approx(0.1**2 + 0.9**2, abs=1e-12)
    mean_po, mean_pe = (t1.p_o + t2.p_o) / 2, (t1.p_e + t2.p_e) / 2  # (0.925 + 0.9)/2, (0.665 + 0.82)/2
    assert p.pooled["cohen"].de_vries == pytest.approx((mean_po - mean_pe) / (1 - mean_pe), abs=1e-12)
    assert p.pooled["cohen"].mean_per_topic == pytest.approx((t1.value + t2.value) / 2, abs=1e-12)
    concatenated = table_agreement(np.array([[85 + 70, 15], [25, 305]]), (0, 1)).cohen.value
    assert p.pooled["cohen"].concatenated == pytest.approx(concatenated, abs=1e-12)
    assert p.overall.cohen.value == pytest.approx(concatenated, abs=1e-12)
    assert p.pooled["overlap"].concatenated == pytest.approx((300 + 5) / (330 + 15), abs=1e-12)
    assert p.pooled["overlap"].mean_per_topic == pytest.approx((300 / 330 + 5 / 15) / 2, abs=1e-12)


def test_de_vries_is_only_given_for_p_o_p_e_statistics(two_topics: dict[str, list]) -> None:
    pooled = agreement_report(two_topics).pairs[0].pooled
    assert set(pooled) == set(PAIR_STATISTICS)
    for stat in ("p_o", "alpha_nominal", "alpha_ordinal", "overlap"):
        assert pooled[stat].de_vries is None
    for stat in ("cohen", "linear", "quadratic", "pooled", "ac1"):
        assert pooled[stat].de_vries is not None


def test_a_single_category_topic_drops_out_of_the_mean_but_not_out_of_de_vries() -> None:
    a1, b1 = labels_from_table(IIR, "1")
    a2, b2 = labels_from_table([[0, 0], [0, 10]], "2")  # both say non-relevant to all 10: P_e = 1
    p = agreement_report({"A": a1 + a2, "B": b1 + b2}).pairs[0]
    assert math.isnan(p.per_topic["2"].cohen.value)
    assert p.pooled["cohen"].topics == 1
    assert p.pooled["cohen"].mean_per_topic == pytest.approx(p.per_topic["1"].cohen.value, abs=1e-12)
    mean_po, mean_pe = (0.925 + 1.0) / 2, (0.665 + 1.0) / 2
    assert p.pooled["cohen"].de_vries == pytest.approx((mean_po - mean_pe) / (1 - mean_pe), abs=1e-12)
    assert p.pooled["p_o"].topics == 2


def test_a_topic_with_one_shared_item_is_reported_with_kappa_undefined() -> None:
    a, b = labels_from_table(IIR, "1")
    a.append(("2", "only", 1))
    b.append(("2", "only", 1))
    p = agreement_report({"A": a, "B": b}).pairs[0]
    assert p.per_topic["2"].n == 1
    assert p.per_topic["2"].p_o == 1.0
    assert math.isnan(p.per_topic["2"].cohen.value)
    assert p.per_topic["2"].overlap.value == 1.0
    assert p.pooled["overlap"].topics == 2


def test_no_shared_item_gives_an_undefined_report_not_an_error() -> None:
    report = agreement_report({"A": [("1", "a", 1)], "B": [("1", "b", 1)]}, bootstrap=20)
    p = report.pairs[0]
    assert (p.items, p.only_a, p.only_b, p.per_topic) == (0, 1, 1, {})
    assert math.isnan(p.overall.cohen.value) and math.isnan(p.overall.overlap.value)
    assert all(math.isnan(v.concatenated) and v.topics == 0 and v.ci == {} for v in p.pooled.values())
    json.dumps(report_as_dict(report), allow_nan=False)  # NaN became null


def test_no_relevant_document_on_a_topic_leaves_its_overlap_out_of_the_macro_mean() -> None:
    a1, b1 = labels_from_table(IIR, "1")
    a2, b2 = labels_from_table([[0, 0], [0, 4]], "2")
    p = agreement_report({"A": a1 + a2, "B": b1 + b2}).pairs[0]
    assert math.isnan(p.per_topic["2"].overlap.value)
    assert p.pooled["overlap"].mean_per_topic == pytest.approx(300 / 330, abs=1e-12)
    assert p.pooled["overlap"].topics == 1


# --------------------------------------------------------------------------- labels and alignment


def test_items_judged_by_one_assessor_of_a_pair_are_left_out() -> None:
    ratings = align(
        {"A": {"1": {"a": 1, "b": 0, "c": 1}}, "B": {"1": {"a": 1, "b": 1}}, "C": {"1": {"c": 0, "d": 0}}}
    )
    p = pair_agreement(ratings, "A", "B")
    assert (p.items, p.only_a, p.only_b) == (2, 1, 0)
    assert p.overall.counts.tolist() == [[0, 1], [0, 1]]


def test_negative_grades_are_unjudged_by_default_and_categories_on_request() -> None:
    a = {"1": {"x": -1, "y": 1, "z": 0}}
    b = {"1": {"x": 0, "y": 1, "z": 0}}
    missing = agreement_report({"A": a, "B": b}).pairs[0]
    assert missing.items == 2 and missing.labels == (0, 1)
    category = agreement_report({"A": a, "B": b}, negative="category").pairs[0]
    assert category.items == 3 and category.labels == (-1, 0, 1)


def test_qrels_mappings_and_triples_give_the_same_report() -> None:
    judgments = {"1": {"a": 1, "b": 0}, "2": {"c": 2}}
    other = {"1": {"a": 1, "b": 1}, "2": {"c": 2}}
    from_dict = agreement_report({"A": judgments, "B": other}).pairs[0]
    from_qrels = agreement_report({"A": qrels_from_dict(judgments), "B": qrels_from_dict(other)}).pairs[0]
    from_labels = agreement_report(
        {"A": labels_from_qrels(qrels_from_dict(judgments)), "B": labels_from_mapping(other)}
    ).pairs[0]
    for p in (from_qrels, from_labels):
        assert p.overall.counts.tolist() == from_dict.overall.counts.tolist()
        assert p.labels == from_dict.labels == (0, 1, 2)


def test_an_assessor_labelling_an_item_twice_is_an_error() -> None:
    with pytest.raises(ValueError, match="labels topic 1 document a twice"):
        align({"A": [("1", "a", 1), ("1", "a", 0)], "B": [("1", "a", 1)]})


def test_a_scale_fixes_the_labels_and_rejects_grades_off_it() -> None:
    a, b = {"1": {"x": 0, "y": 2}}, {"1": {"x": 0, "y": 1}}
    p = agreement_report({"A": a, "B": b}, scale=[0, 1, 2, 3]).pairs[0]
    assert p.labels == (0, 1, 2, 3) and p.overall.counts.shape == (4, 4)
    with pytest.raises(ValueError, match="not on the scale"):
        agreement_report({"A": a, "B": b}, scale=[0, 1])


def test_fewer_than_two_assessors_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least two"):
        agreement_report({"A": {"1": {"a": 1}}})


# --------------------------------------------------------------------------- all assessors


def fleiss_1971_assessors() -> dict[str, list]:
    """The Wikipedia Fleiss (1971) table as 14 assessors: subject i's k-th rating goes to assessor k."""
    from tests.judging.test_agreement_tables import FLEISS_1971

    out: dict[str, list] = {f"r{k}": [] for k in range(14)}
    for i, row in enumerate(FLEISS_1971):
        ratings = [c for c, n in enumerate(row) for _ in range(n)]
        for k, grade in enumerate(ratings):
            out[f"r{k}"].append(("t", f"subject{i}", grade))
    return out


def test_group_fleiss_kappa_reproduces_the_fleiss_1971_example() -> None:
    g = agreement_report(fleiss_1971_assessors()).group
    assert g is not None
    assert g.items == 10 and g.labels == (0, 1, 2, 3, 4)
    assert g.fleiss.value == pytest.approx(0.2099307, abs=5e-8)
    assert g.pooled["fleiss"].concatenated == pytest.approx(0.2099307, abs=5e-8)


def test_fleiss_uses_items_judged_by_all_and_alpha_every_pairable_item() -> None:
    labels = {
        "A": {"1": {"a": 1, "b": 0, "c": 1, "d": 1}},
        "B": {"1": {"a": 1, "b": 0, "c": 0}},
        "C": {"1": {"a": 1, "b": 1}},
    }
    g = group_agreement(align(labels))
    assert (g.items, g.pairable, g.single) == (2, 3, 1)  # a, b by all; c by two; d by one
    # Fleiss on a (1,1,1) and b (0,0,1): P_i = 1 and 1/3; p = (2/6, 4/6)
    p_bar, p_e = (1 + 1 / 3) / 2, (2 / 6) ** 2 + (4 / 6) ** 2
    assert g.fleiss.value == pytest.approx((p_bar - p_e) / (1 - p_e), abs=1e-12)
    assert g.per_topic["1"].pairable == 3


def test_group_report_only_with_three_or_more_assessors(two_topics: dict[str, list]) -> None:
    assert agreement_report(two_topics).group is None
    three = dict(two_topics, C=two_topics["A"])
    report = agreement_report(three)
    assert report.group is not None and len(report.pairs) == 3


def test_the_group_of_two_identical_pairs_matches_the_pooled_kappa_of_one(
    two_topics: dict[str, list],
) -> None:
    # Fleiss' κ for two raters is Scott's π, i.e. the pooled κ, on every reading
    g = group_agreement(align(two_topics))
    p = agreement_report(two_topics).pairs[0]
    for reading in ("concatenated", "de_vries", "mean_per_topic"):
        assert getattr(g.pooled["fleiss"], reading) == pytest.approx(
            getattr(p.pooled["pooled"], reading), abs=1e-12
        )
    for level in ("alpha_nominal", "alpha_ordinal"):
        assert g.pooled[level].concatenated == pytest.approx(p.pooled[level].concatenated, abs=1e-12)


# --------------------------------------------------------------------------- the bootstrap


def _cis(report_dict: dict) -> list:
    return [p["pooled"] for p in report_dict["pairs"]] + [report_dict["group"]["pooled"]]


def noisy_assessors(topics: int = 12, docs: int = 30, seed: int = 0) -> dict[str, list]:
    """Three assessors copying a graded truth with different error rates per topic (fixed data)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, size=(topics, docs))
    out: dict[str, list] = {}
    for name, error in (("A", 0.1), ("B", 0.3), ("C", 0.5)):
        wrong = rng.random((topics, docs)) < error * rng.random((topics, 1))
        grades = np.where(wrong, rng.integers(0, 3, size=(topics, docs)), truth)
        out[name] = [(str(t), f"d{d}", int(grades[t, d])) for t in range(topics) for d in range(docs)]
    return out


def test_bootstrap_is_reproducible_with_a_seed_and_changes_with_another() -> None:
    three = noisy_assessors()
    first = report_as_dict(agreement_report(three, bootstrap=300, seed=7))
    again = report_as_dict(agreement_report(three, bootstrap=300, seed=7))
    other = report_as_dict(agreement_report(three, bootstrap=300, seed=8))
    assert _cis(first) == _cis(again)
    assert _cis(first) != _cis(other)


def test_bootstrap_ci_brackets_the_per_topic_values_it_resamples(two_topics: dict[str, list]) -> None:
    p = agreement_report(two_topics, bootstrap=2000, seed=1).pairs[0]
    # resampling two topics: mean per-topic κ can only be κ_1, κ_2 or their mean
    low, high = p.pooled["cohen"].ci["mean_per_topic"]
    assert low == pytest.approx(p.per_topic["2"].cohen.value, abs=1e-12)
    assert high == pytest.approx(p.per_topic["1"].cohen.value, abs=1e-12)
    assert set(p.pooled["cohen"].ci) == {"concatenated", "de_vries", "mean_per_topic"}
    assert set(p.pooled["overlap"].ci) == {"concatenated", "mean_per_topic"}


def test_the_same_topics_always_drawn_give_a_degenerate_interval() -> None:
    a, b = labels_from_table(IIR, "1")
    p = agreement_report({"A": a, "B": b}, bootstrap=50, seed=3).pairs[0]
    lo, hi = p.pooled["cohen"].ci["concatenated"]
    assert lo == pytest.approx(p.overall.cohen.value, abs=1e-12) and hi == pytest.approx(lo, abs=1e-12)


def test_a_pair_bootstrap_does_not_depend_on_the_other_assessors(two_topics: dict[str, list]) -> None:
    alone = agreement_report(two_topics, bootstrap=200, seed=5).pairs[0]
    with_c = agreement_report(dict(two_topics, C=two_topics["B"]), bootstrap=200, seed=5).pairs[0]
    assert alone.pooled["cohen"].ci == with_c.pooled["cohen"].ci


def test_report_as_dict_is_strict_json_with_nan_as_null() -> None:
    a1, b1 = labels_from_table(IIR, "1")
    a2, b2 = labels_from_table([[0, 0], [0, 10]], "2")
    data = report_as_dict(agreement_report({"A": a1 + a2, "B": b1 + b2}, bootstrap=10))
    text = json.dumps(data, allow_nan=False)
    pair = json.loads(text)["pairs"][0]
    assert pair["per_topic"]["2"]["cohen"]["value"] is None
    assert pair["pooled"]["p_o"]["de_vries"] is None
    assert pair["overall"]["matrix"] == [[80, 10], [20, 300]]


def test_bootstrap_intervals_contain_the_point_readings_on_noisy_data() -> None:
    report = agreement_report(noisy_assessors(), bootstrap=500, seed=2)
    for pooled in [*(p.pooled for p in report.pairs), report.group.pooled if report.group else {}]:
        for stat in pooled.values():
            for reading, (low, high) in stat.ci.items():
                point = getattr(stat, reading)
                assert low <= point <= high, (reading, point, low, high)


# no deadline: the first example pays for importing scipy.stats (2 s on a loaded machine)
@settings(deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("abc"), st.integers(0, 2), st.integers(0, 2)),
        min_size=1,
        max_size=40,
    )
)
def test_pair_readings_match_naive_per_topic_loops(rows: list[tuple[str, int, int]]) -> None:
    a = [(t, f"d{i}", x) for i, (t, x, _) in enumerate(rows)]
    b = [(t, f"d{i}", y) for i, (t, _, y) in enumerate(rows)]
    p = agreement_report({"A": a, "B": b}).pairs[0]
    topics = sorted({t for t, _, _ in rows})
    # κ does not depend on unused categories: the pair's union serves every topic
    labels = sorted({g for _, x, y in rows for g in (x, y)})
    per = {t: [(x, y) for s, x, y in rows if s == t] for t in topics}
    naive = {t: naive_cohen([x for x, _ in v], [y for _, y in v], labels) for t, v in per.items()}
    defined = [k for k in naive.values() if not math.isnan(k)]
    expected_mean = sum(defined) / len(defined) if defined else math.nan
    assert same(p.pooled["cohen"].mean_per_topic, expected_mean)
    assert same(
        p.pooled["cohen"].concatenated, naive_cohen([x for _, x, _ in rows], [y for _, _, y in rows], labels)
    )
    assert p.pooled["cohen"].topics == len(defined)


def naive_cohen(a: list[int], b: list[int], labels: list[int]) -> float:
    n = len(a)
    p_o = sum(x == y for x, y in zip(a, b, strict=True)) / n
    p_e = sum((a.count(c) / n) * (b.count(c) / n) for c in labels)
    return math.nan if p_e >= 1 - 1e-12 else (p_o - p_e) / (1 - p_e)


def same(x: float, y: float) -> bool:
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= 1e-9


def test_alpha_at_interval_and_ratio_level_is_pooled_with_a_topic_bootstrap_ci() -> None:
    krippendorff = pytest.importorskip("krippendorff", reason="krippendorff is in the test extra")
    three = noisy_assessors(topics=8, docs=20, seed=3)
    report = agreement_report(three, bootstrap=400, seed=5)
    for level in ("interval", "ratio"):
        # concatenated over topics: the krippendorff package on every item, grade values as data
        items = sorted({(t, d) for rows in three.values() for t, d, _ in rows})
        index = {item: i for i, item in enumerate(items)}
        data = np.full((3, len(items)), np.nan)
        for r, rows in enumerate(three.values()):
            for t, d, g in rows:
                data[r, index[t, d]] = g
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        group = report.group
        assert group is not None
        pooled = group.pooled[f"alpha_{level}"]
        assert pooled.concatenated == pytest.approx(expected, abs=1e-9)
        low, high = pooled.ci["concatenated"]
        assert low < pooled.concatenated < high  # a percentile interval of 400 topic resamples
        # and per pair, where it equals the pair's asymptotic block (the same α on the same table)
        pair = report.pairs[0]
        assert pair.inference is not None
        assert pair.pooled[f"alpha_{level}"].concatenated == pytest.approx(
            getattr(pair.inference, f"alpha_{level}"), abs=1e-12
        )
        assert set(pair.pooled[f"alpha_{level}"].ci) == {"concatenated", "mean_per_topic"}
