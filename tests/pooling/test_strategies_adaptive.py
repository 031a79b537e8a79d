"""Adaptive judging queues: each rule on hand-checkable runs, shared judgments, budgets, restored state."""

from __future__ import annotations

import json
from collections.abc import Mapping

import numpy as np
import pytest

from pooling.strategies import JudgingQueue, make_queue
from tests.pooling.test_strategies import make_run
from trec.runs import RankedRun


def drive(queue: JudgingQueue, topic: str, grades: Mapping[str, int], steps: int = 1000) -> list[str]:
    """Judge ``steps`` documents of ``topic`` with ``grades`` (absent = 0); the docnos in order."""
    seen = []
    for _ in range(steps):
        docno = queue.next(topic)
        if docno is None:
            break
        queue.record(topic, docno, grades.get(docno, 0))
        seen.append(docno)
    return seen


def test_mtf_stays_on_a_run_while_it_finds_relevant_documents() -> None:
    # A: a1 R, a2 R, a3 N, a4 R;  B: b1 R, b2 N, b3 R. Both start at priority 0 and the first
    # pick is a seeded coin toss. Starting with A: a1, a2 (relevant, stay), a3 (non-relevant:
    # A drops to -1), then B, the only run at 0: b1, b2 (B drops to -1). Starting with B:
    # b1, b2, then A: a1, a2, a3. Five judgments stop before the next tie.
    runs = [make_run("A", {"1": ["a1", "a2", "a3", "a4"]}), make_run("B", {"1": ["b1", "b2", "b3"]})]
    grades = {"a1": 1, "a2": 1, "a4": 1, "b1": 1, "b3": 1}
    sequences = {tuple(drive(make_queue("mtf", runs, seed=s), "1", grades, 5)) for s in range(8)}
    assert sequences == {("a1", "a2", "a3", "b1", "b2"), ("b1", "b2", "a1", "a2", "a3")}


def test_maxmean_pulls_the_run_of_best_posterior_mean() -> None:
    # A: s a2 a3; B: b1 s b3; C: c1 c2 c3. Warm-up depth 1 judges the first documents, all with
    # one vote, in docno order: b1 (N), c1 (N), s (R). s counts for A and for B:
    # A (1+1)/(2+1) = 2/3, B (1+1)/(2+2) = 1/2, C (1+0)/(2+1) = 1/3 -> A's next unjudged: a2 (R),
    # A 3/4 -> a3 (N), A 3/5 still above B -> A has nothing left -> B: b3 (R) -> B done -> C.
    runs = [
        make_run("A", {"1": ["s", "a2", "a3"]}),
        make_run("B", {"1": ["b1", "s", "b3"]}),
        make_run("C", {"1": ["c1", "c2", "c3"]}),
    ]
    grades = {"s": 1, "a2": 1, "b3": 1, "c3": 1}
    queue = make_queue("maxmean", runs, warmup=1)
    assert drive(queue, "1", grades) == ["b1", "c1", "s", "a2", "a3", "b3", "c2", "c3"]


def test_maxmean_breaks_ties_at_random_with_the_seed() -> None:
    # A: a1 N, a2; B: b1 R, b2 R. Both start at 1/2. A first: a1 (A 1/3) -> B twice (2/3, 3/4) ->
    # a2. B first: b1, b2 (B done) -> a1, a2.
    runs = [make_run("A", {"1": ["a1", "a2"]}), make_run("B", {"1": ["b1", "b2"]})]
    grades = {"b1": 1, "b2": 1}
    sequences = {tuple(drive(make_queue("maxmean", runs, seed=s), "1", grades)) for s in range(8)}
    assert sequences == {("a1", "b1", "b2", "a2"), ("b1", "b2", "a1", "a2")}


