"""trec_eval 10.0's whole ``-m all_trec``: every printed value reproduced, and each tricky variant pinned.

The reference test reads every ``expected/*/*/<run>.trec_eval[.J][.l2][.c][.M3].hp[.v9.0.8].txt.gz``
of the reference data (``trec_eval -q -m all_trec`` printed with 12 decimals) and compares every
line: each measure of each topic and of 'all', runid, num_q and relstring, within 1e-9, NaN for
trec_eval's ``-nan``. The ``.v9.0.8`` files exist only for edge_a, whose run lacks a qrels topic
(trec_eval 10.0 stops on that unless ``-c``): trec_eval 9.0.8 prints no rbp, rbp_resid or unj_k,
and rounds the recall levels of iprec_at_recall and 11pt_avg as ``(long)(c·R + 0.9)`` where 10.0
uses ``lround(c·R)``; those two are checked with ``rounding="v9"``, every other value as 10.0's.
"""

from __future__ import annotations

import gzip
import math
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.evaluate import Judgments, _subset_stats, align, evaluate_run
from engine.measures.base import Context, EvalOptions
from engine.measures.trec_eval_extra import RECALL_LEVELS, interpolated_precision, relstrings
from engine.names import parse_measures
from tests.conftest import refdata_dir
from trec import read_qrels, read_run
from trec.qrels import qrels_from_dict
from trec.runs import RankedRun, run_from_arrays

# every test here, through the compiled kernels and through numpy alone (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")

TOLERANCE = 1e-9
V9_ABSENT = ("rbp", "rbp_resid", "unj_")  # measures trec_eval 9.0.8 does not have


# ---------------------------------------------------------------- reference outputs


def _reference_files() -> list[str]:
    root = refdata_dir()
    if root is None:
        return ["absent"]
    return sorted(str(p.relative_to(root)) for p in root.glob("expected/*/*/*.trec_eval*.hp*.txt.gz"))


def _options(flags: list[str]) -> EvalOptions:
    return EvalOptions(
        judged_only="J" in flags,
        level=2 if "l2" in flags else 1,
        complete="c" in flags,
        max_docs=3 if "M3" in flags else None,
    )


@cache
def _judgments(root: Path, collection: str, scenario: str, path: str) -> Judgments:
    """Cached per engine path (``path``): the numpy path builds its own, with nothing compiled."""
    return Judgments(read_qrels(root / "scenarios" / collection / scenario / "qrels.txt"))


def _read_output(path: Path) -> list[tuple[str, str, str]]:
    with gzip.open(path, "rt") as fh:
        return [tuple(line.rstrip("\n").split("\t")) for line in fh if line.strip()]  # type: ignore[misc]


def _same(got: float, want: str) -> bool:
    if want.strip() in ("nan", "-nan"):
        return math.isnan(got)
    return abs(got - float(want)) <= TOLERANCE


