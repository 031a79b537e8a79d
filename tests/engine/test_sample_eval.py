"""sample_eval.pl's measures: hand-checked cases, the variants' quirks, and a literal port as oracle."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.evaluate import Judgments, RunResult, evaluate_run
from engine.measures.base import EvalOptions, Measure
from engine.measures.sample_eval import EPSILON, ideal_dcg_estimate
from engine.names import parse_measures
from trec.prels import StratifiedPrel
from trec.qrels import qrels_from_arrays
from trec.runs import run_from_arrays

PrelLine = tuple[str, str, str, int]  # topic, docno, stratum, rel (-1 = not sampled)
RunLine = tuple[str, str, float]  # topic, docno, score


def make_prel(lines: list[PrelLine]) -> Judgments:
    qrels = qrels_from_arrays(
        np.array([t for t, _, _, _ in lines], dtype="S"),
        np.array([d for _, d, _, _ in lines], dtype="S"),
        np.array([r for _, _, _, r in lines], dtype=np.int64),
    )
    stratum = {(t, d): s for t, d, s, _ in lines}
    labels = [
        stratum[(topic, d.decode())].encode()
        for i, topic in enumerate(qrels.topics)
        for d in qrels.docnos[qrels.offsets[i] : qrels.offsets[i + 1]].tolist()
    ]
    return Judgments.from_prel(StratifiedPrel(qrels=qrels, strata=np.array(labels, dtype="S")))


def make_run(lines: list[RunLine]) -> Any:
    return run_from_arrays(
        "r",
        np.array([t for t, _, _ in lines], dtype="S"),
        np.array([d for _, d, _ in lines], dtype="S"),
        np.array([s for _, _, s in lines], dtype=np.float64),
    )


def evaluate(prel: list[PrelLine], run: list[RunLine], specs: list[str], **options: Any) -> RunResult:
    opts = EvalOptions(**options)
    measures = parse_measures(specs, design="prel", sample_variant=opts.sample_variant)
    return evaluate_run(make_prel(prel), make_run(run), measures, opts)


def one_topic(prel: list[tuple[str, str, int]]) -> list[PrelLine]:
    return [("1", d, s, r) for d, s, r in prel]


def ranked(*docnos: str) -> list[RunLine]:
    """A one-topic run in the given order (scores descending)."""
    return [("1", d, float(len(docnos) - i)) for i, d in enumerate(docnos)]


# ---------------------------------------------------------------- hand-checked values


def test_xinfap_prior_is_one_third_by_default_and_one_half_on_request() -> None:
    # stratum "a": u unsampled, r relevant; |S| = 2, n = 1, r = 1 so R̂ = 1·2/1 = 2, all in "a".
    # r at rank 2 has one universe doc above (u, unsampled): prec = 1/2 + (1/2)·(0 + ε)/(0 + cε)
    prel = one_topic([("u", "a", -1), ("r", "a", 1)])
    third = evaluate(prel, ranked("u", "r"), ["xinfAP"])
    half = evaluate(prel, ranked("u", "r"), ["xinfAP"], sample_prior="half")
    assert third.per_topic["xinfAP"][0] == pytest.approx(1 / 2 + (1 / 2) * (1 / 3), abs=1e-12)
    assert half.per_topic["xinfAP"][0] == pytest.approx(1 / 2 + (1 / 2) * (1 / 2), abs=1e-12)


def test_documents_outside_the_universe_only_advance_the_rank() -> None:
    # x is not in the prel: r at rank 2 has M = 0 universe docs above, so prec = 1/2 exactly
    result = evaluate(one_topic([("r", "a", 1)]), ranked("x", "r"), ["xinfAP"])
    assert result.per_topic["xinfAP"][0] == 1 / 2


def test_xinfap_weights_strata_by_their_estimated_relevant() -> None:
    # stratum "a": a1 relevant (fully sampled) -> R̂_a = 1; stratum "b": b1 relevant, b2 unsampled,
    # b3 judged non-relevant -> R̂_b = 1·3/2 = 1.5. Run: a1, b1.
    # a1 at rank 1: prec 1. b1 at rank 2: one doc above (a1, stratum a: 1 relevant of 1 sampled):
    # prec = 1/2 + (1/2)·(1/1)·(1 + ε)/(1 + 3ε).
    prel = one_topic([("a1", "a", 1), ("b1", "b", 1), ("b2", "b", -1), ("b3", "b", 0)])
    result = evaluate(prel, ranked("a1", "b1"), ["xinfAP", "inum_rel"])
    prec_b1 = 1 / 2 + (1 / 2) * (1 + EPSILON) / (1 + 0.00003)
    assert result.per_topic["inum_rel"][0] == 1 + 1.5
    assert result.per_topic["xinfAP"][0] == pytest.approx((1 / 2.5) * 1 + (1.5 / 2.5) * prec_b1, abs=1e-12)


def test_trec2011_rounds_the_ideal_counts_and_trecvid2012_does_not() -> None:
    # one stratum of 3 docs, 2 sampled: R̂_1 = 1·3/2 = 1.5 relevant of grade 1.
    # The run retrieves all three: DCĜ = M·(m/M)·gain/samp = 3·(3/3)·(1/log2 2)/2 = 1.5.
    # TREC 2011 ideal: int(1.5 + 0.5) = 2 docs -> 1 + 1/log2 3; TRECVID 2012: r = 1 <= 1.5 only -> 1.
    prel = one_topic([("r", "a", 1), ("n", "a", 0), ("u", "a", -1)])
    run = ranked("r", "n", "u")
    trec = evaluate(prel, run, ["xinfNDCG"], sample_variant="trec2011")
    vid = evaluate(prel, run, ["xinfNDCG"], sample_variant="trecvid2012")
    assert trec.per_topic["xinfNDCG"][0] == pytest.approx(1.5 / (1 + 1 / math.log2(3)), abs=1e-12)
    assert vid.per_topic["xinfNDCG"][0] == pytest.approx(1.5, abs=1e-12)  # an estimate above 1


def test_ideal_dcg_grades_sort_as_strings() -> None:
    # Perl's `reverse sort keys`: "2" > "10", so grade 2 takes rank 1 and grade 10 rank 2
    prel = one_topic([("ten", "a", 10), ("two", "a", 2)])
    result = evaluate(prel, ranked("ten", "two"), ["xinfNDCG"])
    dcg = 10 / 1 + 2 / math.log2(3)
    assert result.per_topic["xinfNDCG"][0] == pytest.approx(dcg / (2 / 1 + 10 / math.log2(3)), abs=1e-12)


def test_ideal_dcg_each_grade_adds_one_term_past_the_result_size() -> None:
    # max_rank 2: grade 2 (3 docs) stops after rank 2; grade 1 (2 docs) then adds rank 4 and stops
    got = ideal_dcg_estimate([(2, 3.0), (1, 2.0)], rounded=True, max_rank=2)
    assert got == pytest.approx(2 / 1 + 2 / math.log2(3) + 1 / math.log2(5), abs=1e-12)


def test_ideal_dcg_trecvid2012_ranks_become_fractional() -> None:
    # R̂_2 = 1.5 fills rank 1; grade 1 starts at 1.5: r = 2.5 <= 1.5 + 1.5 -> one term at log2(3.5)
    got = ideal_dcg_estimate([(2, 1.5), (1, 1.5)], rounded=False, max_rank=1000)
    assert got == pytest.approx(2 / 1 + 1 / math.log2(3.5), abs=1e-12)


def test_trecvid2012_rescales_xinfap_when_estimated_relevant_exceed_the_result_size() -> None:
    # 3 relevant, all sampled, max_result_size 2: R̂ = 3 > 2. The run finds one at rank 1:
    # xinfAP = (3/3)·(1/3) = 1/3; TRECVID 2012 multiplies by R̂/2 = 3/2.
    prel = one_topic([("a", "s", 1), ("b", "s", 1), ("c", "s", 1)])
    trec = evaluate(prel, ranked("a"), ["xinfAP"], max_result_size=2)
    vid = evaluate(prel, ranked("a"), ["xinfAP"], max_result_size=2, sample_variant="trecvid2012")
    assert trec.per_topic["xinfAP"][0] == pytest.approx(1 / 3, abs=1e-12)
    assert vid.per_topic["xinfAP"][0] == pytest.approx(1 / 3 * 3 / 2, abs=1e-12)


def test_ip_counts_unsampled_documents_at_the_one_third_prior() -> None:
    # two unsampled docs of one stratum retrieved: est = 2·(0 + ε)/(0 + 3ε) = 2/3
    prel = [("1", "g1", "s", -1), ("1", "g2", "s", -1)]
    result = evaluate(prel, ranked("g1", "g2"), ["iP.1,2", "inum_rel_ret"])
    assert result.per_topic["iP1"][0] == pytest.approx((1 / 3) / 1, abs=1e-12)
    assert result.per_topic["iP2"][0] == pytest.approx((2 / 3) / 2, abs=1e-12)
    assert result.per_topic["inum_rel_ret"][0] == pytest.approx(2 / 3, abs=1e-12)


def test_ip_beyond_the_list_divides_the_final_estimate() -> None:
    prel = one_topic([("r", "a", 1), ("n", "a", 0)])
    result = evaluate(prel, ranked("r", "n"), ["iP.10,2000", "inum_rel_ret"])
    final = 2 * (1 + EPSILON) / (2 + 0.00003)  # m = 2 docs, 1 relevant of 2 sampled
    assert result.per_topic["inum_rel_ret"][0] == final
    assert result.per_topic["iP10"][0] == final / 10
    assert result.per_topic["iP2000"][0] == final / 2000


def test_walk_stops_at_the_result_size_but_num_ret_counts_every_document() -> None:
    prel = [("1", "a", "s", 1), ("1", "b", "s", 1), ("2", "c", "s", 1)]
    run = [*ranked("x", "y", "a"), ("2", "c", 1.0)]
    result = evaluate(prel, run, ["sample_eval"], max_result_size=2)
    assert result.per_topic["num_ret"].tolist() == [3, 1]
    assert result.summary["num_ret"] == 2 + 1  # the 'all' line sums the walked ranks
    assert result.per_topic["xinfAP"][0] == 0  # "a" at rank 3 is past the cut-off


def test_inum_rel_all_sums_every_prel_topic() -> None:
    prel = [("1", "a", "s", 1), ("2", "b", "s", 1), ("2", "c", "s", 2)]
    result = evaluate(prel, ranked("a"), ["inum_rel", "inum_rel_ret"])
    assert result.topics == ["1"]
    assert result.summary["inum_rel"] == 1 + 2  # topic 2 is not in the run, yet counted
    assert result.summary["inum_rel_ret"] == result.per_topic["inum_rel_ret"][0]


def test_interpolated_precision_assigns_one_recall_level_per_rank() -> None:
    # fully sampled a(1), b(0), c(1): R̂ = 2; the run ranks a, b, c. est_k after rank k:
    est1 = 1 * (1 + EPSILON) / (1 + 0.00003)
    est3 = 3 * (2 + EPSILON) / (3 + 0.00003)
    assert est3 < 2  # so level 1.0 (cut 2) is never reached: it stays 0
    # walking up from rank 3, the opening level is 0.9 (cut 1.8 <= est3). Rank 3: 1.8 > est3? no.
    # Rank 2: 1.8 > est2 = 2·(1 + ε)/(2 + 3ε) -> level 0.9 gets max(est3/3, est2/2) = est3/3.
    # Rank 1: one level per rank, so level 0.8 (1.6 > est1) gets max(est3/3, est2/2, est1/1) = est1,
    # where a `while` would have given it est3/3 at rank 2.
    # Levels 0 .. 0.7 take the final maximum, est1.
    prel = one_topic([("a", "s", 1), ("b", "s", 0), ("c", "s", 1)])
    result = evaluate(prel, ranked("a", "b", "c"), ["iprec_at_recall_est"])
    got = [result.summary[f"iprec@rec{r / 10:4.2f}"] for r in range(11)]
    assert got == pytest.approx([est1] * 9 + [est3 / 3, 0.0], abs=1e-12)
    assert "iprec@rec0.50" in result.summary_only


def test_sample_eval_group_prints_each_versions_own_cutoffs() -> None:
    trec = parse_measures(["sample_eval"], "prel", "trec2011")
    vid = parse_measures(["sample_eval"], "prel", "trecvid2012")
    assert [m.param for m in trec if m.family == "iP"] == [10, 50, 1000]
    assert [m.param for m in vid if m.family == "iP"] == [5, 10, 15, 20, 30, 100, 200, 500, 1000]
    # the script's 'all' order
    families = ["xinfAP", "xinfNDCG", "iprec_at_recall_est", "iP", "inum_rel_ret", "inum_rel"]
    assert list(dict.fromkeys(m.family for m in trec)) == [*families, "sample_num_ret"]
    assert parse_measures(["sample_eval"], "qrels") == []  # needs a prel


def test_measures_refuse_plain_qrels() -> None:
    with pytest.raises(ValueError, match="prel"):
        evaluate_run(
            Judgments(make_prel([("1", "a", "s", 1)]).qrels), make_run(ranked("a")), [Measure("xinfAP")]
        )


# ---------------------------------------------------------------- one fully sampled stratum


def _fully_sampled(grades: dict[str, int], order: list[str]) -> tuple[list[PrelLine], list[RunLine]]:
    return [("1", d, "all", g) for d, g in grades.items()], ranked(*order)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(st.sampled_from([f"d{i}" for i in range(12)]), st.integers(0, 2), min_size=1),
    st.permutations([f"d{i}" for i in range(12)] + ["x1", "x2", "x3"]),
    st.integers(1, 15),
)
def test_one_fully_sampled_stratum_gives_trec_eval_infap_and_nearly_ap(
    grades: dict[str, int], order: list[str], depth: int
) -> None:
    """With every doc sampled in one stratum, M = samp and rel_s = relevant above, so
    prec(k) = 1/k + (M/k)·(rel + ε)/(M + cε): with the 1/2 prior (c = 2) this is trec_eval's infAP
    term with nothing unjudged (pooled_above = M), and R̂ = R. Against AP's (rel + 1)/k the
    difference per term is ε(M − 3rel)/(k(M + 3ε)), at most 2ε in size, so |xinfAP − AP| < 2ε."""
    prel, run = _fully_sampled(grades, order[:depth])
    half = evaluate(prel, run, ["xinfAP"], sample_prior="half").per_topic["xinfAP"][0]
    third = evaluate(prel, run, ["xinfAP"]).per_topic["xinfAP"][0]
    judgments = Judgments(make_prel(prel).qrels)
    plain = evaluate_run(judgments, make_run(run), [Measure("infAP"), Measure("map")])
    assert half == pytest.approx(plain.per_topic["infAP"][0], abs=1e-12)
    assert abs(third - plain.per_topic["map"][0]) < 2 * EPSILON


# ---------------------------------------------------------------- a literal port of sample_eval.pl


def sample_eval_pl(
    prel: list[PrelLine], run: list[RunLine], variant: str, max_size: int = 1000
) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """The script line by line (hashes as dicts, one rank at a time): the oracle for the kernels."""
    qrel: dict[str, dict[str, int]] = defaultdict(dict)
    category: dict[str, dict[str, str]] = defaultdict(dict)
    per_cat: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    sampled: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    rel_cat: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    per_grade: dict[str, dict[str, dict[int, int]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(int))
    )
    for topic, doc, cat, rel in prel:
        qrel[topic][doc] = rel
        category[topic][doc] = cat
        per_cat[topic][cat] += 1
        if rel >= 0:
            sampled[topic][cat] += 1
        if rel > 0:
            per_grade[topic][cat][rel] += 1
            rel_cat[topic][cat] += 1
    num_rels: dict[str, float] = {}
    for topic in sorted(qrel):
        num_rels[topic] = 0
        for cat in sorted(per_cat[topic]):
            if sampled[topic][cat] != 0:
                num_rels[topic] += rel_cat[topic][cat] * per_cat[topic][cat] / sampled[topic][cat]
    optimal: dict[str, float] = {}
    for topic in sorted(qrel):
        grade_est: dict[int, float] = defaultdict(float)
        for cat in sorted(per_cat[topic]):
            for g in sorted(per_grade[topic][cat], key=str):
                grade_est[g] += per_grade[topic][cat][g] * per_cat[topic][cat] / sampled[topic][cat]
        optimal[topic] = 0.0
        start: float = 0
        for g in sorted(grade_est, key=str, reverse=True):
            count = int(grade_est[g] + 0.5) if variant == "trec2011" else grade_est[g]
            r = start + 1
            while r <= start + count:
                optimal[topic] += g / (math.log(r + 1) / math.log(2))
                if r >= max_size:
                    break
                r += 1
            start += count
    ranks = (10, 50, 1000) if variant == "trec2011" else (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    trec: dict[str, dict[str, float]] = defaultdict(dict)
    for topic, doc, score in run:
        trec[topic][doc] = score
    out: dict[str, dict[str, float]] = defaultdict(dict)
    num_rel_rank_k: dict[str, dict[int, float]] = defaultdict(dict)
    sum_num_ret = 0
    for topic in sorted(trec):
        if topic not in qrel:
            continue
        cats = sorted(per_cat[topic])
        m = dict.fromkeys(cats, 0)
        n_s = dict.fromkeys(cats, 0)
        r_s = dict.fromkeys(cats, 0)
        sap = dict.fromkeys(cats, 0.0)
        gain = dict.fromkeys(cats, 0.0)
        depth = 0
        prec_k: dict[int, float] = {}
        ranking = sorted(trec[topic], key=lambda d: (trec[topic][d], d), reverse=True)
        for rank, doc in enumerate(ranking, start=1):
            sum_num_ret += 1
            rel = qrel[topic].get(doc, -1)
            cat = category[topic].get(doc, "")
            if rel > 0:
                above = 0.0
                for c in cats:
                    if depth != 0 and m[c] / depth != 0:
                        above += m[c] / depth * (r_s[c] + 0.00001) / (n_s[c] + 0.00003)
                sap[cat] += 1 / rank + (depth / rank) * above
                r_s[cat] += 1
                gain[cat] += rel / (math.log(rank + 1) / math.log(2))
            if doc in qrel[topic]:
                depth += 1
                m[cat] += 1
                if rel >= 0:
                    n_s[cat] += 1
            est = 0.0
            for c in cats:
                est += m[c] * (r_s[c] + 0.00001) / (n_s[c] + 0.00003)
            num_rel_rank_k[topic][rank] = est
            if rank in ranks:
                prec_k[rank] = est / rank
            if rank >= max_size:
                break
        for k in ranks:
            out[f"iP{k}"][topic] = prec_k.get(k, est / k)
        ap = 0.0
        for c in cats:
            if sampled[topic][c] != 0 and num_rels[topic] != 0:
                share = rel_cat[topic][c] * per_cat[topic][c] / sampled[topic][c] / num_rels[topic]
                ap += share * (sap[c] / rel_cat[topic][c] if rel_cat[topic][c] != 0 else 0)
        if variant == "trecvid2012" and num_rels[topic] > max_size:
            ap = ap * num_rels[topic] / max_size
        dcg = 0.0
        for c in cats:
            if depth != 0 and n_s[c] != 0:
                dcg += m[c] / depth * gain[c] / n_s[c]
        out["xinfAP"][topic] = ap
        out["xinfNDCG"][topic] = depth * dcg / optimal[topic] if optimal[topic] != 0 else 0.0
        out["inum_rel_ret"][topic] = est
        out["inum_rel"][topic] = num_rels[topic]
        out["num_ret"][topic] = len(trec[topic])
    ntopics = len(out["xinfAP"])
    summary = {name: sum(values.values()) / ntopics for name, values in out.items()}
    summary.update(
        inum_rel_ret=sum(out["inum_rel_ret"].values()), inum_rel=sum(num_rels.values()), num_ret=sum_num_ret
    )
    points = [0.0] * 11
    levels = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]
    for topic in sorted(num_rel_rank_k):
        cuts = [x * num_rels[topic] for x in levels]
        int_prec = 0.0
        cut = 10
        final = out["inum_rel_ret"][topic]
        while cut >= 0 and cuts[cut] > final:
            cut -= 1
        for rank in sorted(num_rel_rank_k[topic], reverse=True):
            int_prec = max(int_prec, num_rel_rank_k[topic][rank] / rank)
            if cut >= 0 and cuts[cut] > num_rel_rank_k[topic][rank]:
                points[cut] += int_prec
                cut -= 1
        while cut >= 0:
            points[cut] += int_prec
            cut -= 1
    for i, p in enumerate(points):
        summary[f"iprec@rec{i / 10:4.2f}"] = p / ntopics
    return out, summary


DOCS = [f"d{i}" for i in range(10)]
prel_lines = st.lists(
    st.tuples(
        st.sampled_from(["1", "2", "3"]),
        st.sampled_from(DOCS),
        st.sampled_from(["1", "2", "10", "b"]),
        st.sampled_from([-1, -1, 0, 0, 1, 2, 3, 10]),
    ),
    min_size=1,
    max_size=30,
    unique_by=lambda x: (x[0], x[1]),
)
run_lines = st.lists(
    st.tuples(st.sampled_from(["1", "2", "3", "4"]), st.sampled_from([*DOCS, "x1", "x2"]), st.integers(0, 4)),
    min_size=1,
    max_size=36,
    unique_by=lambda x: (x[0], x[1]),
)


@settings(max_examples=150, deadline=None)
@given(prel_lines, run_lines, st.sampled_from(["trec2011", "trecvid2012"]), st.sampled_from([1000, 3, 5]))
def test_kernels_match_a_literal_port_of_the_script(
    prel: list[PrelLine], run: list[tuple[str, str, int]], variant: str, max_size: int
) -> None:
    run_f = [(t, d, float(s)) for t, d, s in run]
    if not {t for t, _, _ in run_f} & {t for t, _, _, _ in prel}:
        return  # the script divides by zero evaluated topics
    want_topic, want_all = sample_eval_pl(prel, run_f, variant, max_size)
    got = evaluate(prel, run_f, ["sample_eval"], sample_variant=variant, max_result_size=max_size)
    for name, per_topic in want_topic.items():
        for topic, value in per_topic.items():
            got_value = got.per_topic[name][got.topics.index(topic)]
            assert got_value == pytest.approx(value, abs=1e-12), (name, topic)
    for name, value in want_all.items():
        assert got.summary[name] == pytest.approx(value, abs=1e-12), name


def test_prel_join_falls_back_to_exact_search_when_hashes_collide(monkeypatch: pytest.MonkeyPatch) -> None:
    prel = [("1", "a", "s", 1), ("1", "b", "s", 0), ("1", "c", "t", -1), ("2", "a", "s", 2)]
    run = [*ranked("c", "zz", "a", "b"), ("2", "a", 1.0)]
    hashed = evaluate(prel, run, ["sample_eval"])
    collide = lambda v: np.zeros(len(v), dtype=np.uint64)  # noqa: E731
    monkeypatch.setattr("engine.evaluate.hash_strings", collide)
    exact = evaluate(prel, run, ["sample_eval"])
    assert hashed.summary == exact.summary
    assert all(np.array_equal(hashed.per_topic[n], exact.per_topic[n]) for n in hashed.names)
