"""Overlap designs: k assessors per document, or a double-judged sample balanced over pairs."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judging.design import overlap_design, pair_overlaps

DOCS = [f"d{i:03d}" for i in range(60)]


def test_k_two_of_four_assessors_every_pair_shares_about_equally() -> None:
    design = overlap_design(DOCS, ["a", "b", "c", "d"], k=2, seed=1)
    counts = Counter(d for items in design.values() for d, _ in items)
    assert set(counts.values()) == {2}  # every document judged exactly twice
    shares = pair_overlaps(design)
    # 60 documents dealt to the C(4,2) = 6 pairs in turn: 10 each
    assert set(shares.values()) == {60 // 6}
    assert {len(items) for items in design.values()} == {60 * 2 // 4}
    assert all(shared for items in design.values() for _, shared in items)


def test_k_one_partitions_the_documents() -> None:
    design = overlap_design(DOCS, ["a", "b", "c"], k=1, seed=2)
    assert sorted(d for items in design.values() for d, _ in items) == DOCS
    assert {len(items) for items in design.values()} == {20}
    assert not any(shared for items in design.values() for _, shared in items)


def test_sample_double_judges_the_share_balanced_over_pairs() -> None:
    design = overlap_design(DOCS, ["a", "b", "c"], sample=0.25, seed=3)
    counts = Counter(d for items in design.values() for d, _ in items)
    assert sorted(counts.values()) == [1] * 45 + [2] * 15  # 25% of 60 = 15 judged twice
    assert set(pair_overlaps(design).values()) == {15 // 3}
    loads = sorted(len(items) for items in design.values())
    assert loads[-1] - loads[0] <= 1  # (45 + 2 * 15) / 3 = 25 each


def test_min_pair_raises_a_small_sample() -> None:
    design = overlap_design(DOCS, ["a", "b", "c", "d"], sample=0.05, min_pair=4, seed=0)
    assert min(pair_overlaps(design).values()) >= 4  # 3 shared by the 5% alone would be too few


def test_documents_keep_the_given_order() -> None:
    design = overlap_design(DOCS, ["a", "b"], k=2, seed=5)
    assert [d for d, _ in design["a"]] == DOCS == [d for d, _ in design["b"]]


def test_same_seed_same_design_other_seed_other_design() -> None:
    one = overlap_design(DOCS, ["a", "b", "c"], sample=0.3, seed=11)
    assert one == overlap_design(DOCS, ["a", "b", "c"], sample=0.3, seed=11)
    assert one != overlap_design(DOCS, ["a", "b", "c"], sample=0.3, seed=12)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 3}, "between 1 and 2"),
        ({"k": 1, "sample": 0.1}, "not both"),
        ({}, "not both"),
        ({"sample": 1.5}, "between 0 and 1"),
    ],
)
def test_impossible_designs_are_refused(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        overlap_design(DOCS, ["a", "b"], **kwargs)  # type: ignore[arg-type]


def test_double_judging_needs_two_assessors() -> None:
    with pytest.raises(ValueError, match="two assessors"):
        overlap_design(DOCS, ["a"], sample=0.2)


@given(
    n=st.integers(0, 80),
    m=st.integers(2, 6),
    k=st.integers(1, 3),
    seed=st.integers(0, 2**16),
)
def test_k_design_properties(n: int, m: int, k: int, seed: int) -> None:
    k = min(k, m)
    docs = [f"d{i}" for i in range(n)]
    names = [f"a{j}" for j in range(m)]
    design = overlap_design(docs, names, k=k, seed=seed)
    counts = Counter(d for items in design.values() for d, _ in items)
    assert all(counts[d] == k for d in docs)
    if k >= 2:
        shares = [
            len({d for d, _ in design[a]} & {d for d, _ in design[b]}) for a, b in combinations(names, 2)
        ]
        # a pair's share differs from another's by at most the subsets containing both, one round
        assert max(shares) - min(shares) <= max(1, len(list(combinations(range(m - 2), k - 2))))
