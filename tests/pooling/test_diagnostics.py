"""Pool diagnostics (``pooling.diagnostics``) on tiny runs whose expected values are derived by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.evaluate import Judgments, evaluate_run
from engine.measures.base import EvalOptions
from engine.names import parse_measures
from engine.significance import kendall_tau_b, tau_ap
from pooling.diagnostics import (
    cutoff_ties,
    judged_at_k,
    leave_out_reusability,
    pool_qrels,
    pool_sizes,
    unique_contributions,
)
from trec.qrels import qrels_from_dict
from trec.runs import RankedRun, run_from_arrays

INFAP_EPS = 0.00001  # trec_eval m_infap.c


def make_run(
    name: str, ranking: dict[str, list[str]], scores: dict[str, list[float]] | None = None
) -> RankedRun:
    """A run listing each topic's docs in the given order (scores n..1 unless given)."""
    qids, docnos, values = [], [], []
    for topic, docs in ranking.items():
        for i, d in enumerate(docs):
            qids.append(topic)
            docnos.append(d)
            values.append(scores[topic][i] if scores else float(len(docs) - i))
    return run_from_arrays(name, np.array(qids, dtype="S"), np.array(docnos, dtype="S"), np.array(values))


# Three runs on one topic. a1 is retrieved by A only, b1 by B only, c1 by C only; s1 and s2 by all.
# Relevant: a1, s1, b1 (R = 3); judged non-relevant: s2, c1.
RUN_A = make_run("A", {"1": ["a1", "s1", "s2"]})
RUN_B = make_run("B", {"1": ["s1", "s2", "b1"]})
RUN_C = make_run("C", {"1": ["s2", "c1", "s1"]})
RUNS = [RUN_A, RUN_B, RUN_C]
QRELS = qrels_from_dict({"1": {"a1": 1, "s1": 1, "s2": 0, "b1": 1, "c1": 0}})
# AP with the full qrels: A finds a1@1, s1@2; B s1@1, b1@3; C s1@3.
MAP_A, MAP_B, MAP_C = (1 / 1 + 2 / 2) / 3, (1 / 1 + 2 / 3) / 3, (1 / 3) / 3


# --------------------------------------------------------------------------- pool size


def test_pool_size_counts_distinct_docnos_and_keeps_empty_topics() -> None:
    sizes = pool_sizes({"9": ["x", "y", "x"], "10": [], "2": [b"z"]})
    assert sizes.topics == ("10", "2", "9")  # byte order, as the format layer sorts topics
    assert sizes.pooled.tolist() == [0, 1, 2]
    assert sizes.total == 3
    assert sizes.judged is None and sizes.relevant is None


def test_pool_size_reads_grades_from_the_qrels_or_from_a_qrels_pool() -> None:
    pool = {"1": ["a1", "s1", "s2", "zz"]}
    with_qrels = pool_sizes(pool, qrels=QRELS)
    assert with_qrels.pooled.tolist() == [4]
    assert with_qrels.judged.tolist() == [3]  # type: ignore[union-attr]  # zz has no qrels line
    assert with_qrels.relevant.tolist() == [2]  # type: ignore[union-attr]  # a1, s1
    graded = qrels_from_dict({"1": {"a": 2, "b": 1, "c": 0, "d": -1}})
    own = pool_sizes(graded, level=2)
    assert (own.pooled.tolist(), own.judged.tolist(), own.relevant.tolist()) == ([4], [3], [1])  # type: ignore[union-attr]


def test_pool_qrels_marks_every_pooled_doc_unjudged() -> None:
    q = pool_qrels({"1": ["b", "a"]})
    assert q.as_dict() == {"1": {"a": -1, "b": -1}}


# --------------------------------------------------------------------------- unique contributions


