"""Worked examples from docs/measures.md#measure-families and the seed texts, run through the public engine.

Seed 004 (a Japanese blog post after Sakai's book) has an AP*/AP/indAP/infAP example; seed 000
(a Chinese note after IIR ch. 8) has an AP and an nDCG table. Each expected value is the
arithmetic that produced it. Tests of variants (bpref vs bpref-10, Judged@k vs unj_k, statAP)
sit here too, each with a case that tells the variants apart.
"""

from __future__ import annotations

from itertools import product
from math import log2

import numpy as np
import pytest

from engine.evaluate import Judgments, RunResult, evaluate_run
from engine.measures.base import EvalOptions
from engine.names import parse_measures
from trec.prels import MQPrel
from trec.qrels import qrels_from_dict
from trec.runs import RankedRun, run_from_arrays

# every worked example, through the compiled kernels and through numpy alone (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")

INFAP_EPS = 0.00001  # trec_eval m_infap.c


def _run(ranking: dict[str, list[str]]) -> RankedRun:
    """A run whose scores put each topic's docs in the given order (rank 1 first)."""
    qids, docnos, scores = [], [], []
    for topic, docs in ranking.items():
        for i, d in enumerate(docs):
            qids.append(topic)
            docnos.append(d)
            scores.append(float(len(docs) - i))
    return run_from_arrays("r", np.array(qids, dtype="S"), np.array(docnos, dtype="S"), np.array(scores))


def _eval(
    qrels: dict[str, dict[str, int]],
    ranking: dict[str, list[str]],
    measures: list[str],
    options: EvalOptions | None = None,
) -> RunResult:
    return evaluate_run(Judgments(qrels_from_dict(qrels)), _run(ranking), parse_measures(measures), options)


def _one(result: RunResult, name: str, topic: str = "T") -> float:
    return float(result.per_topic[name][result.topics.index(topic)])


# -------------------------------------------------------------------------------- seed 004

# Seven retrieved docs; with complete judgments ranks 1, 2, 3, 6 are relevant and one more relevant doc
# (u1) is not retrieved, so R* = 5. The assessors judged ranks 1, 3 relevant and 4 non-relevant and
# found u1 (R = 3); ranks 2, 5, 6, 7 were pooled but left unjudged (rel -1).
SEED4_RANKING = {"T": ["r1", "r2", "r3", "r4", "r5", "r6", "r7"]}
SEED4_TRUE = {"T": {"r1": 1, "r2": 1, "r3": 1, "r4": 0, "r5": 0, "r6": 1, "r7": 0, "u1": 1}}
SEED4_JUDGED = {"T": {"r1": 1, "r2": -1, "r3": 1, "r4": 0, "r5": -1, "r6": -1, "r7": -1, "u1": 1}}


def test_seed004_true_ap_with_complete_judgments() -> None:
    result = _eval(SEED4_TRUE, SEED4_RANKING, ["map"])
    assert _one(result, "map") == pytest.approx((1 / 1 + 2 / 2 + 3 / 3 + 4 / 6) / 5)
    assert round(_one(result, "map"), 3) == 0.733  # the seed's printed AP*


def test_seed004_ap_counts_unjudged_as_nonrelevant() -> None:
    result = _eval(SEED4_JUDGED, SEED4_RANKING, ["map"])
    assert _one(result, "map") == pytest.approx((1 / 1 + 2 / 3) / 3)
    assert round(_one(result, "map"), 3) == 0.556


def test_seed004_indap_is_map_on_the_condensed_list() -> None:
    # -J drops ranks 2, 5, 6, 7: r3 moves to rank 2, hence the seed's 2/(3-1)
    result = _eval(SEED4_JUDGED, SEED4_RANKING, ["map"], EvalOptions(judged_only=True))
    assert _one(result, "map") == pytest.approx((1 / 1 + 2 / (3 - 1)) / 3)
    assert round(_one(result, "map"), 3) == 0.667


def test_seed004_infap_matches_the_seed_up_to_trec_evals_smoothing() -> None:
    # rank 3: 1/3 + (2/3)·(pooled_above/2)·(rel_above+ε)/(rel_above+nonrel_above+2ε), pooled_above = 2
    # (r1 judged, r2 pooled-unjudged), rel_above = 1, nonrel_above = 0: the seed's 1/3 + 2/3·1 with ε.
    rank3 = 1 / 3 + (2 / 3) * (2 / 2) * (1 + INFAP_EPS) / (1 + 2 * INFAP_EPS)
    result = _eval(SEED4_JUDGED, SEED4_RANKING, ["infAP"])
    assert _one(result, "infAP") == pytest.approx((1 + rank3) / 3, abs=1e-12)
    assert round(_one(result, "infAP"), 3) == 0.667


