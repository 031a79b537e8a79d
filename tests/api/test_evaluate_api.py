"""``rw.evaluate`` gives the command's numbers, for every vocabulary and every input shape."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import pytest

import relevance_workbench as rw
from engine.cli import main
from tests.api.conftest import Collection

TREC_EVAL_NAMES = ["all_trec", "P.3,7", "ndcg_cut.4", "iprec_at_recall..25", "success.2", "set_F.0.5"]
IR_MEASURES_NAMES = [
    "nDCG@10",
    "P(rel=2)@5",
    "AP",
    "RR",
    "Bpref",
    "infAP",
    "R@20",
    "Judged@10",
    "ERR@10",
    "RBP(p=0.5)",
    "SetF(beta=2)",
    "NumRet(rel=1)",
    "IPrec@0.3",
    "nDCG(dcg='exp-log2')@5",
    "AP(rel=2)@10",
    "NumQ",
]
PYTREC_EVAL_NAMES = ["P_10", "ndcg_cut_10", "recall_100", "map_cut_5", "iprec_at_recall_0.10", "success_1"]


def command_values(qrels: Path, runs: list[Path], measures: list[str], *flags: str) -> dict[str, Any]:
    """``manage.py evaluate -q --format json`` parsed: {run: {measure: {topic or 'all': value}}}."""
    out, err = io.StringIO(), io.StringIO()
    args = [*flags, "-q", "--format", "json", *(a for m in measures for a in ("-m", m))]
    assert main([*args, str(qrels), *map(str, runs)], out, err) == 0, err.getvalue()
    values: dict[str, Any] = {}
    for run in json.loads(out.getvalue())["runs"]:
        by_measure: dict[str, dict[str, Any]] = {}
        for topic, row in run["per_topic"].items():
            for m, v in row.items():
                by_measure.setdefault(m, {})[topic] = v
        for m, v in run["all"].items():
            by_measure.setdefault(m, {})["all"] = v
        values[run["run"]] = by_measure
    return values


def api_values(results: rw.Results) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for run, topic, measure, value in results.rows():
        out.setdefault(run, {}).setdefault(measure, {})[topic] = value
    return out


def assert_same(api: dict[str, Any], command: dict[str, Any]) -> None:
    """Exactly equal: JSON keeps full float precision; null is NaN; runid/relstring are not numbers."""
    assert set(api) == set(command)
    checked = 0
    for run, measures in command.items():
        for measure, topics in measures.items():
            if measure == "runid" or any(isinstance(v, str) for v in topics.values()):
                continue
            assert measure in api[run], f"{run}: {measure} missing from the API's results"
            for topic, v in topics.items():
                got = api[run][measure][topic]
                if v is None:
                    assert math.isnan(got), (run, measure, topic)
                else:
                    assert got == v, (run, measure, topic, got, v)
                checked += 1
        assert set(api[run]) == {m for m in measures if m != "runid" and m != "relstring"}
    assert checked > 0


def _runs(c: Collection) -> list[Path]:
    return list(c.runs.values())


def test_trec_eval_names_give_the_command_values(collection: Collection) -> None:
    results = rw.evaluate(collection.qrels, _runs(collection), TREC_EVAL_NAMES)
    assert_same(api_values(results), command_values(collection.qrels, _runs(collection), TREC_EVAL_NAMES))
    assert "relstring" in results.text["bm25"]
    assert results.runids == {r: f"tag_{r}" for r in collection.runs}


def test_ir_measures_names_give_the_command_values(collection: Collection) -> None:
    results = rw.evaluate(collection.qrels, _runs(collection), IR_MEASURES_NAMES)
    assert results.measures == IR_MEASURES_NAMES
    assert_same(api_values(results), command_values(collection.qrels, _runs(collection), IR_MEASURES_NAMES))


def test_pytrec_eval_names_give_the_command_values(collection: Collection) -> None:
    results = rw.evaluate(collection.qrels, _runs(collection), PYTREC_EVAL_NAMES)
    assert results.measures == PYTREC_EVAL_NAMES
    assert_same(api_values(results), command_values(collection.qrels, _runs(collection), PYTREC_EVAL_NAMES))


def test_options_mirror_the_command_flags(collection: Collection) -> None:
    names = ["official", "ndcg_cut.5", "nDCG@10", "P_5"]
    results = rw.evaluate(
        collection.qrels, _runs(collection), names, level=2, judged_only=True, complete=True, max_docs=10
    )
    command = command_values(collection.qrels, _runs(collection), names, "-l", "2", "-J", "-c", "-M", "10")
    assert_same(api_values(results), command)
    assert results.missing_topics["rerank"] == ["406", "499"]


def test_default_measures_are_the_commands_official_set(collection: Collection) -> None:
    results = rw.evaluate(collection.qrels, collection.runs["bm25"])
    assert results.runs == ["bm25"]
    assert_same(
        api_values(results), command_values(collection.qrels, [collection.runs["bm25"]], ["official"])
    )


def test_ir_measures_measure_objects_are_accepted() -> None:
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import AP, P, nDCG

    qrels = {"1": {"a": 2, "b": 0, "c": 1}}
    run = {"1": {"a": 0.5, "b": 0.9, "c": 0.1}}
    got = rw.evaluate(qrels, run, [nDCG @ 10, P(rel=2) @ 5, AP]).aggregates()["run"]
    want = rw.evaluate(qrels, run, ["nDCG@10", "P(rel=2)@5", "AP"]).aggregates()["run"]
    assert got == want
    assert list(got) == ["nDCG@10", "P(rel=2)@5", "AP"]
    assert ir_measures is not None


TREC_EVAL_TESTS = Path(__file__).resolve().parents[1] / "data" / "trec_eval" / "test"


def test_preference_formats_give_the_command_values() -> None:
    pytest.importorskip("engine.prefs")
    prefs, run = TREC_EVAL_TESTS / "prefs.test", TREC_EVAL_TESTS / "prefs.results.test"
    results = rw.evaluate(prefs, run, ["all_prefs"], rel_format="prefs")
    assert "prefs_simp" in results.measures
    assert_same(api_values(results), command_values(prefs, [run], ["all_prefs"], "-R", "prefs"))
    with pytest.raises(rw.InputError, match="file path"):
        rw.evaluate({"1": {"a": 1}}, run, ["all_prefs"], rel_format="prefs")


def test_sample_eval_prel_design_gives_the_command_values(collection: Collection, tmp_path: Path) -> None:
    prel = tmp_path / "sample.prel"
    prel.write_text(
        "".join(
            f"{t} 0 {d} {1 + i % 3} {g if i % 4 else -1}\n"
            for i, (t, d, g) in enumerate(collection.qrels_rows)
        )
    )
    runs = _runs(collection)
    results = rw.evaluate(prel, runs, design="prel")  # default: the sample_eval group
    assert "xinfAP" in results.measures
    assert_same(api_values(results), command_values(prel, runs, ["sample_eval"], "--prel"))
    with pytest.raises(rw.MeasureError, match="--prel"):
        rw.evaluate(collection.qrels, runs, ["xinfAP"])


def test_a_run_with_no_topic_in_common_is_refused(tmp_path: Path) -> None:
    qrels = {"1": {"a": 1}, "2": {"x": 1}}
    refused = r"no topic in common \(run topics 401, 402; judgments topics 1, 2\)"
    with pytest.raises(rw.InputError, match=refused):
        rw.evaluate(qrels, {"other": {"401": {"a": 1.0}, "402": {"x": 2.0}}}, ["map"])
    with pytest.raises(ValueError, match="no topic in common"):
        rw.evaluate(qrels, {"other": {"401": {"a": 1.0}}}, ["map"], complete=True)
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r.run").write_text("9 Q0 a 1 1.0 t\n")
    with pytest.raises(rw.InputError, match="run 'r' and the judgments have no topic in common"):
        rw.evaluate(tmp_path / "q", [tmp_path / "r.run"], ["map"])
    shared = rw.evaluate(qrels, {"some": {"401": {"a": 1.0}, "2": {"x": 2.0}}}, ["map"])
    assert shared.aggregates() == {"some": {"map": 1.0}}
