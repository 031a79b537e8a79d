"""ir_measures' functions on the workbench: ``rw.calc_aggregate``, ``rw.iter_calc``, ``rw.calc``,
``rw.evaluator``, keyed by the Measure objects passed and by their names, equal to ir_measures'
own results; NumQ and NumRel count a qrels topic the run lacks as ir_measures does (0)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import relevance_workbench as rw
from engine.cli import main
from tests.api.conftest import Collection

ir_measures = pytest.importorskip("ir_measures")

# computed by ir_measures' default pipeline (pytrec_eval), whose scores and ties match the engine's
CHECKED = ["AP", "nDCG@10", "P@5", "RR", "R@10", "Bpref", "nDCG", "P(rel=2)@10", "Rprec", "SetP", "infAP"]
COUNTS = ["NumQ", "NumRel", "NumRet", "NumRelRet", "NumRet(rel=2)"]


def measures(names: list[str]) -> list[Any]:
    return [ir_measures.parse_measure(n) for n in names]


def inputs(c: Collection, run: str = "rerank") -> tuple[list[Any], list[Any]]:
    """ir_measures' records of the collection; rerank lacks qrels topic 406, no run has 499."""
    qrels = list(ir_measures.read_trec_qrels(str(c.qrels)))
    return qrels, list(ir_measures.read_trec_run(str(c.runs[run])))


def test_calc_aggregate_is_keyed_by_the_measures_and_by_their_names(collection: Collection) -> None:
    qrels, run = inputs(collection)
    ms = measures(CHECKED + COUNTS)
    ours = rw.calc_aggregate(ms, qrels, run)
    theirs = ir_measures.calc_aggregate(ms, qrels, run)
    assert set(ours) == set(theirs) == set(ms)  # the very objects passed, as ir_measures keys them
    for m in ms:
        assert ours[m] == pytest.approx(theirs[m], abs=1e-12), m
        assert ours[str(m)] == ours[m]  # and by name
        assert str(m) in ours and ours.get(str(m)) == ours[m]
    nDCG, P = ir_measures.nDCG, ir_measures.P
    assert ours[nDCG @ 10] == ours["nDCG@10"] and ours[P @ 5] == ours["P@5"]
    assert ours.get("P@7") is None and "P@7" not in ours
    with pytest.raises(KeyError):
        ours[P @ 7]


def test_names_work_as_measures_and_objects_find_them(collection: Collection) -> None:
    qrels, run = inputs(collection)
    by_name = rw.calc_aggregate(["nDCG@10", "AP"], qrels, run)
    assert list(by_name) == ["nDCG@10", "AP"]
    assert by_name[ir_measures.nDCG @ 10] == by_name["nDCG@10"]
    several = rw.calc_aggregate(["P.5,10"], qrels, run)  # a trec_eval name with two columns
    assert list(several) == ["P_5", "P_10"]


def test_iter_calc_and_calc_equal_ir_measures(collection: Collection) -> None:
    qrels, run = inputs(collection)
    ms = measures(CHECKED + COUNTS)
    theirs = {(m.query_id, m.measure): m.value for m in ir_measures.iter_calc(ms, qrels, run)}
    ours = {(m.query_id, m.measure): m.value for m in rw.iter_calc(ms, qrels, run)}
    assert set(ours) == set(theirs)  # the missing topic 406 and the unrun 499 included
    for key, value in theirs.items():
        assert ours[key] == pytest.approx(value, abs=1e-12), key
    aggregated, per_query = rw.calc(ms, qrels, run)
    assert aggregated == rw.calc_aggregate(ms, qrels, run)
    assert {(m.query_id, m.measure) for m in per_query} == set(theirs)


def test_an_evaluator_takes_many_runs(collection: Collection) -> None:
    qrels, _ = inputs(collection)
    ms = measures(["AP", "nDCG@10", "NumQ"])
    ours, theirs = rw.evaluator(ms, qrels), ir_measures.evaluator(ms, qrels)
    for name in collection.runs:
        _, run = inputs(collection, name)
        got, want = ours.calc_aggregate(run), theirs.calc_aggregate(run)
        assert got == pytest.approx(want, abs=1e-12), name