def test_seed004_infap_treats_unpooled_docs_as_not_sampled() -> None:
    # If r2 were absent from the qrels (not pooled) rather than pooled-unjudged, it would not count in
    # pooled_above: rank 3 then gets 1/3 + (2/3)·(1/2)·(1+ε)/(1+2ε), and infAP drops below the seed's.
    qrels = {"T": {d: r for d, r in SEED4_JUDGED["T"].items() if d != "r2"}}
    rank3 = 1 / 3 + (2 / 3) * (1 / 2) * (1 + INFAP_EPS) / (1 + 2 * INFAP_EPS)
    result = _eval(qrels, SEED4_RANKING, ["infAP"])
    assert _one(result, "infAP") == pytest.approx((1 + rank3) / 3, abs=1e-12)


# -------------------------------------------------------------------------------- seed 000

# Ten retrieved docs with gains 2 0 0 3 5 0 0 4 0 0; the judged grades of the topic are 5 4 3 2.
SEED0_GAINS = [2, 0, 0, 3, 5, 0, 0, 4, 0, 0]
SEED0_RANKING = {"T": [f"d{i:02d}" for i in range(1, 11)]}
SEED0_QRELS = {"T": {f"d{i:02d}": g for i, g in enumerate(SEED0_GAINS, start=1)}}
# The seed's NDCG row, as printed (2 decimals).
SEED0_TABLE = [0.40, 0.22, 0.18, 0.29, 0.48, 0.48, 0.48, 0.59, 0.59, 0.59]


def _dcg_trec_eval(gains: list[int], k: int) -> float:
    return sum(g / log2(i + 1) for i, g in enumerate(gains[:k], start=1))


def _dcg_iir(gains: list[int], k: int) -> float:
    # Järvelin & Kekäläinen's original, as the seed prints it: rank 1 undiscounted, then g/log2(i)
    return gains[0] + sum(g / log2(i) for i, g in enumerate(gains[1:k], start=2))


def test_seed000_ndcg_cut_uses_trec_evals_log2_rank_plus_one_discount() -> None:
    ideal = sorted(SEED0_GAINS, reverse=True)
    ks = list(range(1, 11))
    result = _eval(SEED0_QRELS, SEED0_RANKING, [f"ndcg_cut.{','.join(map(str, ks))}"])
    for k in ks:
        want = _dcg_trec_eval(SEED0_GAINS, k) / _dcg_trec_eval(ideal, k)
        assert _one(result, f"ndcg_cut_{k}") == pytest.approx(want, abs=1e-12), k
    # at k = 10: (2 + 3/log2 5 + 5/log2 6 + 4/log2 9) / (5 + 4/log2 3 + 3/2 + 2/log2 5)
    assert round(_one(result, "ndcg_cut_10"), 4) == 0.6564


def test_seed000_table_is_the_log2_i_variant_and_differs_from_ours_after_rank_1() -> None:
    ideal = sorted(SEED0_GAINS, reverse=True)
    iir = [_dcg_iir(SEED0_GAINS, k) / _dcg_iir(ideal, k) for k in range(1, 11)]
    assert [round(v, 2) for v in iir] == SEED0_TABLE  # we read the seed's variant right
    result = _eval(SEED0_QRELS, SEED0_RANKING, ["ndcg_cut.1,2,10"])
    assert _one(result, "ndcg_cut_1") == pytest.approx(SEED0_TABLE[0])  # 2/5 under both discounts
    assert round(_one(result, "ndcg_cut_2"), 2) != SEED0_TABLE[1]  # 2/(5 + 4/log2 3) = 0.27, not 0.22
    assert round(_one(result, "ndcg_cut_10"), 2) != SEED0_TABLE[9]


def test_seed000_ndcg_ideal_holds_every_judged_doc_not_only_retrieved_ones() -> None:
    # A grade-5 doc the run misses still enters the ideal ranking: ndcg = DCG / IDCG(5, 5, 4, 3, 2).
    qrels = {"T": {**SEED0_QRELS["T"], "missed": 5}}
    result = _eval(qrels, SEED0_RANKING, ["ndcg"])
    want = _dcg_trec_eval(SEED0_GAINS, 10) / _dcg_trec_eval([5, 5, 4, 3, 2], 5)
    assert _one(result, "ndcg") == pytest.approx(want, abs=1e-12)


