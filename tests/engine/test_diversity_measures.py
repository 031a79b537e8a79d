"""The diversity measures (engine/measures/diversity.py) against pyndeval, ndeval.c's Python wrapper.

ir_measures computes alpha_nDCG, ERR_IA, NRBP... with pyndeval 0.0.8 (ndeval.c 4.5, TREC Web
track); that is the reference: its own test vectors (tests/data/diversity, with provenance),
pyndeval's README example, hand derivations of ndeval's quirks, and generated subtopic qrels and
runs compared value by value to 1e-9. docs/diversity.md explains every formula and divergence.
"""

from __future__ import annotations

import math
import random
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.evaluate import Judgments, RunResult, evaluate_run
from engine.measures.base import EvalOptions
from engine.names import MeasureError, parse_measures
from tests.conftest import refdata_dir
from trec import read_qrels, read_run
from trec.qrels import Qrels, qrels_from_arrays, qrels_from_dict
from trec.runs import RankedRun, run_from_arrays

# ir_measures 0.4 parses measure names with the deprecated ast.Num
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

DATA = Path(__file__).resolve().parents[1] / "data" / "diversity"
TOLERANCE = 1e-9

Line = tuple[str, str, str, int]  # topic, subtopic, docno, rel
Ranking = list[tuple[str, str, float]]  # topic, docno, score


def _qrels(lines: list[Line]) -> Qrels:
    return qrels_from_arrays(
        np.array([t for t, _, _, _ in lines], dtype="S"),
        np.array([d for _, _, d, _ in lines], dtype="S"),
        np.array([r for _, _, _, r in lines], dtype=np.int64),
        iters=np.array([s for _, s, _, _ in lines], dtype="S"),
    )


def _run(ranking: Ranking) -> RankedRun:
    return run_from_arrays(
        "r",
        np.array([t for t, _, _ in ranking], dtype="S"),
        np.array([d for _, d, _ in ranking], dtype="S"),
        np.array([s for _, _, s in ranking], dtype=np.float64),
    )


def _ours(
    lines: list[Line], ranking: Ranking, names: list[str], options: EvalOptions | None = None
) -> RunResult:
    return evaluate_run(Judgments(_qrels(lines)), _run(ranking), parse_measures(names), options)


def _per_topic(result: RunResult, name: str) -> dict[str, float]:
    return dict(zip(result.topics, result.per_topic[name].tolist(), strict=True))


def _pyndeval(lines: list[Line], ranking: Ranking, names: list[str]) -> dict[str, dict[str, float]]:
    """pyndeval's per-topic values through ir_measures (which also lists missing topics as 0)."""
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    qrels = [ir_measures.Qrel(t, d, r, s) for t, s, d, r in lines]
    run = [ir_measures.ScoredDoc(t, d, s) for t, d, s in ranking]
    out: dict[str, dict[str, float]] = {name: {} for name in names}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # one call per (rel, alpha, beta): ir_measures' pyndeval provider reads the run once, so
        # a second pyndeval invocation in the same call sees no documents and reports zeros
        groups: dict[tuple[Any, ...], dict[Any, str]] = {}
        for name in names:
            m = ir_measures.parse_measure(name)
            key = tuple((p, m[p]) for p in ("rel", "alpha", "beta") if p in m.SUPPORTED_PARAMS)
            groups.setdefault(key, {})[m] = name
        for measures in groups.values():
            for metric in ir_measures.pyndeval.iter_calc(list(measures), qrels, run):
                out[measures[metric.measure]][metric.query_id] = float(metric.value)
    return out


def _same(ours: float, theirs: float, tolerance: float = TOLERANCE) -> bool:
    if math.isnan(theirs) or math.isnan(ours):
        return math.isnan(theirs) and math.isnan(ours)
    return abs(ours - theirs) <= tolerance


# -------------------------------------------------------------------------------- ir_measures' own vectors


def _expected() -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in (DATA / "ir_measures_pyndeval.expected.tsv").read_text().splitlines():
        name, topic, value = line.split("\t")
        out.setdefault(name, {})[topic] = float(value)
    return out


def test_ir_measures_pyndeval_vectors_match_pyndeval_per_topic_and_in_the_mean() -> None:
    expected = _expected()
    judgments = Judgments(read_qrels(DATA / "ir_measures_pyndeval.qrels"))
    result = evaluate_run(
        judgments, read_run(DATA / "ir_measures_pyndeval.run"), parse_measures(list(expected))
    )
    assert len(expected) == 27
    for name, values in expected.items():
        got = {**_per_topic(result, name), "all": result.summary[name]}
        assert got.keys() == values.keys(), name
        for topic, want in values.items():
            assert _same(got[topic], want), (name, topic, got[topic], want)


