"""cwl_eval's measures (engine/measures/cwl.py) against ir_measures' tests and its cwl_eval provider.

ir_measures computes INST, INSQ, SDCG, NERR8-NERR11 and BPM with cwl_eval (ireval/cwl); the installed
provider is the reference. It returns cwl's floats unrounded (only the cwl-eval command prints 4
decimals), so values are compared to 1e-9. Its provider ranks score ties in input order and the
engine by docno descending: generated runs hand ir_measures their documents in the engine's order,
so ties are exercised without tripping over that documented difference.
"""

from __future__ import annotations

import ast
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
from trec.qrels import qrels_from_dict
from trec.runs import RankedRun, run_from_arrays

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

DATA = Path(__file__).parents[1] / "data" / "ir_measures_cwl"
TOLERANCE = 1e-9
CWL_NAMES = ("INST", "INSQ", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "BPM")

Qrels = dict[str, dict[str, int]]
RunList = list[tuple[str, str, float]]  # (topic, docno, score) in the order ir_measures receives them


def _ranked(rows: RunList) -> RankedRun:
    return run_from_arrays(
        "r",
        np.array([t for t, _, _ in rows], dtype="S"),
        np.array([d for _, d, _ in rows], dtype="S"),
        np.array([s for _, _, s in rows], dtype=np.float64),
    )


def _ours(qrels: Qrels, rows: RunList, names: list[str], options: EvalOptions | None = None) -> RunResult:
    return evaluate_run(Judgments(qrels_from_dict(qrels)), _ranked(rows), parse_measures(names), options)


def _theirs(qrels: Qrels, rows: RunList, names: list[str]) -> dict[tuple[str, str], float]:
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl")
    measures = {_ir_measures_measure(ir_measures, n): n for n in names}
    qrel_list = [ir_measures.Qrel(t, d, r) for t, docs in qrels.items() for d, r in docs.items()]
    run_list = [ir_measures.ScoredDoc(t, d, s) for t, d, s in rows]
    out = {}
    for m in ir_measures.cwl_eval.iter_calc(list(measures), qrel_list, run_list):
        out[(m.query_id, measures[m.measure])] = float(m.value)
    return out


def _ir_measures_measure(ir_measures: Any, spec: str) -> Any:
    """ir_measures' measure for ``spec``; built directly, as its parser refuses negative literals."""
    call = ast.parse(spec, mode="eval").body
    cutoff = None
    if isinstance(call, ast.BinOp):
        cutoff, call = ast.literal_eval(call.right), call.left
    assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
    kwargs = {str(kw.arg): ast.literal_eval(kw.value) for kw in call.keywords}
    measure = getattr(ir_measures, call.func.id)(**kwargs)
    return measure @ cutoff if cutoff is not None else measure


def _compare(ours: RunResult, theirs: dict[tuple[str, str], float], names: list[str]) -> None:
    assert ours.topics, "no topic evaluated"
    for name in names:
        for i, topic in enumerate(ours.topics):
            expected = theirs[(topic, name)]
            got = float(ours.per_topic[name][i])
            assert got == pytest.approx(expected, abs=TOLERANCE), (name, topic, got, expected)


# -------------------------------------------------------------------------------- ir_measures' own test

# tests/test_cwl_eval.py of terrierteam/ir_measures ("based on a manual execution of cwl-eval"), delta 1e-4
EXPECTED = {
    "BPM(T=1.0, max_rel=1)@20": (1.0000, 1.0000, 0.1667),
    "BPM(T=2.0, max_rel=1)@10": (0.6667, 1.0000, 0.2857),
    "INSQ(T=1.0, max_rel=1)": (0.5872, 0.6629, 0.0880),
    "INSQ(T=2.0, max_rel=1)": (0.4513, 0.5068, 0.1292),
    "INST(T=1.0, max_rel=1)": (0.7934, 0.9226, 0.0888),
    "INST(T=2.0, max_rel=1)": (0.5994, 0.6924, 0.1397),
    "SDCG(max_rel=1)@10": (0.5645, 0.6531, 0.2848),
    "NERR8(max_rel=1)@10": (1.0000, 1.0000, 0.1667),
    "NERR9(max_rel=1)@10": (1.0000, 1.0000, 0.0680),
    "NERR10(p=0.8, max_rel=1)": (1.0000, 1.0000, 0.0888),
    "NERR11(T=2.0, max_rel=1)": (1.0000, 1.0000, 0.0691),
}


