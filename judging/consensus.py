"""Final labels from several assessors' grades, and the disagreements to adjudicate (pure: no Django).

Votes are per item (topic, docno) and per assessor: a grade, or None when the assessor could not
judge the document ("can't judge"). "Can't judge" votes are left out of every rule; an item nobody
could grade has no final label (None), unless an adjudicator decided it.

The rules (:data:`RULES`):

- ``majority``: the most frequent grade. **Ties break to the lowest of the tied grades**: a document
  is only called (more) relevant when more assessors say so than say otherwise, the conservative
  reading TREC uses for conflicting judgments. E.g. (0, 2) → 0; (0, 1, 1, 2, 2) → 1.
- ``median``: the median grade. **For an even number of votes, the lower median** (the lower of the
  two middle grades), so the label stays a grade of the scale and leans the same way as the
  majority's tie-break. E.g. (0, 1, 2, 2) → 1; (0, 2) → 0; (0, 1, 2) → 1.
- ``adjudicated``: the adjudicator's decision where there is one, otherwise the majority.

A disagreement (:func:`disagreements`) is an item with at least two graded votes that differ; its
distance is the largest minus the smallest grade. The adjudication queue lists the largest distance
first, then topic and docno in byte order (the order the rest of the workbench sorts them in).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

RULES = ("majority", "median", "adjudicated")

Item = tuple[str, str]  # (topic, docno)
Votes = Mapping[str, int | None]  # assessor -> grade (None: can't judge)


def majority(grades: Sequence[int]) -> int:
    """The most frequent grade; a tie goes to the lowest of the tied grades."""
    if not grades:
        raise ValueError("a majority needs at least one grade")
    counts = Counter(grades)
    top = max(counts.values())
    return min(g for g, c in counts.items() if c == top)


def median(grades: Sequence[int]) -> int:
    """The median grade; with an even number of grades, the lower of the two middle ones."""
    if not grades:
        raise ValueError("a median needs at least one grade")
    ordered = sorted(grades)
    return ordered[(len(ordered) - 1) // 2]


def graded(votes: Votes) -> list[int]:
    """The votes that carry a grade ("can't judge" left out)."""
    return [g for g in votes.values() if g is not None]


def final_labels(
    votes: Mapping[Item, Votes], rule: str, adjudicated: Mapping[Item, int] | None = None
) -> dict[Item, int | None]:
    """The final grade of every item under ``rule`` (None: nobody could grade it).

    With ``rule="adjudicated"``, an adjudicated item takes the decision even when it has no votes.
    """
    if rule not in RULES:
        raise ValueError(f"unknown consensus rule '{rule}' (one of {', '.join(RULES)})")
    decided = dict(adjudicated or {}) if rule == "adjudicated" else {}
    combine = median if rule == "median" else majority
    out: dict[Item, int | None] = {}
    for item, by_assessor in votes.items():
        grades = graded(by_assessor)
        out[item] = combine(grades) if grades else None
    out.update(decided)
    return out


def binarize(grade: int, threshold: int) -> int:
    """1 when ``grade`` ≥ ``threshold``, 0 when judged below it; a negative grade (pooled, not
    judged) stays -1 (the qrels convention)."""
    if grade < 0:
        return -1
    return 1 if grade >= threshold else 0


@dataclass(frozen=True)
class Disagreement:
    topic: str
    docno: str
    votes: dict[str, int | None]  # every vote, "can't judge" (None) included
    distance: int  # largest minus smallest grade


def _key(d: Disagreement) -> tuple[int, bytes, bytes]:
    return (-d.distance, d.topic.encode(), d.docno.encode())


def disagreements(votes: Mapping[Item, Votes]) -> list[Disagreement]:
    """Items with two or more graded votes that differ, largest distance first, then topic and
    docno (byte order)."""
    out = []
    for (topic, docno), by_assessor in votes.items():
        grades = graded(by_assessor)
        if len(grades) >= 2 and min(grades) != max(grades):
            out.append(Disagreement(topic, docno, dict(by_assessor), max(grades) - min(grades)))
    return sorted(out, key=_key)


# ------------------------------------------------------------- machine and human disagreements

HUMAN = "human"  # people's grades differ among themselves
MACHINE = "machine"  # people agree (or one or none graded): only a machine's grade differs
KINDS = (HUMAN, MACHINE)

# Which disagreements a machine is party to go to people (:func:`to_people`). A disagreement
# between people always does.
MACHINE_RULES = {
    "all": "every one, machines among themselves included",
    "any_human": "where a machine's grade differs from a person's",
    "human_majority": "only where a machine's grade differs from two or more people who agree",
    "none": "none: only disagreements between people",
}
DEFAULT_MACHINE_RULE = "all"  # what the queue held before the rule existed: nothing is hidden


def human_grades(d: Disagreement, machines: Collection[str]) -> list[int]:
    """The graded votes of the people (every assessor not in ``machines``)."""
    return [g for name, g in d.votes.items() if name not in machines and g is not None]


def disagreement_kind(d: Disagreement, machines: Collection[str]) -> str:
    """:data:`HUMAN` when people's grades differ among themselves (whatever the machines say),
    else :data:`MACHINE`: the disagreement is there only because of a machine's grade."""
    return HUMAN if len(set(human_grades(d, machines))) > 1 else MACHINE


def to_people(d: Disagreement, machines: Collection[str], rule: str) -> bool:
    """Whether ``d`` goes to the adjudication queue under the campaign's machine ``rule``.

    A disagreement between people always does. One that only a machine causes (the people who
    graded the document agree, so a machine's grade differs from theirs, or machines differ
    among themselves): ``all`` sends every one; ``any_human`` those where at least one person
    graded the document (a machine's grade then differs from a person's); ``human_majority``
    those where two or more people graded it and agree, and a machine says otherwise; ``none``
    none of them.
    """
    if rule not in MACHINE_RULES:
        raise ValueError(f"unknown machine disagreement rule '{rule}' (one of {', '.join(MACHINE_RULES)})")
    if disagreement_kind(d, machines) == HUMAN:
        return True
    people = len(human_grades(d, machines))
    return {"all": True, "any_human": people >= 1, "human_majority": people >= 2, "none": False}[rule]
