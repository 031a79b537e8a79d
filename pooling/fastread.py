"""Reading runs for pooling: only each topic's top ``depth`` documents, parsed once and vectorized.

A pooling strategy that looks no deeper than rank k needs, of every run, only its top k per topic
in canonical order (:mod:`trec.order`: score descending, ties by docno descending in byte order).
:func:`read_top` parses a run file with the compiled reader of :mod:`trec.kernels` (or, without
it, :func:`trec.arrow_runs.parse_plain`, pyarrow's C++ CSV reader; both release the GIL, so files
are read by a thread pool), checks that the file is one :func:`trec.runs.read_run` would read the
same way, and keeps the top k of each topic, ties at the cut broken exactly as the canonical order
breaks them. A file that is not plainly laid out (tabs, several spaces, comment or blank lines,
extra or missing fields, a control byte, a score pyarrow reads differently, a docno twice in a
topic, a file pyarrow rejects) gives None: the caller then reads it with ``read_run``, which
accepts exactly what trec_eval accepts and words every error.

:func:`depth_pool_from_tops` then builds a depth-k pool from those tops with integer ids per
(topic, docno): the same :class:`~pooling.strategies.PoolSelection` that
:func:`pooling.strategies.depth_pool` builds from the runs themselves.

Pure: numpy, pyarrow (optional) and the pure packages ``trec`` and ``pooling.strategies``.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np

from pooling.strategies.pool import PoolSelection
from trec.arrow_runs import parse_plain
from trec.order import canonical_order

# a file above this size goes to read_run, which reads it in blocks
MAX_BYTES = 1 << 30
_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xBF58476D1CE4E5B9)
_K3 = np.uint64(0xD6E8FEB86659FD93)

_LITTLE = sys.byteorder == "little"


@dataclass(frozen=True, eq=False)
class TopRun:
    """One run's top ``depth`` documents per topic in canonical order: what ``truncate(read_run(path),
    depth)`` holds. Topic ``i`` (byte order) spans ``offsets[i]:offsets[i+1]``."""

    name: str
    path: str
    tag: str  # the first line's tag
    runid: str  # the last line's tag (trec_eval's runid)
    topics: tuple[str, ...]
    offsets: np.ndarray
    words: np.ndarray  # (n, k) uint64: the docnos' bytes, NUL-padded to 8k, as machine words
    width: int  # the docnos' fixed width as read_run holds them
    scores: np.ndarray  # float64
    hashes: np.ndarray  # word_hash(words): uint64

    @property
    def docnos(self) -> np.ndarray:
        """The docnos as fixed-width bytes (numpy ``S``), as read_run holds them."""
        k = self.words.shape[1]
        return self.words.view(f"S{8 * k}").reshape(len(self.words)).astype(f"S{self.width}")


def _load(path: str) -> bytes | None:
    """The file's bytes (gunzipped); None when read_run must read it (too large, standard input,
    unreadable: read_run words the error)."""
    if path == "-":
        return None
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > MAX_BYTES:
                return None
            data = fh.read(size + 1)  # one byte more than fstat said: a file that grew is read_run's
        if len(data) > size:
            return None
        if data[:2] == b"\x1f\x8b":
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
                data = gz.read(MAX_BYTES + 1)
            if len(data) > MAX_BYTES:
                return None
    except (OSError, EOFError, zlib.error):
        return None
    return data


def to_words(docnos: np.ndarray) -> np.ndarray:
    """Fixed-width docnos as an (n, k) array of 8-byte words (NUL-padded to 8k bytes)."""
    width = max(docnos.dtype.itemsize, 1)
    padded = -(-width // 8) * 8
    arr = docnos if padded == width else docnos.astype(f"S{padded}")
    return np.ascontiguousarray(arr).view(np.uint64).reshape(len(arr), padded // 8)


def word_hash(words: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of :func:`to_words` whose top bits depend on every byte (equal
    rows, equal hashes; decisions that rest on equality compare the words themselves)."""
    h = words[:, 0] * _K1
    for i in range(1, words.shape[1]):
        h ^= words[:, i]
        h *= _K2
    return h


