"""Compat and Accuracy (engine/measures/compat.py) against ir_measures' tests and its own providers.

ir_measures computes both in Python (providers/compat_provider.py, accuracy_provider.py); those
installed providers are the reference, to 1e-9. Compat ranks ties by docno ascending, which the
engine reproduces; its ideal ranking breaks ties in qrels order, which the engine keeps sorted by
docno, so generated qrels are handed over in docno order. Accuracy's provider ranks ties in input
order (the engine: docno descending), so its generated runs are handed over in the engine's order.
"""

from __future__ import annotations

import math
from pathlib import Path

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


def _theirs(provider: str, qrels: Qrels, rows: RunList, names: list[str]) -> dict[tuple[str, str], float]:
    ir_measures = pytest.importorskip("ir_measures")
    measures = {ir_measures.parse_measure(n): n for n in names}
    qrel_list = [ir_measures.Qrel(t, d, r) for t, docs in qrels.items() for d, r in docs.items()]
    run_list = [ir_measures.ScoredDoc(t, d, s) for t, d, s in rows]
    found = getattr(ir_measures, provider).iter_calc(list(measures), qrel_list, run_list)
    return {(m.query_id, measures[m.measure]): float(m.value) for m in found}


def _compare(ours: RunResult, theirs: dict[tuple[str, str], float], names: list[str]) -> None:
    """Same value for every topic ir_measures reports; NaN here exactly where it reports none."""
    assert ours.topics, "no topic evaluated"
    for name in names:
        for i, topic in enumerate(ours.topics):
            got = float(ours.per_topic[name][i])
            if (topic, name) not in theirs:
                assert math.isnan(got), (name, topic, got)
                continue
            assert got == pytest.approx(theirs[(topic, name)], abs=TOLERANCE), (name, topic)


# -------------------------------------------------------------------------------- ir_measures' own tests


def test_ir_measures_compat_test_values() -> None:
    """tests/test_compat.py: values from claclark/Compatibility, to 1e-9, and the p=0.95 mean."""
    expected = {
        "Compat(p=0.95)": (0.51779512165509, 0.018400100569017922),
        "Compat(p=0.9)": (0.3761334522946854, 0.004344079941789211),
        "Compat(p=0.8)": (0.16723008845234535, 0.00022806427320561776),
    }
    result = evaluate_run(
        Judgments(read_qrels(DATA / "compat.qrels")),
        read_run(DATA / "compat.run"),
        parse_measures(list(expected)),
    )
    assert result.topics == ["31_1", "31_2"]
    for name, values in expected.items():
        assert list(result.per_topic[name]) == pytest.approx(list(values), abs=1e-9), name
    assert result.summary["Compat(p=0.95)"] == pytest.approx(0.268097611, abs=1e-9)


ACCURACY_QRELS = {
    "0": {"C0_1": 0, "B0_1": 1, "A0_1": 2},
    "1": {"A1_1": 2, "A1_2": 2, "B1_1": 1, "C1_2": 0},
    "2": {"B1_1": 1},
}
ACCURACY_RUN: RunList = [
    ("0", "C0_1", 0.4),
    ("0", "A0_1", 0.3),
    ("0", "C0_2", 0.2),
    ("0", "C0_3", 0.1),
    ("1", "C1_1", 0.8),
    ("1", "A1_1", 0.7),
    ("1", "C1_2", 0.6),
    ("1", "B1_1", 0.5),
    ("1", "C1_3", 0.4),
    ("2", "B1_1", 0.2),
    ("2", "C1_1", 0.1),
]


