"""The literature's result on robust05: adaptive adjudication finds more relevant documents early.

Losada, Parapar & Barreiro (2016, 2017) order the judgments of the depth-100 pool: with a
budget of a tenth of it, MaxMean and Move-to-Front find far more relevant documents than
judging the pool in docno order (TREC's presentation order).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pooling.strategies import Rankings, candidate_sizes, depth_pool, make_queue, per_topic_budgets, simulate
from trec import read_qrels, read_run

pytestmark = pytest.mark.refdata


def test_maxmean_and_mtf_beat_docno_order_with_a_tenth_of_the_depth_100_pool(refdata: Path) -> None:
    folder = refdata / "data" / "robust05"
    runs = [read_run(p) for p in sorted((folder / "runs").glob("*.run"))]
    qrels = read_qrels(folder / "qrels.robust05.txt")
    rankings = Rankings.from_runs(runs, 100)
    budgets = per_topic_budgets(candidate_sizes(rankings), fraction=0.1)

    docno_order = simulate(depth_pool(rankings, 100, order="docno"), qrels, budgets)
    maxmean = simulate(make_queue("maxmean", rankings, depth=100, seed=0), qrels, budgets)
    mtf = simulate(make_queue("mtf", rankings, depth=100, seed=0), qrels, budgets)

    # the same judgments spent by each
    assert docno_order.total_judged() == maxmean.total_judged() == mtf.total_judged() == sum(budgets.values())
    baseline = docno_order.total_found()
    # Losada et al. report the adaptive methods finding about twice as many; ask for 1.5x
    assert maxmean.total_found() > 1.5 * baseline
    assert mtf.total_found() > 1.5 * baseline
    # and on most topics, not only on the total
    better = sum(
        m.relevant.sum() >= d.relevant.sum() for m, d in zip(maxmean.traces, docno_order.traces, strict=True)
    )
    assert better >= 0.8 * len(maxmean.traces)
