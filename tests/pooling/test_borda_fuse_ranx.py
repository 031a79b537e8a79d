"""Borda-fuse pools equal ranx's ``bordafuse`` on the TREC 2005 Robust reference runs.

The expected side is ranx 0.3.21's own output, stored with the script that made it
(tests/pooling/data/ranx_borda/make_fixture.py: the 8 official runs, depth 100, ranx's fused
ranking cut to 60 per topic). Borda points are half-integers, exact in binary floating point,
so the scores must be equal, not close.
"""

from __future__ import annotations

import gzip
from collections import defaultdict
from pathlib import Path

import pytest

from pooling.strategies import Rankings, fused_scores, fusion_pool
from trec.runs import read_run

FIXTURE = Path(__file__).parent / "data" / "ranx_borda" / "ranx_bordafuse_robust05.tsv.gz"
DEPTH = 100


def ranx_rankings() -> tuple[list[str], dict[str, list[tuple[str, float]]]]:
    ranked: dict[str, list[tuple[str, float]]] = defaultdict(list)
    with gzip.open(FIXTURE, "rt") as f:
        header = f.readline()
        for line in f:
            topic, docno, score = line.rstrip("\n").split("\t")
            ranked[topic].append((docno, float(score)))
    names = header.split("runs: ")[1].split(";")[0].split()
    return names, dict(ranked)


@pytest.fixture(scope="module")
def robust_runs(refdata: Path) -> list:
    names, _ = ranx_rankings()
    return [read_run(str(refdata / "data" / "robust05" / "runs" / f"{n}.run"), name=n) for n in names]


def test_our_borda_fuse_scores_equal_ranx_on_the_robust05_runs(robust_runs: list) -> None:
    _, expected = ranx_rankings()
    rk = Rankings.from_runs(robust_runs, DEPTH)
    fused = fused_scores(rk, "borda")
    ours: dict[str, dict[str, float]] = defaultdict(dict)
    for i, (t, d) in enumerate(zip(rk.doc_topic.tolist(), rk.docnos.tolist(), strict=True)):
        ours[rk.topics[t]][d.decode()] = float(fused[i])
    assert sorted(ours) == sorted(expected)
    for topic, ranking in expected.items():
        for docno, score in ranking:
            assert ours[topic][docno] == score, (topic, docno)
        # nothing outside ranx's first 60 scores above its 60th
        listed = {d for d, _ in ranking}
        assert max(s for d, s in ours[topic].items() if d not in listed) <= ranking[-1][1]


@pytest.mark.parametrize("budget", [1, 10, 25, 50])
def test_borda_fuse_pools_equal_ranx_top_k(robust_runs: list, budget: int) -> None:
    _, expected = ranx_rankings()
    pool = fusion_pool(robust_runs, "borda", budget=budget, depth=DEPTH)
    for topic, ranking in expected.items():
        cut = ranking[budget - 1][1]
        above = {d for d, s in ranking if s > cut}
        at_least = {d for d, s in ranking if s >= cut}
        got = set(pool.to_judge(topic))
        assert len(got) == budget
        # ranx's top k, up to the order of documents tied with the k-th score
        assert above <= got <= at_least, topic
    # and the count from the longest list really is another pool on these runs
    longest = fusion_pool(robust_runs, "borda-longest", budget=budget, depth=DEPTH)
    assert any(set(longest.to_judge(t)) != set(pool.to_judge(t)) for t in expected)
