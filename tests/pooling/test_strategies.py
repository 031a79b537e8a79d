"""Static pools on tiny hand-checkable runs: depth-k, run selection, Take@N, the fusions, conversions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from pooling.strategies import (
    PoolSelection,
    Rankings,
    depth_pool,
    fused_scores,
    fusion_pool,
    make_pool,
    select_runs,
    take_pool,
    truncate,
)
from trec.qrels import qrels_from_dict
from trec.runs import RankedRun, run_from_arrays


def make_run(name: str, topics: Mapping[str, Sequence[Any]]) -> RankedRun:
    """A run from ``{topic: [docno, ...]}`` (scores n, n-1, ... 1) or ``{topic: [(docno, score), ...]}``."""
    qids, docnos, scores = [], [], []
    for topic, docs in topics.items():
        for i, doc in enumerate(docs):
            d, s = doc if isinstance(doc, tuple) else (doc, float(len(docs) - i))
            qids.append(topic)
            docnos.append(d)
            scores.append(s)
    return run_from_arrays(name, np.array(qids, dtype="S"), np.array(docnos, dtype="S"), np.array(scores))


# Topic 1: A = a b c d, B = b e a f, C = g b h. Topic 2: A = x y, B = y z (C has no topic 2).
# Best ranks in topic 1: a 1 (A), b 1 (B), g 1 (C), e 2, c 3, h 3, d 4, f 4.
SCORES_A: dict[str, Any] = {"1": [("a", 4.0), ("b", 3.0), ("c", 2.0), ("d", 1.0)], "2": ["x", "y"]}
SCORES_B: dict[str, Any] = {"1": [("b", 10.0), ("e", 8.0), ("a", 6.0), ("f", 2.0)], "2": ["y", "z"]}
SCORES_C = {"1": [("g", 0.9), ("b", 0.5), ("h", 0.1)]}


@pytest.fixture
def runs() -> list[RankedRun]:
    return [make_run("A", SCORES_A), make_run("B", SCORES_B), make_run("C", SCORES_C)]


def test_depth_pool_is_the_union_of_each_runs_top_k_in_best_rank_order(runs: list[RankedRun]) -> None:
    pool = depth_pool(runs, 2)
    # top 2: A {a, b}, B {b, e}, C {g, b} -> {a, b, e, g}; a, b, g have best rank 1 with one vote
    # each (b is B's first, A's and C's second), so docno order among them, then e (best rank 2)
    assert pool.to_judge("1") == ["a", "b", "g", "e"]
    # topic 2: A {x, y}, B {y, z}: x and y at rank 1, then z
    assert pool.to_judge("2") == ["x", "y", "z"]
    assert pool.sizes() == {"1": 4, "2": 3}
    assert len(pool) == 7


def test_depth_pool_in_docno_order_hides_the_ranks(runs: list[RankedRun]) -> None:
    assert depth_pool(runs, 2, order="docno").to_judge("1") == ["a", "b", "e", "g"]


def test_votes_at_the_best_rank_come_before_docno() -> None:
    # z is first in both runs, a first in one: z goes first despite its docno
    two = [
        make_run("P", {"1": ["z", "a"]}),
        make_run("Q", {"1": ["z", "b"]}),
        make_run("R", {"1": ["a", "q"]}),
    ]
    assert depth_pool(two, 1).to_judge("1") == ["z", "a"]


def test_per_run_depths_and_chosen_runs(runs: list[RankedRun]) -> None:
    # A to depth 1 ({a}), B to depth 0 (nothing), C to the default 2 ({g, b})
    pool = depth_pool(runs, 2, run_depths={"A": 1, "B": 0})
    assert sorted(pool.to_judge("1")) == ["a", "b", "g"]
    assert pool.to_judge("2") == ["x"]
    # only A and C pooled at depth 1: {a} and {g}; topic 2 has A's x only
    only = depth_pool(runs, 1, include=["A", "C"])
    assert only.as_lists() == {"1": ["a", "g"], "2": ["x"]}
    with pytest.raises(ValueError, match="unknown run"):
        depth_pool(runs, 1, include=["Z"])


def test_select_runs_takes_each_groups_top_priority_runs() -> None:
    names = ["A", "B", "C", "D"]
    groups = {"A": "g1", "B": "g1", "C": "g2", "D": "g2"}
    # priority 1 is judged first; D has no priority so C wins group 2
    assert select_runs(names, groups=groups, priorities={"A": 2, "B": 1, "C": 3}, per_group=1) == ["B", "C"]
    assert select_runs(names, groups=groups, priorities={"A": 2, "B": 1}, per_group=2) == names
    # a run without a group is a group of its own
    assert select_runs(["A", "B", "E"], groups={"A": "g", "B": "g"}, priorities={"A": 1}) == ["A", "E"]


def test_take_with_a_per_topic_budget_takes_the_best_ranks_first(runs: list[RankedRun]) -> None:
    pool = take_pool(runs, budget=3)
    assert pool.as_lists() == {"1": ["a", "b", "g"], "2": ["x", "y", "z"]}


def test_take_with_a_total_budget_splits_it_level_by_level_over_topics(runs: list[RankedRun]) -> None:
    # Best-rank-1 candidates: topic 1 a, b, g; topic 2 x, y. Budget 4 goes round robin inside
    # that level: a (t1), x (t2), b (t1), y (t2).
    assert take_pool(runs, total_budget=4).as_lists() == {"1": ["a", "b"], "2": ["x", "y"]}
    # 5 adds g, the last of level 1, before any level-2 document (e in topic 1, z in topic 2)
    assert take_pool(runs, total_budget=5).as_lists() == {"1": ["a", "b", "g"], "2": ["x", "y"]}


def test_take_of_the_depth_k_pool_size_is_the_depth_k_pool(runs: list[RankedRun]) -> None:
    depth = depth_pool(runs, 2)
    assert take_pool(runs, total_budget=len(depth)).as_lists() == depth.as_lists()


def test_fused_scores_follow_each_formula(runs: list[RankedRun]) -> None:
    rk = Rankings.from_runs(runs)
    doc = {d.decode(): i for i, d in enumerate(rk.docnos.tolist()) if rk.doc_topic[i] == 0}
    rrf = fused_scores(rk, "rrf")
    # a: rank 1 in A, 3 in B; b: 2 in A, 1 in B, 2 in C (RRF k = 60)
    assert rrf[doc["a"]] == pytest.approx(1 / 61 + 1 / 63)
    assert rrf[doc["b"]] == pytest.approx(1 / 62 + 1 / 61 + 1 / 62)
    rbp = fused_scores(rk, "rbp", rbp_p=0.5)
    # (1 - p) p^(rank - 1) with p = 0.5: a 0.5 + 0.125, b 0.25 + 0.5 + 0.25
    assert rbp[doc["a"]] == pytest.approx(0.625)
    assert rbp[doc["b"]] == pytest.approx(1.0)
    borda = fused_scores(rk, "borda")
    # Borda-fuse: topic 1 has n = 8 candidates (a..h); rank r is worth 8 - r + 1, and a run of
    # length L shares (8 - L + 1)/2 with each document it did not retrieve: A and B 2.5, C 3
    assert borda[doc["a"]] == 8 + 6 + 3  # A rank 1, B rank 3, C none
    assert borda[doc["b"]] == 7 + 8 + 7  # A rank 2, B rank 1, C rank 2
    assert borda[doc["h"]] == 2.5 + 2.5 + 6  # C rank 3 only
    assert borda[doc["g"]] == 2.5 + 2.5 + 8
    longest = fused_scores(rk, "borda-longest")
    # longest topic-1 ranking has 4 docs: rank r is worth 4 - r + 1; a 4 + 2, b 3 + 4 + 3, h 2
    assert longest[doc["a"]] == 6
    assert longest[doc["b"]] == 10
    assert longest[doc["h"]] == 2
    combsum = fused_scores(rk, "combsum")
    # min-max per run: A a 1, b 2/3; B b 1, a (6-2)/(10-2) = 0.5; C b (0.5-0.1)/(0.9-0.1) = 0.5
    assert combsum[doc["a"]] == pytest.approx(1 + 0.5)
    assert combsum[doc["b"]] == pytest.approx(2 / 3 + 1 + 0.5)
    assert combsum[doc["h"]] == 0.0  # C's last document
    combmnz = fused_scores(rk, "combmnz")
    # times the number of runs retrieving: a 2, b 3
    assert combmnz[doc["a"]] == pytest.approx(2 * 1.5)
    assert combmnz[doc["b"]] == pytest.approx(3 * (2 / 3 + 1.5))


def test_borda_fuse_shares_the_points_left_among_unretrieved_documents() -> None:
    # Aslam & Montague's example shape: one run ranks A, B, C, E; another retrieves only D.
    # Borda-fuse, n = 5 candidates: run 1 gives A 5, B 4, C 3, E 2 and D (5 - 4 + 1)/2 = 1;
    # run 2 gives D 5 and the four others (5 - 1 + 1)/2 = 2.5 each: A 7.5, B 6.5, D 6, C 5.5.
    runs = [make_run("R1", {"1": ["A", "B", "C", "E"]}), make_run("R2", {"1": ["D"]})]
    assert fusion_pool(runs, "borda", budget=2).to_judge("1") == ["A", "B"]
    # The count from the longest list with nothing for unretrieved documents ties A and D at 4
    # (best rank 1 each; docno breaks the tie) and pools {A, D}.
    assert fusion_pool(runs, "borda-longest", budget=2).to_judge("1") == ["A", "D"]


def test_rbp_persistence_changes_the_fused_order() -> None:
    # d is first in one run; s is second in two. RBP weight: d (1-p), s 2 (1-p) p, so s wins
    # iff 2p > 1: p = 0.8 prefers consensus, p = 0.3 the top rank. RRF: 1/61 < 2/62, s first.
    runs = [
        make_run("A", {"1": ["d", "s"]}),
        make_run("B", {"1": ["e", "s"]}),
        make_run("C", {"1": ["f", "g"]}),
    ]
    assert fusion_pool(runs, "rbp", budget=1, rbp_p=0.8).to_judge("1") == ["s"]
    assert fusion_pool(runs, "rbp", budget=1, rbp_p=0.3).to_judge("1") == ["d"]
    assert fusion_pool(runs, "rrf", budget=1).to_judge("1") == ["s"]


def test_fusion_pools_take_the_budget_by_fused_score(runs: list[RankedRun]) -> None:
    # RRF order in topic 1: b (3 terms), a (1/61 + 1/63), g (1/61), e (1/62), then c and h
    # (1/63 each; tie on best rank 3, so docno)
    assert fusion_pool(runs, "rrf", budget=6).to_judge("1") == ["b", "a", "g", "e", "c", "h"]
    # CombMNZ: b 6.5, a 3, g 1, e 0.75, c 1/3
    assert fusion_pool(runs, "combmnz", budget=5).to_judge("1") == ["b", "a", "g", "e", "c"]


def test_fusion_total_budget_gives_topics_equal_shares(runs: list[RankedRun]) -> None:
    # 5 over two topics: each topic's first, then second choices; the fifth goes to topic 1
    pool = fusion_pool(runs, "rrf", total_budget=5)
    assert pool.sizes() == {"1": 3, "2": 2}
    # topic 2 has 3 candidates only: a total of 9 gives topic 1 its 6 remaining
    assert fusion_pool(runs, "rrf", total_budget=9).sizes() == {"1": 6, "2": 3}


def test_fusion_and_take_need_a_budget(runs: list[RankedRun]) -> None:
    with pytest.raises(ValueError, match="budget"):
        fusion_pool(runs, "borda")
    with pytest.raises(ValueError, match="budget"):
        take_pool(runs)


def test_depth_cut_of_the_fusion_input(runs: list[RankedRun]) -> None:
    # with depth 1 only a, b, g are candidates of topic 1
    assert sorted(fusion_pool(runs, "borda", budget=10, depth=1).to_judge("1")) == ["a", "b", "g"]


def test_ties_in_scores_follow_the_canonical_order() -> None:
    # equal scores rank by docno descending (trec_eval), so the depth-1 pool is "b", not "a"
    tied = make_run("T", {"1": [("a", 1.0), ("b", 1.0)]})
    assert depth_pool([tied], 1).to_judge("1") == ["b"]


def test_truncate_keeps_each_topics_top_k(runs: list[RankedRun]) -> None:
    cut = truncate(runs[0], 1)
    assert [cut.ranking(t) for t in cut.topics] == [[("a", 4.0)], [("x", 2.0)]]
    assert Rankings.from_runs([cut]).fingerprint() == Rankings.from_runs([runs[0]], 1).fingerprint()


def test_pool_to_qrels_lists_the_documents_to_judge_with_rel_minus_one(runs: list[RankedRun]) -> None:
    pool = depth_pool(runs, 1)
    qrels = pool.to_qrels()
    assert qrels.as_dict() == {"1": {"a": -1, "b": -1, "g": -1}, "2": {"x": -1, "y": -1}}
    # grades filled from judgments where known
    judged = pool.to_qrels(qrels_from_dict({"1": {"a": 2, "zz": 1}}))
    assert judged.as_dict()["1"] == {"a": 2, "b": -1, "g": -1}


def test_pool_prel_and_mq_prel_of_a_complete_pool(runs: list[RankedRun]) -> None:
    pool = depth_pool(runs, 1)
    prel = pool.to_prel()
    # a static pool is one stratum judged for certain
    assert set(prel.strata.tolist()) == {b"1"}
    mq = pool.to_mq_prel()
    assert mq.iprobs.tolist() == [1.0] * 5
    assert set(mq.methods.tolist()) == {b"depth"}


def test_pool_from_lists_keeps_the_judging_order() -> None:
    pool = PoolSelection.from_lists("manual", {"2": ["q", "p"], "10": ["z"]})
    # topics in byte order ("10" < "2"), documents as given
    assert pool.topics == ("10", "2")
    assert pool.to_judge("2") == ["q", "p"]
    with pytest.raises(KeyError):
        pool.to_judge("3")


def test_make_pool_dispatches_by_name(runs: list[RankedRun]) -> None:
    assert make_pool("depth", runs, depth=2).as_lists() == depth_pool(runs, 2).as_lists()
    assert make_pool("borda", runs, budget=2).as_lists() == fusion_pool(runs, "borda", budget=2).as_lists()
    with pytest.raises(ValueError, match="adaptive"):
        make_pool("maxmean", runs)
    with pytest.raises(ValueError, match="unknown pooling strategy"):
        make_pool("deep", runs)