def test_unique_contributions_at_depth_one_two_and_whole_runs() -> None:
    # depth 1: A {a1}, B {s1}, C {s2}: every doc is one run's alone
    d1 = unique_contributions(RUNS, depth=1, qrels=QRELS)
    assert [(t.unit, t.contributed, t.unique, t.unique_relevant) for t in d1.totals()] == [
        ("A", 1, 1, 1),
        ("B", 1, 1, 1),
        ("C", 1, 1, 0),
    ]
    # depth 2: A {a1, s1}, B {s1, s2}, C {s2, c1}: unique a1 (relevant) and c1 (judged non-relevant)
    d2 = unique_contributions(RUNS, depth=2, qrels=QRELS)
    assert [(t.contributed, t.unique, t.unique_judged, t.unique_relevant) for t in d2.totals()] == [
        (2, 1, 1, 1),
        (2, 0, 0, 0),
        (2, 1, 1, 0),
    ]
    assert d2.unique_docnos("A", "1") == ["a1"] and d2.unique_docnos("B", "1") == []
    whole = unique_contributions(RUNS)
    assert whole.unique.tolist() == [[1], [1], [1]]
    assert whole.unique_relevant is None and whole.grades is None
    assert [whole.unique_docnos(u, "1") for u in "ABC"] == [["a1"], ["b1"], ["c1"]]


def test_unique_contributions_per_group_count_a_doc_shared_inside_a_group_once() -> None:
    # g1 = A + B contributes {a1, s1, s2, b1}; s1 and s2 are also C's (g2), so g1 alone has a1, b1
    result = unique_contributions(RUNS, groups={"A": "g1", "B": "g1", "C": "g2"}, qrels=QRELS)
    assert result.by == "group" and result.units == ("g1", "g2")
    assert [(t.unit, t.contributed, t.unique, t.unique_relevant) for t in result.totals()] == [
        ("g1", 4, 2, 2),
        ("g2", 3, 1, 0),
    ]


def test_unique_contributions_within_a_given_pool() -> None:
    # inside the pool {a1, s1, b1}: A gives a1, s1; B gives s1, b1; C gives s1
    pool = qrels_from_dict({"1": {"a1": 1, "s1": 1, "b1": -1}})
    result = unique_contributions(RUNS, pool=pool)
    assert result.contributed.tolist() == [[2], [2], [1]]
    assert result.unique.tolist() == [[1], [1], [0]]
    # grades come from the pool itself: b1 is pooled but unjudged
    assert result.unique_judged.tolist() == [[1], [0], [0]]  # type: ignore[union-attr]
    assert result.unique_relevant.tolist() == [[1], [0], [0]]  # type: ignore[union-attr]


def test_per_run_depth_leaves_unlisted_runs_out_of_the_pool() -> None:
    result = unique_contributions(RUNS, depth={"A": 1, "B": 2})
    # A {a1}, B {s1, s2}, C nothing: everything is unique
    assert result.contributed.tolist() == [[1], [2], [0]]
    assert result.unique.tolist() == [[1], [2], [0]]


def test_unique_contributions_keep_topics_apart() -> None:
    x = make_run("X", {"1": ["d"], "2": ["d", "e"]})
    y = make_run("Y", {"2": ["d"]})
    result = unique_contributions([x, y])
    assert result.topics == ("1", "2")
    # d is X's alone in topic 1 but shared in topic 2
    assert result.unique.tolist() == [[1, 1], [0, 0]]
    assert result.unique_docnos("X", "2") == ["e"]


def test_runs_must_have_distinct_names_and_a_group_each() -> None:
    with pytest.raises(ValueError, match="share a name"):
        unique_contributions([RUN_A, RUN_A])
    with pytest.raises(ValueError, match="no group given for run"):
        unique_contributions(RUNS, groups={"A": "g1"})


# --------------------------------------------------------------------------- judged@k