@pytest.mark.refdata
@pytest.mark.parametrize("relpath", _reference_files())
def test_all_trec_matches_trec_eval_output(refdata: Path, relpath: str, engine_path: str) -> None:
    path = refdata / relpath
    _, collection, scenario, fname = Path(relpath).parts
    run_name, _, rest = fname.partition(".trec_eval")
    flags = rest.split(".")
    v9 = "v9" in flags
    options = _options(flags)
    judgments = _judgments(refdata, collection, scenario, engine_path)
    run = read_run(refdata / "data" / collection / "runs" / f"{run_name}.run")
    result = evaluate_run(judgments, run, parse_measures(["all_trec"]), options)
    aligned = align(judgments, run, options)
    rel_strings = dict(zip(aligned.topics, relstrings(aligned.rel, aligned.offsets), strict=True))
    v9_iprec: dict[str, np.ndarray] = {}
    if v9:
        ctx = Context(
            aligned.topics,
            aligned.offsets,
            aligned.rel,
            _subset_stats(judgments.stats(options.level), aligned.qrels_index),
            options,
            extra={"aligned": aligned},
        )
        table = interpolated_precision(ctx, RECALL_LEVELS, rounding="v9")
        v9_iprec = {f"iprec_at_recall_{c:.2f}": table[:, i] for i, c in enumerate(RECALL_LEVELS)}
        v9_iprec["11pt_avg"] = table.mean(axis=1)

    lines = _read_output(path)
    printed_all = [m.strip() for m, t, _ in lines if t == "all"]
    # relstring prints per topic only: it has no 'all' line
    expected_names = [
        n for n in result.names if n not in result.text and not (v9 and n.startswith(V9_ABSENT))
    ]
    assert printed_all == expected_names, "all_trec names or print order differ from trec_eval's"
    printed_topics = list(dict.fromkeys(t for _, t, _ in lines if t != "all"))
    assert printed_topics == result.topics

    pos = {t: i for i, t in enumerate(result.topics)}
    mismatches = []
    for measure, topic, value in lines:
        measure = measure.strip()
        if measure == "runid":
            got_s = result.runid  # the tag of the run's last line, as trec_eval reads it
            if got_s != value:
                mismatches.append(f"runid: got {got_s!r}, trec_eval printed {value!r}")
            continue
        if measure == "relstring":
            if f"'{rel_strings[topic]}'" != value:
                mismatches.append(f"relstring {topic}: got '{rel_strings[topic]}', trec_eval printed {value}")
            continue
        if measure in v9_iprec:
            values = v9_iprec[measure]
            got = float(np.mean(values)) if topic == "all" else float(values[pos[topic]])
        elif topic == "all":
            got = result.summary[measure]
        else:
            got = float(result.per_topic[measure][pos[topic]])
        if not _same(got, value):
            mismatches.append(f"{measure} {topic}: got {got!r}, trec_eval printed {value}")
    assert not mismatches, f"{len(mismatches)} of {len(lines)} lines differ:\n" + "\n".join(mismatches[:30])


# ---------------------------------------------------------------- hand-derived cases


def _run(ranked: dict[str, list[str]], name: str = "r") -> RankedRun:
    """A run whose canonical order is the listed order (scores strictly decreasing)."""
    qids, docs, scores = [], [], []
    for topic, docnos in ranked.items():
        for i, d in enumerate(docnos):
            qids.append(topic)
            docs.append(d)
            scores.append(float(len(docnos) - i))
    return run_from_arrays(
        name, np.array(qids, dtype="S"), np.array(docs, dtype="S"), np.array(scores), tag=name
    )


def _eval(
    qrels: dict[str, dict[str, int]], ranked: dict[str, list[str]], measures: list[str], **options: Any
) -> dict[str, float]:
    """Per-topic values of a single-topic evaluation, or the 'all' values when there are several topics."""
    result = evaluate_run(
        Judgments(qrels_from_dict(qrels)), _run(ranked), parse_measures(measures), EvalOptions(**options)
    )
    if len(result.topics) == 1:
        return {n: float(v[0]) for n, v in result.per_topic.items()} | {
            n: result.summary[n] for n in result.summary_only
        }
    return dict(result.summary)


# R = 4 relevant r1..r4; the run puts them at ranks 2, 3, 5 and 7
FOUR_REL = {"t": {"r1": 1, "r2": 1, "r3": 1, "r4": 1, "n1": 0, "n2": 0, "n3": 0}}
FOUR_REL_RUN = {"t": ["n1", "r1", "r2", "n2", "r3", "n3", "r4"]}


def test_rprec_mult_truncates_r_times_m_plus_point_nine() -> None:
    v = _eval(FOUR_REL, FOUR_REL_RUN, ["Rprec_mult"])
    assert v["Rprec_mult_0.20"] == 0 / 1  # rank (long)(0.8 + 0.9) = 1
    assert v["Rprec_mult_0.60"] == pytest.approx(2 / 3)  # rank (long)(2.4 + 0.9) = 3; lround would give 2
    assert v["Rprec_mult_1.20"] == pytest.approx(3 / 5)  # rank (long)(4.8 + 0.9) = 5
    assert v["Rprec_mult_2.00"] == pytest.approx(4 / 8)  # rank 8 is past the 7 retrieved: 4 relevant / 8