def test_ir_measures_accuracy_test_values() -> None:
    """tests/test_accuracy.py (its inline qrels and run): per topic and the mean, delta 1e-9.

    Accuracy(rel=2) has no value for topic 2 (no grade-2 document retrieved): ir_measures yields
    none and its mean is over topics 0 and 1.
    """
    result = _ours(ACCURACY_QRELS, ACCURACY_RUN, ["Accuracy(rel=1)", "Accuracy(rel=2)"])
    assert result.topics == ["0", "1", "2"]
    rel1 = [2.0 / 3.0, 0.5 * (2 / 3.0 + 1.0 / 3), 1.0]
    assert list(result.per_topic["Accuracy(rel=1)"]) == pytest.approx(rel1, abs=1e-9)
    rel2 = result.per_topic["Accuracy(rel=2)"]
    assert list(rel2[:2]) == pytest.approx([2.0 / 3, 0.75], abs=1e-9)
    assert math.isnan(rel2[2])
    assert result.summary["Accuracy(rel=1)"] == pytest.approx(sum(rel1) / 3, abs=1e-9)
    assert result.summary["Accuracy(rel=2)"] == pytest.approx((2.0 / 3 + 0.75) / 2, abs=1e-9)


# -------------------------------------------------------------------------------- generated data

DOCNOS = tuple(f"d{i}" for i in range(14))
TOPICS = ("t1", "t2", "t3")


@st.composite
def collections(draw: st.DrawFn, zero_grades: bool = True) -> tuple[Qrels, RunList]:
    """Graded qrels (negative grades too) in docno order; runs with unjudged docs and tied scores.

    The run is handed over sorted by score descending then docno descending (the engine's order).
    """
    qrels: Qrels = {}
    rows: RunList = []
    for topic in TOPICS:
        judged = draw(st.dictionaries(st.sampled_from(DOCNOS), st.integers(-1, 3), min_size=1))
        qrels[topic] = dict(sorted(judged.items(), key=lambda x: x[0].encode()))
        docs = draw(st.lists(st.sampled_from(DOCNOS), min_size=1, unique=True))
        scored = [(d, draw(st.integers(-2, 3)) / 2) for d in docs]
        scored.sort(key=lambda x: (x[1], x[0].encode()), reverse=True)
        rows.extend((topic, d, s) for d, s in scored)
    return qrels, rows


@settings(max_examples=80, deadline=None)
@given(collections(), st.sampled_from((0.5, 0.8, 0.95)), st.booleans())
def test_compat_matches_ir_measures(data: tuple[Qrels, RunList], p: float, normalize: bool) -> None:
    qrels, rows = data
    names = [f"Compat(p={p}, normalize={normalize})"]
    _compare(_ours(qrels, rows, names), _theirs("compat", qrels, rows, names), names)


def _all_relevant(qrels: Qrels, rows: RunList, rel: int, k: int | None) -> set[str]:
    """Topics whose top k is all relevant: ir_measures' accuracy provider divides by zero on them."""
    out = set()
    for topic in TOPICS:
        docs = [d for t, d, _ in rows if t == topic][:k]
        if docs and all(qrels[topic].get(d, 0) >= rel for d in docs):
            out.add(topic)
    return out


@settings(max_examples=80, deadline=None)
@given(collections(), st.integers(0, 3), st.one_of(st.none(), st.integers(1, 10)))
def test_accuracy_matches_ir_measures(data: tuple[Qrels, RunList], rel: int, k: int | None) -> None:
    """Topics ir_measures can score agree; on the others it raises and the engine has no value."""
    qrels, rows = data
    name = f"Accuracy(rel={rel})" + (f"@{k}" if k else "")
    ours = _ours(qrels, rows, [name])
    bad = _all_relevant(qrels, rows, rel, k)
    if bad:
        with pytest.raises(ZeroDivisionError):
            _theirs("accuracy", qrels, rows, [name])
        for topic in bad:
            assert math.isnan(ours.per_topic[name][ours.topics.index(topic)])
    theirs = _theirs("accuracy", qrels, [r for r in rows if r[0] not in bad], [name])
    for i, topic in enumerate(ours.topics):
        if topic in bad:
            continue
        got = float(ours.per_topic[name][i])
        if (topic, name) not in theirs:
            assert math.isnan(got), (topic, got)
        else:
            assert got == pytest.approx(theirs[(topic, name)], abs=TOLERANCE), topic


