"""R̂ while judging is under way: the stratified / SRS estimators, their intervals, their coverage.

Expected values are the arithmetic of the formulas in engine/estimates.py; exact hypergeometric
limits are recomputed here by brute force from binomial coefficients (math.comb), independently of
the module's scipy-and-bisection implementation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.estimates import (
    Stratum,
    design_estimate,
    hypergeometric_interval,
    lower_bound,
    strata_from_prel,
    total,
)
from engine.evaluate import Judgments, evaluate_run
from engine.names import parse_measures
from pooling.strategies import stratified_sample
from tests.conftest import demo_runs
from trec.qrels import qrels_from_dict


def pmf(population: int, relevant_total: int, judged: int, x: int) -> float:
    """P(X = x) for X relevant among ``judged`` drawn without replacement."""
    return (
        math.comb(relevant_total, x)
        * math.comb(population - relevant_total, judged - x)
        / math.comb(population, judged)
    )


def brute_interval(population: int, judged: int, relevant: int, confidence: float = 0.95) -> tuple[int, int]:
    half = (1 - confidence) / 2
    totals = range(relevant, population - (judged - relevant) + 1)
    at_least = [
        k for k in totals if sum(pmf(population, k, judged, x) for x in range(relevant, judged + 1)) > half
    ]
    at_most = [k for k in totals if sum(pmf(population, k, judged, x) for x in range(relevant + 1)) > half]
    return min(at_least), max(at_most)


# ------------------------------------------------------------------------------ exact interval


def test_hypergeometric_interval_by_hand() -> None:
    # N = 4, n = 2, 50% interval (α/2 = 0.25). r = 0: P(X ≤ 0 | R=1) = C(3,2)/C(4,2) = 3/6 > 0.25,
    # P(X ≤ 0 | R=2) = C(2,2)/6 = 1/6 ≤ 0.25, so the upper limit is 1; the lower is 0.
    assert hypergeometric_interval(4, 2, 0, 0.5) == (0, 1)
    # r = 1: P(X ≥ 1 | R=1) = 1 − 3/6 > 0.25, lower 1; P(X ≤ 1 | R=3) = 1 − C(3,2)/6 = 1/2 > 0.25 and
    # R = 3 is the largest total the sample allows (N − (n − r) = 3), upper 3
    assert hypergeometric_interval(4, 2, 1, 0.5) == (1, 3)


@pytest.mark.parametrize(
    ("population", "judged", "relevant"),
    [
        (10, 5, 0),
        (10, 5, 5),
        (20, 10, 4),
        (70, 7, 1),
        (100, 20, 5),
        (30, 1, 1),
        (30, 1, 0),
        (12, 0, 0),
        (57, 56, 9),
    ],
)
def test_hypergeometric_interval_inverts_the_two_tails(population: int, judged: int, relevant: int) -> None:
    assert hypergeometric_interval(population, judged, relevant) == brute_interval(
        population, judged, relevant
    )


def test_a_complete_stratum_has_no_uncertainty() -> None:
    assert hypergeometric_interval(15, 15, 4) == (4, 4)


def test_impossible_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="relevant <= judged <= population"):
        hypergeometric_interval(10, 3, 4)
    with pytest.raises(ValueError, match="confidence"):
        design_estimate([Stratum("1", 10, 3, 1)], confidence=1.5)


# ------------------------------------------------------------------------------ point estimates


def test_srs_estimate_by_hand() -> None:
    e = design_estimate([Stratum("all", 100, 20, 5)], design="srs")
    assert e.design == "srs" and e.interval == "exact"
    assert e.r_hat == pytest.approx(100 * 5 / 20)  # N·r/n = 25
    # N²(1 − n/N)·p(1 − p)/(n − 1) = 10000 · 0.8 · 0.25 · 0.75 / 19 = 1500/19
    assert e.variance == pytest.approx(100**2 * (1 - 20 / 100) * 0.25 * 0.75 / 19)
    assert (e.low, e.high) == brute_interval(100, 20, 5)
    assert e.unjudged_relevant == (25 - 5, e.low - 5, e.high - 5)


def test_stratified_estimate_by_hand() -> None:
    # ranks 1-10 judged completely (6 relevant), 10 of 20 with 4 relevant, 7 of 70 with 1 relevant
    strata = [Stratum("1", 10, 10, 6), Stratum("2", 20, 10, 4), Stratum("3", 70, 7, 1)]
    e = design_estimate(strata)
    assert e.r_hat == pytest.approx(6 + 20 * 4 / 10 + 70 * 1 / 7)  # 6 + 8 + 10 = 24
    v2 = 20**2 * (1 - 10 / 20) * (0.4 * 0.6) / (10 - 1)  # 16/3
    v3 = 70**2 * (1 - 7 / 70) * (1 / 7 * 6 / 7) / (7 - 1)  # 90
    assert e.variance == pytest.approx(v2 + v3)
    assert e.variance == pytest.approx(16 / 3 + 90)
    # two uncertain strata: MOVER over their exact limits, around R̂ = 24
    l2, u2 = brute_interval(20, 10, 4)
    l3, u3 = brute_interval(70, 7, 1)
    assert e.interval == "mover"
    assert e.low == pytest.approx(max(24 - math.sqrt((8 - l2) ** 2 + (10 - l3) ** 2), 11))
    assert e.high == pytest.approx(24 + math.sqrt((u2 - 8) ** 2 + (u3 - 10) ** 2))
    assert (e.found, e.judged, e.population) == (11, 27, 100)


def test_one_uncertain_stratum_gets_its_exact_interval_plus_the_known_rest() -> None:
    e = design_estimate([Stratum("1", 10, 10, 6), Stratum("2", 40, 10, 3)])
    assert e.interval == "exact"
    assert e.r_hat == pytest.approx(6 + 40 * 3 / 10)
    low, high = brute_interval(40, 10, 3)
    assert (e.low, e.high) == (6 + low, 6 + high)


def test_all_non_relevant_so_far_still_leaves_room_unlike_wald() -> None:
    """The variant pin: Wald (R̂ ± z√V̂) would be [0, 0] here, since V̂ = 0."""
    e = design_estimate([Stratum("1", 10, 5, 0), Stratum("2", 10, 5, 0)])
    assert e.r_hat == 0 and e.variance == 0
    # exact upper limit of each stratum: P(X ≤ 0 | R) = C(10 − R, 5)/C(10, 5) > 0.025 ⟺ C(10 − R, 5) ≥ 7
    # ⟺ R ≤ 3, so U = 0 + √(3² + 3²)
    assert brute_interval(10, 5, 0) == (0, 3)
    assert (e.low, e.high) == (0.0, pytest.approx(math.sqrt(18)))


def test_strata_without_two_judged_documents() -> None:
    # one judged document: no variance, but an exact interval all the same
    e = design_estimate([Stratum("1", 50, 1, 1), Stratum("2", 50, 10, 2)])
    assert e.variance is None and e.r_hat == pytest.approx(50 + 10)
    l1, u1 = brute_interval(50, 1, 1)
    l2, u2 = brute_interval(50, 10, 2)
    assert e.low == pytest.approx(max(60 - math.sqrt((50 - l1) ** 2 + (10 - l2) ** 2), 3))
    assert e.high == pytest.approx(60 + math.sqrt((u1 - 50) ** 2 + (u2 - 10) ** 2))
    # nothing judged in a stratum: R̂ leaves it out (as sample_eval does); its size joins the upper limit
    e = design_estimate([Stratum("1", 50, 0, 0), Stratum("2", 50, 10, 2)])
    assert e.r_hat == pytest.approx(10) and e.variance is None
    assert e.high == pytest.approx(min(10 + (brute_interval(50, 10, 2)[1] - 10) + 50, 2 + 40 + 50))


def test_census_and_nothing_judged() -> None:
    e = design_estimate([Stratum("1", 8, 8, 3), Stratum("2", 4, 4, 0)])
    assert (e.design, e.r_hat, e.low, e.high, e.variance, e.interval) == ("census", 3, 3, 3, 0.0, "census")
    e = design_estimate([Stratum("1", 8, 0, 0)], design="srs")
    assert e.r_hat is None and (e.low, e.high) == (0, 8) and e.interval == "bounds"


def test_without_a_probability_sample_only_bounds() -> None:
    e = lower_bound([Stratum("1", 30, 12, 5)])
    assert (e.design, e.r_hat, e.low, e.high) == ("none", None, 5, 5 + (30 - 12))
    assert lower_bound([Stratum("1", 30, 30, 5)]).design == "census"


def test_the_total_is_the_estimator_over_every_topic_and_stratum() -> None:
    per_topic = {"401": [Stratum("1", 20, 10, 4)], "402": [Stratum("1", 10, 10, 2), Stratum("2", 70, 7, 1)]}
    t = total(per_topic)
    assert t.r_hat == pytest.approx(20 * 4 / 10 + 2 + 70 * 1 / 7)
    cells = [Stratum("a", 20, 10, 4), Stratum("b", 10, 10, 2), Stratum("c", 70, 7, 1)]
    assert (t.low, t.high, t.variance) == pytest.approx(
        (design_estimate(cells).low, design_estimate(cells).high, design_estimate(cells).variance)
    )


# ------------------------------------------------------------------------------ the engine's R̂


def test_r_hat_is_sample_evals_and_statap_estimate() -> None:
    runs = demo_runs()
    pool = stratified_sample(runs, (5, 20), rates=(1.0, 0.5), seed=3)
    sampled = pool.docnos[pool.sampled]
    codes = np.repeat(np.arange(len(pool.topics)), np.diff(pool.offsets))[pool.sampled]

    def graded(share: int) -> dict[str, dict[str, int]]:
        # judge every ``share``-th sampled document; grade from the docno's last digit
        out: dict[str, dict[str, int]] = {}
        for i, (c, d) in enumerate(zip(codes.tolist(), sampled.tolist(), strict=True)):
            if i % share == 0:
                out.setdefault(pool.topics[c], {})[d.decode()] = int(d.decode()[-1]) % 3
        return out

    for share in (1, 2):  # all of the sample judged, then half of it
        prel = pool.to_prel(qrels_from_dict(graded(share)))
        per_topic = strata_from_prel(prel)
        r_hat = {t: design_estimate(s).r_hat or 0.0 for t, s in per_topic.items()}
        result = evaluate_run(Judgments.from_prel(prel), runs[0], parse_measures(["inum_rel"], design="prel"))
        assert result.summary["inum_rel"] == pytest.approx(sum(r_hat.values()))
        for t, v in zip(result.topics, result.per_topic["inum_rel"].tolist(), strict=True):
            assert v == pytest.approx(r_hat[t])
    # judged completely, the sample's HT estimate Σ_{sampled relevant} 1/π (statAP's R̂) is the same
    judged = qrels_from_dict(graded(1))
    mq = pool.to_mq_prel(judged)
    per_topic = strata_from_prel(pool.to_prel(judged))
    for i, topic in enumerate(mq.qrels.topics):
        a, b = int(mq.qrels.offsets[i]), int(mq.qrels.offsets[i + 1])
        rel = mq.qrels.rels[a:b] >= 1
        assert float(np.sum(1.0 / mq.iprobs[a:b][rel])) == pytest.approx(
            design_estimate(per_topic[topic]).r_hat
        )


def test_strata_are_counted_from_the_prel_in_label_order() -> None:
    from trec.prels import StratifiedPrel

    q = qrels_from_dict({"7": {"a": 1, "b": -1, "c": 0, "d": 2, "e": -1}})
    labels = {"a": b"10", "b": b"10", "c": b"2", "d": b"2", "e": b"2"}
    prel = StratifiedPrel(q, np.array([labels[d.decode()] for d in q.docnos.tolist()], dtype="S"))
    assert strata_from_prel(prel) == {"7": [Stratum("2", 3, 2, 1), Stratum("10", 2, 1, 1)]}
    assert strata_from_prel(prel, level=2) == {"7": [Stratum("2", 3, 2, 1), Stratum("10", 2, 1, 0)]}


# ------------------------------------------------------------------------------ coverage

REPS = 400


def coverage(population: list[int], relevant: list[int], judged: list[int], seed: int) -> float:
    """Share of seeded random samples whose 95% interval holds the true R = Σ relevant."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(REPS):
        strata = []
        for i, (n_pop, n_rel, n_judged) in enumerate(zip(population, relevant, judged, strict=True)):
            docs = np.zeros(n_pop, dtype=bool)
            docs[:n_rel] = True
            found = int(rng.permutation(docs)[:n_judged].sum())
            strata.append(Stratum(str(i), n_pop, n_judged, found))
        e = design_estimate(strata)
        hits += e.low <= sum(relevant) <= e.high
    return hits / REPS


def test_the_exact_interval_covers_at_least_the_nominal_rate() -> None:
    # 40 relevant among 200 pooled, 50 judged in random order; exact: coverage >= 95% up to the
    # simulation's noise (binomial SE over 400 samples ≈ 1.1%), and not absurdly conservative
    assert 0.94 <= coverage([200], [40], [50], seed=11) <= 0.995


def test_the_stratified_interval_covers_about_the_nominal_rate() -> None:
    # three strata, few relevant in the deepest (10 of 300, 40 judged): MOVER over exact limits
    # (Wald covers ~0.91 here; ~0.85 with 10 relevant of 100 and 8 of 400)
    assert 0.93 <= coverage([60, 120, 300], [20, 15, 10], [30, 30, 40], seed=12) <= 0.99
    assert 0.93 <= coverage([100, 400], [10, 8], [20, 40], seed=13) <= 0.995