def test_ir_measures_test_err_ia_assertions() -> None:
    # ir_measures tests/test_pyndeval.py::test_ERR_IA, to its 4 places
    judgments = Judgments(read_qrels(DATA / "ir_measures_pyndeval.qrels"))
    result = evaluate_run(
        judgments, read_run(DATA / "ir_measures_pyndeval.run"), parse_measures(["ERR_IA@20"])
    )
    assert result.topics == ["0", "1"]
    assert result.per_topic["ERR_IA@20"].round(4).tolist() == [0.4659, 0.1803]
    assert round(result.summary["ERR_IA@20"], 4) == 0.3231


def test_pyndeval_readme_example_to_its_four_truncated_decimals() -> None:
    expected = dict(
        line.split("\t") for line in (DATA / "pyndeval_readme.expected.tsv").read_text().splitlines()
    )
    judgments = Judgments(read_qrels(DATA / "pyndeval_readme.qrels"))
    measures = parse_measures(["ndeval_" + f for f in ("ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG")])
    measures += parse_measures(
        ["ndeval_NRBP", "ndeval_nNRBP", "ndeval_MAP_IA", "ndeval_P_IA", "ndeval_strec"]
    )
    result = evaluate_run(judgments, read_run(DATA / "pyndeval_readme.run"), measures)
    assert result.names == list(expected)  # ndeval's own column names, in its order
    for name, want in expected.items():
        got = float(result.per_topic[name][0])
        assert 0 <= got - float(want) < 1e-4, (name, got, want)  # the README truncates


# -------------------------------------------------------------------------------- ndeval's quirks, by hand


def test_cutoff_one_is_not_normalised_by_the_ideal_ideal() -> None:
    # D2 covers subtopics 0 and 1 of S = 3: ERR-IA@1 = alpha-DCG@1 = 2 (ndeval divides from rank 2 on)
    lines = [("0", "0", "D2", 1), ("0", "1", "D2", 1), ("0", "2", "D3", 2), ("0", "2", "D4", 2)]
    ranking = [("0", "D2", 0.8), ("0", "D3", 0.7), ("0", "D4", 0.6)]
    names = ["ERR_IA@1", "alpha_DCG@1", "nERR_IA@1", "alpha_nDCG@1", "ERR_IA@2", "P_IA@1", "StRecall@1"]
    result = _ours(lines, ranking, names)
    got = {n: float(result.per_topic[n][0]) for n in names}
    # ERR-IA@2 = (2/1 + 1/2) / (3 (1/1 + 0.5/2)) = 2.5 / 3.75
    want = {n: 2.0 for n in names[:2]} | {"nERR_IA@1": 1.0, "alpha_nDCG@1": 1.0, "ERR_IA@2": 2.5 / 3.75}
    assert got == pytest.approx(want | {"P_IA@1": 2 / 3, "StRecall@1": 2 / 3}, abs=1e-15)


def test_greedy_ideal_breaks_ties_to_the_greatest_docno_so_alpha_ndcg_can_exceed_one() -> None:
    # A = {1, 2}, B = {3, 4}, C = {1, 3}: every document first scores 2 and the greedy takes C
    # (greatest docno), then B (1.5, tied with A), then A (1.5): ideal gains 2, 1.5, 1.5. The run
    # A, B, C gains 2, 2, 1, more than the greedy "ideal".
    lines = [("7", s, d, 1) for d, subs in (("A", "12"), ("B", "34"), ("C", "13")) for s in subs]
    ranking = [("7", "A", 3.0), ("7", "B", 2.0), ("7", "C", 1.0)]
    result = _ours(lines, ranking, ["alpha_nDCG@3", "nERR_IA@3"])
    disc = 1 / math.log2(3)
    assert result.per_topic["alpha_nDCG@3"][0] == pytest.approx(
        (2 + 2 * disc + 0.5) / (2 + 1.5 * disc + 0.75)
    )
    assert result.per_topic["nERR_IA@3"][0] == pytest.approx((2 + 1 + 1 / 3) / (2 + 0.75 + 0.5))
    assert result.per_topic["alpha_nDCG@3"][0] > 1