def test_accuracy_topic_all_relevant_has_no_value() -> None:
    """Top k all relevant: no (relevant, non-relevant) pair, no value (ir_measures divides by zero)."""
    result = _ours(
        {"q": {"a": 1, "b": 1}, "r": {"a": 1}},
        [("q", "a", 2.0), ("q", "b", 1.0), ("r", "a", 1.0)],
        [
            "Accuracy",
            "Accuracy@1",
        ],
    )
    assert np.isnan(result.per_topic["Accuracy"]).all()
    assert math.isnan(result.summary["Accuracy"])


def test_compat_ties_break_by_docno_ascending() -> None:
    """Compat re-ranks score ties by docno ascending (ir_measures), unlike the engine's descending order."""
    qrels = {"q": {"a": 1, "b": 0}}
    tied = _ours(qrels, [("q", "a", 1.0), ("q", "b", 1.0)], ["Compat(normalize=False)"])
    ahead = _ours(qrels, [("q", "a", 2.0), ("q", "b", 1.0)], ["Compat(normalize=False)"])
    assert tied.per_topic["Compat(normalize=False)"][0] == ahead.per_topic["Compat(normalize=False)"][0]
    # depth 2: (1·1/1 + p·1/2) / (1 + p)
    p = 0.95
    assert tied.per_topic["Compat(normalize=False)"][0] == pytest.approx((1 + p / 2) / (1 + p), abs=1e-12)


def test_compat_without_relevant_documents_and_empty_topics() -> None:
    """No grade > 0: 0. A qrels topic the run lacks, under -c: 0."""
    result = _ours({"q": {"a": 0}, "z": {"b": 2}}, [("q", "a", 1.0)], ["Compat"], EvalOptions(complete=True))
    assert list(result.per_topic["Compat"]) == [0.0, 0.0]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("Compat(p=1.0)", "strictly between 0 and 1"),
        ("Compat(normalize=1)", "must be True or False"),
        ("Compat@10", "has no parameter 'cutoff'"),
        ("Compat(rel=2)", "has no parameter 'rel'"),
        ("Accuracy@0", "positive integer"),
        ("Accuracy(p=0.5)", "has no parameter 'p'"),
    ],
)
def test_refused(spec: str, message: str) -> None:
    with pytest.raises(MeasureError, match=message):
        parse_measures([spec])


# -------------------------------------------------------------------------------- reference collections

REFDATA_SCENARIOS = ("robust05/full", "dlhard-passage/full")


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
    """Compat and Accuracy on the real runs against ir_measures' providers, to 1e-9.

    The qrels reach ir_measures in the engine's (docno) order and the runs in the engine's ranking
    order: the two documented tie conventions are held equal, everything else is compared.
    """
    qrels = read_qrels(refdata / "scenarios" / scenario / "qrels.txt").as_dict()
    ranked = read_run(refdata / "data" / scenario.split("/")[0] / "runs" / f"{run}.run")
    rows = [(t, d.decode(), float(s)) for t, ds, ss in ranked.items() for d, s in zip(ds, ss, strict=True)]
    compat = ["Compat", "Compat(p=0.8, normalize=False)"]
    accuracy = ["Accuracy", "Accuracy(rel=2)@100"]
    result = _ours(qrels, rows, [*compat, *accuracy])
    _compare(result, _theirs("compat", qrels, rows, compat), compat)
    _compare(result, _theirs("accuracy", qrels, rows, accuracy), accuracy)
    for name in accuracy:  # the mean over topics with a value, as ir_measures' calc_aggregate
        values = result.per_topic[name]
        assert result.summary[name] == pytest.approx(float(np.nanmean(values)), abs=TOLERANCE)