def _row_hash(docnos: np.ndarray) -> np.ndarray:
    """A 64-bit hash of every row of a fixed-width array, read in place (no padded copy): 8-byte
    words at 0, 8, ... and one ending at the row's end, overlapping the one before if need be."""
    width = docnos.dtype.itemsize
    n = len(docnos)
    if width < 8 or n == 0:
        return word_hash(to_words(docnos))
    flat = np.ascontiguousarray(docnos).view(np.uint8)
    starts = [*range(0, width - 7, 8)]
    if starts[-1] != width - 8:
        starts.append(width - 8)
    h = _words(flat, starts[0], width, n) * _K1
    for s in starts[1:]:
        h ^= _words(flat, s, width, n)
        h *= _K2
    return h


def _words(flat: np.ndarray, start: int, stride: int, n: int) -> np.ndarray:
    """The little-endian 8-byte words at ``start + i * stride`` of a byte array (unaligned reads)."""
    return np.ndarray(shape=(n,), dtype="<u8", buffer=flat, offset=start, strides=(stride,))


def _has_duplicate(codes: np.ndarray, hashes: np.ndarray) -> bool:
    """Whether two rows may hold the same docno in one topic (equal topic-salted hashes)."""
    key = codes.astype(np.uint64)
    key *= _K3
    key ^= hashes
    key.sort()
    return bool((key[1:] == key[:-1]).any())


def read_top(path: str, depth: int | None, name: str) -> TopRun | None:
    """The top ``depth`` (None: all) of every topic of the run at ``path``, or None when
    :func:`trec.runs.read_run` must read the file (see the module's doc)."""
    if depth is not None and depth < 0:
        raise ValueError(f"a depth must be 0 or more, found {depth}")
    data = _load(str(path))
    from trec import kernels

    if kernels.enabled():  # the compiled reader: the whole run in canonical order, then its tops
        plain = kernels.read_plain_run(data) if data else None
        if plain is None:
            return None
        run = SimpleNamespace(
            name=name, path=str(path), tag=plain.tag, runid=plain.runid, topics=plain.topics,
            offsets=plain.offsets, docnos=plain.docnos, scores=plain.scores,
        )  # fmt: skip
        return top_of_run(run, depth)
    cols = parse_plain(data, threads=True) if data else None
    if cols is None:
        return None
    qids, docnos, scores = cols.qids, cols.docnos, cols.scores
    n = len(scores)
    # topic codes in byte order of qid, from the heads of runs of equal qids (files group topics)
    heads = np.flatnonzero(np.r_[True, qids[1:] != qids[:-1]])
    uniq = np.unique(qids[heads])
    lens = np.diff(np.r_[heads, n])
    codes = np.repeat(np.searchsorted(uniq, qids[heads]), lens)
    if _has_duplicate(codes, _row_hash(docnos)):
        return None  # read_run reports the duplicate with its lines (or, for a mere hash clash, reads it)
    if depth is not None and len(uniq) == len(heads) and _sorted_blocks(codes, scores):
        # The usual file: topics in blocks, scores non-increasing. A topic's top k are its rows
        # scoring at least its k-th score (ties at the cut included); only those are ordered.
        thr = np.full(len(heads), -np.inf)
        over = lens > depth
        thr[over] = scores[heads[over] + depth - 1] if depth > 0 else np.inf
        rows = np.flatnonzero(scores >= np.repeat(thr, lens))
        sub_codes, sub_scores, sub_docnos = codes[rows], scores[rows], docnos[rows]
    else:
        sub_codes, sub_scores, sub_docnos = codes, scores.copy(), docnos
    perm = canonical_order(sub_codes, sub_scores, sub_docnos)
    counts = np.bincount(sub_codes, minlength=len(uniq))
    kept = counts if depth is None else np.minimum(counts, depth)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    total = int(kept.sum())
    take = perm[np.repeat(starts - (np.cumsum(kept) - kept), kept) + np.arange(total)]
    words = to_words(sub_docnos[take])
    return TopRun(
        name=name,
        path=str(path),
        tag=cols.tag,
        runid=cols.runid,
        topics=tuple(t.decode("utf-8", errors="replace") for t in uniq.tolist()),
        offsets=np.r_[0, np.cumsum(kept)].astype(np.int64),
        words=words,
        width=sub_docnos.dtype.itemsize,
        scores=sub_scores[take],
        hashes=word_hash(words),
    )


