"""Consensus rules (majority, median, adjudicated-else-majority) and the disagreement order, by hand."""

from __future__ import annotations

import pytest

from judging.consensus import RULES, Item, Votes, binarize, disagreements, final_labels, majority, median


def test_majority_takes_the_most_frequent_grade() -> None:
    # 2 appears twice, 0 once
    assert majority([2, 0, 2]) == 2


def test_majority_ties_go_to_the_lowest_tied_grade() -> None:
    assert majority([0, 2]) == 0  # one vote each: min(0, 2)
    assert majority([2, 1, 1, 2, 0]) == 1  # 1 and 2 twice each: min(1, 2); 0 (once) is not tied
    assert majority([3]) == 3


def test_median_of_an_odd_count_is_the_middle_grade() -> None:
    assert median([2, 0, 1]) == 1  # sorted 0 1 2
    assert median([0, 0, 2]) == 0  # sorted 0 0 2, while the mean would be 2/3


def test_median_of_an_even_count_is_the_lower_median() -> None:
    assert median([0, 1, 2, 2]) == 1  # sorted 0 1 | 2 2: the middle pair is (1, 2), the lower is 1
    assert median([2, 0]) == 0  # middle pair (0, 2)
    assert median([3, 1, 1, 3]) == 1


def test_majority_and_median_differ_where_they_should() -> None:
    votes: dict[Item, Votes] = {("1", "d"): {"a": 0, "b": 2, "c": 2, "d": 1, "e": 1}}  # 1 and 2 twice, 0 once
    assert final_labels(votes, "majority") == {("1", "d"): 1}  # tie 1 vs 2 -> 1
    votes = {("1", "d"): {"a": 0, "b": 0, "c": 2, "d": 1}}  # 0 twice: majority 0
    assert final_labels(votes, "majority") == {("1", "d"): 0}
    assert final_labels(votes, "median") == {("1", "d"): 0}  # sorted 0 0 1 2: lower median 0
    votes = {("1", "d"): {"a": 0, "b": 2, "c": 2, "d": 1, "e": 1, "f": 1}}
    assert final_labels(votes, "majority") == {("1", "d"): 1}  # 1 three times
    assert final_labels(votes, "median") == {("1", "d"): 1}  # sorted 0 1 1 | 1 2 2: lower median 1


def test_cant_judge_is_not_a_vote_and_nobody_graded_is_none() -> None:
    votes: dict[Item, Votes] = {("1", "x"): {"a": None, "b": 2}, ("1", "y"): {"a": None, "b": None}}
    for rule in ("majority", "median"):
        assert final_labels(votes, rule) == {("1", "x"): 2, ("1", "y"): None}


def test_adjudicated_rule_takes_the_decision_else_the_majority() -> None:
    votes: dict[Item, Votes] = {
        ("1", "x"): {"a": 0, "b": 2},
        ("1", "y"): {"a": 0, "b": 2},
        ("2", "z"): {"a": None},
    }
    decided = {("1", "y"): 2, ("2", "z"): 1}
    assert final_labels(votes, "adjudicated", decided) == {("1", "x"): 0, ("1", "y"): 2, ("2", "z"): 1}
    # the other rules ignore decisions
    assert final_labels(votes, "majority", decided) == {("1", "x"): 0, ("1", "y"): 0, ("2", "z"): None}


def test_unknown_rule_is_refused() -> None:
    assert RULES == ("majority", "median", "adjudicated")
    with pytest.raises(ValueError, match="unknown consensus rule 'mean'"):
        final_labels({}, "mean")
    with pytest.raises(ValueError):
        majority([])
    with pytest.raises(ValueError):
        median([])


def test_binarize_keeps_unjudged() -> None:
    assert [binarize(g, 2) for g in (-1, 0, 1, 2, 3)] == [-1, 0, 0, 1, 1]
    assert [binarize(g, 1) for g in (0, 1, 2)] == [0, 1, 1]


def test_disagreements_largest_distance_first_then_topic_then_docno() -> None:
    votes: dict[Item, Votes] = {
        ("2", "b"): {"a": 0, "b": 1},  # distance 1 - 0 = 1
        ("1", "z"): {"a": 0, "b": 2},  # 2 - 0 = 2
        ("1", "a"): {"a": 1, "b": 0},  # 1
        ("10", "a"): {"a": 2, "b": 0, "c": 1},  # 2 - 0 = 2; "10" < "2" in byte order
        ("1", "same"): {"a": 1, "b": 1},  # agreement: not listed
        ("1", "one"): {"a": 1, "b": None},  # one grade only: not listed
        ("1", "B"): {"a": 0, "b": 1},  # "B" < "a" in byte order
    }
    found = disagreements(votes)
    assert [(d.topic, d.docno, d.distance) for d in found] == [
        ("1", "z", 2),
        ("10", "a", 2),
        ("1", "B", 1),
        ("1", "a", 1),
        ("2", "b", 1),
    ]
    assert found[1].votes == {"a": 2, "b": 0, "c": 1}


def test_cant_judge_votes_are_kept_for_display_but_not_counted() -> None:
    (d,) = disagreements({("1", "x"): {"a": 0, "b": None, "c": 2}})
    assert d.distance == 2 and d.votes == {"a": 0, "b": None, "c": 2}
