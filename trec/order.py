"""The one canonical ranking order: score descending as a double, ties by docno descending (strcmp).

The rank column of a run is never used. Pooling, evaluation, judged@k and every diagnostic call
:func:`canonical_order` so that they all see the same ranking (trec_eval's ``comp_sim_docno``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xBF58476D1CE4E5B9)


def docno_keys(docnos: np.ndarray, width: int | None = None) -> list[np.ndarray]:
    """Big-endian 8-byte chunks of zero-padded docnos, most significant first.

    Comparing the chunks in order is ``strcmp``: zero padding sorts before every byte, as the
    NUL terminator does in C, so ``b"d1" < b"d10"`` holds chunk-wise too. ``width`` pads to at
    least that many bytes (values longer than it must not be given).
    """
    arr = np.asarray(docnos)
    if arr.dtype.kind != "S":
        arr = arr.astype("S")
    width = max(arr.dtype.itemsize, width or 1, 1)
    padded = -(-width // 8) * 8
    if padded != arr.dtype.itemsize:
        arr = arr.astype(f"S{padded}")
    chunks = np.ascontiguousarray(arr).view(">u8").reshape(len(arr), padded // 8)
    return [chunks[:, i] for i in range(chunks.shape[1])]


def hash_strings(values: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each bytes value (for duplicate detection; callers confirm exact equality).

    The hash of a value does not depend on the array's width: all-zero chunks (the padding of
    values shorter than the widest) leave it unchanged, so hashes of a run's and a qrels' docnos
    can be joined.
    """
    chunks = docno_keys(values)
    h = np.full(len(values), 0x51ED27, dtype=np.uint64)
    for c in chunks:
        c = c.astype(np.uint64)
        mixed = h ^ c
        mixed *= _K1
        mixed ^= mixed >> np.uint64(31)
        np.copyto(h, mixed, where=c != 0)
    h *= _K2
    h ^= h >> np.uint64(29)
    return h


def sort_by_topic_docno(topic_codes: np.ndarray, docnos: np.ndarray) -> np.ndarray:
    """Permutation sorting by (topic code, docno ascending in byte order); stable.

    Files usually list a topic's lines together, and qrels often in docno order already: an
    already sorted file costs a linear check, and lines grouped by topic are sorted one topic at
    a time (a few thousand keys that stay in cache, instead of every line of the file at once).
    """
    codes = np.asarray(topic_codes)
    n = len(codes)
    keys = docno_keys(docnos)
    if n < 2:
        return np.arange(n)
    if _lex_sorted([codes, *keys]):
        return np.arange(n)
    contiguous, heads = _is_block_contiguous(codes)
    if not contiguous or len(heads) < 2:
        return np.lexsort([*keys[::-1], codes])
    ends = np.r_[heads[1:], n]
    block_order = np.argsort(codes[heads], kind="stable")
    parts = []
    for b in block_order.tolist():
        a, e = int(heads[b]), int(ends[b])
        parts.append(a + np.lexsort([k[a:e] for k in keys[::-1]]))
    return np.concatenate(parts)


def _ties_descending(docnos: np.ndarray, pairs: np.ndarray) -> bool:
    """Whether rows i and i + 1 have strictly descending docnos for every i in ``pairs``. numpy
    orders fixed-width bytes as ``strcmp`` orders NUL-free strings, as :func:`docno_keys` does."""
    if docnos.dtype.kind != "S":
        return False
    return bool(np.all(docnos[pairs] > docnos[pairs + 1]))


def _lex_sorted(columns: Sequence[np.ndarray]) -> bool:
    """Whether rows are in non-decreasing lexicographic order of ``columns`` (most significant first)."""
    less = np.zeros(len(columns[0]) - 1, dtype=bool)
    equal = np.ones(len(columns[0]) - 1, dtype=bool)
    for c in columns:
        a, b = c[:-1], c[1:]
        less |= equal & (a < b)
        equal &= a == b
        if not bool((less | equal).all()):
            return False
    return True


def _is_block_contiguous(codes: np.ndarray) -> tuple[bool, np.ndarray]:
    heads = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    return len(np.unique(codes[heads])) == len(heads), heads


def canonical_order(topic_codes: np.ndarray, scores: np.ndarray, docnos: np.ndarray) -> np.ndarray:
    """Permutation into canonical order: topic code ascending, score descending, docno descending.

    Runs are usually written topic by topic in score order, so the common case costs a linear
    check plus a sort of the tied rows only; anything else takes a full lexicographic sort.
    """
    codes = np.asarray(topic_codes)
    scores = np.asarray(scores, dtype=np.float64)
    n = len(codes)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    contiguous, heads = _is_block_contiguous(codes)
    perm: np.ndarray | None = None
    if contiguous:
        same_topic = codes[1:] == codes[:-1]
        if bool(np.all((scores[1:] <= scores[:-1]) | ~same_topic)):
            ends = np.r_[heads[1:], n]
            block_order = np.argsort(codes[heads], kind="stable")
            if np.all(block_order[1:] > block_order[:-1]):
                perm = np.arange(n)
            else:
                lens = (ends - heads)[block_order]
                starts = heads[block_order]
                perm = np.repeat(starts - np.r_[0, np.cumsum(lens)[:-1]], lens) + np.arange(n)
            # whole topics move, so tied neighbours stay neighbours: when every tie's docnos
            # already descend (a run written in canonical order, a stored run), that is all
            ties = np.flatnonzero(same_topic & (scores[1:] == scores[:-1]))
            if not len(ties) or _ties_descending(np.asarray(docnos), ties):
                return perm
    if perm is None:
        perm = np.lexsort([-scores, codes])
    c, s = codes[perm], scores[perm]
    tie = (c[1:] == c[:-1]) & (s[1:] == s[:-1])
    if tie.any():
        in_tie = np.zeros(n, dtype=bool)
        in_tie[1:] |= tie
        in_tie[:-1] |= tie
        pos = np.flatnonzero(in_tie)
        group = np.cumsum(np.r_[True, ~tie])[pos]
        keys = [~k for k in docno_keys(np.asarray(docnos)[perm[pos]])]
        fixed = np.lexsort([*keys[::-1], group])
        perm = perm.copy()
        perm[pos] = perm[pos[fixed]]
    return perm


def rank_pairs(pairs: Sequence[tuple[str, float]]) -> list[str]:
    """Canonical order of one topic's ``(docno, score)`` pairs, for small in-memory uses."""
    if not pairs:
        return []
    docnos = np.array([d.encode() for d, _ in pairs], dtype=bytes)
    scores = np.array([s for _, s in pairs], dtype=np.float64)
    perm = canonical_order(np.zeros(len(pairs), dtype=np.int64), scores, docnos)
    return [pairs[i][0] for i in perm.tolist()]