def test_iprec_at_recall_rounds_levels_with_lround() -> None:
    # precision at the relevant docs: 1/2, 2/3, 3/5, 4/7; interpolated: 2/3, 2/3, 3/5, 4/7
    v = _eval(FOUR_REL, FOUR_REL_RUN, ["iprec_at_recall"])
    assert v["iprec_at_recall_0.00"] == pytest.approx(2 / 3)  # 0 docs: the value of the first relevant doc
    assert v["iprec_at_recall_0.60"] == pytest.approx(2 / 3)  # lround(2.4) = 2 relevant docs
    assert v["iprec_at_recall_0.70"] == pytest.approx(3 / 5)  # lround(2.8) = 3
    assert v["iprec_at_recall_1.00"] == pytest.approx(4 / 7)


def test_iprec_at_recall_v9_rounding_adds_point_nine() -> None:
    judgments = Judgments(qrels_from_dict(FOUR_REL))
    aligned = align(judgments, _run(FOUR_REL_RUN), EvalOptions())
    ctx = Context(
        aligned.topics,
        aligned.offsets,
        aligned.rel,
        _subset_stats(judgments.stats(1), aligned.qrels_index),
        EvalOptions(),
    )
    table = interpolated_precision(ctx, (0.6,), rounding="v9")
    assert table[0, 0] == pytest.approx(3 / 5)  # (long)(2.4 + 0.9) = 3 relevant docs


def test_iprec_at_recall_rounds_halves_up() -> None:
    # R = 5, relevant at ranks 1, 3, 7: interpolated precision 1, 2/3, 3/7 at 1, 2, 3 relevant docs
    qrels = {"t": {"r1": 1, "r2": 1, "r3": 1, "r4": 1, "r5": 1, "n1": 0}}
    v = _eval(qrels, {"t": ["r1", "n1", "r2", "x1", "x2", "x3", "r3"]}, ["iprec_at_recall.0.5"])
    # lround(2.5) = 3 relevant docs; Python's round-half-even would give 2 and 2/3
    assert v["iprec_at_recall_0.50"] == pytest.approx(3 / 7)


def test_eleven_pt_avg_averages_the_eleven_interpolated_precisions() -> None:
    # levels × R=4 -> lround: 0,0,1,1,2,2,2,3,3,4,4 -> 2/3 (x7), 3/5 (x2), 4/7 (x2)
    v = _eval(FOUR_REL, FOUR_REL_RUN, ["11pt_avg"])
    assert v["11pt_avg"] == pytest.approx((7 * 2 / 3 + 2 * 3 / 5 + 2 * 4 / 7) / 11)


def test_iprec_at_recall_is_nan_for_a_topic_emptied_by_judged_only() -> None:
    # trec_eval divides num_rel_ret by num_ret = 0 and prints -nan; a topic missing under -c is
    # trec_eval's one-document bogus ranking, which -J empties too: -nan as well (checked against
    # trec_eval 10.0 in tests/data/trec_eval/extra/out.aqJc)
    qrels = {"a": {"r": 1}, "b": {"s": 1, "u": -1}, "c": {"v": 1}}
    result = evaluate_run(
        Judgments(qrels_from_dict(qrels)),
        _run({"a": ["r"], "b": ["u", "x"]}),
        parse_measures(["iprec_at_recall.0,0.5", "11pt_avg"]),
        EvalOptions(judged_only=True, complete=True),
    )
    assert result.topics == ["a", "b", "c"]
    assert np.isnan(result.per_topic["iprec_at_recall_0.00"][1])
    assert result.per_topic["iprec_at_recall_0.50"][1] == 0.0  # lround(0.5) = 1 relevant doc never reached
    assert np.isnan(result.per_topic["11pt_avg"][1])
    assert np.isnan(result.per_topic["iprec_at_recall_0.00"][2])
    missing = evaluate_run(
        Judgments(qrels_from_dict(qrels)),
        _run({"a": ["r"], "b": ["u", "x"]}),
        parse_measures(["iprec_at_recall.0"]),
        EvalOptions(complete=True),
    )
    assert missing.per_topic["iprec_at_recall_0.00"][2] == 0.0  # without -J the bogus doc gives 0/1


