"""Adaptive pools as judging queues: per topic, "what next?" answered from the judgments so far.

Move-to-Front (Cormack, Palmer & Clarke 1998), the MaxMean and Thompson-sampling bandits
(Losada, Parapar & Barreiro 2016, 2017) and Hedge (Aslam, Pavlu & Savell 2003). The candidates
are the runs' top ``depth`` documents (the depth-k pool the queue orders). A judgment is shared
by all runs: it counts for every run that retrieved the document and the document is never
asked again. An optional depth-``warmup`` pool is judged first (best rank, then votes, then
docno), its judgments feeding the statistics like any other.

A queue is driven by ``next(topic)`` (idempotent until that document is recorded) and
``record(topic, docno, rel)``; ``state()`` is a JSON-able dict and ``JudgingQueue.from_state``
rebuilds a queue, on the same runs, that continues exactly as the original would: the judgment
log is replayed through the same updates and each topic's random generator is restored.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from pooling.strategies.fixed import RunsLike, as_rankings
from pooling.strategies.rankings import Rankings

STATE_VERSION = 1


@dataclass
class _Topic:
    """One topic's candidates, per-run lists and the judgments so far."""

    docnos: np.ndarray  # the topic's candidates in docno order; local id = position here
    e_run: np.ndarray  # entries of the topic, by (run, rank)
    e_doc: np.ndarray  # local candidate ids
    e_rank: np.ndarray
    run_start: np.ndarray  # run r's list is e_doc[run_start[r]:run_end[r]]
    run_end: np.ndarray
    by_doc: np.ndarray  # entry indices sorted by candidate: candidate d owns by_doc[doc_ptr[d]:doc_ptr[d+1]]
    doc_ptr: np.ndarray
    warm: np.ndarray  # local ids of the warm-up pool in judging order
    rng: np.random.Generator
    ptr: np.ndarray = field(init=False)  # per run: its first unjudged entry
    judged: np.ndarray = field(init=False)  # per candidate
    n: np.ndarray = field(init=False)  # per run: judged documents it retrieved
    rel: np.ndarray = field(init=False)  # per run: relevant ones among them
    grades: dict[str, int] = field(default_factory=dict)  # every judged docno, candidate or not
    log: list[tuple[str, int, int]] = field(default_factory=list)
    pending: tuple[str, int, int] | None = None  # (docno, local id, source run or -1)
    warm_pos: int = 0  # warm-up documents before it are judged (judged never reverts)
    extra: dict[str, Any] = field(default_factory=dict)  # strategy-specific arrays

    def __post_init__(self) -> None:
        n_runs = len(self.run_start)
        self.ptr = self.run_start.copy()
        self.judged = np.zeros(len(self.docnos), dtype=bool)
        self.n = np.zeros(n_runs, dtype=np.int64)
        self.rel = np.zeros(n_runs, dtype=np.int64)

    def local(self, docno: str) -> int:
        key = docno.encode()
        i = int(np.searchsorted(self.docnos, key))
        return i if i < len(self.docnos) and self.docnos[i] == key else -1

    def entries_of(self, local: int) -> np.ndarray:
        return self.by_doc[self.doc_ptr[local] : self.doc_ptr[local + 1]]

    def alive(self) -> np.ndarray:
        """Runs with an unjudged candidate left."""
        return np.flatnonzero(self.ptr < self.run_end)

    def head(self, run: int) -> int:
        return int(self.e_doc[self.ptr[run]])


