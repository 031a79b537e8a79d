"""A machine assessor calibrated against the humans: the numbers are the agreement core's on the
same two label sets (the humans' consensus and the machine), the machine never votes in that
consensus, and the rank shifts and worst topics are what the definitions say."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judging.agreement import agreement_report
from judging.agreement.calibration import HUMANS, calibrate, consensus_of
from judging.consensus import final_labels
from trec.runs import run_from_arrays

ALICE = [("1", "a", 2), ("1", "b", 0), ("1", "c", 1), ("2", "x", 1), ("2", "y", 0), ("2", "w", 2)]
BOB = [("1", "a", 2), ("1", "b", 1), ("1", "c", 1), ("2", "x", 1), ("2", "w", 0)]
MACHINE = [
    ("1", "a", 2),
    ("1", "b", 0),
    ("1", "c", 0),
    ("2", "x", 0),
    ("2", "y", 0),
    ("2", "w", 2),
    ("2", "z", 1),
]


def test_the_consensus_is_the_humans_majority_only() -> None:
    got = {(t, d): g for t, d, g in consensus_of({"alice": ALICE, "bob": BOB})}
    votes: dict[tuple[str, str], dict[str, int | None]] = {}
    for name, rows in (("alice", ALICE), ("bob", BOB)):
        for t, d, g in rows:
            votes.setdefault((t, d), {})[name] = g
    assert got == final_labels(votes, "majority")
    assert got[("1", "b")] == 0 and got[("2", "w")] == 0  # ties go to the lower grade
    assert ("2", "z") not in got  # only the machine graded it


def test_the_calibration_numbers_are_the_agreement_cores_on_the_same_labels() -> None:
    cal = calibrate({"alice": ALICE, "bob": BOB}, MACHINE, "llm", scale=(0, 1, 2), bootstrap=200, seed=3)
    consensus = consensus_of({"alice": ALICE, "bob": BOB})
    core = agreement_report({HUMANS: consensus, "llm": MACHINE}, scale=(0, 1, 2), bootstrap=200, seed=3)
    mine, theirs = cal.pair, core.pairs[0]
    assert (mine.a, mine.b, mine.items, mine.only_a, mine.only_b) == (HUMANS, "llm", 6, 0, 1)
    assert np.array_equal(cal.confusion, theirs.overall.counts)
    # consensus rows: b, y, w (w: 2 vs 0, a tie, goes to 0) / c, x / a; machine columns
    assert cal.confusion.tolist() == [[2, 0, 1], [2, 0, 0], [0, 0, 1]]
    for stat in ("cohen", "linear", "quadratic", "pooled", "ac1"):
        assert getattr(mine.overall, stat) == getattr(theirs.overall, stat)
    assert repr(mine.overall.binary) == repr(theirs.overall.binary)
    assert repr(mine.pooled) == repr(theirs.pooled)  # bootstrap CIs included
    assert mine.per_topic.keys() == theirs.per_topic.keys() == {"1", "2"}
    # and the κ itself, by hand: P_o = 3/6; the margins are (3, 2, 1) and (4, 0, 2)
    p_o = 3 / 6
    p_e = (3 * 4 + 2 * 0 + 1 * 2) / 36
    assert mine.overall.cohen.value == pytest.approx((p_o - p_e) / (1 - p_e), abs=1e-12)


def test_topics_are_listed_worst_first() -> None:
    cal = calibrate({"alice": ALICE, "bob": BOB}, MACHINE, "llm", scale=(0, 1, 2))
    # topic 2: x 1/0, y 0/0, w 0/2 -> 1 of 3 agree, gap 2; topic 1: a 2/2, b 0/0, c 1/0 -> 2 of 3
    assert [(t.topic, t.items, t.agree, t.disagree, t.largest) for t in cal.topics] == [
        ("2", 3, 1, 2, 2),
        ("1", 3, 2, 1, 1),
    ]
    assert all(t.agree + t.disagree == t.items for t in cal.topics)
    assert cal.topics[0].p_o <= cal.topics[-1].p_o


def test_rank_shifts_name_the_run_that_moves_most() -> None:
    humans = {"h": [("1", "d1", 1), ("1", "d2", 0), ("1", "d3", 0), ("1", "d4", 1)]}
    machine = [("1", "d1", 0), ("1", "d2", 1), ("1", "d3", 1), ("1", "d4", 0)]

    def run(name: str, docs: list[str]) -> object:
        n = len(docs)
        return run_from_arrays(
            name, np.array([b"1"] * n), np.array([d.encode() for d in docs]), np.arange(n, 0, -1, dtype=float)
        )

    runs = [run("r1", ["d1", "d4", "d2"]), run("r2", ["d2", "d3", "d1"]), run("r3", ["d4", "d3", "d2"])]
    cal = calibrate(humans, machine, "llm", runs=runs, measures=("P.2",))  # type: ignore[arg-type]
    # P@2 under the humans: r1 1.0, r2 0.0, r3 0.5; under the machine: r1 0.0, r2 1.0, r3 0.5
    shift = cal.shifts()[0]
    assert (shift.measure, shift.run, shift.human_rank, shift.machine_rank) == ("P_2", "r1", 1, 3)
    tau = cal.correlations[0]
    assert (tau.a, tau.b) == (HUMANS, "llm") and math.isclose(tau.tau_b, -1.0)


def test_a_machine_named_like_a_human_is_refused() -> None:
    with pytest.raises(ValueError, match="taken"):
        calibrate({"llm": ALICE}, MACHINE, "llm")
    with pytest.raises(ValueError, match="at least one human"):
        calibrate({}, MACHINE, "llm")