def test_ir_measures_cwl_eval_test_values() -> None:
    """tests/test_cwl_eval.py's expected values for every cwl measure, on its cwl.qrels / cwl.run."""
    result = evaluate_run(
        Judgments(read_qrels(DATA / "cwl.qrels")), read_run(DATA / "cwl.run"), parse_measures(list(EXPECTED))
    )
    assert result.topics == ["T1", "T2", "T3"]
    for name, values in EXPECTED.items():
        assert list(result.per_topic[name]) == pytest.approx(list(values), abs=1e-4), name


def test_ir_measures_cwl_test_data_against_provider() -> None:
    """The same files through ir_measures' cwl_eval provider, to 1e-9 rather than cwl-eval's 4 decimals."""
    qrels = read_qrels(DATA / "cwl.qrels").as_dict()
    run = read_run(DATA / "cwl.run")
    rows = [(t, d.decode(), float(s)) for t, ds, ss in run.items() for d, s in zip(ds, ss, strict=True)]
    names = list(EXPECTED)
    _compare(_ours(qrels, rows, names), _theirs(qrels, rows, names), names)


# -------------------------------------------------------------------------------- generated data

DOCNOS = tuple(f"d{i}" for i in range(14))
TOPICS = ("t1", "t2", "t3")


@st.composite
def collections(draw: st.DrawFn) -> tuple[Qrels, RunList]:
    """Graded qrels (with negative grades), runs with unjudged documents and tied scores.

    The run is handed over sorted by score descending then docno descending, the engine's order, so
    ir_measures' stable sort keeps the same ranking for tied scores.
    """
    qrels: Qrels = {}
    rows: RunList = []
    for topic in TOPICS:
        qrels[topic] = draw(st.dictionaries(st.sampled_from(DOCNOS), st.integers(-1, 4), min_size=1))
        docs = draw(st.lists(st.sampled_from(DOCNOS), min_size=1, unique=True))
        scored = [(d, draw(st.integers(0, 4)) / 2) for d in docs]
        scored.sort(key=lambda x: (x[1], x[0].encode()), reverse=True)
        rows.extend((topic, d, s) for d, s in scored)
    return qrels, rows


@st.composite
def cwl_names(draw: st.DrawFn) -> list[str]:
    max_rel = draw(st.integers(1, 4))
    min_rel = draw(st.integers(-1, max_rel - 1))
    gain = f"min_rel={min_rel}, max_rel={max_rel}"
    t = draw(st.sampled_from((0.5, 1.0, 2.5, 4.0)))
    p = draw(st.sampled_from((0.0, 0.3, 0.8, 1.0)))
    k = draw(st.integers(1, 16))
    return [
        f"INST(T={t}, {gain})",
        f"INSQ(T={t}, {gain})",
        f"SDCG({gain})@{k}",
        f"NERR8({gain})@{k}",
        f"NERR9({gain})@{k}",
        f"NERR10(p={p}, {gain})",
        f"NERR11(T={t}, {gain})",
        f"BPM(T={t}, {gain})@{k}",
    ]


@settings(max_examples=60, deadline=None)
@given(collections(), cwl_names())
def test_cwl_measures_match_cwl_eval_provider(data: tuple[Qrels, RunList], names: list[str]) -> None:
    qrels, rows = data
    _compare(_ours(qrels, rows, names), _theirs(qrels, rows, names), names)


def test_rankings_are_cut_and_padded_at_1000() -> None:
    """cwl ranks exactly 1000 positions: documents past rank 1000 are ignored, shorter lists padded."""
    rng = np.random.default_rng(7)
    docs = [f"doc{i:04d}" for i in range(1500)]
    qrels = {"q": {d: int(g) for d, g in zip(docs, rng.integers(0, 3, len(docs)), strict=True)}}
    qrels["q"]["doc1400"] = 2
    rows = [("q", d, float(1500 - i)) for i, d in enumerate(docs)]
    names = ["INSQ(T=3.0, max_rel=2)", "NERR10(p=1.0, max_rel=2)", "BPM(T=1000.0, max_rel=2)@1200"]
    ours = _ours(qrels, rows, names)
    _compare(ours, _theirs(qrels, rows, names), names)
    # BPM with an unreachable goal and k > 1000 reads all 1000 ranks: the mean gain of the top 1000
    grades = np.array([qrels["q"][d] for d in docs[:1000]], dtype=np.float64)
    assert ours.per_topic[names[2]][0] == pytest.approx(grades.mean() / 2, abs=1e-12)


def test_unranked_topic_scores_zero_under_c() -> None:
    """With -c a qrels topic the run lacks has an all-zero ranking: every cwl measure gives 0."""
    qrels = {"a": {"x": 1}, "b": {"y": 2}}
    names = ["INST(max_rel=2)", "SDCG(max_rel=2)@5", "BPM(max_rel=2)@5"]
    result = _ours(qrels, [("a", "x", 1.0)], names, EvalOptions(complete=True))
    assert result.topics == ["a", "b"]
    for name in names:
        assert result.per_topic[name][1] == 0.0
        assert result.per_topic[name][0] > 0.0


