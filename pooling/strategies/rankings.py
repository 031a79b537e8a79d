"""Many runs aligned by topic over one candidate-document vocabulary: the input of every pooling strategy."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from trec.order import hash_strings
from trec.runs import RankedRun

NO_RANK = np.iinfo(np.int64).max


@dataclass(frozen=True, eq=False)  # numpy fields: no element-wise __eq__
class Rankings:
    """Runs' rankings in canonical order, as one table of entries sorted by (topic, run, rank).

    Entry ``i`` says: run ``run[i]`` ranks candidate ``doc[i]`` at ``rank[i]`` (1-based, the
    canonical order of :mod:`trec.order`) with ``score[i]`` for topic ``topic[i]``. Candidates
    are numbered per topic in docno byte order: topic ``t`` owns ``docnos[doc_offsets[t]:
    doc_offsets[t+1]]``, so "docno order" is simply id order.
    """

    run_names: tuple[str, ...]
    topics: tuple[str, ...]
    topic: np.ndarray  # int64 topic code per entry
    run: np.ndarray  # int64 run index per entry
    rank: np.ndarray  # int64, 1-based
    score: np.ndarray  # float64
    doc: np.ndarray  # int64 candidate id per entry
    entry_offsets: np.ndarray  # (T+1,) entries of topic t
    docnos: np.ndarray  # bytes: candidate vocabulary sorted by (topic, docno)
    doc_topic: np.ndarray  # int64 topic code of each candidate
    doc_offsets: np.ndarray  # (T+1,)

    @classmethod
    def from_runs(
        cls,
        runs: Sequence[RankedRun],
        depth: int | None = None,
        *,
        run_depths: Mapping[str, int] | None = None,
    ) -> Rankings:
        """Align ``runs`` (names must be unique); keep each run's top ``depth`` (or its own depth)."""
        names = [r.name for r in runs]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise ValueError(f"two runs are named '{dup}': run names must be unique")
        _check_depth(depth)
        for value in (run_depths or {}).values():
            _check_depth(value)
        unknown = set(run_depths or {}) - set(names)
        if unknown:
            raise ValueError(f"unknown run(s): {', '.join(sorted(unknown))}")
        topics = tuple(sorted({t for r in runs for t in r.topics}, key=lambda t: t.encode()))
        index = {t: i for i, t in enumerate(topics)}
        codes = [np.array([index[t] for t in run.topics], dtype=np.int64) for run in runs]
        kept = np.zeros((len(runs), len(topics)), dtype=np.int64)
        for r, run in enumerate(runs):
            limit = (run_depths or {}).get(run.name, depth)
            counts = np.diff(run.offsets)
            kept[r, codes[r]] = counts if limit is None else np.minimum(counts, limit)
        # Entries go straight to their (topic, run, rank) place: the block of run r in topic t
        # starts after the topic's earlier blocks, so no sort and no intermediate copies.
        per_topic = kept.sum(axis=0)
        entry_offsets = np.r_[0, np.cumsum(per_topic)].astype(np.int64)
        base = entry_offsets[:-1][None, :] + np.cumsum(kept, axis=0) - kept
        total = int(entry_offsets[-1])
        width = max([run.docnos.dtype.itemsize for run in runs] + [1])
        topic = np.repeat(np.arange(len(topics), dtype=np.int32), per_topic)
        run_of = np.empty(total, dtype=np.int32)
        rank = np.empty(total, dtype=np.int32)
        score = np.empty(total, dtype=np.float64)
        docnos = np.empty(total, dtype=f"S{width}")
        hashes = np.empty(total, dtype=np.uint64)
        for r, run in enumerate(runs):
            n_kept = kept[r, codes[r]]
            within = np.arange(int(n_kept.sum())) - np.repeat(np.cumsum(n_kept) - n_kept, n_kept)
            rows = np.repeat(run.offsets[:-1], n_kept) + within
            dest = np.repeat(base[r, codes[r]], n_kept) + within
            run_of[dest] = r
            rank[dest] = within + 1
            score[dest] = run.scores[rows]
            docnos[dest] = run.docnos[rows]
            hashes[dest] = (
                run.docno_hashes[rows] if run.docno_hashes is not None else hash_strings(docnos[dest])
            )
        doc, vocab, vocab_topic = _vocabulary(entry_offsets, hashes, docnos)
        return cls(
            run_names=tuple(names),
            topics=topics,
            topic=topic,
            run=run_of,
            rank=rank,
            score=score,
            doc=doc,
            entry_offsets=entry_offsets,
            docnos=vocab,
            doc_topic=vocab_topic,
            doc_offsets=np.searchsorted(vocab_topic, np.arange(len(topics) + 1)).astype(np.int64),
        )

    @property
    def n_runs(self) -> int:
        return len(self.run_names)

    @property
    def n_docs(self) -> int:
        return len(self.docnos)

    def restrict(
        self,
        *,
        runs: Collection[str] | None = None,
        depth: int | None = None,
        run_depths: Mapping[str, int] | None = None,
    ) -> Rankings:
        """Only the entries of ``runs`` (names) within each run's depth; the vocabulary is kept."""
        _check_depth(depth)
        limits = np.full(self.n_runs, NO_RANK, dtype=np.int64)
        if depth is not None:
            limits[:] = depth
        unknown = set(runs or ()) | set(run_depths or {})
        unknown -= set(self.run_names)
        if unknown:
            raise ValueError(f"unknown run(s): {', '.join(sorted(unknown))}")
        for name, value in (run_depths or {}).items():
            _check_depth(value)
            limits[self.run_names.index(name)] = value
        if runs is not None:
            chosen = np.zeros(self.n_runs, dtype=bool)
            chosen[[self.run_names.index(n) for n in runs]] = True
            limits[~chosen] = 0
        if (limits == NO_RANK).all():
            return self
        keep = self.rank <= limits[self.run]
        topic = self.topic[keep]
        return replace(
            self,
            topic=topic,
            run=self.run[keep],
            rank=self.rank[keep],
            score=self.score[keep],
            doc=self.doc[keep],
            entry_offsets=np.searchsorted(topic, np.arange(len(self.topics) + 1)).astype(np.int64),
        )

    def best_rank(self) -> np.ndarray:
        """Per candidate, its best (smallest) rank over the entries; NO_RANK if no entry has it."""
        best = np.full(self.n_docs, NO_RANK, dtype=np.int64)
        np.minimum.at(best, self.doc, self.rank)
        return best

    def votes_at_best(self, best: np.ndarray) -> np.ndarray:
        """Per candidate, how many runs rank it at its best rank."""
        at_best = self.rank == best[self.doc]
        return np.bincount(self.doc[at_best], minlength=self.n_docs).astype(np.int64)

    def retrieved_by(self) -> np.ndarray:
        """Per candidate, how many entries (runs) retrieve it."""
        return np.bincount(self.doc, minlength=self.n_docs).astype(np.int64)

    def fingerprint(self) -> str:
        """A digest of the runs' names and entries: a queue restored on other runs is refused."""
        h = hashlib.blake2b(digest_size=16)
        h.update("\x00".join(self.run_names).encode())
        h.update(b"\x01" + "\x00".join(self.topics).encode())
        for arr in (self.run, self.rank, self.doc, hash_strings(self.docnos)):
            h.update(np.ascontiguousarray(arr).tobytes())
        return h.hexdigest()


