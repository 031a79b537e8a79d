"""Do the disagreements matter: system rankings under each assessor, correlated with τ-b and τ_AP."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.evaluate import Judgments, evaluate_run
from engine.names import parse_measures
from engine.significance import kendall_tau_b, tau_ap
from judging.agreement import agreement_report, report_as_dict, system_rankings
from trec.qrels import qrels_from_dict
from trec.runs import RankedRun, run_from_arrays

TOPICS = ["1", "2", "3", "4"]


def run(name: str, first: dict[str, str]) -> RankedRun:
    """Two documents per topic, ``first[topic]`` ranked above the other of 'r' and 'n'."""
    qids, docnos, scores = [], [], []
    for t in TOPICS:
        top = first[t]
        qids += [t, t]
        docnos += [top, "n" if top == "r" else "r"]
        scores += [2.0, 1.0]
    return run_from_arrays(name, np.array(qids, dtype="S"), np.array(docnos, dtype="S"), np.array(scores))


@pytest.fixture
def runs() -> list[RankedRun]:
    # with 'r' relevant: X has AP 1 on every topic, Y 1/2, Z 1 on topics 1-2 only (mean 3/4)
    return [
        run("X", dict.fromkeys(TOPICS, "r")),
        run("Y", dict.fromkeys(TOPICS, "n")),
        run("Z", {t: "r" if t in "12" else "n" for t in TOPICS}),
    ]


def qrels(relevant: str, topics: list[str] = TOPICS) -> dict[str, dict[str, int]]:
    other = "n" if relevant == "r" else "r"
    return {t: {relevant: 1, other: 0} for t in topics}


def test_identical_judgments_rank_the_systems_identically(runs: list[RankedRun]) -> None:
    s = system_rankings(
        {"A": qrels_from_dict(qrels("r")), "B": qrels_from_dict(qrels("r"))}, runs, measures=["map"]
    )
    (c,) = s.correlations
    assert (c.measure, c.a, c.b, c.topics, c.runs) == ("map", "A", "B", 4, 3)
    assert (
        c.tau_b == pytest.approx(1.0)
        and c.tau_ap_ab == pytest.approx(1.0)
        and c.tau_ap_ba == pytest.approx(1.0)
    )


def test_swapped_relevance_reverses_the_ranking(runs: list[RankedRun]) -> None:
    s = system_rankings(
        {"A": qrels_from_dict(qrels("r")), "B": qrels_from_dict(qrels("n"))}, runs, measures=["map"]
    )
    (c,) = s.correlations
    assert s.means["A"]["map"] == pytest.approx({"X": 1.0, "Y": 0.5, "Z": 0.75})
    assert s.means["B"]["map"] == pytest.approx({"X": 0.5, "Y": 1.0, "Z": 0.75})
    assert c.tau_b == pytest.approx(-1.0) and c.tau_ap_ab == pytest.approx(-1.0)


def test_the_means_are_the_evaluation_engines(runs: list[RankedRun]) -> None:
    judged = qrels_from_dict(
        {"1": {"r": 2, "n": 0}, "2": {"r": 1, "n": 1}, "3": {"n": 1}, "4": {"r": 0, "n": 0}}
    )
    s = system_rankings(
        {"A": judged, "B": qrels_from_dict(qrels("r"))}, runs, measures=["map", "ndcg", "P.1"]
    )
    assert s.measures == ("map", "ndcg", "P_1")
    for r in runs:
        result = evaluate_run(Judgments(judged), r, parse_measures(["map", "ndcg", "P.1"]))
        for m in s.measures:
            assert s.means["A"][m][r.name] == pytest.approx(float(np.mean(result.per_topic[m])), abs=1e-12)


def test_a_pair_is_compared_on_the_topics_both_assessors_judged(runs: list[RankedRun]) -> None:
    # B judged only topics 3 and 4, where Z behaves like Y: X 1, Y 1/2, Z 1/2 under A on those topics
    s = system_rankings(
        {"A": qrels_from_dict(qrels("r")), "B": qrels_from_dict(qrels("r", ["3", "4"]))},
        runs,
        measures=["map"],
    )
    (c,) = s.correlations
    assert c.topics == 2
    assert s.topics == {"A": 4, "B": 2}
    truth = [1.0, 0.5, 0.5]
    assert c.tau_b == pytest.approx(kendall_tau_b(truth, truth))
    assert c.tau_ap_ab == pytest.approx(tau_ap(truth, truth))


def test_tau_ap_is_asymmetric_between_the_two_assessors(runs: list[RankedRun]) -> None:
    # B: 'r' relevant on topic 1, both on topic 2, 'n' on topics 3-4: X 3/4, Y 7/8, Z 1 (Z > Y > X),
    # against A's X > Z > Y
    b = {"1": {"r": 1, "n": 0}, "2": {"r": 1, "n": 1}, "3": {"r": 0, "n": 1}, "4": {"r": 0, "n": 1}}
    s = system_rankings({"A": qrels_from_dict(qrels("r")), "B": qrels_from_dict(b)}, runs, measures=["map"])
    (c,) = s.correlations
    assert s.means["B"]["map"] == pytest.approx({"X": 0.75, "Y": 0.875, "Z": 1.0})
    # walking B's order Z, Y, X: Y is below Z in A too (1 of 1), X above both in A (0 of 2)
    assert c.tau_ap_ab == pytest.approx(2 / 2 * (1 / 1 + 0 / 2) - 1)  # 0
    # walking A's order X, Z, Y: Z is below X in B (0 of 1), Y is below Z in B only (1 of 2)
    assert c.tau_ap_ba == pytest.approx(2 / 2 * (0 / 1 + 1 / 2) - 1)  # -1/2
    # pairs: (X,Y) discordant, (X,Z) discordant, (Y,Z) concordant: (1 − 2)/3
    assert c.tau_b == pytest.approx((1 - 2) / 3)


def test_no_common_topic_gives_nan_correlations(runs: list[RankedRun]) -> None:
    s = system_rankings(
        {"A": qrels_from_dict(qrels("r", ["1"])), "B": qrels_from_dict(qrels("r", ["9"]))},
        runs,
        measures=["map"],
    )
    (c,) = s.correlations
    assert c.topics == 0 and math.isnan(c.tau_b) and math.isnan(c.tau_ap_ab)
    assert s.means["B"]["map"] == {}


def test_an_unknown_measure_is_a_value_error(runs: list[RankedRun]) -> None:
    with pytest.raises(ValueError, match="unknown measure"):
        system_rankings(
            {"A": qrels_from_dict(qrels("r")), "B": qrels_from_dict(qrels("n"))}, runs, measures=["nope"]
        )


def test_the_report_carries_the_system_rankings_for_every_pair_and_default_measure(
    runs: list[RankedRun],
) -> None:
    report = agreement_report({"A": qrels("r"), "B": qrels("n"), "C": qrels("r")}, runs=runs)
    assert report.systems is not None
    assert report.systems.measures == ("map", "ndcg", "P_10", "bpref")
    pairs = {(c.a, c.b) for c in report.systems.correlations}
    assert pairs == {("A", "B"), ("A", "C"), ("B", "C")}
    by = {(c.measure, c.a, c.b): c for c in report.systems.correlations}
    assert by["map", "A", "C"].tau_b == pytest.approx(1.0)
    assert by["map", "A", "B"].tau_b == pytest.approx(-1.0)
    data = report_as_dict(report)
    assert data["systems"]["means"]["A"]["map"]["X"] == pytest.approx(1.0)