def test_score_ties_rank_docnos_ascending_as_pyndeval_does() -> None:
    # a and b tie: pyndeval ranks a first (the engine's other measures rank b first, like trec_eval)
    lines = [("1", "0", "a", 1), ("1", "0", "b", 0)]
    result = _ours(lines, [("1", "a", 1.0), ("1", "b", 1.0)], ["P_IA@1", "P@1"])
    assert (result.per_topic["P_IA@1"][0], result.per_topic["P@1"][0]) == (1.0, 0.0)


def test_topic_without_relevant_subtopic_scores_zero_and_nnrbp_nan() -> None:
    lines = [("1", "0", "a", 1), ("2", "0", "a", 0), ("2", "1", "b", -1)]
    ranking = [("1", "a", 1.0), ("2", "a", 1.0), ("2", "b", 0.5)]
    names = ["ERR_IA@5", "nERR_IA@5", "alpha_DCG@5", "alpha_nDCG@5", "NRBP", "AP_IA", "P_IA@5", "StRecall@5"]
    result = _ours(lines, ranking, [*names, "nNRBP"])
    assert [float(result.per_topic[n][1]) for n in names] == [0.0] * len(names)
    assert math.isnan(result.per_topic["nNRBP"][1]) and result.per_topic["nNRBP"][0] == 1.0
    assert math.isnan(result.summary["nNRBP"])  # as ir_measures' mean over pyndeval's values


def test_complete_counts_a_missing_topic_as_zero_even_for_nnrbp() -> None:
    lines = [("1", "0", "a", 1), ("2", "0", "b", 1), ("3", "0", "c", 0)]
    result = _ours(lines, [("1", "a", 1.0)], ["nNRBP", "alpha_nDCG@5"], EvalOptions(complete=True))
    assert result.topics == ["1", "2", "3"]
    assert result.per_topic["nNRBP"].tolist() == [1.0, 0.0, 0.0]
    assert result.per_topic["alpha_nDCG@5"].tolist() == [1.0, 0.0, 0.0]


def test_judged_only_ranks_the_documents_found_in_the_qrels() -> None:
    # x is not in the qrels: dropping it moves a to rank 1; c (grade -1, yet in the qrels) stays
    lines = [("1", "0", "a", 1), ("1", "1", "c", -1)]
    ranking = [("1", "x", 3.0), ("1", "c", 2.0), ("1", "a", 1.0)]
    result = _ours(
        lines, ranking, ["P_IA@1", "P_IA(judged_only=True)@1", "P_IA(judged_only=True)@2", "AP_IA"]
    )
    assert result.per_topic["P_IA@1"][0] == 0.0
    assert result.per_topic["P_IA(judged_only=True)@1"][0] == 0.0
    assert result.per_topic["P_IA(judged_only=True)@2"][0] == 0.5
    filtered = _ours(lines, [r for r in ranking if r[1] != "x"], ["AP_IA"])
    judged = _ours(lines, ranking, ["AP_IA(judged_only=True)"])
    assert judged.per_topic["AP_IA(judged_only=True)"][0] == filtered.per_topic["AP_IA"][0] == 0.5


def test_cutoffs_beyond_ndeval_depth_extend_its_formulas() -> None:
    # ndeval stops at 20 (pyndeval refuses deeper cutoffs); a 3-document run shows the extension
    lines = [("1", s, d, 1) for d, s in (("a", "0"), ("a", "1"), ("b", "1"), ("c", "2"))]
    ranking = [("1", "b", 3.0), ("1", "a", 2.0), ("1", "zz", 1.0)]
    names = ["P_IA@20", "P_IA@40", "StRecall@20", "StRecall@40", "alpha_nDCG@20", "alpha_nDCG@40"]
    r = _ours(lines, ranking, [*names, "nERR_IA@20", "nERR_IA@50"])
    assert r.per_topic["P_IA@40"][0] == pytest.approx(r.per_topic["P_IA@20"][0] / 2)
    assert r.per_topic["StRecall@40"][0] == r.per_topic["StRecall@20"][0] == pytest.approx(2 / 3)
    assert r.per_topic["alpha_nDCG@40"][0] == pytest.approx(r.per_topic["alpha_nDCG@20"][0])
    assert r.per_topic["nERR_IA@50"][0] == pytest.approx(r.per_topic["nERR_IA@20"][0])


def test_ndeval_families_print_ndeval_column_names() -> None:
    lines = [("1", "0", "a", 1), ("1", "1", "b", 1)]
    result = _ours(
        lines, [("1", "b", 2.0), ("1", "a", 1.0)], ["ndeval_alpha_nDCG", "ndeval_NRBP", "alpha_nDCG@10"]
    )
    assert result.names == ["alpha-nDCG@5", "alpha-nDCG@10", "alpha-nDCG@20", "NRBP", "alpha_nDCG@10"]
    assert result.per_topic["alpha-nDCG@10"][0] == result.per_topic["alpha_nDCG@10"][0] == 1.0


