"""``relevance_workbench.pytrec_eval.RelevanceEvaluator`` returns pytrec_eval's dicts.

Compared with pytrec_eval-terrier itself (same keys, values equal to 1e-12) on hand cases, on
random collections (hypothesis) and on the reference data's TREC runs. pytrec_eval is left out
where it cannot answer: a qrels topic whose grades are all negative and a run topic with no
documents crash it or return uninitialised memory (``runid`` likewise), so those cases are checked
against what the docstring promises instead.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import relevance_workbench as rw
import relevance_workbench.pytrec_eval as compat

pytrec_eval = pytest.importorskip("pytrec_eval")

TOLERANCE = 1e-12
# pytrec_eval's runid is whatever its value slot held (0.0, or uninitialised memory): key only
VALUE_UNDEFINED = {"runid"}
QRELS = {
    "1": {"a": 1, "b": 0, "c": 2, "e": -1},
    "2": {"a": 1, "d": 0},
    "3": {"x": 1},  # judged, not in the run
    "4": {},  # no documents: dropped, as pytrec_eval drops it
}
RUN = {
    "1": {"a": 1.0, "b": 0.5, "z": 0.2, "e": 0.2},
    "2": {"d": 1.0, "a": 0.5},
    "9": {"z": 1.0},  # not judged: left out
}


def assert_same(ours: dict[str, dict[str, float]], theirs: dict[str, dict[str, float]], context: Any) -> None:
    assert list(ours) == list(theirs), context  # the same topics, in the run's order
    for topic, values in theirs.items():
        assert set(ours[topic]) == set(values), (context, topic)
        for name, want in values.items():
            if name in VALUE_UNDEFINED:
                continue
            got = ours[topic][name]
            same = (math.isnan(got) and math.isnan(want)) or abs(got - want) <= TOLERANCE
            assert same, (context, topic, name, got, want)


def both(qrels: Any, run: Any, measures: Any, **options: Any) -> tuple[Any, Any]:
    ours = compat.RelevanceEvaluator(qrels, measures, **options).evaluate(run)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures, **options).evaluate(run)
    return ours, theirs


def test_the_measure_and_nickname_tables_are_pytrec_evals() -> None:
    assert compat.supported_measures == set(pytrec_eval.supported_measures)
    assert compat.supported_nicknames == {k: set(v) for k, v in pytrec_eval.supported_nicknames.items()}


NAMES = [
    *sorted(pytrec_eval.supported_measures),
    "official",
    "set",
    "all_trec",
    "P_5",
    "P.5,10",
    "P_5,7",
    "ndcg_cut.3,1",
    "ndcg_cut_10",
    "Rprec_mult.0.5",
    "iprec_at_recall.0.25",
    "iprec_at_recall_0.10",
    "11pt_avg.0.5,0.25",
    "set_F_0.5",
    "set_F.0.5",
    "relstring.3",
    "map.5",  # trec_eval ignores a parameter of a measure that takes none
    "success_2",
    "relative_P.3",
    "map_cut.2",
    "recall.3",
    "P.2.5",  # read with atol: P_2
    "P_05",
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "options", [{}, {"relevance_level": 2}, {"judged_docs_only_flag": True}], ids=["default", "l2", "J"]
)
def test_each_name_gives_pytrec_evals_keys_and_values(name: str, options: dict[str, Any]) -> None:
    assert_same(*both(QRELS, RUN, {name}, **options), (name, options))


@pytest.mark.parametrize(
    "measures",
    [{"P", "P_5"}, ["map", "P_5", "P.10"], {"ndcg_cut", "ndcg_cut.3"}, ("official", "ndcg"), {"set", "P.7"}],
    ids=str,
)
def test_names_combine_as_pytrec_eval_combines_them(measures: Any) -> None:
    ours, theirs = both(QRELS, RUN, measures)
    assert_same(ours, theirs, measures)
    if measures == {"P", "P_5"}:
        assert set(ours["1"]) == {"P_5"}  # pytrec_eval's quirk: the bare name adds no cutoff


def test_float32_ties_rank_by_docno_as_in_pytrec_eval() -> None:
    # a scores 1 + 2^-30, b scores 1: distinct doubles, one float32; trec_eval 9 ties them and
    # ranks b first (docno descending), so recip_rank is 1/2 where rw.evaluate (doubles) gives 1
    qrels = {"1": {"a": 1, "b": 0}}
    run = {"1": {"a": 1.0 + 2.0**-30, "b": 1.0}}
    ours, theirs = both(qrels, run, {"recip_rank"})
    assert ours == theirs == {"1": {"recip_rank": 0.5}}
    assert rw.evaluate(qrels, run, ["recip_rank"]).aggregates()["run"]["recip_rank"] == 1.0


def test_recall_levels_count_relevant_documents_as_trec_eval_9() -> None:
    # R = 6, relevant at ranks 1, 3, 4: recall 0.2 is the (long)(1.2 + 0.9) = 2nd relevant doc in
    # trec_eval 9 (3/4 at rank 4 is the best precision from there on), lround(1.2) = 1st in 10.0
    qrels = {"1": {"r1": 1, "r3": 1, "r4": 1, "u1": 1, "u2": 1, "u3": 1, "n2": 0}}
    run = {"1": {"r1": 4.0, "n2": 3.0, "r3": 2.0, "r4": 1.0}}
    ours, theirs = both(qrels, run, {"iprec_at_recall.0.2", "11pt_avg"})
    assert_same(ours, theirs, "recall rounding")
    assert ours["1"]["iprec_at_recall_0.20"] == 3 / 4
    assert rw.evaluate(qrels, run, ["iprec_at_recall.0.2"]).aggregates()["run"]["iprec_at_recall_0.20"] == 1.0


def test_gm_measures_are_per_topic_logs_and_aggregate_as_pytrec_eval() -> None:
    ours, theirs = both(QRELS, RUN, {"gm_map", "map", "num_q"})
    assert_same(ours, theirs, "gm")
    assert ours["1"]["gm_map"] == math.log(max(ours["1"]["map"], 0.00001))
    assert ours["2"]["num_q"] == 1.0
    values = [v["gm_map"] for v in ours.values()]
    assert compat.compute_aggregated_measure("gm_map", values) == pytrec_eval.compute_aggregated_measure(
        "gm_map", values
    )


def test_an_empty_run_and_a_run_of_unjudged_topics_give_empty_dicts() -> None:
    evaluator = compat.RelevanceEvaluator(QRELS, {"map"})
    assert evaluator.evaluate({}) == {} == pytrec_eval.RelevanceEvaluator(QRELS, {"map"}).evaluate({})
    assert evaluator.evaluate({"9": {"z": 1.0}}) == {}


def test_an_evaluator_evaluates_many_runs() -> None:
    ours = compat.RelevanceEvaluator(QRELS, {"map", "P_5"})
    theirs = pytrec_eval.RelevanceEvaluator(QRELS, {"map", "P_5"})
    for run in (RUN, {"2": {"a": 3.0}}, {"1": {"c": 1.0, "a": 0.5}}):
        assert_same(ours.evaluate(run), theirs.evaluate(run), run)


def test_a_run_topic_without_documents_scores_zero_but_counts() -> None:
    # pytrec_eval's trec_eval 9 cannot rank such a topic and keeps the zeros it started from (and
    # with some measure sets crashes), so this is checked against that rule, not against it
    got = compat.RelevanceEvaluator(QRELS, {"map", "num_rel", "num_q", "gm_map", "P_5"}).evaluate(
        {"1": {}, "2": {"a": 1.0}}
    )
    assert got["1"] == {"num_q": 1.0, "num_rel": 0.0, "map": 0.0, "gm_map": 0.0, "P_5": 0.0}
    assert got["2"]["map"] == 1.0


def test_a_topic_whose_grades_are_all_negative_scores_zero() -> None:
    # pytrec_eval crashes the interpreter on this input (trec_eval 9 reads past a zero-length
    # array); here the topic is a topic with nothing judged: every retrieved document unjudged
    qrels = {"1": {"a": -1, "b": -2}, "2": {"a": 1}}
    got = compat.RelevanceEvaluator(qrels, {"map", "num_rel", "num_ret", "bpref", "P_5"}).evaluate(
        {"1": {"a": 2.0, "c": 1.0}, "2": {"a": 1.0}}
    )
    assert got["1"] == {"num_ret": 2.0, "num_rel": 0.0, "map": 0.0, "bpref": 0.0, "P_5": 0.0}


@pytest.mark.parametrize(
    ("measures", "options", "error", "message"),
    [
        ({"foo"}, {}, ValueError, "unsupported measure foo"),
        ({"P_5abc"}, {}, ValueError, "unsupported measure P_5abc"),
        ({"all_prefs"}, {}, ValueError, "unsupported measure prefs_"),
        ({"P_5_10"}, {}, ValueError, "unsupported measure P_5_10"),
        ({"ndcg.1"}, {}, ValueError, "malformed pair parameters"),  # pytrec_eval aborts here
        # pytrec_eval's set of parameters merges the 0s: utility.0,1, which trec_eval cannot read
        ({"utility_1,0,0,0"}, {}, ValueError, "utility takes 4 coefficients"),
        ({"map"}, {"relevance_level": 0}, TypeError, "relevance_level should be positive"),
        ("map", {}, TypeError, "not a string"),
    ],
)
def test_bad_arguments_raise_as_pytrec_eval(
    measures: Any, options: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        compat.RelevanceEvaluator(QRELS, measures, **options)


def test_keys_and_values_of_the_wrong_type_raise_type_error() -> None:
    with pytest.raises(TypeError, match="topic ids must be strings"):
        compat.RelevanceEvaluator({1: {"a": 1}}, {"map"})  # type: ignore[dict-item]
    evaluator = compat.RelevanceEvaluator(QRELS, {"map"})
    with pytest.raises(TypeError, match="a score must be a number"):
        evaluator.evaluate({"1": {"a": "high"}})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="docnos must be strings"):
        evaluator.evaluate({"1": {7: 1.0}})  # type: ignore[dict-item]


def test_parse_run_and_parse_qrel_read_as_pytrec_evals() -> None:
    run_lines = ["1 Q0 a 1 2.5 tag\n", "1 Q0 b 2 1.5 tag\n", "2 Q0 a 1 3 tag\n"]
    qrel_lines = ["1 0 a 1\n", "1 0 b 0\n", "2 0 a 2\n"]
    assert compat.parse_run(run_lines) == pytrec_eval.parse_run(run_lines)
    assert compat.parse_qrel(qrel_lines) == pytrec_eval.parse_qrel(qrel_lines)
    with pytest.raises(rw.InputError, match="docno a twice in topic 1"):
        compat.parse_run([*run_lines, "1 Q0 a 3 0.5 tag\n"])


def test_the_evaluator_is_importable_from_the_package() -> None:
    assert rw.RelevanceEvaluator is compat.RelevanceEvaluator


# --------------------------------------------------------------------------- random collections

DOCNOS = ("d1", "d10", "d2", "D3", "a", "b0", "zz", "d11", "x", "y")
TOPICS = ("1", "01", "10", "7")
# exact in float32 and in double, plus pairs that differ in double but tie in float32
SCORES = st.one_of(
    st.integers(-8, 8).map(lambda i: i / 4),
    st.sampled_from((1.0 + 2.0**-30, 1.0, 0.1, 0.1 + 2.0**-40, -2.5e-8)),
)
COMPARED = sorted(set(pytrec_eval.supported_measures))


@st.composite
def collections(draw: st.DrawFn) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for topic in TOPICS:
        side = draw(st.sampled_from(("both", "both", "both", "qrels only", "run only", "neither")))
        if side in ("both", "qrels only"):
            qrels[topic] = draw(st.dictionaries(st.sampled_from(DOCNOS), st.integers(-1, 3), min_size=1))
        if side in ("both", "run only"):
            run[topic] = draw(st.dictionaries(st.sampled_from(DOCNOS), SCORES, min_size=1))
    assume(qrels and run)
    # the input that crashes pytrec_eval (see test_a_topic_whose_grades_are_all_negative_scores_zero)
    assume(all(any(g >= 0 for g in docs.values()) for docs in qrels.values()))
    return qrels, run


@settings(max_examples=120, deadline=None)
@given(collections(), st.sampled_from((1, 2)), st.booleans())
def test_every_measure_equals_pytrec_eval_on_random_collections(
    data: tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]], level: int, judged_only: bool
) -> None:
    qrels, run = data
    options = {"relevance_level": level, "judged_docs_only_flag": judged_only}
    assert_same(*both(qrels, run, set(COMPARED), **options), (qrels, run, options))


# --------------------------------------------------------------------------- reference data


def _read(path: Path, columns: tuple[int, int, int], kind: type) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    q, d, v = columns
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields:
            out.setdefault(fields[q], {})[fields[d]] = kind(fields[v])
    return out


@pytest.mark.parametrize("collection", ["robust05", "dlhard-passage", "edge"])
def test_equal_to_pytrec_eval_on_the_reference_runs(refdata: Path, collection: str) -> None:
    folder = refdata / "data" / collection
    qrels = _read(next(folder.glob("qrels.*.txt")), (0, 2, 3), int)
    # topics whose grades are all negative (edge's 104) crash pytrec_eval: tested above instead
    qrels = {t: docs for t, docs in qrels.items() if any(g >= 0 for g in docs.values())}
    measures = set(COMPARED)
    ours = compat.RelevanceEvaluator(qrels, measures)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures)
    runs = sorted((folder / "runs").glob("*.run"))
    assert runs
    for path in runs:
        run = _read(path, (0, 2, 4), float)
        assert_same(ours.evaluate(run), theirs.evaluate(run), path.name)