def test_seed000_map_is_uninterpolated_not_the_seeds_interpolated_0_675() -> None:
    # relevant at ranks 1, 4, 5, 8 of ten, R = 4: precisions 1/1, 2/4, 3/5, 4/8. The seed averages the
    # interpolated precisions (1 + 0.6 + 0.6 + 0.5)/4 = 0.675; trec_eval's AP does not interpolate.
    qrels = {"T": {d: int(g > 0) for d, g in SEED0_QRELS["T"].items()}}
    result = _eval(qrels, SEED0_RANKING, ["map", "P.5,10", "Rprec"])
    assert _one(result, "map") == pytest.approx((1 / 1 + 2 / 4 + 3 / 5 + 4 / 8) / 4)
    assert _one(result, "map") != pytest.approx(0.675)
    assert _one(result, "P_5") == pytest.approx(3 / 5)
    assert _one(result, "P_10") == pytest.approx(4 / 10)
    assert _one(result, "Rprec") == pytest.approx(2 / 4)  # P@R, R = 4


# -------------------------------------------------------------------------------- MEASURES §4


def test_precision_counts_missing_ranks_as_nonrelevant() -> None:
    result = _eval({"T": {"a": 1, "b": 1}}, {"T": ["a", "b"]}, ["P.5"])
    assert _one(result, "P_5") == pytest.approx(2 / 5)


def test_bpref_skips_unjudged_and_unpooled_and_unretrieved_relevant_add_zero() -> None:
    # ranking: n1 (non-rel), x (unpooled), u (-1), r1 (rel), n2, r2; R = 3 (r3 unretrieved), N = 2.
    qrels = {"T": {"n1": 0, "u": -1, "r1": 1, "n2": 0, "r2": 1, "r3": 1}}
    result = _eval(qrels, {"T": ["n1", "x", "u", "r1", "n2", "r2"]}, ["bpref"])
    # r1: 1 - min(1,3)/min(2,3) = 1/2; r2: 1 - min(2,3)/min(2,3) = 0; r3 adds 0
    assert _one(result, "bpref") == pytest.approx((1 / 2 + 0 + 0) / 3)


def test_bpref_with_no_judged_nonrelevant_scores_each_retrieved_relevant_1() -> None:
    result = _eval({"T": {"a": 1, "b": 1}}, {"T": ["x", "a"]}, ["bpref", "bpref_10"])
    assert _one(result, "bpref") == pytest.approx(1 / 2)
    assert _one(result, "bpref_10") == pytest.approx(1 / 2)


def test_infap_smoothed_precision_is_one_half_with_nothing_judged_above() -> None:
    # rank 2 with an unpooled doc above: 1/2 + (1/2)·(0/1)·… = 1/2 (pooled_above = 0 kills the second
    # term); with a pooled-unjudged doc above: 1/2 + (1/2)·(1/1)·ε/(2ε) = 1/2 + 1/4.
    unpooled = _eval({"T": {"a": 1}}, {"T": ["x", "a"]}, ["infAP"])
    assert _one(unpooled, "infAP") == pytest.approx(1 / 2)
    pooled = _eval({"T": {"a": 1, "u": -1}}, {"T": ["u", "a"]}, ["infAP"])
    assert _one(pooled, "infAP") == pytest.approx(1 / 2 + (1 / 2) * (INFAP_EPS / (2 * INFAP_EPS)))


# -------------------------------------------------------------------------------- bpref-10


def test_bpref_10_widens_both_mins_to_r_plus_10_and_keeps_1_over_r() -> None:
    # R = 2 (r2 unretrieved), N = 5; r1 at rank 4 below three judged non-relevant docs.
    qrels = {"T": {"n1": 0, "n2": 0, "n3": 0, "n4": 0, "n5": 0, "r1": 1, "r2": 1}}
    result = _eval(qrels, {"T": ["n1", "n2", "n3", "r1"]}, ["bpref", "bpref_10"])
    # bpref:    (1/R)(1 - min(3, 2)/min(5, 2))   = (1/2)(1 - 2/2)
    assert _one(result, "bpref") == pytest.approx((1 / 2) * (1 - 2 / 2))
    # bpref_10: (1/R)(1 - min(3, 12)/min(5, 12)) = (1/2)(1 - 3/5); not 1/(R+10) outside, not 3/(R+10)
    assert _one(result, "bpref_10") == pytest.approx((1 / 2) * (1 - 3 / 5))
    assert _one(result, "bpref_10") != pytest.approx((1 / 2) * (1 - 3 / 12))  # the paper's fixed 10+R