def test_judged_at_k_under_both_conventions() -> None:
    run = make_run("X", {"1": ["d5", "d4", "d3", "d2", "d1"]})
    qrels = qrels_from_dict({"1": {"d5": 1, "d4": -1, "d2": 0}})
    at4, at10 = judged_at_k([run], qrels, ks=(4, 10))
    assert (at4.run, at4.k, at10.k) == ("X", 4, 10)
    # trec_eval: d4 (rel -1) and d3 (absent) are unjudged in the top 4 -> 1 - 2/4
    assert at4.trec_eval_mean == pytest.approx(1 - 2 / 4)
    # ir_measures: d5, d4, d2 have qrels lines -> 3 / min(4, 5)
    assert at4.ir_measures_mean == pytest.approx(3 / 4)
    # past the end: trec_eval counts the missing ranks as judged, ir_measures divides by |run|
    assert at10.trec_eval_mean == pytest.approx(1 - 3 / 10)
    assert at10.ir_measures_mean == pytest.approx(3 / 5)
    assert at10.topics == ("1",) and at10.trec_eval.tolist() == pytest.approx([1 - 3 / 10])


# --------------------------------------------------------------------------- cutoff ties


def test_cutoff_ties_list_the_tied_docs_on_each_side() -> None:
    # scores 3, 2, 2, 2, 1: the tie d2/d3/d4 is ordered by docno descending, d4 first (ranks 2-4)
    run = make_run(
        "T",
        {"1": ["d1", "d2", "d3", "d4", "d5"], "2": ["e1", "e2"]},
        {"1": [3.0, 2.0, 2.0, 2.0, 1.0], "2": [2.0, 2.0]},
    )
    (tie,) = cutoff_ties([run], 3)
    assert tie == ("T", "1", 3, 2.0, 2, 4, ("d4", "d3"), ("d2",))
    (tie2,) = cutoff_ties([run], 2)
    assert (tie2.inside, tie2.outside) == (("d4",), ("d3", "d2"))
    # topic 2 ties e2 > e1 across depth 1; topic 1 has nothing tied across rank 1
    (tie1,) = cutoff_ties([run], 1)
    assert (tie1.topic, tie1.inside, tie1.outside) == ("2", ("e2",), ("e1",))
    # the tie ends at rank 4; a list no longer than the depth cannot straddle it
    assert cutoff_ties([run], 4) == [] and cutoff_ties([run], 5) == []
    assert cutoff_ties([run, RUN_A], {"A": 1}) == []  # T is not pooled


# --------------------------------------------------------------------------- leave-one-out


def test_leave_one_run_out_moves_the_run_that_found_a_unique_relevant_doc() -> None:
    result = leave_out_reusability(RUNS, QRELS, measures=["map"])
    m = result.measures["map"]
    # without a1, R = 2 (s1, b1): A has s1@2 -> (1/2)/2; B has s1@1 -> 1/2 after losing b1;
    # C loses c1, non-relevant, which AP ignores
    reduced_a, reduced_b = (1 / 2) / 2, (1 / 1) / 2
    assert m.full.tolist() == pytest.approx([MAP_A, MAP_B, MAP_C])
    assert m.reduced.tolist() == pytest.approx([reduced_a, reduced_b, MAP_C])
    a, b, c = m.held_out
    # A scored 1/4 against B's 5/9 and C's 1/9: rank 1 -> 2
    assert (a.run, a.full_rank, a.reduced_rank, a.rank_change) == ("A", 1, 2, 1)
    assert a.drop == pytest.approx(MAP_A - reduced_a)
    assert (b.reduced_rank, b.rank_change, c.rank_change) == (2, 0, 0)
    assert (m.max_drop_run, m.max_rank_drop_run, m.max_rank_drop) == ("A", "A", 1)
    assert m.max_drop == pytest.approx(2 / 3 - 1 / 4)
    # leave-out ranking B > A > C against A > B > C: one discordant pair of three
    assert m.tau_b == pytest.approx((2 - 1) / 3)
    # τ_AP walking B, A, C: A has B above, which the truth puts below (0/1); C has both above (2/2)
    assert m.tau_ap == pytest.approx(2 / (3 - 1) * (0 / 1 + 2 / 2) - 1)
    truth, estimate = [MAP_A, MAP_B, MAP_C], [reduced_a, reduced_b, MAP_C]
    assert m.tau_b == pytest.approx(kendall_tau_b(truth, estimate))
    assert m.tau_ap == pytest.approx(tau_ap(truth, estimate))
    # A alone rescored gives that same order; B or C alone rescored keep A > B > C
    assert [u.unit for u in m.units] == ["A", "B", "C"]
    assert [(u.tau_b, u.tau_ap) for u in m.units] == [pytest.approx((1 / 3, 0.0)), (1.0, 1.0), (1.0, 1.0)]
    assert [(u.rescored_tau_b, u.rescored_tau_ap) for u in m.units] == [(None, None)] * 3
    assert [(r.unit, r.removed, r.removed_judged, r.removed_relevant, r.topics) for r in result.removals] == [
        ("A", 1, 1, 1, ("1",)),
        ("B", 1, 1, 1, ("1",)),
        ("C", 1, 1, 0, ("1",)),
    ]


