"""ir_measures' own test vectors, evaluated with the workbench provider in place of the original one.

tests/data/ir_measures/vectors.json holds every provider call ir_measures' test suite makes
(terrierteam/ir_measures, see PROVENANCE.md): qrels, run, measures, the provider the test used and
what it returned, which that test accepted. Each case runs the same call on
:func:`engine.ir_provider.workbench_provider` and asserts the same values to the tolerance the
tests use (``assertAlmostEqual(..., places=4)``, i.e. round(a - b, 4) == 0) and the same topics.

Every case's measures are the provider's (cwl_eval's, diversity, Compat and Accuracy included): one
it stops supporting fails, never skips.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ir_measures = pytest.importorskip("ir_measures")

from engine.ir_provider import workbench_provider  # noqa: E402  (after the optional import)

DATA = json.loads((Path(__file__).parents[1] / "data" / "ir_measures" / "vectors.json").read_text())
PLACES = 4  # ir_measures' tests: assertAlmostEqual(..., places=4) (BaseMeasureTest.assertMetrics)


# Recorded values that are an artifact of ir_measures, not of the measure: (test, measure) -> why.
ARTIFACTS = {
    ("tests.test_pyndeval.TestPynedvalEval.test_measures", m): (
        "ir_measures' pyndeval provider hands one run iterator to each rel level's invocation, so the "
        "rel=2 invocation sees it exhausted and every topic gets the default 0 (the test asserts "
        "nothing; asked alone, pyndeval gives our values: test_pyndeval_rel2_alone_agrees)"
    )
    for m in (
        "ERR_IA(rel=2)@10",
        "nERR_IA(rel=2)@10",
        "NRBP(rel=2)",
        "nNRBP(rel=2)",
        "AP_IA(rel=2)",
        "P_IA(rel=2)@10",
        "StRecall(rel=2)@10",
    )
}


def _case_id(i: int, case: dict[str, Any]) -> str:
    test = case["test"].removeprefix("tests.")
    return f"{i:03d}-{test}-{case['call']}-{'+'.join(case['measures'])}"


CASES = [pytest.param(case, id=_case_id(i, case)) for i, case in enumerate(DATA["cases"])]


def _inputs(case: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    qrels = [ir_measures.Qrel(q, d, r, it) for q, d, r, it in DATA["qrels_tables"][case["qrels"]]]
    run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in DATA["run_tables"][case["run"]]]
    return qrels, run


def _close(ours: float, theirs: float | None) -> bool:
    if theirs is None:  # NaN recorded (an empty aggregate)
        return ours != ours
    return round(ours - theirs, PLACES) == 0


def _per_query(metrics: Any) -> dict[tuple[str, str], float]:
    return {(m.query_id, str(m.measure)): float(m.value) for m in metrics}


def _as_computed(provider_name: str, measure: Any) -> Any:
    """The measure the recorded provider actually computed for ``measure``.

    test_gdeval.py hands gdeval ``nDCG@k`` directly (a provider computes what it is given without
    checking ``supports``); gdeval.pl only knows nDCG with 2^g - 1 gains, so what it returned, and
    what the test asserts, is ``nDCG(dcg='exp-log2')@k``.
    """
    if provider_name == "gdeval" and measure.NAME == "nDCG":
        return measure(dcg="exp-log2")
    return measure


def _calc(provider: Any, case: dict[str, Any], measures: list[Any], qrels: Any, run: Any) -> tuple[Any, Any]:
    """(per-query metrics or None, aggregates or None) as the recorded call returned them, by its names."""
    computed = [_as_computed(case["provider"], m) for m in measures]
    names = {str(c): str(m) for c, m in zip(computed, measures, strict=True)}
    kind = case["call"].removeprefix("evaluator.")
    per_query = aggregate = None
    if kind == "iter_calc":
        per_query = _per_query(provider.iter_calc(computed, qrels, run))
    elif kind == "calc_aggregate":
        aggregate = {str(m): v for m, v in provider.calc_aggregate(computed, qrels, run).items()}
    else:
        result = provider.calc(computed, qrels, run)
        per_query, aggregate = _per_query(result.per_query), {str(m): v for m, v in result.aggregated.items()}
    if per_query is not None:
        per_query = {(q, names[m]): v for (q, m), v in per_query.items()}
    if aggregate is not None:
        aggregate = {names[m]: v for m, v in aggregate.items()}
    return per_query, aggregate


@pytest.mark.parametrize("case", CASES)
def test_ir_measures_case(case: dict[str, Any]) -> None:
    provider = workbench_provider()
    measures = [ir_measures.parse_measure(m) for m in case["measures"]]
    missing = [str(m) for m in measures if not provider.supports(_as_computed(case["provider"], m))]
    assert not missing, f"the workbench's provider no longer supports {', '.join(missing)}"
    qrels, run = _inputs(case)
    per_query, aggregate = _calc(provider, case, measures, qrels, run)
    skip = {m for m in case["measures"] if (case["test"], m) in ARTIFACTS}
    if "per_query" in case:
        expected = {(q, m): v for q, m, v in case["per_query"] if m not in skip}
        assert per_query is not None
        per_query = {k: v for k, v in per_query.items() if k[1] not in skip}
        assert sorted(per_query) == sorted(expected)
        wrong = {k: (per_query[k], v) for k, v in expected.items() if not _close(per_query[k], v)}
        assert not wrong, f"(ours, {case['provider']}) differ: {wrong}"
    if "aggregate" in case:
        assert aggregate is not None
        expected_agg = {m: v for m, v in case["aggregate"].items() if m not in skip}
        assert sorted(m for m in aggregate if m not in skip) == sorted(expected_agg)
        wrong_agg = {k: (aggregate[k], v) for k, v in expected_agg.items() if not _close(aggregate[k], v)}
        assert not wrong_agg, f"(ours, {case['provider']}) differ: {wrong_agg}"


def test_vectors_cover_the_suite() -> None:
    """The recorded data is the whole suite: every ir_measures test file that computes measures."""
    tests = {c["test"].split(".")[1] for c in DATA["cases"]}
    assert {"test_pytrec_eval", "test_judged", "test_gdeval", "test_measures", "test_aggregate"} <= tests
    assert len(DATA["cases"]) >= 200


def test_pyndeval_rel2_alone_agrees() -> None:
    """The ARTIFACTS above: pyndeval asked for the rel=2 measures alone gives the workbench's values."""
    pytest.importorskip("pyndeval")
    (test, _), *_ = ARTIFACTS
    case = next(c for c in DATA["cases"] if c["test"] == test)
    names = [m for m in case["measures"] if (test, m) in ARTIFACTS]
    measures = [ir_measures.parse_measure(m) for m in names]
    provider = workbench_provider()
    assert all(provider.supports(m) for m in measures), "the diversity measures left the provider"
    qrels, run = _inputs(case)
    theirs = ir_measures.pyndeval.calc_aggregate(measures, qrels, run)
    ours = provider.calc_aggregate(measures, qrels, run)
    assert all(theirs[m] > 0 for m in measures)  # not the recorded zeros
    assert {str(m): ours[m] for m in measures} == pytest.approx(
        {str(m): theirs[m] for m in measures}, abs=1e-9
    )