@pytest.mark.parametrize(
    ("spec", "phrase"),
    [
        ("ERR_IA", "ERR_IA needs cutoff"),
        ("alpha_nDCG(alpha=1.5)@5", "alpha=1.5 is invalid"),
        ("NRBP(beta=-0.1)", "beta=-0.1 is invalid"),
        ("NRBP@5", "NRBP has no parameter 'cutoff'"),
        ("ERR_IA(alpha=0.3)@5", "ERR_IA has no parameter 'alpha'"),
        ("StRecall(judged_only=True)@5", "StRecall has no parameter 'judged_only'"),
        ("P_IA@0", "a cutoff must be a positive integer"),
    ],
)
def test_bad_parameters_are_refused_in_one_sentence(spec: str, phrase: str) -> None:
    with pytest.raises(MeasureError) as info:
        parse_measures([spec])
    assert phrase in str(info.value)


def test_aliases_name_the_same_measures() -> None:
    lines = [("1", "0", "a", 1), ("1", "1", "b", 1), ("1", "1", "a", 1)]
    ranking = [("1", "b", 2.0), ("1", "a", 1.0)]
    r = _ours(lines, ranking, ["α_nDCG@5", "alpha_nDCG@5", "α_DCG@5", "alpha_DCG@5", "MAP_IA", "AP_IA"])
    for a, b in (("α_nDCG@5", "alpha_nDCG@5"), ("α_DCG@5", "alpha_DCG@5"), ("MAP_IA", "AP_IA")):
        assert r.per_topic[a][0] == r.per_topic[b][0]


def test_standard_measures_see_the_last_line_of_a_repeated_docno() -> None:
    # a: relevant to subtopic 0, then judged 0 for subtopic 1 (last): P@1 sees 0, as ir_measures' dict
    lines = [("1", "0", "a", 1), ("1", "1", "a", 0), ("1", "1", "b", 2)]
    result = _ours(lines, [("1", "a", 2.0), ("1", "b", 1.0)], ["P@1", "P@2", "P_IA@1"])
    assert [float(result.per_topic[n][0]) for n in ("P@1", "P@2", "P_IA@1")] == [0.0, 0.5, 0.5]


# -------------------------------------------------------------------------------- against pyndeval

DOCNOS = ("d1", "d10", "d2", "D3", "a", "b0", "zz", "d11", "x", "y")
SUBTOPICS = ("0", "1", "2", "3", "10")
TOPICS = ("101", "102", "103")


@st.composite
def diversity_collections(draw: st.DrawFn) -> tuple[list[Line], Ranking]:
    """Subtopic qrels (docs judged for some subtopics only, grades -1..3, lines in any order,
    topics without relevant lines) and a run with score ties that may miss qrels topics."""
    lines: list[Line] = []
    for topic in TOPICS:
        pairs = draw(
            st.lists(
                st.tuples(st.sampled_from(SUBTOPICS), st.sampled_from(DOCNOS)),
                min_size=1,
                max_size=25,
                unique=True,
            )
        )
        top = draw(st.integers(-1, 3))  # a low cap gives topics with no relevant line
        lines += [(topic, s, d, draw(st.integers(-1, top))) for s, d in pairs]
    lines = draw(st.permutations(lines))
    ranking: Ranking = []
    for topic in (*TOPICS, "104"):
        if draw(st.integers(0, 4)) == 0:
            continue  # the run misses this topic
        docs = draw(st.lists(st.sampled_from(DOCNOS), min_size=1, unique=True))
        ranking += [(topic, d, draw(st.integers(0, 3)) / 2) for d in docs]
    return lines, ranking


def _measure_names(k: int, alpha: float, beta: float, rel: int) -> list[str]:
    return [
        f"ERR_IA(rel={rel})@{k}",
        f"nERR_IA(rel={rel})@{k}",
        f"alpha_DCG(rel={rel}, alpha={alpha})@{k}",
        f"alpha_nDCG(rel={rel}, alpha={alpha})@{k}",
        f"NRBP(rel={rel}, alpha={alpha}, beta={beta})",
        f"nNRBP(rel={rel}, alpha={alpha}, beta={beta})",
        f"AP_IA(rel={rel})",
        f"P_IA(rel={rel})@{k}",
        f"StRecall(rel={rel})@{k}",
    ]