def test_utility_default_is_relevant_minus_nonrelevant_retrieved() -> None:
    qrels = {"t": {"r1": 1, "r2": 1, "r3": 1, "n1": 0}}
    ranked = {"t": ["r1", "n1", "x1", "r2"]}  # a = 2 relevant retrieved, b = 2 others, c = 1 missed
    v = _eval(qrels, ranked, ["utility", "utility.2,-1,-3,0"])
    assert v["utility"] == 1 * 2 - 1 * 2
    assert v["utility_2,-1,-3,0"] == 2 * 2 - 1 * 2 - 3 * 1


def test_utility_of_a_topic_missing_from_the_run_is_zero() -> None:
    # -c: trec_eval evaluates the missing topic on an empty ranking, then zeroes its utility;
    # a topic that -J empties keeps p3 · (relevant not retrieved)
    qrels = {"a": {"r": 1}, "b": {"s": 1, "u": -1}, "c": {"v": 1, "w": 1}}
    result = evaluate_run(
        Judgments(qrels_from_dict(qrels)),
        _run({"a": ["r"], "b": ["u"]}),
        parse_measures(["utility.1,-1,-2,0"]),
        EvalOptions(judged_only=True, complete=True),
    )
    assert result.per_topic["utility_1,-1,-2,0"].tolist() == [1.0, -2.0 * 1, 0.0]


def test_rbp_rescales_grades_by_the_topics_top_grade() -> None:
    qrels = {"t": {"a": 2, "b": 1, "c": 0}}
    v = _eval(qrels, {"t": ["a", "b", "c"]}, ["rbp", "rbp.p=0.5"])
    assert v["rbp"] == pytest.approx((1 - 0.9) * (2 / 2 + 1 / 2 * 0.9))
    assert v["rbp_p=0.5"] == pytest.approx((1 - 0.5) * (2 / 2 + 1 / 2 * 0.5))
    # a topic whose top grade is 1 keeps its gains
    v1 = _eval({"t": {"d": 1, "e": 0}}, {"t": ["e", "d"]}, ["rbp"])
    assert v1["rbp"] == pytest.approx((1 - 0.9) * 1 * 0.9)


def test_rbp_resid_is_zero_when_every_retrieved_doc_is_judged() -> None:
    qrels = {"t": {"a": 2, "b": 1, "c": 0}}
    assert _eval(qrels, {"t": ["a", "b", "c"]}, ["rbp_resid"])["rbp_resid"] == 0.0
    # with an unpooled doc at rank 1 of a 2-doc run: p^2 + (1 - p) p^0
    v = _eval(qrels, {"t": ["x", "b"]}, ["rbp_resid"])
    assert v["rbp_resid"] == pytest.approx(0.9**2 + (1 - 0.9) * 1)


def _trec_eval_rbp(p: float, gains: list[float]) -> float:
    """m_rbp.c's arithmetic: p^i by repeated multiplication, the gains summed in rank order."""
    total, cur_p = 0.0, 1.0
    for gain in gains:
        if gain != 0:
            total += gain * cur_p
        cur_p = cur_p * p
    return (1.0 - p) * total


def _trec_eval_rbp_resid(p: float, unjudged: list[bool]) -> float:
    """m_rbp_resid.c's arithmetic: p^num_ret by repeated multiplication plus (1 - p) Σ unjudged p^i."""
    total, cur_p = 0.0, 1.0
    for unj in unjudged:
        if unj:
            total += cur_p
        cur_p = cur_p * p
    return cur_p + (1 - p) * total if any(unjudged) else 0.0