def test_bpref_10_equals_bpref_when_n_is_at_most_r() -> None:
    # N = 1 <= R = 2: min(N, R) = min(N, R+10) = N and n_r <= N, so the two coincide.
    qrels = {"T": {"n1": 0, "r1": 1, "r2": 1}}
    result = _eval(qrels, {"T": ["r1", "n1", "r2"]}, ["bpref", "bpref_10"])
    assert _one(result, "bpref") == pytest.approx((1 + (1 - 1 / 1)) / 2)
    assert _one(result, "bpref_10") == _one(result, "bpref")


# -------------------------------------------------------------------------------- Judged@k


def test_judged_at_k_counts_negative_rels_as_judged_and_divides_by_min_k_and_length() -> None:
    # j (rel 0), u (rel -1, in the qrels), x (absent): ir_measures counts j and u, over min(5, 3)
    result = _eval({"T": {"j": 0, "u": -1}}, {"T": ["j", "u", "x"]}, ["Judged@5", "Judged@2", "Judged"])
    assert _one(result, "Judged@5") == pytest.approx(2 / 3)
    assert _one(result, "Judged@2") == pytest.approx(2 / 2)
    assert _one(result, "Judged") == pytest.approx(2 / 3)


def test_judged_at_k_and_trec_evals_unj_k_are_different_conventions() -> None:
    # unj_5 = docs with rel < 0 or unpooled in the top 5 / 5 = (u, x) / 5, missing ranks judged;
    # Judged@5 = 2/3 as above: 1 - unj_5 = 3/5 is not Judged@5.
    result = _eval({"T": {"j": 0, "u": -1}}, {"T": ["j", "u", "x"]}, ["unj.5", "Judged@5"])
    assert _one(result, "unj_5") == pytest.approx(2 / 5)
    assert _one(result, "Judged@5") == pytest.approx(2 / 3)


def test_judged_at_k_of_a_condensed_list_is_one() -> None:
    result = _eval(
        {"T": {"j": 0, "u": -1}}, {"T": ["j", "u", "x"]}, ["Judged@5"], EvalOptions(judged_only=True)
    )
    assert _one(result, "Judged@5") == 1.0


# -------------------------------------------------------------------------------- RBP, ERR, RR@k


def test_rbp_is_binary_at_the_level_with_residual_for_unknown_docs_and_the_tail() -> None:
    # ranks: a (2), x (unpooled), b (1), u (-1); p = 0.5
    qrels = {"T": {"a": 2, "b": 1, "u": -1}}
    result = _eval(qrels, {"T": ["a", "x", "b", "u"]}, ["RBP(p=0.5)", "RBP(rel=2,p=0.5)", "rbp_p_resid.0.5"])
    assert _one(result, "RBP(p=0.5)") == pytest.approx(0.5 * (1 + 0.5**2))
    assert _one(result, "RBP(rel=2,p=0.5)") == pytest.approx(0.5 * 1)
    # unknown ranks 2 and 4, then everything past rank 4
    assert _one(result, "rbp_p_resid_0.50") == pytest.approx(0.5 * (0.5**1 + 0.5**3) + 0.5**4)


def test_rbp_cutoff_stops_both_the_sum_and_the_residual_at_k() -> None:
    qrels = {"T": {"a": 1, "b": 1, "u": -1}}
    result = _eval(qrels, {"T": ["a", "u", "b"]}, ["RBP(p=0.5)@2", "RBP@10"])
    assert _one(result, "RBP(p=0.5)@2") == pytest.approx(0.5 * 1)
    assert _one(result, "RBP@10") == pytest.approx(0.2 * (1 + 0.8**2))  # p = 0.8 by default


