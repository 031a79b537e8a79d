"""Our engine against pytrec_eval-terrier (trec_eval 9.0.x compiled in) on random runs and qrels.

Hypothesis draws graded qrels with -1 grades, runs with many score ties, docs absent from the
qrels, and topics present on one side only; every pytrec_eval measure must then agree per topic
and in the summary, except where trec_eval 9 and 10 are documented to differ (named below).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.evaluate import Judgments, RunResult, evaluate_run
from engine.measures.base import EvalOptions
from engine.names import parse_measures
from trec.qrels import qrels_from_dict
from trec.runs import RankedRun, run_from_arrays

pytrec_eval = pytest.importorskip("pytrec_eval")

# Every measure pytrec_eval knows is compared, but these two, which are not numbers.
NOT_NUMERIC = {"runid", "relstring"}
COMPARED = sorted(set(pytrec_eval.supported_measures) - NOT_NUMERIC)

# trec_eval 10 turns a recall fraction f into a number of relevant docs with lround(f·R); 9 and
# earlier, hence pytrec_eval, with (long)(f·R + 0.9) (m_iprec_at_recall.c: "In v9 and prior, this
# was done by adding 0.9 and casting"). Where the two counts differ, iprec_at_recall_f and
# 11pt_avg (the mean over f = 0, 0.1, ..., 1) differ by design: those values are skipped, only those.
RECALL_FRACTIONS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

# Docnos of several lengths and cases, so that ties broken by docno descending in byte order
# (strcmp) differ from any other order; topic ids that are equal as numbers but not as strings.
DOCNOS = ("d1", "d10", "d2", "D3", "a", "b0", "zz", "d11", "x", "y")
TOPICS = ("1", "01", "10", "7")
# pytrec_eval keeps scores as C floats (float32) where trec_eval 10 and we keep doubles, so two
# scores equal in float32 but not in double rank differently (see the test below). Quarter steps
# are exact in both, and a range this small makes ties common.
SCORES = st.integers(-8, 8).map(lambda i: i / 4)
GRADES = st.integers(-1, 3)
TOLERANCE = 1e-9


@st.composite
def collections(draw: st.DrawFn) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for topic in TOPICS:
        side = draw(st.sampled_from(("both", "both", "both", "qrels only", "run only", "neither")))
        if side in ("both", "qrels only"):
            qrels[topic] = draw(st.dictionaries(st.sampled_from(DOCNOS), GRADES, min_size=1))
        if side in ("both", "run only"):
            run[topic] = draw(st.dictionaries(st.sampled_from(DOCNOS), SCORES, min_size=1))
    assume(qrels and run)
    # pytrec_eval (trec_eval 9's form_res_rels) reads past a zero-length rel_levels array when a
    # qrels topic holds only negative grades, and crashes the interpreter (SIGSEGV), or corrupts
    # memory and hangs later; such topics are checked against our own expectations instead
    # (test_a_topic_with_only_unjudged_qrels_scores_zero below).
    assume(all(any(g >= 0 for g in docs.values()) for docs in qrels.values()))
    return qrels, run


def _run(run: dict[str, dict[str, float]]) -> RankedRun:
    qids = [t for t, docs in run.items() for _ in docs]
    docnos = [d for docs in run.values() for d in docs]
    scores = [s for docs in run.values() for s in docs.values()]
    return run_from_arrays("r", np.array(qids, dtype="S"), np.array(docnos, dtype="S"), np.array(scores))


def _ours(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], level: int, judged_only: bool
) -> RunResult:
    options = EvalOptions(level=level, judged_only=judged_only)
    return evaluate_run(Judgments(qrels_from_dict(qrels)), _run(run), parse_measures(COMPARED), options)


def _theirs(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], level: int, judged_only: bool
) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(COMPARED), relevance_level=level, judged_docs_only_flag=judged_only
    )
    return evaluator.evaluate(run)


def _recall_count_differs(name: str, num_rel: int) -> bool:
    """Whether trec_eval 9's and 10's relevant-doc counts differ for this recall measure."""
    if name.startswith("iprec_at_recall_"):
        fractions: tuple[float, ...] = (float(name.rsplit("_", 1)[1]),)
    elif name == "11pt_avg":
        fractions = RECALL_FRACTIONS
    else:
        return False
    return any(int(f * num_rel + 0.9) != math.floor(f * num_rel + 0.5) for f in fractions)


def _same(a: float, b: float) -> bool:
    # NaN on both sides is agreement: trec_eval's iprec_at_recall divides 0 by 0 when -J leaves a
    # topic with no docs, and we reproduce that
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=0, abs_tol=TOLERANCE)


def _comparable(value: float, name: str) -> float:
    # pytrec_eval reports gm_* per topic as log(max(x, 0.00001)), to be averaged and exponentiated
    return math.log(max(value, 0.00001)) if name.startswith("gm_") else value


@settings(max_examples=150, deadline=None)
@given(collections(), st.sampled_from((1, 2)), st.booleans())
def test_every_pytrec_eval_measure_agrees_per_topic_and_in_the_summary(
    data: tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]], level: int, judged_only: bool
) -> None:
    qrels, run = data
    theirs = _theirs(qrels, run, level, judged_only)
    ours = _ours(qrels, run, level, judged_only)
    assert sorted(ours.topics) == sorted(theirs), "evaluated topics differ"
    position = {t: i for i, t in enumerate(ours.topics)}
    names = sorted({name for values in theirs.values() for name in values})
    mismatches = []
    for name in names:
        assert name in ours.per_topic, f"{name}: pytrec_eval computes it, we do not"
        skipped = False
        per_topic = []
        for topic, values in theirs.items():
            num_rel = sum(1 for rel in qrels[topic].values() if rel >= level)
            if _recall_count_differs(name, num_rel):
                skipped = True
                continue
            got = _comparable(float(ours.per_topic[name][position[topic]]), name)
            per_topic.append(values[name])
            if not _same(got, values[name]):
                mismatches.append(f"{name} topic {topic}: ours {got!r}, pytrec_eval {values[name]!r}")
        if not skipped and per_topic:
            want = float(pytrec_eval.compute_aggregated_measure(name, per_topic))
            if not _same(ours.summary[name], want):
                mismatches.append(f"{name} all: ours {ours.summary[name]!r}, pytrec_eval {want!r}")
    assert not mismatches, f"qrels={qrels} run={run} level={level} -J={judged_only}\n" + "\n".join(mismatches)


def test_pytrec_eval_ranks_by_float32_scores_and_we_by_doubles() -> None:
    # a scores 1 + 2^-30, b scores 1: distinct doubles, one float32. We rank a first (recip_rank 1);
    # pytrec_eval sees a tie, breaks it by docno descending, ranks b first (recip_rank 1/2).
    qrels = {"1": {"a": 1, "b": 0}}
    run = {"1": {"a": 1.0 + 2.0**-30, "b": 1.0}}
    assert _theirs(qrels, run, 1, False)["1"]["recip_rank"] == 0.5
    assert _ours(qrels, run, 1, False).per_topic["recip_rank"][0] == 1.0


def test_iprec_at_recall_rounds_the_relevant_count_like_trec_eval_10_not_9() -> None:
    # R = 6, relevant at ranks 1, 3, 4. Recall 0.2 needs lround(1.2) = 1 relevant doc in trec_eval 10
    # (precision 1/1 at rank 1) but (long)(1.2 + 0.9) = 2 in trec_eval 9 (best precision from rank 3
    # on: 3/4 at rank 4).
    qrels = {"1": {"r1": 1, "r3": 1, "r4": 1, "u1": 1, "u2": 1, "u3": 1, "n2": 0}}
    run = {"1": {"r1": 4.0, "n2": 3.0, "r3": 2.0, "r4": 1.0}}
    assert _recall_count_differs("iprec_at_recall_0.20", 6)
    assert _ours(qrels, run, 1, False).per_topic["iprec_at_recall_0.20"][0] == pytest.approx(1 / 1)
    assert _theirs(qrels, run, 1, False)["1"]["iprec_at_recall_0.20"] == pytest.approx(3 / 4)


def test_a_topic_with_only_unjudged_qrels_scores_zero() -> None:
    # the input that crashes pytrec_eval: topic 10 has a single pooled-but-unjudged document
    qrels = {"10": {"D3": -1}, "7": {"d1": 1}}
    run = {"10": {"D3": 2.0, "x": -0.5}, "7": {"d1": 1.0}}
    result = _ours(qrels, run, 1, False)
    ten = result.topics.index("10")
    for name in ("map", "bpref", "infAP", "ndcg", "P_5", "recip_rank", "Rprec", "num_rel", "num_rel_ret"):
        assert result.per_topic[name][ten] == 0.0, name
    assert result.per_topic["num_ret"][ten] == 2
    assert result.per_topic["map"][result.topics.index("7")] == 1.0