def test_sdcg_divides_by_k_fully_relevant_documents() -> None:
    """SDCG@k = DCG@k with gains grade/max_rel over Σ_{i<=k} 1/log2(i+1), not trec_eval's ideal DCG."""
    qrels = {"q": {"a": 2, "b": 1}}
    result = _ours(qrels, [("q", "a", 3.0), ("q", "z", 2.0), ("q", "b", 1.0)], ["SDCG(max_rel=2)@4"])
    norm = sum(1 / np.log2(i + 1) for i in range(1, 5))
    assert result.per_topic["SDCG(max_rel=2)@4"][0] == pytest.approx((1.0 + 0.5 / 2.0) / norm, abs=1e-12)


def test_workbench_spelling() -> None:
    """``-m inst.T=2,max_rel=3`` is the workbench spelling of INST(T=2.0, max_rel=3)."""
    qrels = {"q": {"a": 3, "b": 1, "c": 0}}
    rows = [("q", "b", 3.0), ("q", "a", 2.0), ("q", "c", 1.0)]
    result = _ours(qrels, rows, ["inst.T=2,max_rel=3", "INST(T=2.0, max_rel=3)"])
    assert result.names[0] == "inst_T=2,max_rel=3"
    assert result.per_topic["inst_T=2,max_rel=3"][0] == result.per_topic["INST(T=2.0, max_rel=3)"][0]


# -------------------------------------------------------------------------------- refused parameters


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("INST", "needs max_rel"),
        ("SDCG(max_rel=3)", "needs cutoff"),
        ("BPM(max_rel=3)", "needs cutoff"),
        ("NERR8(max_rel=1)@0", "positive integer"),
        ("INST(max_rel=2, min_rel=2)", "min_rel (2) must be less than max_rel (2)"),
        ("INST(T=0.0, max_rel=2)", "must be positive"),
        ("NERR10(p=1.5, max_rel=2)", "between 0 and 1"),
        ("SDCG(dcg='exp-log2', max_rel=2)@10", "is not one of"),
        ("INSQ(rel=2, max_rel=2)", "has no parameter 'rel'"),
        ("NERR10(max_rel=2)@10", "has no parameter 'cutoff'"),
    ],
)
def test_refused(spec: str, message: str) -> None:
    with pytest.raises(MeasureError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_measures([spec])


def test_workbench_spelling_without_max_rel_is_refused_at_evaluation() -> None:
    with pytest.raises(ValueError, match="INST needs max_rel"):
        _ours({"q": {"a": 1}}, [("q", "a", 1.0)], ["inst"])


# -------------------------------------------------------------------------------- reference collections

REFDATA_SCENARIOS = {"robust05/full": 2, "dlhard-passage/full": 3}  # scenario -> highest grade


def _ref_cases() -> list[tuple[str, str]]:
    root = refdata_dir()
    if root is None:
        return [("absent", "absent")]
    return [
        (scenario, run)
        for scenario in REFDATA_SCENARIOS
        for run in (root / "scenarios" / scenario / "runs.txt").read_text().split()
    ]


@pytest.mark.refdata
@pytest.mark.parametrize(("scenario", "run"), _ref_cases())
def test_reference_collections(refdata: Path, scenario: str, run: str) -> None:
    """Every cwl measure on the real runs, against ir_measures' cwl_eval provider, to 1e-9.

    ir_measures receives each run in the engine's order (ties by docno descending, the documented
    difference), and the qrels as read; topics the run lacks are not compared (both give them 0).
    """
    max_rel = REFDATA_SCENARIOS[scenario]
    qrels = read_qrels(refdata / "scenarios" / scenario / "qrels.txt").as_dict()
    ranked = read_run(refdata / "data" / scenario.split("/")[0] / "runs" / f"{run}.run")
    rows = [(t, d.decode(), float(s)) for t, ds, ss in ranked.items() for d, s in zip(ds, ss, strict=True)]
    names = [
        f"INST(T=2.0, max_rel={max_rel})",
        f"INSQ(max_rel={max_rel})",
        f"SDCG(max_rel={max_rel})@10",
        f"NERR8(max_rel={max_rel})@20",
        f"NERR9(max_rel={max_rel}, min_rel=1)@10",
        f"NERR10(p=0.8, max_rel={max_rel})",
        f"NERR11(T=3.0, max_rel={max_rel})",
        f"BPM(T=2.0, max_rel={max_rel})@100",
    ]
    result = _ours(qrels, rows, names)
    _compare(result, _theirs(qrels, rows, names), names)