def test_rbp_resid_mean_on_a_rounding_boundary_prints_as_trec_eval() -> None:
    # (0.9^4 + 0.1) / 2 = 0.37805 exactly in decimal; 0.9·0.9·0.9·0.9 (trec_eval) lands just above the
    # boundary and prints 0.3781, np.power(0.9, 4) just below and printed 0.3780
    qrels = {"a": {"d1": 1, "d2": 1, "d3": 1}, "b": {"x": 0}}
    result = evaluate_run(
        Judgments(qrels_from_dict(qrels)),
        _run({"a": ["unjudged", "d1", "d2", "d3"], "b": ["x"]}),
        parse_measures(["rbp_resid"]),
        EvalOptions(),
    )
    assert result.per_topic["rbp_resid"].tolist() == [
        _trec_eval_rbp_resid(0.9, [True, False, False, False]),
        0.0,
    ]
    assert f"{result.summary['rbp_resid']:.4f}" == "0.3781"


@pytest.mark.parametrize("p", [0.9, 0.95, 0.8, 0.37])
def test_rbp_and_rbp_resid_are_bit_identical_to_trec_eval_arithmetic(p: float) -> None:
    rng = np.random.default_rng(int(p * 100))
    qrels: dict[str, dict[str, int]] = {}
    ranked: dict[str, list[str]] = {}
    for t in range(40):
        length = int(rng.integers(1, 60))
        grades = rng.integers(-1, 3, size=length)  # -1: unjudged
        topic = f"t{t:02d}"
        qrels[topic] = {f"d{i}": int(g) for i, g in enumerate(grades) if g >= 0} | {"anchor": 2}
        ranked[topic] = [f"d{i}" for i in range(length)]
    result = evaluate_run(
        Judgments(qrels_from_dict(qrels)),
        _run(ranked),
        parse_measures([f"rbp.p={p}", f"rbp_resid.p={p}"]),
        EvalOptions(),
    )
    for i, topic in enumerate(result.topics):
        levels = [qrels[topic].get(doc, -1) for doc in ranked[topic]]
        gains = [g / 2 if g > 0 else 0.0 for g in levels]  # grades 0-2 rescaled by the top grade 2
        assert result.per_topic[f"rbp_p={p}"][i] == _trec_eval_rbp(p, gains), topic
        assert result.per_topic[f"rbp_resid_p={p}"][i] == _trec_eval_rbp_resid(p, [g < 0 for g in levels]), (
            topic
        )


def test_set_f_parameter_weights_recall_like_beta_squared() -> None:
    qrels = {"t": {f"r{i}": 1 for i in range(8)} | {"n1": 0, "n2": 0}}
    ranked = {"t": ["r0", "r1", "n1", "n2"]}  # P = 2/4, R = 2/8
    v = _eval(
        qrels,
        ranked,
        ["set_F", "set_F.0.25", "SetF(beta=0.25)", "set_P", "set_recall", "set_map", "set_relative_P"],
    )
    P, R = 0.5, 0.25
    assert v["set_F"] == pytest.approx(2 * P * R / (P + R))
    assert v["set_F_0.25"] == pytest.approx((0.25 + 1) * P * R / (0.25 * P + R))
    assert v["SetF(beta=0.25)"] == v["set_F_0.25"]
    assert (v["set_P"], v["set_recall"]) == (P, R)
    assert v["set_map"] == pytest.approx(2 * 2 / (4 * 8))
    assert v["set_relative_P"] == 2 / min(4, 8)


def test_set_measures_are_zero_without_relevant_retrieved() -> None:
    v = _eval({"t": {"n": 0}}, {"t": ["n"]}, ["set_F", "set_relative_P", "set_map"])
    assert v == {"set_F": 0.0, "set_relative_P": 0.0, "set_map": 0.0}


def test_gm_map_floors_each_topic_at_one_in_a_hundred_thousand() -> None:
    qrels = {"a": {"r": 1}, "b": {"s": 1}}
    v = _eval(qrels, {"a": ["n", "r"], "b": ["n"]}, ["map", "gm_map"])  # AP 0.5 and 0
    assert v["map"] == pytest.approx(0.25)
    assert v["gm_map"] == pytest.approx(math.exp((math.log(0.5) + math.log(0.00001)) / 2))