def test_numq_and_numrel_leave_out_a_topic_the_run_lacks_as_ir_measures(collection: Collection) -> None:
    qrels, run = inputs(collection)
    ms = measures(["NumQ", "NumRel", "NumRel(rel=2)"])
    theirs = ir_measures.calc_aggregate(ms[:2], qrels, run)
    # rerank ranks 6 of the 7 qrels topics (not 406, nor 499 which no run has)
    assert theirs[ms[0]] == 5
    ours = rw.calc_aggregate(ms, qrels, run)
    assert ours["NumQ"] == theirs[ms[0]] and ours["NumRel"] == theirs[ms[1]]
    per_topic = {(m.query_id, str(m.measure)): m.value for m in rw.iter_calc(ms, qrels, run)}
    assert per_topic[("406", "NumQ")] == per_topic[("406", "NumRel")] == per_topic[("499", "NumRel")] == 0
    # rw.evaluate(complete=True) is ir_measures' topic set: the same numbers
    full = rw.evaluate(qrels, {"rerank": run}, ms, complete=True).aggregates()["rerank"]
    assert dict(full) == {str(m): ours[m] for m in ms}


def test_trec_eval_num_q_and_num_rel_still_count_every_qrels_topic_under_c(collection: Collection) -> None:
    # trec_eval -c: num_q counts the topics the run lacks, num_rel sums every topic's relevant docs
    out = io.StringIO()
    args = ["-c", "-q", "--format", "json", "-m", "num_q", "-m", "num_rel", "-m", "NumQ", "-m", "NumRel"]
    assert main([*args, str(collection.qrels), str(collection.runs["rerank"])], out, io.StringIO()) == 0
    run = json.loads(out.getvalue())["runs"][0]
    qrels_topics = {t for t, _, _ in collection.qrels_rows}
    assert run["all"]["num_q"] == len(qrels_topics) == 7
    assert run["all"]["NumQ"] == 5
    assert run["per_topic"]["406"]["NumQ"] == 0 and run["per_topic"]["406"]["NumRel"] == 0
    relevant = sum(1 for _, _, g in collection.qrels_rows if g >= 1)
    assert run["all"]["num_rel"] == relevant > run["all"]["NumRel"]


def test_evaluate_results_answer_to_measure_objects(collection: Collection) -> None:
    qrels, run = inputs(collection)
    nDCG = ir_measures.nDCG
    results = rw.evaluate(qrels, {"rerank": run}, [nDCG @ 10, "map"], complete=True)
    assert results.aggregates()["rerank"][nDCG @ 10] == results.aggregates()["rerank"]["nDCG@10"]
    assert results.per_topic()["rerank"][nDCG @ 10]["401"] == results.per_topic()["rerank"]["nDCG@10"]["401"]
    assert list(results.aggregates()["rerank"]) == ["nDCG@10", "map"]  # keyed by names, as documented


def test_the_provider_answers_to_names_too(collection: Collection) -> None:
    from engine.ir_provider import workbench_provider

    qrels, run = inputs(collection)
    ms = measures(["AP", "nDCG@10"])
    found = workbench_provider().calc_aggregate(ms, qrels, run)
    assert found[ms[1]] == found["nDCG@10"]
    assert found == pytest.approx(ir_measures.calc_aggregate(ms, qrels, run), abs=1e-12)
    aggregated, _ = workbench_provider().calc(ms, qrels, run)
    assert aggregated["AP"] == aggregated[ms[0]] == found[ms[0]]


def test_a_run_sharing_no_topic_is_refused(collection: Collection, tmp_path: Path) -> None:
    qrels, _ = inputs(collection)
    with pytest.raises(rw.InputError, match="no topic in common"):
        rw.calc_aggregate(measures(["AP"]), qrels, {"1": {"d": 1.0}})


def test_an_unknown_measure_is_refused_before_any_run(collection: Collection) -> None:
    qrels, _ = inputs(collection)
    with pytest.raises(rw.MeasureError, match="unknown measure"):
        rw.evaluator(["nDGC@10"], qrels)