def truncate(run: RankedRun, depth: int | None) -> RankedRun:
    """``run`` cut to its top ``depth`` documents per topic (the run itself when nothing is cut).

    Strategies that look no deeper than k can drop the rest as soon as a run is read, which
    keeps a hundred 1000-document runs in a few megabytes.
    """
    if depth is None:
        return run
    _check_depth(depth)
    counts = np.diff(run.offsets)
    n_kept = np.minimum(counts, depth)
    if (n_kept == counts).all():
        return run
    total = int(n_kept.sum())
    rows = np.repeat(run.offsets[:-1] - (np.cumsum(n_kept) - n_kept), n_kept) + np.arange(total)
    return replace(
        run,
        offsets=np.r_[0, np.cumsum(n_kept)].astype(np.int64),
        docnos=run.docnos[rows],
        scores=run.scores[rows],
        docno_hashes=None if run.docno_hashes is None else run.docno_hashes[rows],
    )


def _check_depth(depth: int | None) -> None:
    if depth is not None and depth < 0:
        raise ValueError(f"a depth must be 0 or more, found {depth}")


def _vocabulary(
    entry_offsets: np.ndarray, hashes: np.ndarray, docnos: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Candidate id per entry, ids numbered in (topic, docno) byte order; exact despite hashing.

    Topic by topic (small sorts that stay in cache), entries are grouped by their 64-bit docno
    hash, far cheaper to sort than strings; every entry is then checked to hold the same docno
    as its group's first, and only if a collision shows does that topic group the strings.
    """
    ids = np.empty(len(docnos), dtype=np.int64)
    vocab: list[np.ndarray] = []
    vocab_topic: list[np.ndarray] = []
    next_id = 0
    for t in range(len(entry_offsets) - 1):
        a, b = int(entry_offsets[t]), int(entry_offsets[t + 1])
        if a == b:
            continue
        h, d = hashes[a:b], docnos[a:b]
        perm = np.argsort(h)
        sh = h[perm]
        head = np.empty(len(sh), dtype=bool)
        head[0] = True
        np.not_equal(sh[1:], sh[:-1], out=head[1:])
        first = perm[head]
        inverse = np.empty(len(sh), dtype=np.int64)
        inverse[perm] = np.cumsum(head) - 1
        if bool((d[first][inverse] == d).all()):
            reps = d[first]
            order = np.argsort(reps, kind="stable")  # bytes compare as strcmp does
            rank_of = np.empty(len(order), dtype=np.int64)
            rank_of[order] = np.arange(len(order))
            local, words = rank_of[inverse], reps[order]
        else:  # a 64-bit collision between two different docnos
            words, local = np.unique(d, return_inverse=True)
        ids[a:b] = local + next_id
        next_id += len(words)
        vocab.append(words)
        vocab_topic.append(np.full(len(words), t, dtype=np.int64))
    if not vocab:
        return ids, np.zeros(0, dtype=docnos.dtype if len(docnos) else "S1"), np.zeros(0, dtype=np.int64)
    return ids, np.concatenate(vocab), np.concatenate(vocab_topic)