def test_bin_g_discounts_by_non_relevant_docs_above() -> None:
    qrels = {"t": {"r1": 1, "r2": 1, "r3": 1, "n1": 0}}
    v = _eval(qrels, {"t": ["n1", "r1", "x1", "r2"]}, ["binG"])  # 1 and 2 non-relevant docs above
    assert v["binG"] == pytest.approx((1 / math.log2(2 + 1) + 1 / math.log2(2 + 2)) / 3)


GRADED = {"t": {"a": 2, "b": 1, "c": 0, "d": 0}}  # ideal ranking: gains 2, 1


def test_g_compares_gain_so_far_with_the_ideal_cost() -> None:
    v = _eval(GRADED, {"t": ["b", "c", "a"]}, ["G"])
    # rank 1: gain 1, cost 2 -> 1/log2(2+2-1); rank 3: gain so far 3, cost 2+1+1 -> 2/log2(2+4-3)
    assert v["G"] == pytest.approx((1 / math.log2(3) + 2 / math.log2(3)) / (2 + 1))


def test_ndcg_rel_averages_ndcg_at_each_relevant_doc() -> None:
    v = _eval(GRADED, {"t": ["b", "c", "a"]}, ["ndcg_rel"])
    idcg1, idcg2 = 2.0, 2 + 1 / math.log2(3)
    dcg1, dcg3 = 1.0, 1 + 2 / math.log2(4)
    assert v["ndcg_rel"] == pytest.approx((dcg1 / idcg1 + dcg3 / idcg2) / 2)


def test_rndcg_skips_the_final_point_when_the_run_is_one_past_the_ideal() -> None:
    idcg1, idcg2 = 2.0, 2 + 1 / math.log2(3)
    # boundaries of the ideal gains (2 | 1 | 0) at ranks 1 and 2; DCG@1 = 1, DCG@2 = 1
    three = _eval(GRADED, {"t": ["b", "c", "a"]}, ["Rndcg"])["Rndcg"]
    assert three == pytest.approx((1 / idcg1 + 1 / idcg2) / 2)  # 'a' at rank 3 = n + 1 is never counted
    assert _eval(GRADED, {"t": ["b", "c", "d"]}, ["Rndcg"])["Rndcg"] == pytest.approx(three)
    # with 4 docs (>= n + 2) the point DCG(num_ret) / IDCG(n) is added
    four = _eval(GRADED, {"t": ["b", "c", "a", "d"]}, ["Rndcg"])["Rndcg"]
    assert four == pytest.approx((1 / idcg1 + 1 / idcg2 + (1 + 2 / math.log2(4)) / idcg2) / 3)


def test_rndcg_is_zero_without_relevant_docs_at_the_level() -> None:
    v = _eval({"t": {"b": 1, "c": 0}}, {"t": ["b", "c"]}, ["Rndcg", "ndcg_rel"], level=2)
    assert v["Rndcg"] == 0.0
    assert v["ndcg_rel"] == 1.0  # ndcg_rel ignores -l: its relevant docs are those of positive gain


def test_cutoff_families_fill_missing_ranks_with_non_relevant_docs() -> None:
    qrels = {"t": {"r1": 1, "r2": 1, "r3": 1, "n1": 0}}
    ranked = {"t": ["n1", "x1", "r1", "x2", "x3", "x4", "r2"]}  # relevant at ranks 3 and 7, R = 3
    v = _eval(qrels, ranked, ["recall", "map_cut", "relative_P", "success"])
    assert v["recall_5"] == pytest.approx(1 / 3)
    assert v["recall_1000"] == pytest.approx(2 / 3)
    assert v["map_cut_5"] == pytest.approx((1 / 3) / 3)
    assert v["map_cut_10"] == pytest.approx((1 / 3 + 2 / 7) / 3)
    assert v["relative_P_5"] == pytest.approx(1 / min(5, 3))
    assert v["relative_P_10"] == pytest.approx(2 / min(10, 3))
    assert (v["success_1"], v["success_5"], v["success_10"]) == (0.0, 1.0, 1.0)


