"""Disagreements between people and those only a machine causes, and the rule that decides which
of the latter go to people (pure: judging.consensus)."""

from __future__ import annotations

import pytest

from judging.consensus import (
    DEFAULT_MACHINE_RULE,
    HUMAN,
    MACHINE,
    MACHINE_RULES,
    Votes,
    disagreement_kind,
    disagreements,
    to_people,
)

MACHINES = {"llm", "llm2"}

# each item's votes, and which rules send it to people
CASES: dict[str, tuple[Votes, str, set[str]]] = {
    # people differ: always a disagreement between people, the machine's vote or not
    "people": ({"alice": 0, "bob": 2}, HUMAN, set(MACHINE_RULES)),
    "people-and-machine": ({"alice": 0, "bob": 1, "llm": 2}, HUMAN, set(MACHINE_RULES)),
    # two people agree on 1, the machine says 2: against a majority of 2+ people
    "majority": ({"alice": 1, "bob": 1, "llm": 2}, MACHINE, {"all", "any_human", "human_majority"}),
    # one person and the machine
    "one-person": ({"alice": 0, "llm": 2}, MACHINE, {"all", "any_human"}),
    # a person could not judge: one graded person only
    "one-graded": ({"alice": 1, "bob": None, "llm": 0}, MACHINE, {"all", "any_human"}),
    # machines among themselves, no person
    "machines": ({"llm": 0, "llm2": 2}, MACHINE, {"all"}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_disagreement_has_a_kind_and_goes_to_people_under_its_rules(case: str) -> None:
    votes, kind, rules = CASES[case]
    (d,) = disagreements({("1", case): votes})
    assert disagreement_kind(d, MACHINES) == kind
    assert {rule for rule in MACHINE_RULES if to_people(d, MACHINES, rule)} == rules


def test_without_machines_every_disagreement_is_between_people() -> None:
    (d,) = disagreements({("1", "d"): {"alice": 1, "bob": 1, "llm": 2}})
    assert disagreement_kind(d, set()) == HUMAN
    assert to_people(d, set(), "none")


def test_the_default_rule_sends_every_disagreement_as_before() -> None:
    found = disagreements({("1", c): v for c, (v, _, _) in CASES.items()})
    assert DEFAULT_MACHINE_RULE == "all"
    assert all(to_people(d, MACHINES, DEFAULT_MACHINE_RULE) for d in found)


def test_an_unknown_rule_is_refused() -> None:
    (d,) = disagreements({("1", "d"): {"alice": 0, "llm": 2}})
    with pytest.raises(ValueError, match="one of all, any_human, human_majority, none"):
        to_people(d, MACHINES, "some")