def test_leave_one_run_out_with_ties_in_the_ranking() -> None:
    # P@10 counts a1, s1 for A and s1, b1 for B: a tie at 2/10, C has s1 only
    m = leave_out_reusability(RUNS, QRELS, measures=["P.10"]).measures["P_10"]
    assert m.full.tolist() == pytest.approx([2 / 10, 2 / 10, 1 / 10])
    assert m.reduced.tolist() == pytest.approx([1 / 10, 1 / 10, 1 / 10])
    # A at 1/10 below B's 2/10 and level with C: shared rank 2
    assert [(h.full_rank, h.reduced_rank) for h in m.held_out] == [(1, 2), (1, 2), (3, 3)]
    # every run ends at 1/10: the leave-out ranking is one tie and τ-b is undefined
    assert math.isnan(m.tau_b)
    assert m.units[2].tau_b == pytest.approx(1.0)  # C rescored changes nothing


def test_rescoring_every_run_without_one_runs_unique_judgments() -> None:
    m = leave_out_reusability(RUNS, QRELS, measures=["map"], rescore_all=True).measures["map"]
    # without a1 (R = 2): A 1/4, B (1/1 + 2/3)/2, C (1/3)/2 -> B > A > C
    without_a = [1 / 4, (1 + 2 / 3) / 2, (1 / 3) / 2]
    # without b1 (R = 2): A (1 + 1)/2, B 1/2, C (1/3)/2 -> the full order
    truth = [MAP_A, MAP_B, MAP_C]
    a, b, c = m.units
    assert (a.rescored_tau_b, a.rescored_tau_ap) == pytest.approx(
        (kendall_tau_b(truth, without_a), tau_ap(truth, without_a))
    )
    assert (a.rescored_tau_b, a.rescored_tau_ap) == pytest.approx((1 / 3, 0.0))
    assert (b.rescored_tau_b, b.rescored_tau_ap, c.rescored_tau_b, c.rescored_tau_ap) == pytest.approx(
        (1.0, 1.0, 1.0, 1.0)
    )
    # the leave-out scores themselves do not depend on rescoring the others
    assert m.reduced.tolist() == pytest.approx([1 / 4, 1 / 2, MAP_C])


def test_leave_one_group_out_removes_what_only_the_group_found() -> None:
    result = leave_out_reusability(RUNS, QRELS, measures=["map"], groups={"A": "g1", "B": "g1", "C": "g2"})
    assert result.by == "group"
    assert [(r.unit, r.runs, r.removed, r.removed_relevant) for r in result.removals] == [
        ("g1", ("A", "B"), 2, 2),
        ("g2", ("C",), 1, 0),
    ]
    m = result.measures["map"]
    # without a1 and b1, R = 1 (s1): A has it at rank 2, B at rank 1
    assert m.reduced.tolist() == pytest.approx([1 / 2, 1 / 1, MAP_C])
    a, b, c = m.held_out
    assert (a.unit, a.reduced_rank, a.rank_change) == ("g1", 2, 1)
    assert (b.unit, b.reduced_rank, b.rank_change) == ("g1", 1, -1)
    assert (c.unit, c.rank_change) == ("g2", 0)
    assert (m.max_drop_run, m.max_drop) == ("A", pytest.approx(MAP_A - 1 / 2))
    assert m.tau_b == pytest.approx(1 / 3) and m.units[0].tau_b == pytest.approx(1 / 3)