def test_unj_counts_unjudged_and_unpooled_over_the_cutoff() -> None:
    qrels = {"t": {"j": 0, "u": -1}}
    v = _eval(qrels, {"t": ["j", "u", "x"]}, ["unj"])
    assert (v["unj_5"], v["unj_10"], v["unj_20"]) == (2 / 5, 2 / 10, 2 / 20)
    assert _eval(qrels, {"t": ["j", "u", "x"]}, ["unj.5"], judged_only=True)["unj_5"] == 0.0


def test_num_nonrel_judged_ret_sums_over_topics_and_follows_the_level() -> None:
    qrels = {"a": {"g0": 0, "g1": 1, "g2": 2, "u": -1}, "b": {"h0": 0}}
    ranked = {"a": ["g0", "g1", "g2", "u", "x"], "b": ["h0"]}
    assert _eval(qrels, ranked, ["num_nonrel_judged_ret"])["num_nonrel_judged_ret"] == 1 + 1
    assert _eval(qrels, ranked, ["num_nonrel_judged_ret"], level=2)["num_nonrel_judged_ret"] == 2 + 1


def test_relstring_marks_grades_unjudged_and_unpooled() -> None:
    qrels = {"t": {"a": 12, "b": -1, "c": 0, "d": 3}, "s": {f"d{i}": 1 for i in range(12)}}
    run = _run({"t": ["a", "b", "x", "c", "d"], "s": [f"d{i}" for i in range(12)]})
    judgments = Judgments(qrels_from_dict(qrels))
    aligned = align(judgments, run, EvalOptions())
    strings = dict(zip(aligned.topics, relstrings(aligned.rel, aligned.offsets), strict=True))
    assert strings == {"t": ">.-03", "s": "1" * 10}  # trec_eval shows the first 10 docs
    judged = align(judgments, run, EvalOptions(judged_only=True))
    assert relstrings(judged.rel, judged.offsets, length=3) == ["111", ">03"]


def test_all_trec_lists_trec_eval_measures_in_its_print_order() -> None:
    cut = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    # trec_eval 10.0 -m all_trec, the 'all' lines in order (measures.c's te_trec_measures)
    expected = [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        *[f"iprec_at_recall_{c:.2f}" for c in RECALL_LEVELS],
        *[f"P_{k}" for k in cut],
        "relstring",  # printed per topic only (-q), between P_k and recall_k
        *[f"recall_{k}" for k in cut],
        "infAP",
        "gm_bpref",
        *[f"Rprec_mult_{m:.2f}" for m in (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)],
        "utility",
        "11pt_avg",
        "binG",
        "G",
        "ndcg",
        "ndcg_rel",
        "Rndcg",
        *[f"ndcg_cut_{k}" for k in cut],
        *[f"map_cut_{k}" for k in cut],
        *[f"relative_P_{k}" for k in cut],
        "success_1",
        "success_5",
        "success_10",
        "set_P",
        "set_relative_P",
        "set_recall",
        "set_map",
        "set_F",
        "num_nonrel_judged_ret",
        "rbp",
        "rbp_resid",
        "unj_5",
        "unj_10",
        "unj_20",
    ]
    from engine.measures import REGISTRY

    names = [m.name or REGISTRY[m.family].output_name(m.param) for m in parse_measures(["all_trec"])]
    assert names == expected


def test_ir_measures_names_map_to_the_trec_eval_families() -> None:
    got = {
        m.name: (m.family, m.param)
        for m in parse_measures(
            ["R@10", "Success@5", "IPrec@0.1", "SetP", "SetRelP", "SetR", "SetAP", "SetF"]
        )
    }
    assert got == {
        "R@10": ("recall", 10),
        "Success@5": ("success", 5),
        "IPrec@0.1": ("iprec_at_recall_v9", 0.1),
        "SetP": ("set_P", None),
        "SetRelP": ("set_relative_P", None),
        "SetR": ("set_recall", None),
        "SetAP": ("set_map", None),
        "SetF": ("set_F", None),
    }
