"""Who judges which document: overlap designs for agreement, balanced over assessor pairs (pure, seeded).

Two designs, per topic, over the topic's assessors:

* ``k`` assessors per document: the documents are dealt, in a seeded order, to the k-subsets of
  the assessors in turn, so every subset (every pair when k = 2) gets the same number of
  documents give or take one, and each assessor the same load give or take one subset's worth.
* a double-judged sample of a fraction ``p`` of the documents: the sample is dealt to the pairs
  in turn (each pair gets ⌊s / #pairs⌋ or one more, and at least ``min_pair`` when the topic has
  enough documents), and every other document to one assessor, least loaded first.

The result keeps each assessor's documents in the order given (docno order, say), with a flag for
the documents someone else also judges; with ``shuffle`` each assessor gets their own seeded order
instead, so two assessors sharing documents never read them in the same sequence (an order effect
shared by both would look like agreement).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations

import numpy as np


def _generator(seed: int | np.random.Generator) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def overlap_design(
    docnos: Sequence[str],
    assessors: Sequence[str],
    *,
    k: int | None = None,
    sample: float | None = None,
    min_pair: int = 0,
    seed: int | np.random.Generator = 0,
    shuffle: bool = False,
) -> dict[str, list[tuple[str, bool]]]:
    """Per assessor, the (docno, shared) pairs to judge, in the order of ``docnos`` (``shuffle``:
    in a seeded order of each assessor's own, drawn after the design from the same generator).

    Give ``k`` (1 = everyone judges different documents) or ``sample`` (a fraction in [0, 1],
    judged twice). ``min_pair`` raises the sample so every pair shares at least that many
    documents, when there are enough documents. Raises ValueError for impossible designs.
    """
    names = list(dict.fromkeys(assessors))
    if len(names) != len(assessors):
        raise ValueError("an assessor is listed twice")
    if not names:
        raise ValueError("a design needs at least one assessor")
    if (k is None) == (sample is None):
        raise ValueError("choose k assessors per document or a double-judged sample, not both")
    rng = _generator(seed)
    order = rng.permutation(len(docnos))
    # groups[i] = the assessors judging docnos[i]
    groups: list[tuple[int, ...]] = [()] * len(docnos)
    if k is not None:
        if not 1 <= k <= len(names):
            raise ValueError(
                f"{k} assessors per document needs between 1 and {len(names)} (the topic's assessors)"
            )
        subsets = list(combinations(range(len(names)), k))
        subsets = [subsets[i] for i in rng.permutation(len(subsets))]
        for n, i in enumerate(order.tolist()):
            groups[i] = subsets[n % len(subsets)]
    else:
        assert sample is not None
        if not 0.0 <= sample <= 1.0:
            raise ValueError(f"the double-judged share is between 0 and 1, found {sample}")
        pairs = list(combinations(range(len(names)), 2))
        if sample > 0 and not pairs:
            raise ValueError("double judging needs at least two assessors on the topic")
        shared = math.floor(sample * len(docnos) + 0.5)
        if pairs:
            shared = min(len(docnos), max(shared, min_pair * len(pairs)))
        pairs = [pairs[i] for i in rng.permutation(len(pairs))] if pairs else []
        load = np.zeros(len(names), dtype=np.int64)
        for n, i in enumerate(order.tolist()):
            if n < shared:
                pair = pairs[n % len(pairs)]
                groups[i] = pair
                load[list(pair)] += 1
            else:
                # the least loaded assessor, ties to a seeded choice so nobody is always first
                least = np.flatnonzero(load == load.min())
                who = int(least[rng.integers(len(least))])
                groups[i] = (who,)
                load[who] += 1
    out: dict[str, list[tuple[str, bool]]] = {name: [] for name in names}
    for docno, group in zip(docnos, groups, strict=True):
        for a in group:
            out[names[a]].append((docno, len(group) > 1))
    if shuffle:
        for name in names:
            mine = out[name]
            out[name] = [mine[i] for i in rng.permutation(len(mine)).tolist()]
    return out


def pair_overlaps(design: dict[str, list[tuple[str, bool]]]) -> dict[tuple[str, str], int]:
    """Documents each pair of assessors shares in a design (every pair listed, zero included)."""
    sets = {a: {d for d, _ in items} for a, items in design.items()}
    return {(a, b): len(sets[a] & sets[b]) for a, b in combinations(list(design), 2)}