def _compare(lines: list[Line], ranking: Ranking, names: list[str]) -> None:
    ours = _ours(lines, ranking, names)
    run_topics = {t for t, _, _ in ranking}
    qrels_topics = {t for t, _, _, _ in lines}
    assert set(ours.topics) == run_topics & qrels_topics
    reference = _pyndeval(lines, ranking, names)
    for name in names:
        theirs = reference[name]
        got = _per_topic(ours, name)
        for topic, value in theirs.items():
            if topic in got:
                assert _same(got[topic], value), (name, topic, got[topic], value)
            else:  # a qrels topic the run lacks: ir_measures' default, 0
                assert topic in qrels_topics - run_topics and value == 0


@settings(max_examples=120, deadline=None)
@given(
    diversity_collections(),
    st.sampled_from((1, 2, 3, 5, 10, 20)),
    st.sampled_from((0.0, 0.25, 0.5, 0.7, 1.0)),
    st.sampled_from((0.0, 0.3, 0.5, 1.0)),
    st.sampled_from((0, 1, 2)),
)
def test_every_measure_matches_pyndeval(
    data: tuple[list[Line], Ranking], k: int, alpha: float, beta: float, rel: int
) -> None:
    lines, ranking = data
    _compare(lines, ranking, _measure_names(k, alpha, beta, rel))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from((0.3, 0.5, 0.7)))
def test_wide_topics_match_pyndeval(seed: int, alpha: float) -> None:
    # many subtopics per document and long rankings, where the greedy ideal's ties and the float
    # order of its sums matter
    rng = random.Random(seed)
    docs = [f"doc{i}" for i in range(40)]
    lines = [("5", str(s), d, rng.choice((0, 1, 1, 2))) for d in docs for s in range(8) if rng.random() < 0.4]
    rng.shuffle(lines)
    ranking = [("5", d, float(rng.randrange(6))) for d in rng.sample([*docs, "u1", "u2"], 30)]
    _compare(lines, ranking, _measure_names(20, alpha, 0.8, 1) + _measure_names(7, alpha, 0.5, 2))


# -------------------------------------------------------------------------------- reference collections


def _derived_subtopics(path: Path) -> list[Line]:
    """A real qrels turned diversity qrels: each judged doc relevant to 1-3 of 4 subtopics (seeded)."""
    rng = random.Random(11)
    out: list[Line] = []
    for line in path.read_text().splitlines():
        topic, _, docno, rel = line.split()
        for s in rng.sample("0123", rng.choice((1, 1, 2, 3))):
            out.append((topic, s, docno, int(rel)))
    return out


@pytest.mark.parametrize("subtopics", ["single", "derived"])
def test_reference_collection_matches_pyndeval(subtopics: str) -> None:
    refdata = refdata_dir()
    if refdata is None:
        pytest.skip("reference data absent: set WORKBENCH_REFDATA to ../shared/refdata")
    qrels_path = refdata / "data" / "robust05" / "qrels.robust05.txt"
    if subtopics == "single":
        lines = [(t, s, d, int(r)) for t, s, d, r in (x.split() for x in qrels_path.read_text().splitlines())]
    else:
        lines = _derived_subtopics(qrels_path)
    for run_name in ("HKPU2CT", "RIMam05l050"):
        run_path = refdata / "data" / "robust05" / "runs" / f"{run_name}.run"
        ranking = [
            (t, d, float(s)) for t, _, d, _, s, _ in (x.split() for x in run_path.read_text().splitlines())
        ]
        _compare(lines, ranking, _measure_names(20, 0.5, 0.5, 1) + _measure_names(5, 0.3, 0.8, 2))


def test_dict_qrels_are_one_subtopic_per_document() -> None:
    # {topic: {docno: rel}} has no second column: every document is subtopic '0' (ir_measures' default)
    judgments = {"1": {"a": 1, "b": 0, "c": 2}}
    ranking = [("1", "b", 3.0), ("1", "c", 2.0), ("1", "a", 1.0)]
    names = _measure_names(3, 0.5, 0.5, 1)
    from_dict = evaluate_run(Judgments(qrels_from_dict(judgments)), _run(ranking), parse_measures(names))
    lines = [("1", "0", d, r) for d, r in judgments["1"].items()]
    from_lines = _ours(lines, ranking, names)
    for name in names:
        assert from_dict.per_topic[name].tolist() == from_lines.per_topic[name].tolist(), name
    assert from_dict.per_topic["StRecall(rel=1)@3"][0] == 1.0