def top_of_run(run: Any, depth: int | None) -> TopRun:
    """A :class:`TopRun` from a run read by :func:`trec.runs.read_run` (any object with its fields)."""
    if depth is not None and depth < 0:
        raise ValueError(f"a depth must be 0 or more, found {depth}")
    counts = np.diff(run.offsets)
    kept = counts if depth is None else np.minimum(counts, depth)
    total = int(kept.sum())
    rows = np.repeat(run.offsets[:-1] - (np.cumsum(kept) - kept), kept) + np.arange(total)
    words = to_words(run.docnos[rows])
    return TopRun(
        name=run.name,
        path=run.path,
        tag=run.tag,
        runid=run.runid,
        topics=tuple(run.topics),
        offsets=np.r_[0, np.cumsum(kept)].astype(np.int64),
        words=words,
        width=run.docnos.dtype.itemsize,
        scores=run.scores[rows],
        hashes=word_hash(words),
    )


def _sorted_blocks(codes: np.ndarray, scores: np.ndarray) -> bool:
    """Scores non-increasing within each run of equal codes."""
    return bool(np.all((scores[1:] <= scores[:-1]) | (codes[1:] != codes[:-1])))


# -- the depth-k pool from the tops -----------------------------------------------------------


class DepthPool(NamedTuple):
    """A depth-k pool, and its documents in (topic, docno) byte order: the order qrels are written in
    (``by_docno`` shares ``pool.offsets``)."""

    pool: PoolSelection
    by_docno: np.ndarray


def _check_depth(depth: int | None) -> None:
    if depth is not None and depth < 0:
        raise ValueError(f"a depth must be 0 or more, found {depth}")


def depth_pool_from_tops(
    tops: Sequence[TopRun],
    depth: int = 100,
    *,
    run_depths: Mapping[str, int] | None = None,
    include: Collection[str] | None = None,
    order: str = "rank",
) -> DepthPool | None:
    """:func:`pooling.strategies.depth_pool` of the runs ``tops`` were read from, with the same
    arguments and errors; None in the rare case this path cannot decide (the caller then builds
    the pool the usual way).

    Candidates get integer ids topic by topic: each topic's entries (the runs' top documents) are
    grouped by a 64-bit docno hash packed with their rank, so one small sort yields every
    candidate, its best rank and its votes at that rank; every entry's docno is then compared with
    its candidate's, so a hash collision is never trusted.
    """
    if order not in ("rank", "docno"):
        raise ValueError(f"unknown judging order '{order}' (rank or docno)")
    names = [t.name for t in tops]
    chosen = list(tops)
    limits_by_name = dict(run_depths or {})
    if include is not None:
        unknown = (set(include) | set(limits_by_name)) - set(names)
        if unknown:
            raise ValueError(f"unknown run(s): {', '.join(sorted(unknown))}")
        chosen = [t for t in tops if t.name in include]
        limits_by_name = {k: v for k, v in limits_by_name.items() if k in include}
    chosen_names = [t.name for t in chosen]
    if len(set(chosen_names)) != len(chosen_names):
        dup = next(n for n in chosen_names if chosen_names.count(n) > 1)
        raise ValueError(f"two runs are named '{dup}': run names must be unique")
    _check_depth(depth)
    for value in limits_by_name.values():
        _check_depth(value)
    unknown = set(limits_by_name) - set(chosen_names)
    if unknown:
        raise ValueError(f"unknown run(s): {', '.join(sorted(unknown))}")
    topics = tuple(sorted({t for run in chosen for t in run.topics}, key=lambda t: t.encode()))
    index = {t: i for i, t in enumerate(topics)}
    limits = [limits_by_name.get(run.name, depth) for run in chosen]
    # per run and global topic: the run's kept rows [start, start + kept)
    n_topics, n_runs = len(topics), len(chosen)
    start = np.zeros((n_runs, n_topics), dtype=np.int64)
    kept = np.zeros((n_runs, n_topics), dtype=np.int64)
    for r, run in enumerate(chosen):
        codes = np.array([index[t] for t in run.topics], dtype=np.int64)
        counts = np.diff(run.offsets)
        start[r, codes] = run.offsets[:-1]
        kept[r, codes] = counts if limits[r] is None else np.minimum(counts, limits[r])
    max_rank = int(kept.max()) if kept.size else 0
    pooled = [chosen[r].name for r in np.flatnonzero(kept.sum(axis=1) > 0).tolist()]
    width = max([run.width for run in chosen] + [1])
    k = max([run.words.shape[1] for run in chosen] + [1])
    # words (and so hashes) are comparable between runs padded to the same number of words
    words = [run.words if run.words.shape[1] == k else _widen(run.words, k) for run in chosen]
    hashes = [
        run.hashes if run.words.shape[1] == k else word_hash(w) for run, w in zip(chosen, words, strict=True)
    ]
    rank_bits = _bits(max_rank + 1)
    by_docno_parts: list[np.ndarray] = []
    judged_parts: list[np.ndarray] = []
    sizes = np.zeros(n_topics, dtype=np.int64)
    for t in range(n_topics):
        got = _topic_candidates(words, hashes, rank_bits, start[:, t], kept[:, t], order)
        if got is None:
            return None
        by_docno_parts.append(got[0])
        judged_parts.append(got[1])
        sizes[t] = len(got[0])
    by_docno = _as_docnos(by_docno_parts, k, width)
    judged = _as_docnos(judged_parts, k, width)
    params: dict[str, Any] = {"depth": depth, "order": order, "runs": pooled}
    if run_depths:
        params["run_depths"] = dict(run_depths)
    pool = PoolSelection(
        strategy="depth",
        topics=topics,
        offsets=np.r_[0, np.cumsum(sizes)].astype(np.int64),
        docnos=judged,
        sampled=np.ones(len(by_docno), dtype=bool),
        params=params,
    )
    return DepthPool(pool, by_docno)