def test_err_maps_grades_by_gdevals_fixed_max_grade_4() -> None:
    # grades 3, 0, 1 → R = 7/16, 0, 1/16: ERR = 7/16 + (1/3)(1 - 7/16)(1/16)
    result = _eval({"T": {"a": 3, "b": 0, "c": 1}}, {"T": ["a", "b", "c"]}, ["ERR@2", "ERR@3"])
    assert _one(result, "ERR@2") == pytest.approx(7 / 16)
    assert _one(result, "ERR@3") == pytest.approx(7 / 16 + (1 / 3) * (9 / 16) * (1 / 16))


def test_err_refuses_grades_above_gdevals_maximum() -> None:
    with pytest.raises(ValueError, match="grade 5"):
        _eval({"T": {"a": 5}}, {"T": ["a"]}, ["ERR@10"])


def test_rr_at_k_is_zero_when_the_first_relevant_doc_is_below_k() -> None:
    result = _eval(
        {"T": {"a": 1, "b": 2}}, {"T": ["x", "y", "a", "b"]}, ["RR@2", "RR@3", "RR(rel=2)@5", "RR"]
    )
    assert _one(result, "RR@2") == 0.0
    assert _one(result, "RR@3") == pytest.approx(1 / 3)
    assert _one(result, "RR(rel=2)@5") == pytest.approx(1 / 4)
    assert _one(result, "RR") == pytest.approx(1 / 3)


# -------------------------------------------------------------------------------- statAP


def _mq(docs: dict[str, tuple[int, float]], topic: str = "T") -> MQPrel:
    """A Million Query prel for one topic from ``{docno: (rel, inclusion probability)}``."""
    qrels = qrels_from_dict({topic: {d: rel for d, (rel, _) in docs.items()}})
    iprobs = np.array([docs[d.decode()][1] for d in qrels.docnos.tolist()], dtype=np.float64)
    return MQPrel(qrels=qrels, iprobs=iprobs, methods=np.full(len(iprobs), b"1", dtype="S1"))


def _eval_mq(mq: MQPrel, ranking: list[str], measures: list[str]) -> RunResult:
    return evaluate_run(Judgments.from_mq(mq), _run({"T": ranking}), parse_measures(measures, design="mq"))


# a (rel, π 1), b (non-rel, π 1/2), c (rel, π 1/2), d (rel, π 1/4, not retrieved), e (rel -1: listed,
# not judged); the run retrieves a, x (absent from the prel), c, b.
STATAP_PREL = {"a": (1, 1.0), "b": (0, 0.5), "c": (1, 0.5), "d": (1, 0.25), "e": (-1, 0.5)}
STATAP_RANKING = ["a", "x", "c", "b"]


def test_statap_on_a_hand_made_mq_prel() -> None:
    # R̂ = 1/1 + 1/0.5 + 1/0.25 = 7 (e is not sampled, b is not relevant)
    # a at rank 1: PC = (1 + 0)/1 = 1, weighted 1/π = 1 → 1
    # c at rank 3: PC = (1 + 1/1)/3 = 2/3, weighted 1/0.5 → 4/3
    result = _eval_mq(_mq(STATAP_PREL), STATAP_RANKING, ["statAP"])
    assert _one(result, "statAP") == pytest.approx((1 + 4 / 3) / 7)


def test_statap_variance_on_a_hand_made_mq_prel() -> None:
    # statAP = 1/3; c_d = (1 - π)/π²: a 0, c 2, d 12.
    # u_c = PC(3) + T̂(c) - statAP = 2/3 + 0 - 1/3 = 1/3 (nothing sampled-relevant below c)
    # u_d = -statAP = -1/3 (not retrieved); a has π = 1 and contributes nothing
    # V̂ = (2·(1/3)² + 12·(1/3)²) / R̂² = (14/9) / 49
    result = _eval_mq(_mq(STATAP_PREL), STATAP_RANKING, ["statAP_var"])
    assert _one(result, "statAP_var") == pytest.approx((14 / 9) / 49)


def test_statap_with_certain_inclusion_is_map() -> None:
    prel = {"a": (1, 1.0), "b": (0, 1.0), "c": (1, 1.0), "d": (1, 1.0)}
    result = _eval_mq(_mq(prel), STATAP_RANKING, ["statAP", "statAP_var", "map"])
    assert _one(result, "statAP") == pytest.approx((1 / 1 + 2 / 3) / 3)
    assert _one(result, "statAP") == pytest.approx(_one(result, "map"))
    assert _one(result, "statAP_var") == 0.0


