"""Machine-stratified pools: strata by a machine assessor's grade, exact inclusion probabilities,
judging order by grade, and estimates that stay unbiased however wrong the machine is."""

from __future__ import annotations

import numpy as np
import pytest

from engine.evaluate import Judgments, evaluate_run
from engine.names import parse_measures
from pooling.strategies import depth_pool, machine_sample, make_pool
from tests.pooling.test_strategies import make_run
from trec.qrels import Qrels, qrels_from_dict
from trec.runs import RankedRun


@pytest.fixture
def runs() -> list[RankedRun]:
    """Two topics; ten runs of 20 documents each drawn from 60 per topic, so best ranks spread."""
    rng = np.random.default_rng(3)
    return [
        make_run(
            f"r{r}", {t: [f"{t}-d{i:02d}" for i in rng.permutation(60)[:20].tolist()] for t in ("1", "2")}
        )
        for r in range(10)
    ]


def machine_of(runs: list[RankedRun], seed: int = 0, graded: float = 0.8) -> Qrels:
    """A machine's grades 0-3 for most of the depth-20 pool (the rest it did not grade)."""
    rng = np.random.default_rng(seed)
    lists = depth_pool(runs, 20).as_lists()
    return qrels_from_dict(
        {t: {d: int(rng.integers(0, 4)) for d in docs if rng.random() < graded} for t, docs in lists.items()}
    )


def test_strata_are_the_machine_grades_highest_first_then_the_ungraded(runs: list[RankedRun]) -> None:
    machine = machine_of(runs)
    pool = machine_sample(runs, machine, 20, rates=(1.0, 1.0, 0.5, 0.2, 1.0), seed=3)
    assert pool.strategy == "machine"
    assert pool.params["strata"] == ["g3", "g2", "g1", "g0", "ungraded"]
    # the pool lists the whole depth-20 pool, sampled or not
    full = depth_pool(runs, 20)
    assert len(pool.docnos) == len(full.docnos)
    grades = machine.as_dict()
    labels = pool.stratum_labels()
    for i, topic in enumerate(pool.topics):
        a, b = int(pool.offsets[i]), int(pool.offsets[i + 1])
        for docno, label in zip(pool.docnos[a:b].tolist(), labels[a:b].tolist(), strict=True):
            grade = grades.get(topic, {}).get(docno.decode())
            assert label == (b"ungraded" if grade is None else f"g{grade}".encode())


def test_each_stratum_is_a_simple_random_sample_of_its_rate(runs: list[RankedRun]) -> None:
    rates = (1.0, 1.0, 0.5, 0.2, 1.0)
    pool = machine_sample(runs, machine_of(runs), 20, rates=rates, seed=3)
    labels = pool.stratum_labels()
    assert pool.iprobs is not None
    for i in range(len(pool.topics)):
        a, b = int(pool.offsets[i]), int(pool.offsets[i + 1])
        for label, rate in zip((b"g3", b"g2", b"g1", b"g0", b"ungraded"), rates, strict=True):
            rows = np.flatnonzero(labels[a:b] == label) + a
            n = int(pool.sampled[rows].sum())
            expected = max(int(np.floor(rate * len(rows) + 0.5)), 1) if len(rows) else 0
            assert n == expected
            # every document of the stratum has inclusion probability n_s / N_s: they sum to n_s
            assert pool.iprobs[rows].sum() == pytest.approx(n)
            assert set(pool.iprobs[rows].tolist()) <= {n / len(rows)}


def test_humans_judge_the_sample_by_the_machines_grade(runs: list[RankedRun]) -> None:
    pool = machine_sample(runs, machine_of(runs), 20, rates=(1.0, 0.5, 0.5, 0.5, 0.5), seed=1)
    order = {b"g3": 0, b"g2": 1, b"g1": 2, b"g0": 3, b"ungraded": 4}
    labels = pool.stratum_labels()
    for i in range(len(pool.topics)):
        a, b = int(pool.offsets[i]), int(pool.offsets[i + 1])
        drawn = pool.sampled[a:b]
        # the sample first, then the unsampled rest
        assert not (np.diff(drawn.astype(int)) > 0).any()
        ranks = [order[x] for x in labels[a:b][drawn].tolist()]
        assert ranks == sorted(ranks)  # highest grade first, ungraded last


def test_a_budget_is_allocated_by_weight_over_the_strata(runs: list[RankedRun]) -> None:
    pool = machine_sample(runs, machine_of(runs), 20, budget=12, weights=(8, 4, 2, 1, 2), seed=4)
    assert pool.sizes() == {"1": 12, "2": 12}
    labels = pool.stratum_labels()
    sampled = labels[pool.sampled]
    # the machine's relevant strata take a larger share of their documents than its non-relevant one
    share = {s: (sampled == s).sum() / max((labels == s).sum(), 1) for s in (b"g3", b"g0")}
    assert share[b"g3"] > share[b"g0"]


