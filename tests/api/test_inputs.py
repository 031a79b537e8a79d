"""DataFrames, dicts, ir_measures records and engine objects give exactly the values of the files;
ir_measures' own calc_aggregate / iter_calc agree; bad input raises one clear exception."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import relevance_workbench as rw
from tests.api.conftest import Collection
from tests.conftest import python_stdout

pd = pytest.importorskip("pandas")

MEASURES = ["map", "P.5", "ndcg_cut.10", "nDCG@10", "P(rel=2)@5", "bpref", "recall_10", "num_ret", "num_rel"]


def from_files(c: Collection) -> rw.Results:
    return rw.evaluate(c.qrels, {r: p for r, p in c.runs.items()}, MEASURES)


def qrels_frame(c: Collection, names: tuple[str, str, str]) -> Any:
    return pd.DataFrame.from_records(c.qrels_rows, columns=list(names))


def run_frames(c: Collection, names: tuple[str, str, str]) -> dict[str, Any]:
    return {r: pd.DataFrame.from_records(rows, columns=list(names)) for r, rows in c.run_rows.items()}


def assert_equal(a: rw.Results, b: rw.Results) -> None:
    assert a.runs == b.runs
    assert a.aggregates() == b.aggregates()
    assert a.per_topic() == b.per_topic()


def test_ir_measures_dataframes(collection: Collection) -> None:
    qrels = qrels_frame(collection, ("query_id", "doc_id", "relevance"))
    runs = run_frames(collection, ("query_id", "doc_id", "score"))
    assert_equal(rw.evaluate(qrels, runs, MEASURES), from_files(collection))


def test_trec_style_dataframes_with_integer_qids(collection: Collection) -> None:
    qrels = qrels_frame(collection, ("qid", "docno", "rel"))
    qrels["qid"] = qrels["qid"].astype(int)
    runs = run_frames(collection, ("qid", "docno", "score"))
    assert_equal(rw.evaluate(qrels, runs, MEASURES), from_files(collection))


def test_nested_dicts(collection: Collection) -> None:
    qrels: dict[str, dict[str, int]] = {}
    for t, d, g in collection.qrels_rows:
        qrels.setdefault(t, {})[d] = g
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for r, rows in collection.run_rows.items():
        for t, d, s in rows:
            runs.setdefault(r, {}).setdefault(t, {})[d] = s
    assert_equal(rw.evaluate(qrels, runs, MEASURES), from_files(collection))
    one = rw.evaluate(qrels, runs["dense"], ["map"])  # a single {qid: {docno: score}} run
    assert one.runs == ["run"]
    assert one.aggregates()["run"]["map"] == from_files(collection).aggregates()["dense"]["map"]


# trectools 0.0.50 (trectools/trec_qrel.py read_qrel, trectools/trec_run.py read_run): whitespace
# CSV read with these names, query/q0/docid turned to strings, runs sorted by query, score desc, docid
TRECTOOLS_QRELS = ["query", "q0", "docid", "rel"]
TRECTOOLS_RUN = ["query", "q0", "docid", "rank", "score", "system"]


def trectools_frame(path: Path, names: list[str]) -> Any:
    frame = pd.read_csv(path, sep=r"\s+", names=names)
    for column in ("docid", "q0", "query"):
        frame[column] = frame[column].astype(str)
    if "score" in frame:
        frame = frame.sort_values(["query", "score", "docid"], ascending=[True, False, True])
    return frame


class TrecQrel:
    """What rw reads of trectools' TrecQrel: its qrels_data frame (trectools needs scikit-learn,
    matplotlib, lxml... to import, so the test builds the frame as trectools does)."""

    def __init__(self, path: Path) -> None:
        self.qrels_data = trectools_frame(path, TRECTOOLS_QRELS)


class TrecRun:
    def __init__(self, path: Path) -> None:
        self.run_data = trectools_frame(path, TRECTOOLS_RUN)


def test_trectools_frames(collection: Collection) -> None:
    qrels = trectools_frame(collection.qrels, TRECTOOLS_QRELS)
    runs = {r: trectools_frame(p, TRECTOOLS_RUN) for r, p in collection.runs.items()}
    assert list(qrels.columns) == TRECTOOLS_QRELS and list(runs["bm25"].columns) == TRECTOOLS_RUN
    assert_equal(rw.evaluate(qrels, runs, MEASURES), from_files(collection))


def test_trectools_objects(collection: Collection) -> None:
    runs = {r: TrecRun(p) for r, p in collection.runs.items()}
    assert_equal(rw.evaluate(TrecQrel(collection.qrels), runs, MEASURES), from_files(collection))
    one = rw.evaluate(TrecQrel(collection.qrels), runs["dense"], ["map"])
    assert one.aggregates()["run"]["map"] == from_files(collection).aggregates()["dense"]["map"]
    listed = rw.evaluate(collection.qrels, list(runs.values()), ["map"])
    assert listed.runs == ["run1", "run2", "run3"]
    judges = rw.agreement({"a": TrecQrel(collection.qrels), "b": collection.qrels})
    assert judges.overall()[("a", "b")]["cohen"] == 1.0


def test_trectools_q0_is_the_subtopic_of_diversity_qrels(tmp_path: Path) -> None:
    qrels = tmp_path / "subtopics.qrels"
    qrels.write_text("1 1 a 1\n1 2 a 1\n1 2 b 1\n1 3 c 1\n")
    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n")
    frame = rw.evaluate(trectools_frame(qrels, TRECTOOLS_QRELS), run, ["alpha_nDCG@3"])
    assert frame.aggregates() == rw.evaluate(qrels, run, ["alpha_nDCG@3"]).aggregates()


def test_pyterrier_query_text_and_docid_do_not_shadow_qid_and_docno(collection: Collection) -> None:
    # PyTerrier's result frames carry the query text as 'query' and an index number as 'docid'
    rows = [(t, f"text of {t}", i, d, s) for i, (t, d, s) in enumerate(collection.run_rows["bm25"])]
    frame = pd.DataFrame.from_records(rows, columns=["qid", "query", "docid", "docno", "score"])
    got = rw.evaluate(collection.qrels, {"bm25": frame}, MEASURES)
    assert got.aggregates()["bm25"] == from_files(collection).aggregates()["bm25"]


def test_ir_measures_namedtuples(collection: Collection) -> None:
    from ir_measures import Qrel, ScoredDoc

    qrels = [Qrel(t, d, g) for t, d, g in collection.qrels_rows]
    runs = {r: (ScoredDoc(t, d, s) for t, d, s in rows) for r, rows in collection.run_rows.items()}
    assert_equal(rw.evaluate(iter(qrels), runs, MEASURES), from_files(collection))


def test_a_list_of_paths_is_named_like_the_command(collection: Collection) -> None:
    results = rw.evaluate(str(collection.qrels), [str(p) for p in collection.runs.values()], ["map"])
    assert results.runs == list(collection.runs)


def test_run_files_sharing_a_name_are_named_as_the_command_names_them(
    collection: Collection, tmp_path: Path
) -> None:
    from engine.cli import unique_run_names

    paths = []
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        paths.append(tmp_path / folder / "bm25.run")
        paths[-1].write_bytes(collection.runs["bm25"].read_bytes())
    results = rw.evaluate(collection.qrels, paths, ["map"])
    assert results.runs == unique_run_names([str(p) for p in paths]) == ["a/bm25", "b/bm25"]


def test_to_frame_is_long_with_the_aggregate_as_topic_all(collection: Collection) -> None:
    results = from_files(collection)
    df = results.to_frame()
    assert list(df.columns) == ["run", "topic", "measure", "value"]
    agg = df[df.topic == "all"]
    assert {(r.run, r.measure): r.value for r in agg.itertuples()} == {
        (run, m): v for run, values in results.aggregates().items() for m, v in values.items()
    }
    per = df[df.topic != "all"]
    assert len(per) == sum(len(t) for m in results.per_topic().values() for t in m.values())
    wide = results.to_frame(wide=True)
    assert list(wide.columns) == results.measures
    assert wide.loc[("bm25", "all"), "map"] == results.aggregates()["bm25"]["map"]
    assert results.to_frame(per_topic=False).topic.unique().tolist() == ["all"]
    html = results._repr_html_()  # what a notebook shows: the aggregates, runs x measures
    assert html is not None and "bm25" in html and "nDCG@10" in html


IR_MEASURES_CHECKED = ["AP", "nDCG@10", "P@5", "RR", "R@10", "Bpref", "nDCG", "P(rel=2)@10"]


def test_ir_measures_calc_aggregate_and_iter_calc_agree(collection: Collection) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    qrels = list(ir_measures.read_trec_qrels(str(collection.qrels)))
    run = list(ir_measures.read_trec_run(str(collection.runs["bm25"])))
    measures = [ir_measures.parse_measure(m) for m in IR_MEASURES_CHECKED]
    theirs = {str(m): v for m, v in ir_measures.calc_aggregate(measures, qrels, run).items()}
    # ir_measures scores a qrels topic the run has nothing for as 0: trec_eval's -c
    ours = rw.evaluate(qrels, {"bm25": run}, measures, complete=True)
    assert set(theirs) == set(IR_MEASURES_CHECKED)
    for name, value in ours.aggregates()["bm25"].items():
        assert value == pytest.approx(theirs[name], abs=1e-12), name
    per_topic = ours.per_topic()["bm25"]
    seen = 0
    for metric in ir_measures.iter_calc(measures, qrels, run):
        assert per_topic[str(metric.measure)][metric.query_id] == pytest.approx(metric.value, abs=1e-12)
        seen += 1
    assert seen == sum(len(v) for v in per_topic.values())


# --------------------------------------------------------------------------- errors


def test_unknown_measure_is_a_measure_error(collection: Collection) -> None:
    with pytest.raises(rw.MeasureError, match="unknown measure 'nDGC@10'"):
        rw.evaluate(collection.qrels, collection.runs["bm25"], ["nDGC@10"])
    with pytest.raises(rw.MeasureError, match="no parameter 'rel'"):
        rw.evaluate(collection.qrels, collection.runs["bm25"], ["nDCG(rel=2)@10"])


def test_bad_frame_columns_are_an_input_error(collection: Collection) -> None:
    bad = pd.DataFrame({"topic": ["1"], "doc": ["a"], "grade": [1]})
    with pytest.raises(rw.InputError, match="query_id or qid"):
        rw.evaluate(bad, collection.runs["bm25"], ["map"])
    qrels = qrels_frame(collection, ("qid", "docno", "rel"))
    no_score = pd.DataFrame({"qid": ["401"], "docno": ["x"], "rank": [1]})
    with pytest.raises(rw.InputError, match="column named score"):
        rw.evaluate(qrels, no_score, ["map"])
    fractional = pd.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [0.5]})
    with pytest.raises(rw.InputError, match="integers"):
        rw.evaluate(fractional, collection.runs["bm25"], ["map"])


def test_other_types_are_an_input_error(collection: Collection) -> None:
    with pytest.raises(rw.InputError, match="qrels must be"):
        rw.evaluate(42, collection.runs["bm25"], ["map"])
    with pytest.raises(rw.InputError, match="query_id, doc_id and score"):
        rw.evaluate(collection.qrels, [("401", "a", 1.0)], ["map"])
    with pytest.raises(rw.InputError, match="a measure must be"):
        rw.evaluate(collection.qrels, collection.runs["bm25"], [3])


def test_a_bad_file_is_a_format_error(tmp_path: Path, collection: Collection) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("401 Q0 doc\n")
    with pytest.raises(rw.FormatError, match=r"bad\.run"):
        rw.evaluate(collection.qrels, bad, ["map"])


def test_to_frame_without_pandas_says_how_to_install_it(
    collection: Collection, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = from_files(collection)
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    with pytest.raises(rw.PandasMissing, match=r"relevance-workbench\[api\]"):
        results.to_frame()
    assert results._repr_html_() is None  # the notebook falls back to the text repr
    assert "bm25: map=" in repr(results)
    assert results.aggregates()["bm25"]["map"] > 0  # the dicts need no pandas


def test_importing_and_evaluating_never_imports_pandas(collection: Collection) -> None:
    root = Path(__file__).resolve().parents[2]
    code = (
        "import sys, relevance_workbench as rw\n"
        f"r = rw.evaluate({str(collection.qrels)!r}, {str(collection.runs['bm25'])!r}, ['map'])\n"
        "r.aggregates(); r.per_topic()\n"
        "print('pandas' in sys.modules, 'django' in sys.modules, 'scipy' in sys.modules)\n"
    )
    printed = python_stdout("-c", code, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)})
    # no pandas (optional), no Django (pure), no scipy (only compare and agreement need it: lazy)
    assert printed.split() == ["False", "False", "False"]