def _bits(n: int) -> int:
    """Bits that hold the numbers 0 .. n - 1 (at least 1)."""
    return max((n - 1).bit_length(), 1)


def _widen(words: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros((len(words), k), dtype=np.uint64)
    out[:, : words.shape[1]] = words
    return out


def _as_docnos(parts: list[np.ndarray], k: int, width: int) -> np.ndarray:
    """Word rows as fixed-width docnos of ``width`` bytes."""
    words = np.concatenate(parts) if parts else np.zeros((0, k), dtype=np.uint64)
    return np.ascontiguousarray(words).view(f"S{8 * k}").reshape(len(words)).astype(f"S{width}")


def _topic_candidates(
    words: Sequence[np.ndarray],
    hashes: Sequence[np.ndarray],
    rank_bits: int,
    start: np.ndarray,
    kept: np.ndarray,
    order: str,
) -> tuple[np.ndarray, np.ndarray] | None:
    """One topic's candidates (as word rows) in docno byte order, and the same in judging order."""
    live = np.flatnonzero(kept)
    k = words[0].shape[1]
    if not len(live):
        empty = np.zeros((0, k), dtype=np.uint64)
        return empty, empty
    lengths = kept[live]
    h_parts, w_parts = [], []
    for r, a, b in zip(live.tolist(), start[live].tolist(), (start[live] + lengths).tolist(), strict=True):
        h_parts.append(hashes[r][a:b])
        w_parts.append(words[r][a:b])
    h = np.concatenate(h_parts)
    w = np.concatenate(w_parts)
    n = len(h)
    entry_bits = _bits(n)
    low = rank_bits + entry_bits
    if low > 40:
        return None  # too few hash bits left to group on: the usual path builds this pool
    # hash's top bits | rank | entry: one sort groups each candidate's entries, best rank first
    rank = np.arange(1, n + 1, dtype=np.uint64)
    rank -= np.repeat((np.cumsum(lengths) - lengths).astype(np.uint64), lengths)
    rank <<= np.uint64(entry_bits)
    packed = h >> np.uint64(low)
    packed <<= np.uint64(low)
    packed |= rank
    packed |= np.arange(n, dtype=np.uint64)
    packed.sort()
    group = packed >> np.uint64(low)
    head = np.empty(n, dtype=bool)
    head[0] = True
    np.not_equal(group[1:], group[:-1], out=head[1:])
    grouped = np.take(w, (packed & np.uint64((1 << entry_bits) - 1)).astype(np.intp), axis=0)
    # every entry must hold its group's docno: a hash clash is never trusted
    same = head[1:].copy()
    for i in range(k):
        col = grouped[:, i]
        same |= col[1:] == col[:-1]
    if not bool(same.all()):
        return None  # two docnos share the hash bits: leave this rare case to the usual path
    reps = np.compress(head, grouped, axis=0)
    by_docno = _docno_order(reps)
    sorted_words = np.take(reps, by_docno, axis=0)
    if order == "docno":
        return sorted_words, sorted_words
    # votes: the length of the leading run of equal (group, rank) in each group
    level = packed >> np.uint64(entry_bits)
    level_head = np.flatnonzero(np.r_[True, level[1:] != level[:-1]])
    votes = np.diff(np.r_[level_head, n])[head[level_head]]
    best = (level[head] & np.uint64((1 << rank_bits) - 1)).astype(np.int64)
    # judging order: best rank, more votes first, then docno (position in the docno order)
    m = len(reps)
    pos = np.empty(m, dtype=np.int64)
    pos[by_docno] = np.arange(m)
    top_votes = int(votes.max())
    vote_bits, pos_bits = _bits(top_votes + 1), _bits(m)
    if rank_bits + vote_bits + pos_bits > 63:
        return sorted_words, np.take(sorted_words, pos[np.lexsort([pos, -votes, best])], axis=0)
    key = best << (vote_bits + pos_bits)
    key |= (top_votes - votes) << pos_bits
    key |= pos
    key.sort()
    return sorted_words, np.take(sorted_words, key & ((1 << pos_bits) - 1), axis=0)


def _docno_order(words: np.ndarray) -> np.ndarray:
    """The permutation sorting distinct docnos (word rows) in byte order (strcmp's)."""
    m, k = words.shape
    if m < 2:
        return np.arange(m)
    # skip the bytes every docno shares (a collection's prefix): the next 8 tell most of them apart
    skip = 8 * k
    for i in range(k):
        differ = int(np.bitwise_or.reduce(words[:, i] ^ words[0, i]))
        if differ:
            low_byte = (
                ((differ & -differ).bit_length() - 1) // 8 if _LITTLE else 7 - (differ.bit_length() - 1) // 8
            )
            skip = 8 * i + low_byte
            break
    chars = np.ascontiguousarray(words).view(np.uint8).reshape(m, 8 * k)
    window = np.zeros((m, 8), dtype=np.uint8)
    span = min(8, 8 * k - skip)
    window[:, :span] = chars[:, skip : skip + span]
    bits = _bits(m)
    # those 8 bytes' top bits | position: one sort of integers; ties on those bits are rare
    packed = window.view(">u8")[:, 0].astype(np.uint64)
    packed >>= np.uint64(bits)
    packed <<= np.uint64(bits)
    packed |= np.arange(m, dtype=np.uint64)
    packed.sort()
    perm = (packed & np.uint64((1 << bits) - 1)).astype(np.intp)
    top = packed >> np.uint64(bits)
    tie = top[1:] == top[:-1]
    if tie.any():
        keys = chars.view(">u8")  # big-endian words: comparing them in order is strcmp
        in_tie = np.zeros(m, dtype=bool)
        in_tie[1:] |= tie
        in_tie[:-1] |= tie
        where = np.flatnonzero(in_tie)
        group = np.cumsum(np.r_[True, ~tie])[where]
        sub = np.take(keys, perm[where], axis=0)
        fixed = np.lexsort([*(sub[:, i] for i in range(k - 1, -1, -1)), group])
        perm[where] = perm[where[fixed]]
    return perm