def test_make_pool_and_the_spec_reach_it(runs: list[RankedRun]) -> None:
    from pooling.spec import PoolSpec

    machine = machine_of(runs)
    a = make_pool("machine", runs, machine=machine, depth=20, rates=[1, 1, 0.5, 0.2, 1], seed=2)
    spec = PoolSpec("machine", depth=20, rates=(1, 1, 0.5, 0.2, 1), seed=2, machine="llm")
    b = spec.build(runs, machine_grades=machine)
    assert a.as_lists() == b.as_lists()
    assert PoolSpec.from_dict(spec.as_dict()) == spec
    with pytest.raises(ValueError, match="machine assessor's grades"):
        spec.build(runs)


def test_bad_designs_name_the_strata_and_the_off_scale_grade(runs: list[RankedRun]) -> None:
    machine = machine_of(runs)
    with pytest.raises(ValueError, match=r"give 5 rates .*strata: g3, g2, g1, g0, ungraded"):
        machine_sample(runs, machine, 20, rates=(1.0, 0.5))
    # the scale says 0-2 but the machine gave a 3
    with pytest.raises(
        ValueError, match=r"graded document \S+ of topic \d 3, which is not a grade of the scale"
    ):
        machine_sample(runs, machine, 20, grades=(0, 1, 2), rates=(1, 1, 1, 1))
    # the scale's grades decide the strata even where the machine used fewer of them
    pool = machine_sample(runs, machine, 20, grades=(0, 1, 2, 3, 4), rates=(1, 1, 1, 1, 1, 1))
    assert pool.params["strata"] == ["g4", "g3", "g2", "g1", "g0", "ungraded"]


def test_estimates_stay_unbiased_when_the_machine_is_wrong() -> None:
    """The machine grades at random, humans judge 60% of its 'relevant' and 20% of the rest: the
    Horvitz-Thompson estimate of each topic's relevant count (Σ over the judged relevant of 1/π)
    averages to the true count over draws, and each document is drawn with its recorded π."""
    rng = np.random.default_rng(7)
    topics = {t: [f"{t}-d{i:02d}" for i in range(40)] for t in ("1", "2")}
    run = make_run("r", {t: docs for t, docs in topics.items()})
    truth = {t: {d: int(rng.random() < 0.3) for d in docs} for t, docs in topics.items()}
    machine = qrels_from_dict({t: {d: int(rng.integers(0, 2)) for d in docs} for t, docs in topics.items()})
    relevant = {t: sum(v.values()) for t, v in truth.items()}
    draws = 600
    estimates: dict[str, list[float]] = {t: [] for t in topics}
    hits: dict[tuple[str, str], int] = {}
    probs: dict[tuple[str, str], float] = {}
    for seed in range(draws):
        pool = machine_sample([run], machine, 40, rates=(0.6, 0.2, 1.0), seed=seed)
        assert pool.iprobs is not None
        for i, t in enumerate(pool.topics):
            a, b = int(pool.offsets[i]), int(pool.offsets[i + 1])
            est = 0.0
            for d, s, p in zip(
                pool.docnos[a:b].tolist(), pool.sampled[a:b].tolist(), pool.iprobs[a:b].tolist(), strict=True
            ):
                key = (t, d.decode())
                probs[key] = p
                if s:
                    hits[key] = hits.get(key, 0) + 1
                    est += truth[t][key[1]] / p
            estimates[t].append(est)
    for t in topics:
        values = np.array(estimates[t])
        assert abs(values.mean() - relevant[t]) < 4 * values.std() / np.sqrt(draws)
    # each document's draw frequency is its recorded inclusion probability
    for key, p in probs.items():
        freq = hits.get(key, 0) / draws
        assert abs(freq - p) < 4 * np.sqrt(p * (1 - p) / draws) + 1e-9


def test_with_every_stratum_judged_whole_xinfap_is_map(runs: list[RankedRun]) -> None:
    """Rates 1 everywhere: the sample is the pool, so xinfAP over the machine-stratified prel
    equals AP over the same judgments (the strata change nothing when nothing is estimated)."""
    rng = np.random.default_rng(5)
    everything = {
        t: {d: int(rng.integers(0, 3)) for d in docs} for t, docs in depth_pool(runs, 20).as_lists().items()
    }
    judged = qrels_from_dict(everything)
    pool = machine_sample(runs, machine_of(runs), 20, rates=(1, 1, 1, 1, 1), seed=0)
    prel = pool.to_prel(judged)
    for run in runs[:3]:
        cut = make_run(run.name, {t: run.ranking(t)[:20] for t in run.topics})
        sampled = evaluate_run(
            Judgments(prel.qrels, prel=prel), cut, parse_measures(["xinfAP"], design="prel")
        )
        plain = evaluate_run(Judgments(judged), cut, parse_measures(["map"]))
        assert sampled.summary["xinfAP"] == pytest.approx(plain.summary["map"], abs=1e-4)
        assert plain.summary["map"] > 0