def test_leave_out_respects_the_pool_depth() -> None:
    # at depth 1 s1 is B's alone (A has it at 2, C at 3), so leaving B out removes s1 too
    result = leave_out_reusability(RUNS, QRELS, measures=["map"], depth=1)
    assert [r.removed for r in result.removals] == [1, 1, 1]  # a1; s1; s2
    m = result.measures["map"]
    # without s1, R = 2 (a1, b1): B finds b1@3 -> (1/3)/2
    assert m.reduced[1] == pytest.approx((1 / 3) / 2)


def test_unique_judgments_are_deleted_not_kept_unjudged() -> None:
    # n1 (judged non-relevant) and u1 (pooled, unjudged) are A's alone; r1 is shared
    a = make_run("A", {"1": ["n1", "r1"], "2": ["u1", "r2"]})
    b = make_run("B", {"1": ["r1"], "2": ["r2"]})
    qrels = qrels_from_dict({"1": {"n1": 0, "r1": 1}, "2": {"u1": -1, "r2": 1}})
    result = leave_out_reusability([a, b], qrels, measures=["bpref", "infAP"])
    assert [(r.removed, r.removed_judged, r.removed_relevant) for r in result.removals] == [
        (2, 1, 0),
        (0, 0, 0),
    ]
    bpref, infap = result.measures["bpref"], result.measures["infAP"]
    # bpref, topic 1: r1 has n1 above, 1 - min(1, 1)/min(1, 1) = 0; without n1, N = 0 and it scores 1.
    # Topic 2 (no judged non-relevant doc) is 1 either way.
    assert bpref.full[0] == pytest.approx((0 + 1) / 2)
    assert bpref.reduced[0] == pytest.approx((1 + 1) / 2)
    assert bpref.held_out[0].drop == pytest.approx(-1 / 2)
    # infAP, topic 2: r2 at rank 2 with one pooled doc above (u1, unjudged): 1/2 + 1/2·1/1·ε/(2ε);
    # u1 deleted, nothing above is pooled: 1/2. Topic 1: n1 judged above r1: 1/2 + 1/2·(0+ε)/(1+2ε).
    eps = INFAP_EPS
    topic1_full = 1 / 2 + (1 / 2) * (1 / 1) * eps / (1 + 2 * eps)
    topic1_reduced = 1 / 2
    assert infap.full[0] == pytest.approx((topic1_full + (1 / 2 + (1 / 2) * eps / (2 * eps))) / 2)
    assert infap.reduced[0] == pytest.approx((topic1_reduced + 1 / 2) / 2)


def test_a_topic_that_loses_all_its_judgments_scores_zero_and_still_counts() -> None:
    a = make_run("A", {"1": ["r1"], "2": ["r2"]})
    b = make_run("B", {"1": ["r1"], "2": ["x"]})
    qrels = qrels_from_dict({"1": {"r1": 1}, "2": {"r2": 1}})
    result = leave_out_reusability([a, b], qrels, measures=["map"])
    assert result.removals[0].topics == ("2",)
    m = result.measures["map"]
    assert m.full.tolist() == pytest.approx([(1 + 1) / 2, (1 + 0) / 2])
    assert m.reduced.tolist() == pytest.approx([(1 + 0) / 2, (1 + 0) / 2])  # B's x has no line to remove


def test_default_measures_are_reported_under_their_trec_eval_names() -> None:
    result = leave_out_reusability(RUNS, QRELS)
    assert list(result.measures) == ["map", "bpref", "infAP", "ndcg_cut_10", "P_10"]


