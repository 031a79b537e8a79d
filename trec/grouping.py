"""Topic ids to dense codes, and segment offsets of topic-sorted arrays."""

from __future__ import annotations

import numpy as np

from trec.errors import FormatError


def topic_codes(topics: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Map a bytes array of topic ids to codes ordered by the ids' byte order (as trec_eval sorts).

    Files list a topic's lines together, so the unique ids are found from the heads of runs of
    equal values, which is far cheaper than sorting every line's id.
    """
    n = len(topics)
    if n == 0:
        return [], np.zeros(0, dtype=np.int64)
    heads = np.flatnonzero(np.r_[True, topics[1:] != topics[:-1]])
    uniq = np.unique(topics[heads])
    run_codes = np.searchsorted(uniq, topics[heads])
    codes = np.repeat(run_codes, np.diff(np.r_[heads, n]))
    return [t.decode("utf-8", errors="replace") for t in uniq.tolist()], codes.astype(np.int64)


def offsets_from_sorted_codes(codes: np.ndarray, ntopics: int) -> np.ndarray:
    """Offsets (length ntopics + 1) of each code's segment in an array sorted by code."""
    return np.searchsorted(codes, np.arange(ntopics + 1), side="left").astype(np.int64)


def duplicate_error(
    path: str,
    topics: list[str],
    codes: np.ndarray,
    docnos: np.ndarray,
    lines: np.ndarray | None,
    earlier: int,
    later: int,
) -> FormatError:
    """The error for a docno listed twice in one topic (rows ``earlier`` and ``later``)."""
    docno = docnos[later].decode("utf-8", errors="replace")
    topic = topics[int(codes[later])]
    where = int(lines[later]) if lines is not None else 0
    seen = f" (first on line {int(lines[earlier])})" if lines is not None else ""
    return FormatError(
        path,
        where,
        f"duplicate docno '{docno}' in topic '{topic}'{seen}: a document may appear once per topic",
    )


def duplicate_rows(topic_sorted_codes: np.ndarray, docno_sorted: np.ndarray) -> np.ndarray:
    """Indices (into (topic, docno)-sorted arrays) of rows equal to the previous row."""
    if len(docno_sorted) < 2:
        return np.zeros(0, dtype=np.int64)
    same = (topic_sorted_codes[1:] == topic_sorted_codes[:-1]) & (docno_sorted[1:] == docno_sorted[:-1])
    return np.flatnonzero(same) + 1


TOPIC_MIX = np.uint64(0xD6E8FEB86659FD93)


def topic_keys(hashes: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Combine docno hashes with topic codes into one 64-bit key per (topic, docno)."""
    return hashes ^ ((codes.astype(np.uint64) + np.uint64(1)) * TOPIC_MIX)


def find_duplicate(
    codes: np.ndarray, docnos: np.ndarray, hashes: np.ndarray | None = None
) -> tuple[int, int] | None:
    """Rows ``(earlier, later)`` of the first docno listed twice within one topic, or None.

    Hashes (topic, docno) to 64 bits, far cheaper to compare than strings; rows sharing a
    hash are then compared exactly.
    """
    from trec.order import hash_strings

    if len(docnos) < 2:
        return None
    key = topic_keys(hash_strings(docnos) if hashes is None else hashes, codes)
    # Scatter every row into a table indexed by low key bits (last write wins): only rows that
    # lost their slot, and the rows that won those slots, can share a key. That is a few percent
    # of the rows, and only those are sorted.
    bits = max(16, int(4 * len(key)).bit_length())
    slot = (key & np.uint64((1 << bits) - 1)).astype(np.intp)
    table = np.empty(1 << bits, dtype=np.int32 if len(key) < 2**31 else np.intp)
    rows = np.arange(len(key), dtype=table.dtype)
    table[slot] = rows
    lost = table[slot] != rows
    if not lost.any():
        return None
    contested = np.zeros(1 << bits, dtype=bool)
    contested[slot[lost]] = True
    involved = np.flatnonzero(contested[slot])
    sub = key[involved]
    order_sub = np.argsort(sub, kind="stable")
    if not (np.diff(sub[order_sub]) == 0).any():
        return None
    order = involved[order_sub]
    sk = key[order]
    same = sk[1:] == sk[:-1]
    found: list[tuple[int, int]] = []
    run_heads = np.flatnonzero(same & np.r_[True, ~same[:-1]])
    for head in run_heads.tolist():
        end = head + 1
        while end < len(same) and same[end]:
            end += 1
        seen: dict[tuple[int, bytes], int] = {}
        for r in sorted(order[head : end + 1].tolist()):
            k = (int(codes[r]), bytes(docnos[r]))
            if k in seen:
                found.append((seen[k], r))
            else:
                seen[k] = r
    return min(found, key=lambda p: p[1]) if found else None