class JudgingQueue:
    """Base class: warm-up, budget, shared judgments, state; subclasses choose the next document."""

    strategy: ClassVar[str] = ""
    registry: ClassVar[dict[str, type[JudgingQueue]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.strategy:
            JudgingQueue.registry[cls.strategy] = cls

    def __init__(
        self,
        runs: RunsLike,
        *,
        depth: int | None = 100,
        budget: int | None = None,
        warmup: int = 0,
        level: int = 1,
        seed: int = 0,
        include: Collection[str] | None = None,
    ) -> None:
        if budget is not None and budget < 0:
            raise ValueError("a budget must be 0 or more")
        if warmup < 0:
            raise ValueError("the warm-up depth must be 0 or more")
        self.rankings: Rankings = as_rankings(runs, depth=depth, include=include)
        self.depth = depth
        self.budget = budget
        self.warmup = warmup
        self.level = level
        self.seed = int(seed)
        self.include = sorted(include) if include is not None else None
        self._index = {t: i for i, t in enumerate(self.rankings.topics)}
        self._topics: dict[str, _Topic] = {}
        self._best = self.rankings.best_rank()
        self._votes = self.rankings.votes_at_best(self._best)

    # -- public interface ---------------------------------------------------------------

    @property
    def topics(self) -> tuple[str, ...]:
        return self.rankings.topics

    def params(self) -> dict[str, Any]:
        return {
            "depth": self.depth,
            "budget": self.budget,
            "warmup": self.warmup,
            "level": self.level,
            "seed": self.seed,
            "include": self.include,
        }

    def candidates(self, topic: str) -> int:
        """Size of the topic's candidate pool (the depth-k union the queue orders)."""
        ts = self._topic(topic)
        return int((np.diff(ts.doc_ptr) > 0).sum())

    def judged(self, topic: str) -> list[tuple[str, int]]:
        """The topic's judgments in the order they were recorded (corrections included)."""
        return [(d, r) for d, r, _ in self._topic(topic).log]

    def remaining(self, topic: str) -> int | None:
        if self.budget is None:
            return None
        return max(self.budget - len(self._topic(topic).grades), 0)

    def pending(self, topic: str) -> str | None:
        """The document ``next`` handed out for ``topic`` and not yet judged, if any."""
        ts = self._topic(topic)
        return None if ts.pending is None else ts.pending[0]

    def next(self, topic: str) -> str | None:
        """The next document to judge for ``topic``, or None when the budget or the candidates are spent."""
        ts = self._topic(topic)
        if ts.pending is not None:
            return ts.pending[0]
        if self.budget is not None and len(ts.grades) >= self.budget:
            return None
        local, source = self._warm_next(ts)
        if local < 0:
            local, source = self._choose(ts)
        if local < 0:
            return None
        docno = ts.docnos[local].decode()
        ts.pending = (docno, local, source)
        return docno

    def record(self, topic: str, docno: str, rel: int) -> None:
        """Take a judgment of ``docno`` (any document, asked or not; a second one corrects the first)."""
        if rel < 0:
            raise ValueError(f"a judgment is a grade of 0 or more, found {rel} for '{docno}'")
        ts = self._topic(topic)
        source = ts.pending[2] if ts.pending is not None and ts.pending[0] == docno else -1
        self._apply(ts, docno, int(rel), source)

    def state(self) -> dict[str, Any]:
        """A JSON-able snapshot: parameters, the runs' fingerprint, and per topic the log, pending, rng."""
        topics = {}
        for name, ts in self._topics.items():
            topics[name] = {
                "log": [[d, r, s] for d, r, s in ts.log],
                "pending": None if ts.pending is None else [ts.pending[0], ts.pending[2]],
                "rng": _rng_to_json(ts.rng),
            }
        return {
            "version": STATE_VERSION,
            "strategy": self.strategy,
            "params": self.params(),
            "runs": list(self.rankings.run_names),
            "fingerprint": self.rankings.fingerprint(),
            "topics": topics,
        }

    @classmethod
    def from_state(cls, runs: RunsLike, state: dict[str, Any]) -> JudgingQueue:
        """The queue ``state()`` described, on the same runs (refused if they differ)."""
        if state.get("version") != STATE_VERSION:
            raise ValueError(f"unsupported queue state version {state.get('version')!r}")
        klass = JudgingQueue.registry.get(state["strategy"])
        if klass is None:
            raise ValueError(f"unknown adaptive strategy '{state['strategy']}'")
        queue = klass(runs, **state["params"])
        if queue.rankings.fingerprint() != state["fingerprint"]:
            raise ValueError("the runs differ from those the queue was built on")
        for name, saved in state["topics"].items():
            queue._restore(queue._topic(name), saved, 0)
        return queue

    def catch_up(self, state: dict[str, Any]) -> bool:
        """Move this queue to ``state``, a later state of the same queue, by replaying only the
        judgments it has not seen; False (and unchanged) when ``state`` is not such a successor,
        e.g. another queue's or an older one (rebuild with :meth:`from_state` then)."""
        if (
            state.get("version") != STATE_VERSION
            or state.get("strategy") != self.strategy
            or state.get("params") != self.params()
            or state.get("fingerprint") != self.rankings.fingerprint()
        ):
            return False
        saved_topics = state["topics"]
        for name, ts in self._topics.items():
            mine = [[d, r, src] for d, r, src in ts.log]
            theirs = saved_topics.get(name, {"log": []})["log"]
            if len(mine) > len(theirs) or [list(x) for x in theirs[: len(mine)]] != mine:
                return False
        for name, saved in saved_topics.items():
            ts = self._topic(name)
            self._restore(ts, saved, len(ts.log))
        return True

    def _restore(self, ts: _Topic, saved: dict[str, Any], start: int) -> None:
        """Apply a saved topic's log from entry ``start`` on, then its pending document and rng."""
        for docno, rel, source in saved["log"][start:]:
            self._apply(ts, docno, int(rel), int(source))
        ts.pending = None
        if saved["pending"] is not None:
            docno, source = saved["pending"]
            ts.pending = (docno, ts.local(docno), int(source))
        ts.rng.bit_generator.state = _rng_from_json(saved["rng"])

    # -- shared mechanics ---------------------------------------------------------------

    def _topic(self, topic: str) -> _Topic:
        ts = self._topics.get(topic)
        if ts is not None:
            return ts
        if topic not in self._index:
            raise KeyError(f"topic '{topic}' is not in the runs")
        rk = self.rankings
        t = self._index[topic]
        a, b = int(rk.entry_offsets[t]), int(rk.entry_offsets[t + 1])
        lo, hi = int(rk.doc_offsets[t]), int(rk.doc_offsets[t + 1])
        e_run, e_doc = rk.run[a:b], rk.doc[a:b] - lo
        by_doc = np.argsort(e_doc, kind="stable")
        runs = np.arange(rk.n_runs)
        best, votes = self._best[lo:hi], self._votes[lo:hi]
        warm = np.flatnonzero(best <= self.warmup)
        warm = warm[np.lexsort([warm, -votes[warm], best[warm]])]
        seq = np.random.SeedSequence(entropy=self.seed, spawn_key=(zlib.crc32(topic.encode()),))
        ts = _Topic(
            docnos=rk.docnos[lo:hi],
            e_run=e_run,
            e_doc=e_doc,
            e_rank=rk.rank[a:b],
            run_start=np.searchsorted(e_run, runs, side="left"),
            run_end=np.searchsorted(e_run, runs, side="right"),
            by_doc=by_doc,
            doc_ptr=np.searchsorted(e_doc[by_doc], np.arange(hi - lo + 1)),
            warm=warm,
            rng=np.random.default_rng(seq),
        )
        self._setup(ts)
        self._topics[topic] = ts
        return ts

    def _warm_next(self, ts: _Topic) -> tuple[int, int]:
        while ts.warm_pos < len(ts.warm) and ts.judged[ts.warm[ts.warm_pos]]:
            ts.warm_pos += 1
        if ts.warm_pos < len(ts.warm):
            return int(ts.warm[ts.warm_pos]), -1
        return -1, -1

    def _apply(self, ts: _Topic, docno: str, rel: int, source: int) -> None:
        """One judgment: the log, the per-run counts, the run pointers, then the strategy's update."""
        previous = ts.grades.get(docno)
        ts.grades[docno] = rel
        ts.log.append((docno, rel, source))
        if ts.pending is not None and ts.pending[0] == docno:
            ts.pending = None
        local = ts.local(docno)
        if local < 0:
            return
        relevant = rel >= self.level
        entries = ts.entries_of(local)
        runs = ts.e_run[entries]
        if previous is not None:
            # a correction: the counts follow the current grade; the strategy's history stays
            ts.rel[runs] += int(relevant) - int(previous >= self.level)
            return
        ts.judged[local] = True
        ts.n[runs] += 1
        ts.rel[runs] += int(relevant)
        for r in runs.tolist():
            p, end = int(ts.ptr[r]), int(ts.run_end[r])
            while p < end and ts.judged[ts.e_doc[p]]:
                p += 1
            ts.ptr[r] = p
        self._update(ts, local, entries, relevant, source)

    # -- strategy hooks -----------------------------------------------------------------

    def _setup(self, ts: _Topic) -> None:
        """Strategy-specific per-topic state."""

    def _choose(self, ts: _Topic) -> tuple[int, int]:
        """(local candidate id, source run or -1), or (-1, -1) when nothing is left."""
        raise NotImplementedError

    def _update(self, ts: _Topic, local: int, entries: np.ndarray, relevant: bool, source: int) -> None:
        """After the first judgment of candidate ``local`` (retrieved at ``entries``)."""

    def _random_pick(self, ts: _Topic, options: np.ndarray) -> int:
        """One of ``options`` uniformly at random (no draw when there is only one)."""
        if len(options) == 1:
            return int(options[0])
        return int(options[int(ts.rng.integers(len(options)))])


class MoveToFront(JudgingQueue):
    """Move-to-Front (Cormack, Palmer & Clarke 1998).

    Every run starts with the same priority. The run of highest priority is judged, its next
    unjudged document after another, as long as they are relevant; a non-relevant one lowers
    its priority by one and the highest-priority run is chosen again (ties at random, seeded).
    """

    strategy = "mtf"

    def _setup(self, ts: _Topic) -> None:
        ts.extra["priority"] = np.zeros(len(ts.run_start), dtype=np.int64)
        ts.extra["current"] = -1

    def _choose(self, ts: _Topic) -> tuple[int, int]:
        alive = ts.alive()
        if len(alive) == 0:
            return -1, -1
        priority = ts.extra["priority"]
        top = alive[priority[alive] == priority[alive].max()]
        current = ts.extra["current"]
        run = current if current in top else self._random_pick(ts, top)
        return ts.head(run), run

    def _update(self, ts: _Topic, local: int, entries: np.ndarray, relevant: bool, source: int) -> None:
        if source < 0:
            return
        if relevant:
            ts.extra["current"] = source
        else:
            ts.extra["priority"][source] -= 1
            ts.extra["current"] = -1


class MaxMean(JudgingQueue):
    """MaxMean bandit (Losada et al. 2016/17): pull the run maximizing (1 + relevant) / (2 + judged).

    The counts are the judged documents each run retrieved (within the depth); ties are broken
    at random (seeded). The pulled run's next unjudged document is judged.
    """

    strategy = "maxmean"

    def _choose(self, ts: _Topic) -> tuple[int, int]:
        alive = ts.alive()
        if len(alive) == 0:
            return -1, -1
        num, den = 1 + ts.rel[alive], 2 + ts.n[alive]
        best = int(np.argmax(num / den))
        # exact tie test by cross-multiplication: (1+a)/(2+b) == (1+c)/(2+d)
        ties = alive[num * den[best] == num[best] * den]
        run = self._random_pick(ts, ties)
        return ts.head(run), run


class Thompson(JudgingQueue):
    """Thompson sampling (Losada et al. 2017): pull the argmax of theta_r ~ Beta(1 + rel, 1 + non-rel)."""

    strategy = "thompson"

    def _choose(self, ts: _Topic) -> tuple[int, int]:
        alive = ts.alive()
        if len(alive) == 0:
            return -1, -1
        theta = ts.rng.beta(1 + ts.rel[alive], 1 + ts.n[alive] - ts.rel[alive])
        run = int(alive[int(np.argmax(theta))])
        return ts.head(run), run


class Hedge(JudgingQueue):
    """Hedge (Aslam, Pavlu & Savell 2003): judge the document of highest weighted rank value.

    Run r gives the document at rank k of its Z-document list the AP-derived value
    v = (1 + 1/k + 1/(k+1) + ... + 1/Z) / (1 + 1 + 1/2 + ... + 1/Z), which is 1 at rank 1, and 0
    to documents it did not retrieve. The next document maximizes sum_r w_r v_r(d) over the
    unjudged candidates (ties: docno order), with w_r = beta ** L_r. Judging d adds to each run's
    loss L_r the value (1 - v) / 2 if d is relevant and (1 + v) / 2 if not, in [0, 1] as Hedge
    requires: ranking a relevant document first costs nothing, a non-relevant one first costs 1,
    not retrieving it costs 1/2.
    """

    strategy = "hedge"

    def __init__(self, runs: RunsLike, *, beta: float = 0.1, **kwargs: Any) -> None:
        if not 0 < beta < 1:
            raise ValueError("Hedge's beta must be in (0, 1)")
        self.beta = float(beta)
        super().__init__(runs, **kwargs)

    def params(self) -> dict[str, Any]:
        return {**super().params(), "beta": self.beta}

    def _setup(self, ts: _Topic) -> None:
        length = (ts.run_end - ts.run_start)[ts.e_run]
        top = int(length.max()) if len(length) else 0
        harmonic = np.r_[0.0, np.cumsum(1.0 / np.arange(1, top + 1))]
        ts.extra["value"] = (1 + harmonic[length] - harmonic[ts.e_rank - 1]) / (1 + harmonic[length])
        ts.extra["loss"] = np.zeros(len(ts.run_start), dtype=np.float64)
        ts.extra["candidate"] = np.diff(ts.doc_ptr) > 0

    def _choose(self, ts: _Topic) -> tuple[int, int]:
        open_ = ts.extra["candidate"] & ~ts.judged
        if not open_.any():
            return -1, -1
        loss = ts.extra["loss"]
        # weights relative to the best run: the same argmax, and no underflow after long runs
        weight = self.beta ** (loss - loss.min())
        score = np.bincount(ts.e_doc, weights=weight[ts.e_run] * ts.extra["value"], minlength=len(open_))
        score[~open_] = -np.inf
        return int(np.argmax(score)), -1

    def _update(self, ts: _Topic, local: int, entries: np.ndarray, relevant: bool, source: int) -> None:
        step = np.full(len(ts.run_start), 0.5)
        value = ts.extra["value"][entries]
        step[ts.e_run[entries]] = (1 - value) / 2 if relevant else (1 + value) / 2
        ts.extra["loss"] += step


ADAPTIVE = tuple(JudgingQueue.registry)


def make_queue(strategy: str, runs: RunsLike, **params: Any) -> JudgingQueue:
    """A fresh queue of ``strategy`` (mtf, maxmean, thompson, hedge)."""
    klass = JudgingQueue.registry.get(strategy)
    if klass is None:
        raise ValueError(f"unknown adaptive strategy '{strategy}' (one of {', '.join(ADAPTIVE)})")
    return klass(runs, **params)


def _rng_to_json(rng: np.random.Generator) -> dict[str, Any]:
    """The bit generator's state with its big integers as strings (JSON numbers lose them elsewhere)."""
    return _map_ints(rng.bit_generator.state, str)


def _rng_from_json(data: dict[str, Any]) -> dict[str, Any]:
    return _map_ints(data, int, only_strings=True)


def _map_ints(value: Any, convert: Any, only_strings: bool = False) -> Any:
    if isinstance(value, dict):
        return {
            k: (v if k == "bit_generator" else _map_ints(v, convert, only_strings)) for k, v in value.items()
        }
    if only_strings and isinstance(value, str):
        return convert(value)
    if not only_strings and isinstance(value, int | np.integer):
        return convert(int(value))
    return value
