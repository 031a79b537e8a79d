"""Sampled pools: sample sizes, inclusion probabilities, strata in the prels, seeds."""

from __future__ import annotations

import numpy as np
import pytest

from pooling.strategies import allocate, depth_pool, sizes_from_rates, stratified_sample, uniform_sample
from tests.pooling.test_strategies import make_run
from trec.qrels import qrels_from_dict
from trec.runs import RankedRun


@pytest.fixture
def runs() -> list[RankedRun]:
    """Two topics; ten runs of 20 documents each drawn from 60 per topic, so best ranks spread."""
    rng = np.random.default_rng(3)
    out = []
    for r in range(10):
        topics = {t: [f"{t}-d{i:02d}" for i in rng.permutation(60)[:20].tolist()] for t in ("1", "2")}
        out.append(make_run(f"r{r}", topics))
    return out


def test_sizes_from_rates_round_half_up_with_one_from_each_live_stratum() -> None:
    # 10 x 1 = 10, 20 x 0.5 = 10, 70 x 0.1 = 7
    assert sizes_from_rates(np.array([10, 20, 70]), np.array([1.0, 0.5, 0.1])).tolist() == [10, 10, 7]
    # 4 x 0.1 = 0.4 rounds to 0 but a non-empty stratum of positive rate keeps one; 5 x 0.5 = 2.5 -> 3
    assert sizes_from_rates(np.array([3, 0, 4, 5]), np.array([1.0, 0.5, 0.1, 0.5])).tolist() == [3, 0, 1, 3]
    # a zero rate samples nothing
    assert sizes_from_rates(np.array([8]), np.array([0.0])).tolist() == [0]


def test_allocate_is_proportional_to_weight_times_size_capped_at_the_stratum() -> None:
    # uniform weights: one rate, 20 / 100 = 0.2 of each stratum
    assert allocate(np.array([10, 20, 70]), np.array([1.0, 1.0, 1.0]), 20).tolist() == [2, 4, 14]
    # weights 1, 0.5, 0.1 and budget 30: c * (10 + 10 + 7) = 30 gives c = 1.11 > 1, so stratum 1
    # is taken whole (10); the other 20 go to strata 2 and 3 with c = 20 / 17: 11.76 and 8.24,
    # floored to 11 and 8, and the one left over goes to the larger remainder (stratum 2)
    assert allocate(np.array([10, 20, 70]), np.array([1.0, 0.5, 0.1]), 30).tolist() == [10, 12, 8]
    # a budget above the population takes everything; zero weight takes nothing
    assert allocate(np.array([3, 4]), np.array([1.0, 0.0]), 100).tolist() == [3, 0]


def test_stratified_sample_sizes_and_inclusion_probabilities(runs: list[RankedRun]) -> None:
    pool = stratified_sample(runs, (2, 5, 20), rates=(1.0, 0.5, 0.2), seed=11)
    full = depth_pool(runs, 20)
    # every document of the depth-20 pool is listed, sampled or not
    assert len(pool.docnos) == len(full)
    strata = pool.stratum_labels()
    for i, _topic in enumerate(pool.topics):
        a, b = int(pool.offsets[i]), int(pool.offsets[i + 1])
        for label, rate in ((b"1", 1.0), (b"2", 0.5), (b"3", 0.2)):
            rows = np.flatnonzero(strata[a:b] == label) + a
            population = len(rows)
            expected = max(int(np.floor(rate * population + 0.5)), 1) if population else 0
            assert int(pool.sampled[rows].sum()) == expected
            # the inclusion probabilities of a stratum sum to its sample size, n_s / N_s each
            assert pool.iprobs is not None
            assert pool.iprobs[rows].sum() == pytest.approx(expected)
            assert set(pool.iprobs[rows].tolist()) <= {expected / population}


def test_strata_follow_the_best_rank(runs: list[RankedRun]) -> None:
    pool = stratified_sample(runs, (2, 5, 20), rates=(1.0, 0.0, 0.0), seed=1)
    # stratum 1 = best rank 1-2, all judged: exactly the depth-2 pool; the others sample nothing
    assert {t: sorted(d) for t, d in pool.as_lists().items()} == {
        t: sorted(d) for t, d in depth_pool(runs, 2).as_lists().items()
    }


def test_a_total_budget_is_spent_exactly_over_all_topics(runs: list[RankedRun]) -> None:
    pool = stratified_sample(runs, (2, 5, 20), total_budget=40, weights=(1.0, 0.5, 0.1), seed=2)
    assert len(pool) == 40
    per_topic = stratified_sample(runs, (2, 5, 20), budget=15, seed=2)
    assert per_topic.sizes() == {"1": 15, "2": 15}


def test_the_same_seed_gives_the_same_sample_and_another_seed_another(runs: list[RankedRun]) -> None:
    a = stratified_sample(runs, (2, 5, 20), rates=(1.0, 0.5, 0.2), seed=5)
    b = stratified_sample(runs, (2, 5, 20), rates=(1.0, 0.5, 0.2), seed=5)
    c = stratified_sample(runs, (2, 5, 20), rates=(1.0, 0.5, 0.2), seed=6)
    assert a.as_lists() == b.as_lists()
    assert a.as_lists() != c.as_lists()
    # a Generator is accepted too, and the draw does not depend on the order of the runs
    d = stratified_sample(runs[::-1], (2, 5, 20), rates=(1.0, 0.5, 0.2), seed=np.random.default_rng(5))
    assert {t: sorted(x) for t, x in d.as_lists().items()} == {t: sorted(x) for t, x in a.as_lists().items()}


def test_uniform_sample_is_one_stratum_of_the_depth_k_pool(runs: list[RankedRun]) -> None:
    pool = uniform_sample(runs, 10, rate=0.25, seed=4)
    sizes = depth_pool(runs, 10).sizes()
    for topic, n in sizes.items():
        assert pool.sizes()[topic] == int(np.floor(0.25 * n + 0.5))
    assert set(pool.stratum_labels().tolist()) == {b"1"}
    assert pool.strategy == "uniform"


def test_prel_lists_unsampled_documents_with_rel_minus_one_and_their_stratum(runs: list[RankedRun]) -> None:
    pool = stratified_sample(runs, (2, 5, 20), rates=(1.0, 0.5, 0.2), seed=8)
    everything = {t: dict.fromkeys(d, 1) for t, d in depth_pool(runs, 20).as_lists().items()}
    prel = pool.to_prel(qrels_from_dict(everything))
    judged = prel.qrels.as_dict()
    sampled = pool.as_lists()
    for topic, docs in judged.items():
        for docno, rel in docs.items():
            # sampled documents take their grade; unsampled ones stay -1 even though judged elsewhere
            assert rel == (1 if docno in sampled[topic] else -1)
    assert len(prel.strata) == len(pool.docnos)
    mq = pool.to_mq_prel()
    # the MQ prel carries the sampled documents only, with n_s / N_s
    assert len(mq.qrels) == len(pool)
    assert ((mq.iprobs > 0) & (mq.iprobs <= 1)).all()


def test_bad_designs_are_refused(runs: list[RankedRun]) -> None:
    with pytest.raises(ValueError, match="increasing"):
        stratified_sample(runs, (5, 2), rates=(1.0, 1.0))
    with pytest.raises(ValueError, match="rates"):
        stratified_sample(runs, (5, 10), rates=(1.0,))
    with pytest.raises(ValueError, match="not both"):
        stratified_sample(runs, (5, 10), rates=(1.0, 0.5), budget=3)
    with pytest.raises(ValueError, match="not both"):
        stratified_sample(runs, (5, 10))