def test_thompson_draws_from_beta_one_plus_relevant_one_plus_nonrelevant() -> None:
    runs = [make_run("A", {"1": ["a1", "a2", "a3"]}), make_run("B", {"1": ["b1", "b2", "b3"]})]
    queue = make_queue("thompson", runs, warmup=1)
    drive(queue, "1", {"a1": 1}, steps=2)  # warm-up: a1 relevant, b1 not
    ts = queue._topic("1")
    calls: list[tuple[list[int], list[int]]] = []

    class Spy:
        def beta(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
            calls.append((np.asarray(a).tolist(), np.asarray(b).tolist()))
            return np.array([0.9, 0.1])

    ts.rng = Spy()  # type: ignore[assignment]
    assert queue.next("1") == "a2"  # the larger draw (0.9, run A) wins
    # A: 1 relevant, 0 non-relevant -> Beta(2, 1); B: 0 and 1 -> Beta(1, 2)
    assert calls == [([2, 1], [1, 2])]


def test_thompson_learns_which_run_is_good() -> None:
    good = make_run("good", {"1": [f"g{i}" for i in range(30)]})
    bad = make_run("bad", {"1": [f"b{i}" for i in range(30)]})
    grades = {f"g{i}": 1 for i in range(30)}
    seen = drive(make_queue("thompson", [good, bad], seed=3), "1", grades, steps=30)
    # a run with every document relevant against one with none: after a few pulls of each,
    # the posterior of "bad" is Beta(1, 1 + n) and it is rarely drawn above "good"
    assert sum(d.startswith("g") for d in seen) >= 24


def test_hedge_learns_run_weights_from_each_judgment() -> None:
    # A: x y; B: z y; C: z w. Lists of Z = 2: value (1 + H2 - H(k-1)) / (1 + H2) is 1 at rank 1
    # and (1 + 1.5 - 1) / 2.5 = 0.6 at rank 2. Start: z = 1 + 1 = 2 (B, C), y = 0.6 + 0.6,
    # x = 1, w = 0.6 -> z. z non-relevant: losses A 1/2 (not retrieved), B (1 + 1)/2 = 1, C 1.
    # With beta 0.1, B and C weigh 0.1^0.5 = 0.316 of A: x = 1 beats y = 0.6 + 0.6 * 0.316.
    # With beta 0.99 they still weigh 0.995: y = 1.197 beats x = 1.
    runs = [
        make_run("A", {"1": ["x", "y"]}),
        make_run("B", {"1": ["z", "y"]}),
        make_run("C", {"1": ["z", "w"]}),
    ]
    assert drive(make_queue("hedge", runs, beta=0.1), "1", {}, steps=2) == ["z", "x"]
    assert drive(make_queue("hedge", runs, beta=0.99), "1", {}, steps=2) == ["z", "y"]


@pytest.mark.parametrize("strategy", ["mtf", "maxmean", "thompson", "hedge"])
def test_judgments_are_shared_and_never_asked_twice(strategy: str) -> None:
    # every run retrieves s; once judged through one run it is skipped by the others
    runs = [make_run(n, {"1": ["s", f"{n}1", f"{n}2"]}) for n in ("A", "B", "C")]
    seen = drive(make_queue(strategy, runs, seed=1), "1", {"s": 1})
    assert sorted(seen) == sorted({"s", "A1", "A2", "B1", "B2", "C1", "C2"})
    assert len(seen) == len(set(seen))


def test_a_document_judged_outside_the_queue_is_not_asked() -> None:
    runs = [make_run("A", {"1": ["a", "b", "c"]})]
    queue = make_queue("maxmean", runs)
    queue.record("1", "a", 0)
    queue.record("1", "not-in-any-run", 1)
    assert drive(queue, "1", {}) == ["b", "c"]


def test_next_is_idempotent_until_recorded_and_the_budget_stops_the_queue() -> None:
    runs = [make_run("A", {"1": ["a", "b", "c"], "2": ["x"]})]
    queue = make_queue("mtf", runs, budget=2)
    assert queue.next("1") == queue.next("1") == "a"
    assert drive(queue, "1", {}) == ["a", "b"]
    assert queue.next("1") is None
    assert queue.remaining("1") == 0
    assert queue.candidates("1") == 3
    with pytest.raises(KeyError):
        queue.next("99")


def test_warmup_judges_the_depth_k_pool_first() -> None:
    runs = [make_run("A", {"1": ["a1", "a2", "a3"]}), make_run("B", {"1": ["b1", "b2", "b3"]})]
    seen = drive(make_queue("thompson", runs, warmup=2, seed=9), "1", {})
    # the depth-2 pool in best-rank order (a1, b1 at rank 1; a2, b2 at 2), then the adaptive part
    assert seen[:4] == ["a1", "b1", "a2", "b2"]


def _synthetic(seed: int = 0) -> tuple[list[RankedRun], dict[str, dict[str, int]]]:
    """Six runs x three topics x 40 docs over a shared universe, and random grades."""
    rng = np.random.default_rng(seed)
    topics = ("7", "8", "9")
    runs = [
        make_run(f"s{r}", {t: [f"{t}-{i}" for i in rng.permutation(80)[:40].tolist()] for t in topics})
        for r in range(6)
    ]
    grades = {t: {f"{t}-{i}": int(rng.random() < 0.3) for i in range(80)} for t in topics}
    return runs, grades


@pytest.mark.parametrize("strategy", ["mtf", "maxmean", "thompson", "hedge"])
def test_a_restored_queue_continues_exactly_as_the_original(strategy: str) -> None:
    runs, grades = _synthetic()
    original = make_queue(strategy, runs, depth=30, warmup=2, seed=4)
    for topic in ("7", "8"):
        drive(original, topic, grades[topic], steps=17)
    original.next("7")  # a pending document survives the restart too
    saved = json.loads(json.dumps(original.state()))  # what a database JSON column would give back
    restored = JudgingQueue.from_state(runs, saved)
    assert type(restored) is type(original)
    for topic in ("7", "8", "9"):
        assert drive(restored, topic, grades[topic], steps=25) == drive(
            original, topic, grades[topic], steps=25
        )
    assert restored.state() == original.state()


def test_a_state_is_refused_on_other_runs() -> None:
    runs, grades = _synthetic()
    queue = make_queue("maxmean", runs, depth=30)
    drive(queue, "7", grades["7"], steps=3)
    other, _ = _synthetic(seed=1)
    with pytest.raises(ValueError, match="runs differ"):
        JudgingQueue.from_state(other, queue.state())


def test_the_same_seed_replays_the_same_queue() -> None:
    runs, grades = _synthetic()
    a = drive(make_queue("thompson", runs, seed=2), "9", grades["9"], steps=40)
    b = drive(make_queue("thompson", runs, seed=2), "9", grades["9"], steps=40)
    c = drive(make_queue("thompson", runs, seed=3), "9", grades["9"], steps=40)
    assert a == b
    assert a != c


def test_a_negative_grade_is_not_a_judgment() -> None:
    queue = make_queue("mtf", [make_run("A", {"1": ["a"]})])
    with pytest.raises(ValueError, match="grade of 0 or more"):
        queue.record("1", "a", -1)


@pytest.mark.parametrize("strategy", ["mtf", "maxmean", "thompson", "hedge"])
def test_a_cached_queue_catches_up_with_a_later_state_exactly(strategy: str) -> None:
    """Two processes share a queue through its stored state: the one that fell behind replays only
    the judgments it missed and then answers exactly as the one that made them."""
    from pooling.strategies import make_queue

    runs = _catch_up_runs()
    ahead = make_queue(strategy, runs, depth=10, seed=4)
    behind = type(ahead).from_state(runs, ahead.state())
    for step in range(6):
        doc = ahead.next("1")
        assert doc is not None
        ahead.record("1", doc, step % 2)
    ahead.next("1")  # a pending document in the state too
    assert behind.catch_up(ahead.state())
    assert behind.state() == ahead.state()
    for _ in range(4):
        d1, d2 = ahead.next("1"), behind.next("1")
        assert d1 == d2
        if d1 is None or d2 is None:
            break
        ahead.record("1", d1, 1)
        behind.record("1", d2, 1)


def test_catch_up_refuses_a_state_that_is_not_a_successor() -> None:
    from pooling.strategies import make_queue

    runs = _catch_up_runs()
    one, other = make_queue("mtf", runs, depth=10, seed=1), make_queue("mtf", runs, depth=10, seed=1)
    d = one.next("1")
    assert d is not None
    one.record("1", d, 1)
    d2 = other.next("1")
    assert d2 is not None
    other.record("1", d2, 0)  # a different history
    before = one.state()
    assert not one.catch_up(other.state())
    assert one.state() == before  # unchanged when refused
    assert not one.catch_up(make_queue("maxmean", runs, depth=10).state())


def _catch_up_runs() -> list[RankedRun]:
    """Three small runs of topic 1 that overlap: enough candidates for a queue to choose among."""
    from trec.runs import run_from_arrays

    out = []
    for r in range(3):
        qids = np.array([b"1"] * 12, dtype="S")
        docs = np.array([f"d{(i * (r + 2)) % 17}".encode() for i in range(12)], dtype="S")
        _, first = np.unique(docs, return_index=True)
        keep = np.sort(first)
        out.append(
            run_from_arrays(f"r{r}", qids[keep], docs[keep], np.linspace(1, 0, len(keep)), tag=f"r{r}")
        )
    return out