@pytest.mark.parametrize("seed", range(6))
def test_leave_out_matches_a_brute_force_reevaluation(seed: int) -> None:
    """Unique docs found with Python sets, the reduced qrels built by hand and evaluated from scratch."""
    rng = np.random.default_rng(seed)
    topics = ["1", "2", "10"]
    vocab = [f"d{i}" for i in range(25)]
    rankings = []
    for _ in range(5):
        rankings.append(
            {t: list(rng.choice(vocab, size=int(rng.integers(3, 12)), replace=False)) for t in topics}
        )
    # integer scores tie often, so the docno tie-break decides who contributes at the depth
    runs = [
        make_run(f"r{i}", rk, {t: [float(s) for s in rng.integers(0, 4, size=len(d))] for t, d in rk.items()})
        for i, rk in enumerate(rankings)
    ]
    judged = {t: {d: int(rng.integers(-1, 3)) for d in vocab if rng.random() < 0.7} for t in topics}
    for t in topics:
        judged[t]["unretrieved"] = 1  # a line no run contributes: keeps every topic in the qrels
    qrels = qrels_from_dict(judged)
    depth = [None, 3][seed % 2]
    groups = {"r0": "g", "r1": "g", "r2": "h", "r3": "i", "r4": "i"} if seed >= 3 else None
    unit_of = {r.name: (groups[r.name] if groups else r.name) for r in runs}
    measures = ["map", "bpref", "infAP", "ndcg_cut.10", "P.10"]
    result = leave_out_reusability(
        runs, qrels, measures=measures, depth=depth, groups=groups, rescore_all=True
    )
    contributions = unique_contributions(runs, depth=depth, groups=groups, qrels=qrels)

    def top(run: RankedRun, t: str) -> set[str]:
        docs = [d for d, _ in run.ranking(t)]
        return set(docs if depth is None else docs[:depth])

    parsed = parse_measures(measures)
    full = [evaluate_run(Judgments(qrels), run, parsed).summary for run in runs]
    for u_index, u in enumerate(dict.fromkeys(unit_of.values())):
        mine = {t: set().union(*(top(r, t) for r in runs if unit_of[r.name] == u)) for t in topics}
        others = {t: set().union(*(top(r, t) for r in runs if unit_of[r.name] != u)) for t in topics}
        unique = {t: mine[t] - others[t] for t in topics}
        for ti, t in enumerate(topics_sorted := sorted(topics, key=str.encode)):
            assert contributions.unique[contributions.units.index(u), ti] == len(unique[t])
            assert contributions.unique_docnos(u, t) == sorted(unique[t], key=str.encode)
        reduced = {t: {d: r for d, r in judged[t].items() if d not in unique[t]} for t in topics_sorted}
        j = Judgments(qrels_from_dict(reduced))
        every = [evaluate_run(j, run, parsed).summary for run in runs]
        for name, m in result.measures.items():
            assert m.full.tolist() == pytest.approx([s[name] for s in full], abs=1e-12)
            for i, run in enumerate(runs):
                if unit_of[run.name] == u:
                    assert m.reduced[i] == pytest.approx(every[i][name], abs=1e-12)
            truth = np.round([s[name] for s in full], 12)
            rescored = np.round([s[name] for s in every], 12)
            correlation = m.units[u_index]
            assert correlation.unit == u
            assert correlation.rescored_tau_b == pytest.approx(kendall_tau_b(truth, rescored), nan_ok=True)
            assert correlation.rescored_tau_ap == pytest.approx(tau_ap(truth, rescored), nan_ok=True)


def test_leave_out_is_unchanged_when_the_qrels_index_falls_back_to_exact_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every docno hashing alike makes the qrels keys collide: lookups then go by exact search
    monkeypatch.setattr("engine.evaluate.hash_strings", lambda v: np.zeros(len(v), dtype=np.uint64))
    judgments = Judgments(QRELS)
    exact = leave_out_reusability(RUNS, judgments, measures=["map"]).measures["map"]
    assert exact.reduced.tolist() == pytest.approx([(1 / 2) / 2, (1 / 1) / 2, MAP_C])


def test_leave_out_needs_runs() -> None:
    with pytest.raises(ValueError, match="no runs"):
        leave_out_reusability([], QRELS)


def test_options_reach_the_evaluation() -> None:
    # -M 1 keeps only rank 1: A's a1 (relevant), B's s1, C's s2
    result = leave_out_reusability(RUNS, QRELS, measures=["P.10"], options=EvalOptions(max_docs=1))
    m = result.measures["P_10"]
    assert m.full.tolist() == pytest.approx([1 / 10, 1 / 10, 0 / 10])
