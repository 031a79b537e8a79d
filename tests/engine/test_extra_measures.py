"""The measures trec_eval does not print (engine/measures/extra.py): against ir_measures, and invariants.

ir_measures computes ``Judged@k`` and ``RR@k`` in Python (its judged and msmarco providers) and
``ERR@k`` with gdeval.pl (TREC 2010 Web track, needs perl); those are the reference here. Hand
derivations of each measure are in test_worked_examples.py.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.evaluate import Judgments, RunResult, evaluate_run
from engine.measures.base import EvalOptions
from engine.names import MeasureError, parse_measures
from trec import read_mq_prel
from trec.prels import MQPrel
from trec.qrels import qrels_from_dict
from trec.runs import RankedRun, run_from_arrays

# ir_measures 0.4 parses measure names with the deprecated ast.Num
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

Qrels = dict[str, dict[str, int]]
RunDict = dict[str, dict[str, float]]

DOCNOS = ("d1", "d10", "d2", "D3", "a", "b0", "zz", "d11", "x", "y")
TOPICS = ("101", "102", "103")  # numeric: gdeval.pl refuses other topic ids


def _run(run: RunDict) -> RankedRun:
    qids = [t for t, docs in run.items() for _ in docs]
    docnos = [d for docs in run.values() for d in docs]
    scores = [s for docs in run.values() for s in docs.values()]
    return run_from_arrays("r", np.array(qids, dtype="S"), np.array(docnos, dtype="S"), np.array(scores))


def _ours(qrels: Qrels, run: RunDict, measures: list[str], options: EvalOptions | None = None) -> RunResult:
    return evaluate_run(Judgments(qrels_from_dict(qrels)), _run(run), parse_measures(measures), options)


def _value(result: RunResult, name: str, topic: str) -> float:
    return float(result.per_topic[name][result.topics.index(topic)])


@st.composite
def collections(
    draw: st.DrawFn, grades: st.SearchStrategy[int], distinct_scores: bool
) -> tuple[Qrels, RunDict]:
    qrels: Qrels = {}
    run: RunDict = {}
    for topic in TOPICS:
        qrels[topic] = draw(st.dictionaries(st.sampled_from(DOCNOS), grades, min_size=1))
        docs = draw(st.lists(st.sampled_from(DOCNOS), min_size=1, unique=True))
        if distinct_scores:
            # ir_measures' own providers break score ties by docno ascending, we (and trec_eval,
            # gdeval) descending: distinct scores keep that known difference out of the comparison
            run[topic] = {d: float(len(docs) - i) for i, d in enumerate(docs)}
        else:
            run[topic] = {d: draw(st.integers(0, 3)) / 2 for d in docs}
    return qrels, run


def _ir_measures(qrels: Qrels, run: RunDict, names: list[str]) -> dict[tuple[str, str], float]:
    ir_measures = pytest.importorskip("ir_measures")
    measures = [ir_measures.parse_measure(n) for n in names]
    return {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)}


# -------------------------------------------------------------------------------- against ir_measures


@settings(max_examples=60, deadline=None)
@given(collections(st.integers(-1, 3), distinct_scores=True), st.integers(1, 12))
def test_judged_and_rr_at_k_match_ir_measures(data: tuple[Qrels, RunDict], k: int) -> None:
    qrels, run = data
    names = [f"Judged@{k}", "Judged", f"RR@{k}", f"RR(rel=2)@{k}"]
    theirs = _ir_measures(qrels, run, names)
    ours = _ours(qrels, run, names)
    for name in names:
        for topic in ours.topics:
            assert _value(ours, name, topic) == pytest.approx(theirs[(topic, name)], abs=1e-12), (name, topic)


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl (ir_measures' ERR) needs perl")
@settings(max_examples=25, deadline=None)
@given(collections(st.integers(-1, 4), distinct_scores=False), st.integers(1, 12))
def test_err_at_k_matches_gdeval(data: tuple[Qrels, RunDict], k: int) -> None:
    qrels, run = data
    theirs = _ir_measures(qrels, run, [f"ERR@{k}"])
    ours = _ours(qrels, run, [f"ERR@{k}"])
    # gdeval prints 5 decimals (so half a unit of the 5th, plus float slack) and only topics with a
    # relevant doc; it breaks score ties by docno descending, as we do
    for topic in ours.topics:
        if any(g > 0 for g in qrels[topic].values()):
            want = theirs[(topic, f"ERR@{k}")]
            assert _value(ours, f"ERR@{k}", topic) == pytest.approx(want, abs=0.5e-5 + 1e-12)


def test_judged_at_k_breaks_ties_canonically_not_like_ir_measures() -> None:
    # a and b tie; canonical order puts b (docno descending) at rank 1, ir_measures puts a there.
    qrels, run = {"101": {"a": 0}}, {"101": {"a": 1.0, "b": 1.0}}
    assert _value(_ours(qrels, run, ["Judged@1"]), "Judged@1", "101") == 0.0
    assert _ir_measures(qrels, run, ["Judged@1"])[("101", "Judged@1")] == 1.0


# -------------------------------------------------------------------------------- invariants


@settings(max_examples=60, deadline=None)
@given(collections(st.integers(-1, 3), distinct_scores=False), st.sampled_from((1, 2)))
def test_bpref_10_is_never_below_bpref(data: tuple[Qrels, RunDict], level: int) -> None:
    # each term: min(N, R+10) >= min(N, R), and min(n, R+10)/min(N, R+10) <= min(n, R)/min(N, R)
    qrels, run = data
    result = _ours(qrels, run, ["bpref", "bpref_10"], EvalOptions(level=level))
    assert np.all(result.per_topic["bpref_10"] >= result.per_topic["bpref"] - 1e-12)


@settings(max_examples=60, deadline=None)
@given(collections(st.integers(0, 3), distinct_scores=False), st.integers(1, 12))
def test_judged_at_k_is_one_minus_unj_k_without_negative_rels_within_the_run(
    data: tuple[Qrels, RunDict], k: int
) -> None:
    # with no rel -1, "unjudged" is just "absent from the qrels"; the conventions then differ only
    # in their denominators, k (unj) against min(k, |run|) (Judged)
    qrels, run = data
    result = _ours(qrels, run, [f"Judged@{k}", f"unj.{k}"])
    for i, topic in enumerate(result.topics):
        n = min(k, len(run[topic]))
        judged = result.per_topic[f"Judged@{k}"][i]
        assert judged * n == pytest.approx(n - result.per_topic[f"unj_{k}"][i] * k, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    collections(st.integers(-1, 3), distinct_scores=False),
    st.sampled_from((0.5, 0.8, 0.95)),
    st.sampled_from((1, 2)),
    st.one_of(st.none(), st.integers(1, 12)),
)
def test_rbp_plus_residual_is_one_less_the_weight_of_judged_nonrelevant_docs(
    data: tuple[Qrels, RunDict], p: float, level: int, k: int | None
) -> None:
    # RBP counts the weight (1-p)p^(i-1) of relevant ranks, the residual that of unknown ranks and
    # p^d for the rest; only judged non-relevant ranks are in neither.
    qrels, run = data
    cut = "" if k is None else f"@{k}"
    ours = _ours(qrels, run, [f"RBP(rel={level},p={p}){cut}"])
    resid = _ours(qrels, run, [f"rbp_p_resid.{p}"], EvalOptions(max_docs=k))
    ranked_run = _run(run)  # canonical order
    for topic in ours.topics:
        i = ranked_run.topics.index(topic)
        ranked = ranked_run.docnos[ranked_run.offsets[i] : ranked_run.offsets[i + 1]][:k]
        grades = [qrels[topic].get(d.decode(), -2) for d in ranked.tolist()]
        nonrel = sum((1 - p) * p**r for r, g in enumerate(grades) if 0 <= g < level)
        rbp = _value(ours, f"RBP(rel={level},p={p}){cut}", topic)
        residual = _value(resid, f"rbp_p_resid_{p:.2f}", topic)
        assert rbp + residual == pytest.approx(1 - nonrel, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(collections(st.integers(-1, 4), distinct_scores=False))
def test_err_grows_with_the_cutoff_and_stays_below_one(data: tuple[Qrels, RunDict]) -> None:
    qrels, run = data
    result = _ours(qrels, run, ["err.1,2,3,5,12"])
    values = np.array([result.per_topic[f"err_{k}"] for k in (1, 2, 3, 5, 12)])
    assert np.all(np.diff(values, axis=0) >= -1e-15)
    assert np.all(values[-1] < 1)


# -------------------------------------------------------------------------------- statAP


def _mq_prel(docs: dict[str, dict[str, tuple[int, float]]]) -> MQPrel:
    qrels = qrels_from_dict({t: {d: rel for d, (rel, _) in ds.items()} for t, ds in docs.items()})
    pis = [
        docs[qrels.topics[i]][d.decode()][1]
        for i in range(len(qrels.topics))
        for d in qrels.segment(i)[0].tolist()
    ]
    return MQPrel(qrels=qrels, iprobs=np.array(pis), methods=np.full(len(pis), b"1", dtype="S1"))


@settings(max_examples=60, deadline=None)
@given(collections(st.integers(-1, 2), distinct_scores=False), st.sampled_from((1, 2)))
def test_statap_with_every_inclusion_probability_one_is_map_with_zero_variance(
    data: tuple[Qrels, RunDict], level: int
) -> None:
    qrels, run = data
    mq = _mq_prel({t: {d: (rel, 1.0) for d, rel in ds.items()} for t, ds in qrels.items()})
    measures = parse_measures(["statAP", "statAP_var", "map"], design="mq")
    result = evaluate_run(Judgments.from_mq(mq), _run(run), measures, EvalOptions(level=level))
    np.testing.assert_allclose(result.per_topic["statAP"], result.per_topic["map"], rtol=0, atol=1e-12)
    assert np.all(result.per_topic["statAP_var"] == 0)


def test_statap_reads_inclusion_probabilities_from_an_mq_prel_file(tmp_path: Path) -> None:
    # The hand-made prel of test_worked_examples, as a file with topics and docs out of order; a
    # second topic with no sampled relevant doc (R̂ = 0) scores 0.
    path = tmp_path / "prels.txt"
    path.write_text(
        "T c 1 1 0.5\nU v 0 1 0.5\nT a 1 1 1.0\nT e -1 0 0.5\nT d 1 2 0.25\nT b 0 1 0.5\nU w -1 1 0.3\n"
    )
    measures = parse_measures(["statAP", "statAP_var"], design="mq")
    run = _run({"T": {"a": 4.0, "x": 3.0, "c": 2.0, "b": 1.0}, "U": {"v": 1.0, "w": 0.5}})
    result = evaluate_run(Judgments.from_mq(read_mq_prel(path)), run, measures)
    assert _value(result, "statAP", "T") == pytest.approx((1 + 4 / 3) / 7)
    assert _value(result, "statAP_var", "T") == pytest.approx((14 / 9) / 49)
    assert _value(result, "statAP", "U") == 0.0
    assert _value(result, "statAP_var", "U") == 0.0


def test_statap_needs_inclusion_probabilities() -> None:
    with pytest.raises(MeasureError, match="--mq-prel"):
        parse_measures(["statAP"])
    assert "statAP" not in {m.family for m in parse_measures(["all_trec"], design="mq")}


# -------------------------------------------------------------------------------- names


def test_ir_measures_names_print_as_written_and_trec_names_as_trec_eval_would() -> None:
    qrels, run = {"101": {"a": 1}}, {"101": {"a": 1.0}}
    names = [
        "RBP(rel=1,p=0.5)@3",
        "ERR@10",
        "Judged@5",
        "RR@5",
        "bpref_10",
        "judged.5",
        "err.10",
        "rbp_p.0.5",
    ]
    result = _ours(qrels, run, names)
    assert result.names == [*names[:5], "judged_5", "err_10", "rbp_p_0.50"]
    assert _value(result, "RBP(rel=1,p=0.5)@3", "101") == _value(result, "rbp_p_0.50", "101") == 0.5
    assert not math.isnan(_value(result, "bpref_10", "101"))


def test_rbp_refuses_a_persistence_outside_zero_one() -> None:
    with pytest.raises(ValueError, match="persistence"):
        _ours({"101": {"a": 1}}, {"101": {"a": 1.0}}, ["RBP(p=1.5)"])