# A population for the sampling tests: relevant docs at ranks 1, 3, 4, 7 and one unretrieved (z);
# inclusion probabilities below 1 on four relevant docs; AP = (1/1 + 2/3 + 3/4 + 4/7)/5.
POP_RANKING = ["r1", "n2", "r3", "r4", "n5", "n6", "r7"]
POP = {
    "r1": (1, 1.0), "n2": (0, 1.0), "r3": (1, 0.8), "r4": (1, 0.6),
    "n5": (0, 1.0), "n6": (0, 1.0), "r7": (1, 0.7), "z": (1, 0.9),
}  # fmt: skip
POP_AP = (1 / 1 + 2 / 3 + 3 / 4 + 4 / 7) / 5


def _poisson_samples() -> list[tuple[float, dict[str, tuple[int, float]]]]:
    """Every sample of POP under independent inclusion, with its probability."""
    uncertain = [d for d, (_, pi) in POP.items() if pi < 1]
    out = []
    for picks in product([False, True], repeat=len(uncertain)):
        prob = 1.0
        sample = {d: v for d, v in POP.items() if v[1] == 1}
        for d, picked in zip(uncertain, picks, strict=True):
            pi = POP[d][1]
            prob *= pi if picked else 1 - pi
            if picked:
                sample[d] = POP[d]
        out.append((prob, sample))
    return out


def test_statap_numerator_and_r_hat_are_unbiased_under_poisson_sampling() -> None:
    # E[statAP · R̂] = Σ over relevant retrieved of precision (= AP · R) exactly, because PC counts the
    # doc itself as 1 and others as 1/π; E[R̂] = R. (Had PC counted the doc as 1/π, the first fails.)
    e_num = e_r = 0.0
    for prob, sample in _poisson_samples():
        r_hat = sum(1 / pi for rel, pi in sample.values() if rel > 0)
        value = _one(_eval_mq(_mq(sample), POP_RANKING, ["statAP"]), "statAP")
        e_num += prob * value * r_hat
        e_r += prob * r_hat
    assert e_r == pytest.approx(5)
    assert e_num == pytest.approx(POP_AP * 5)


def test_statap_var_is_the_delta_method_variance_at_the_observed_sample() -> None:
    # statAP is a function of the inclusion indicators I_d, each entering only as I_d/π_d; the
    # linearized variance is Σ_{d∈S} (1 - π_d)·(∂statAP/∂I_d)², the gradient taken at the sample.
    # Raising I_d to 1 + h is lowering π_d to π_d/(1 + h), so central differences through the engine
    # give the gradient without using the kernel's closed form for it.
    h = 1e-6

    def statap(prel: dict[str, tuple[int, float]]) -> float:
        return _one(_eval_mq(_mq(prel), POP_RANKING, ["statAP"]), "statAP")

    want = 0.0
    for d, (rel, pi) in POP.items():
        if rel <= 0 or pi == 1:
            continue
        up = statap({**POP, d: (rel, pi / (1 + h))})
        down = statap({**POP, d: (rel, pi / (1 - h))})
        want += (1 - pi) * ((up - down) / (2 * h)) ** 2
    got = _one(_eval_mq(_mq(POP), POP_RANKING, ["statAP_var"]), "statAP_var")
    assert got == pytest.approx(want, rel=1e-6)


def test_statap_var_is_of_the_order_of_the_exact_sampling_variance() -> None:
    # Exact moments over all 16 samples of POP. The estimate is first order: on a population this
    # small it runs low (E[V̂] ≈ 0.0050 against an exact 0.0087; the linearized population value,
    # Σ π(1-π)(∂statAP/∂I)² at I = π, is 0.0061), so only the order of magnitude is pinned here;
    # the weight (1-π)/π instead of (1-π)/π², or dropping the unretrieved doc z, moves it below.
    samples = _poisson_samples()
    values, variances = [], []
    for _, sample in samples:
        result = _eval_mq(_mq(sample), POP_RANKING, ["statAP", "statAP_var"])
        values.append(_one(result, "statAP"))
        variances.append(_one(result, "statAP_var"))
    probs = np.array([p for p, _ in samples])
    v = np.array(values)
    exact_var = float(probs @ (v - probs @ v) ** 2)
    expected_estimate = float(probs @ np.array(variances))
    assert 0.5 * exact_var < expected_estimate < exact_var
    assert float(probs @ v) == pytest.approx(POP_AP, rel=0.05)  # a ratio estimator: nearly unbiased
