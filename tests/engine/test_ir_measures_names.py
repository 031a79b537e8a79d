"""ir_measures' and pytrec_eval's names in the engine: parsing, parameters, refusals, values.

Values are checked three ways: by hand on a small example, against the installed ir_measures and
pytrec_eval (skipped when absent), and on ../shared/refdata's robust05 and dlhard-passage full runs
against ir_measures' own providers (skipped without WORKBENCH_REFDATA).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.cli import main
from engine.evaluate import Judgments, RunResult, evaluate_run
from engine.ir_names import parse_ir_call
from engine.measures import EvalOptions, Measure
from engine.measures.aliases import CUTOFF, IR_ALIASES, IrAlias, Param, open_unit
from engine.names import MeasureError, parse_measures
from trec.qrels import qrels_from_dict
from trec.runs import RankedRun, run_from_arrays

# topic 1: a=2, b=0, c=1, d=1 (unretrieved), e=-1 (listed, not judged); u is not in the qrels
QRELS = {"1": {"a": 2, "b": 0, "c": 1, "d": 1, "e": -1}, "2": {"x": 1, "y": 0}}
RUN = {"1": {"a": 5.0, "u": 4.0, "b": 3.0, "c": 2.0, "e": 1.5}, "2": {"y": 2.0, "z": 1.5, "x": 1.0}}
QRELS_TEXT = "".join(f"{t} 0 {d} {r}\n" for t, docs in QRELS.items() for d, r in docs.items())
RUN_TEXT = "".join(
    f"{t} Q0 {d} {i + 1} {s} tag\n" for t, docs in RUN.items() for i, (d, s) in enumerate(docs.items())
)


def _run(docs: dict[str, dict[str, float]]) -> RankedRun:
    rows = [(t, d, s) for t, ds in docs.items() for d, s in ds.items()]
    return run_from_arrays(
        "run",
        np.array([r[0] for r in rows], dtype="S"),
        np.array([r[1] for r in rows], dtype="S"),
        np.array([r[2] for r in rows], dtype=np.float64),
    )


def evaluate(*names: str) -> RunResult:
    return evaluate_run(
        Judgments(qrels_from_dict(QRELS)), _run(RUN), parse_measures(list(names)), EvalOptions()
    )


def per_topic(result: RunResult, name: str) -> list[float]:
    return [float(v) for v in result.per_topic[name]]


def one(spec: str) -> Measure:
    measures = parse_measures([spec])
    assert len(measures) == 1
    return measures[0]


# -------------------------------------------------------------------------------- names and parameters

ALIASES = [
    ("MAP", "AP"),
    ("MRR", "RR"),
    ("NDCG@10", "nDCG@10"),
    ("BPref", "Bpref"),
    ("RPrec", "Rprec"),
    ("Precision@5", "P@5"),
    ("Recall@5", "R@5"),
    ("SetRelP", "SetP(relative=True)"),
    ("NumRelRet", "NumRet(rel=1)"),
]


@pytest.mark.parametrize(("alias", "name"), ALIASES)
def test_aliases_are_the_same_measure_printed_as_written(alias: str, name: str) -> None:
    a, b = one(alias), one(name)
    assert (a.family, a.param, a.level) == (b.family, b.param, b.level)
    assert a.measure_name() == alias


def test_every_ir_measures_name_is_known() -> None:
    """Every measure ir_measures registers whose family lives in this module's scope has an entry."""
    ir_measures = pytest.importorskip("ir_measures")
    others = {  # added by engine/measures/cwl.py, compat.py, diversity.py (other helpers)
        "INST", "INSQ", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "BPM", "Compat", "Accuracy",
        "alpha_nDCG", "α_nDCG", "alpha_DCG", "α_DCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP",
        "AP_IA", "MAP_IA", "P_IA", "StRecall",
    }  # fmt: skip
    assert set(ir_measures.measures.registry) - others <= set(IR_ALIASES)


@pytest.mark.parametrize(
    ("spec", "family", "param", "level"),
    [
        ("P@5", "P", 5, None),
        ("P(rel=2)@5", "P", 5, 2),
        ("P(cutoff=5)", "P", 5, None),
        ("AP@10", "map_cut", 10, None),
        ("RR@10", "recip_rank_cut", 10, None),
        ("R(rel=2)@100", "recall", 100, 2),
        ("Success@1", "success", 1, None),
        ("IPrec@0.1", "iprec_at_recall_v9", 0.1, None),
        ("SetP", "set_P", None, None),
        ("SetP(relative=True,rel=2)", "set_relative_P", None, 2),
        ("SetRelP(relative=False)", "set_P", None, None),
        ("SetF(beta=0.5)", "set_F", (("beta", 0.5),), None),
        ("SetF(beta=1)", "set_F", None, None),  # the default: an int where a float goes
        ("NumRet", "num_ret", None, None),
        ("NumRet(rel=1)", "num_rel_ret", None, 1),
        ("NumRet(rel=0)", "num_rel_ret", None, 0),
        ("NumQ", "num_q_per_topic", None, None),
        ("RBP(p=0.5)@10", "rbp_p", (10, (("p", 0.5),)), None),
        ("RBP(p=0.8,rel=2)", "rbp_p", None, 2),
        ("nDCG(dcg='log2')@10", "ndcg_cut", 10, None),
        ("nDCG(dcg='exp-log2')@10", "ndcg_ir", (10, (("dcg", "exp-log2"),)), None),
        ("nDCG(gains={0:0,1:1,2:3})", "ndcg_ir", (None, (("gains", ((0, 0), (1, 1), (2, 3))),)), None),
        ("AP(judged_only=True)", "ir_judged_only", ("map", None), None),
        ("P(judged_only=True,rel=2)@5", "ir_judged_only", ("P", 5), 2),
        ("Judged@10", "judged", 10, None),
        ("ERR@20", "err", 20, None),
    ],
)
def test_names_map_to_families(spec: str, family: str, param: Any, level: int | None) -> None:
    m = one(spec)
    assert (m.family, m.param, m.level, m.measure_name()) == (family, param, level, spec)


REFUSED = [
    ("P@0", "cutoff=0 is invalid (a cutoff must be a positive integer)"),
    ("P@-1", "cutoff=-1 is invalid"),
    ("P@5.5", "cutoff must be an integer, got 5.5"),
    ("nDCG@0", "a cutoff must be a positive integer"),
    ("P", None),  # trec_eval's P: every default cutoff (not refused)
    ("Success", "Success needs cutoff, e.g. Success@10"),
    ("RBP(p=1.2)", "p=1.2 is invalid (the persistence p must lie strictly between 0 and 1)"),
    ("RBP(p=0)", "strictly between 0 and 1"),
    ("nDCG(rel=2)", "nDCG has no parameter 'rel' (it accepts cutoff, dcg, gains, judged_only)"),
    ("ERR(rel=2)", "ERR has no parameter 'rel' (it accepts cutoff)"),
    ("Judged(rel=2)", "Judged has no parameter 'rel'"),
    ("Bpref(judged_only=True)", "Bpref has no parameter 'judged_only'"),
    ("NumQ(rel=1)", "NumQ has no parameter 'rel' (it accepts no parameters)"),
    ("AP(foo=1)", "AP has no parameter 'foo'"),
    ("P(rel=True)@5", "rel must be an integer, got True"),
    ("P(rel=1.5)@5", "rel must be an integer"),
    ("SetP(relative=1)", "relative must be True or False"),
    ("nDCG(dcg='exp')", "dcg='exp' is not one of 'log2', 'exp-log2'"),
    ("nDCG(dcg=log2)", "dcg must be a literal"),
    ("nDCG(gains=[1,2])", "gains must be a dict"),
    ("nDCG(gains={'a':1})", "gains must map integer grades to numbers"),
    ("P(2)@5", "arguments must be named"),
    ("P(rel=1,rel=2)@5", "given twice"),
    ("P(cutoff=5)@5", "both as an argument and after @"),
    ("IPrec@1.5", "recall=1.5 is invalid"),
    ("RR(rel=__import__('os'))", "rel must be a literal"),
]


@pytest.mark.parametrize(("spec", "message"), REFUSED)
def test_refused_with_one_sentence(spec: str, message: str | None) -> None:
    if message is None:
        assert parse_measures([spec])
        return
    with pytest.raises(MeasureError) as err:
        parse_measures([spec])
    text = str(err.value)
    assert message in text
    assert "\n" not in text and text.startswith(f"measure '{spec}'")


def test_not_an_ir_measures_name_is_left_to_the_other_parsers() -> None:
    assert parse_ir_call("map") is None  # not ir_measures'
    assert parse_ir_call("Unknown@5") is None
    assert parse_ir_call("P@5 +") is None
    with pytest.raises(MeasureError, match="unknown measure 'Unknown@5'"):
        parse_measures(["Unknown@5"])


def test_a_module_adds_a_name_with_its_parameters(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mechanism engine/measures/{cwl,compat,diversity}.py use (module docstring of ir_names)."""
    alias = IrAlias("map", "map_cut", {"cutoff": CUTOFF, "x": Param(float, default=0.5, check=open_unit)})
    monkeypatch.setitem(IR_ALIASES, "TestOnly", alias)
    assert one("TestOnly(x=0.25)@5").param == (5, (("x", 0.25),))
    assert one("TestOnly(x=0.5)@5").param == 5  # the default is not passed on
    assert one("TestOnly(x=0.25)").param == (("x", 0.25),)
    with pytest.raises(MeasureError, match=r"x=2\.0 is invalid"):
        parse_measures(["TestOnly(x=2)"])
    with pytest.raises(MeasureError, match="TestOnly has no parameter 'rel'"):
        parse_measures(["TestOnly(rel=2)"])


# -------------------------------------------------------------------------------- pytrec_eval names

PYTREC_NAMES = [
    ("P_10", "P", 10),
    ("ndcg_cut_10", "ndcg_cut", 10),
    ("recall_100", "recall", 100),
    ("map_cut_10", "map_cut", 10),
    ("success_1", "success", 1),
    ("relative_P_5", "relative_P", 5),
    ("iprec_at_recall_0.10", "iprec_at_recall_v9", 0.1),
    ("Rprec_mult_0.20", "Rprec_mult", 0.2),
    ("set_F_0.5", "set_F", 0.5),
]


@pytest.mark.parametrize(("spec", "family", "param"), PYTREC_NAMES)
def test_pytrec_eval_names(spec: str, family: str, param: Any) -> None:
    m = one(spec)
    assert (m.family, m.param, m.measure_name()) == (family, param, spec)


def test_pytrec_eval_bare_names_are_trec_eval_names() -> None:
    assert [m.measure_name() for m in parse_measures(["gm_map", "num_q", "map"])] == [
        "gm_map",
        "num_q",
        "map",
    ]


@pytest.mark.parametrize("spec", ["P_0", "P_2.5", "ndcg_cut_-1"])
def test_pytrec_eval_bad_cutoffs_refused(spec: str) -> None:
    with pytest.raises(MeasureError):
        parse_measures([spec])


def test_pytrec_eval_names_give_pytrec_eval_values() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    names = [n for n, _, _ in PYTREC_NAMES] + ["map", "ndcg", "recip_rank", "bpref", "Rprec", "num_rel_ret"]
    theirs = pytrec_eval.RelevanceEvaluator(QRELS, set(names) - {"set_F_0.5"}).evaluate(RUN)
    ours = evaluate(*names)
    for name in set(names) - {"set_F_0.5"}:
        for i, topic in enumerate(ours.topics):
            assert ours.per_topic[name][i] == pytest.approx(theirs[topic][name], abs=1e-12), (name, topic)


# -------------------------------------------------------------------------------- values by hand


def test_numret_rel_counts_retrieved_docs_at_that_grade() -> None:
    r = evaluate("NumRet", "NumRet(rel=1)", "NumRet(rel=2)", "NumRelRet", "NumRet(rel=0)")
    assert per_topic(r, "NumRet") == [5, 3]
    assert per_topic(r, "NumRet(rel=1)") == [2, 1]  # a, c | x
    assert per_topic(r, "NumRet(rel=2)") == [1, 0]
    assert per_topic(r, "NumRet(rel=0)") == [3, 2]  # judged: a, b, c | y, x
    assert r.summary["NumRet(rel=1)"] == r.summary["NumRelRet"] == 3
    assert "NumRet(rel=1)" in r.integer


def test_numq_has_a_per_topic_value() -> None:
    r = evaluate("NumQ", "num_q")
    assert per_topic(r, "NumQ") == [1, 1] and r.summary["NumQ"] == 2
    assert "NumQ" not in r.summary_only and "num_q" in r.summary_only


def test_judged_only_drops_unjudged_docs_for_that_measure_alone() -> None:
    r = evaluate("P@3", "P(judged_only=True)@3", "AP", "AP(judged_only=True)")
    assert per_topic(r, "P@3") == pytest.approx([1 / 3, 1 / 3])  # a u b | y z x
    assert per_topic(r, "P(judged_only=True)@3") == pytest.approx([2 / 3, 1 / 3])  # a b c | y x
    # AP: rel at 1, 4 of 3 (R=3) -> (1 + 2/4)/3; judged only: rel at 1, 3 -> (1 + 2/3)/3
    assert per_topic(r, "AP")[0] == pytest.approx((1 + 2 / 4) / 3)
    assert per_topic(r, "AP(judged_only=True)")[0] == pytest.approx((1 + 2 / 3) / 3)
    assert per_topic(r, "AP(judged_only=True)")[1] == pytest.approx(1 / 2)


def test_ndcg_gains_and_exp_log2() -> None:
    r = evaluate("nDCG(gains={2:5})@3", "nDCG(dcg='exp-log2')@3", "nDCG(gains={0:2})@2")
    ideal = 5 + 1 / math.log2(3) + 1 / 2  # grades 2, 1, 1 -> gains 5, 1, 1
    assert per_topic(r, "nDCG(gains={2:5})@3")[0] == pytest.approx(5 / ideal)  # a u b: 5, 0, 0
    ideal_exp = 3 + 1 / math.log2(3) + 1 / 2  # 2^2-1, 2^1-1, 2^1-1
    assert per_topic(r, "nDCG(dcg='exp-log2')@3")[0] == pytest.approx(3 / ideal_exp)
    # grade 0 gains 2: b (judged 0) gains, u (not in the qrels) does not
    ideal0 = 2 + 2 / math.log2(3)  # grades 2, 0, 1, 1 gain 2, 2, 1, 1: the top 2
    assert per_topic(r, "nDCG(gains={0:2})@2")[0] == pytest.approx(2 / ideal0)
    assert per_topic(r, "nDCG(gains={0:2})@2")[1] == pytest.approx(
        2 / (2 + 1 / math.log2(3))
    )  # y (0 -> 2), z


def test_setp_relative() -> None:
    r = evaluate("SetP", "SetP(relative=True)", "SetRelP")
    assert per_topic(r, "SetP") == pytest.approx([2 / 5, 1 / 3])
    assert per_topic(r, "SetP(relative=True)") == pytest.approx([2 / 3, 1 / 1])  # / min(num_ret, R)
    assert per_topic(r, "SetRelP") == per_topic(r, "SetP(relative=True)")


# -------------------------------------------------------------------------------- the command


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "qrels").write_text(QRELS_TEXT)
    (tmp_path / "run").write_text(RUN_TEXT)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("spec", ["P@0", "RBP(p=1.2)", "nDCG(rel=2)", "ERR(rel=2)", "Judged(rel=2)", "P_0"])
def test_command_refuses_with_exit_2(files: tuple[str, str], spec: str) -> None:
    code, out, err = cli("-m", spec, *files)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and spec in err


def test_command_prints_ir_measures_and_pytrec_eval_names(files: tuple[str, str]) -> None:
    code, out, err = cli("-q", "-m", "NumQ", "-m", "NumRet(rel=1)", "-m", "P_10", *files)
    assert code == 0, err
    lines = {tuple(line.split("\t")[:2]): line.split("\t")[2] for line in out.splitlines()}
    assert lines[("NumQ", "1")] == "1" and lines[("NumQ", "all")] == "2"
    assert lines[("NumRet(rel=1)", "all")] == "3"
    assert lines[("P_10", "all")] == "0.1500"


# -------------------------------------------------------------------------------- ir_measures itself

IR_NAMES = [
    "AP", "MAP", "AP@10", "AP(rel=2)@100", "nDCG", "NDCG", "nDCG@10", "P@10", "Precision@10", "P(rel=2)@10",
    "RR", "MRR", "RR@10", "RR(rel=2)", "Rprec", "RPrec", "Bpref", "BPref", "Bpref(rel=2)", "infAP",
    "infAP(rel=2)", "NumRet", "NumRet(rel=1)", "NumRet(rel=2)", "NumRel", "NumRelRet", "NumQ", "Judged",
    "Judged@10", "RBP(rel=1)", "RBP(p=0.5,rel=2)", "R@100", "Recall@100", "R(rel=2)@100", "Success@10",
    "IPrec@0.1", "IPrec(rel=2)@0.5", "SetP", "SetP(rel=2)", "SetP(relative=True)", "SetRelP", "SetR",
    "SetAP", "SetF", "SetF(beta=0.5)", "AP(judged_only=True)", "nDCG(judged_only=True)@10",
    "P(judged_only=True)@10", "RR(judged_only=True)", "Rprec(judged_only=True)",
    "IPrec(judged_only=True)@0.3",
    "Success(judged_only=True)@5", "nDCG(gains={0:0,1:1,2:3})", "nDCG(gains={0:0,1:1,2:3})@10",
]  # fmt: skip
GDEVAL_NAMES = ["ERR@20", "nDCG(dcg='exp-log2')@10"]  # gdeval.pl prints 5 decimals
GDEVAL_TOLERANCE = 5e-6 + 1e-12
TOLERANCE = 1e-9


def _tie_free(run: RankedRun) -> RankedRun:
    """The same ranking with scores n, n-1, ..., 1: no ties, exact in float32 (see the docs)."""
    scores = np.concatenate(
        [
            np.arange(b - a, 0, -1, dtype=np.float64)
            for a, b in zip(run.offsets[:-1], run.offsets[1:], strict=True)
        ]
    )
    qids = np.repeat(np.array(run.topics, dtype="S"), np.diff(run.offsets))
    return run_from_arrays(run.name, qids, run.docnos, scores)


def _ir_run(run: RankedRun, ir_measures: Any) -> list[Any]:
    return [
        ir_measures.ScoredDoc(t, d.decode(), float(s))
        for t, docs, scores in run.items()
        for d, s in zip(docs.tolist(), scores.tolist(), strict=True)
    ]


@cache
def _qrels(root: Path, collection: str) -> tuple[Judgments, list[Any]]:
    import ir_measures

    from trec import read_qrels

    path = root / "scenarios" / collection / "full" / "qrels.txt"
    return Judgments(read_qrels(path)), list(ir_measures.read_trec_qrels(str(path)))


def _runs(collection: str) -> list[str]:
    from tests.conftest import refdata_dir

    root = refdata_dir()
    if root is None:
        return ["absent"]
    return sorted(p.name for p in (root / "data" / collection / "runs").glob("*.run"))


def _batches(measures: list[Any]) -> list[list[Any]]:
    """The measures to ask ir_measures for, in calls it answers right.

    ir_measures' pytrec_eval provider computes measures of one name with different parameters
    (NumRet and NumRet(rel=1), nDCG and nDCG(gains=...)) through one pytrec_eval name on
    rewritten qrels or runs and, asked for several in one call, can hand one's values to
    another, depending on the iteration order of a set of measures (string hashing is
    randomized per process, so it fails in some processes only). Each call here holds at most
    one measure of each name.
    """
    batches: list[list[Any]] = []
    for m in measures:
        base = str(m).split("(")[0].split("@")[0]
        for batch in batches:
            if all(str(x).split("(")[0].split("@")[0] != base for x in batch):
                batch.append(m)
                break
        else:
            batches.append([m])
    return batches


def _compare(
    refdata: Path, collection: str, run_name: str, names: list[str], prepare: Callable[[RankedRun], RankedRun]
) -> list[str]:
    ir_measures = pytest.importorskip("ir_measures")
    from trec import read_run

    judgments, ir_qrels = _qrels(refdata, collection)
    run = prepare(read_run(refdata / "data" / collection / "runs" / run_name))
    ir_run = _ir_run(run, ir_measures)
    ours = evaluate_run(judgments, run, parse_measures(names), EvalOptions())
    measures = [ir_measures.parse_measure(n) for n in names]
    theirs: dict[tuple[str, str], float] = {}
    for batch in _batches(measures):
        for metric in ir_measures.iter_calc(batch, ir_qrels, ir_run):
            theirs[(str(metric.measure), metric.query_id)] = float(metric.value)
    bad = []
    for name, measure in zip(names, measures, strict=True):
        tol = GDEVAL_TOLERANCE if name in GDEVAL_NAMES else TOLERANCE
        for i, topic in enumerate(ours.topics):
            value, ref = float(ours.per_topic[name][i]), theirs[(str(measure), topic)]
            if not abs(value - ref) <= tol:
                bad.append(f"{name} {topic}: ours {value!r}, ir_measures {ref!r}")
    return bad


@pytest.mark.refdata
@pytest.mark.parametrize("collection", ["robust05", "dlhard-passage"])
def test_refdata_every_name_equals_ir_measures(refdata: Path, collection: str) -> None:
    """Every run, tie-free: ours per topic = ir_measures' (pytrec_eval, msmarco, judged, cwl_eval, gdeval)."""
    for run_name in _runs(collection):
        bad = _compare(refdata, collection, run_name, IR_NAMES + GDEVAL_NAMES, _tie_free)
        assert not bad, f"{run_name}: {bad[:5]}"


@pytest.mark.refdata
def test_refdata_raw_runs_dlhard(refdata: Path) -> None:
    """The runs as they are: dlhard-passage's scores survive float32 and its ties agree."""
    for run_name in _runs("dlhard-passage"):
        names = [n for n in IR_NAMES if not n.startswith("RBP")]  # cwl_eval orders ties its own way
        bad = _compare(refdata, "dlhard-passage", run_name, names + GDEVAL_NAMES, lambda r: r)
        assert not bad, f"{run_name}: {bad[:5]}"


def _float32(run: RankedRun) -> RankedRun:
    """The run with every score rounded to float32, as pytrec_eval stores it."""
    qids = np.repeat(np.array(run.topics, dtype="S"), np.diff(run.offsets))
    return run_from_arrays(run.name, qids, run.docnos, run.scores.astype(np.float32).astype(np.float64))


@pytest.mark.refdata
def test_refdata_raw_runs_robust05_differ_only_by_float32(refdata: Path) -> None:
    """robust05's raw scores collapse in float32 (pytrec_eval's ties); rounded so, every run agrees.

    Left out: RR@k (msmarco breaks ties by docno ascending) and RBP (cwl_eval's own tie order),
    tested tie-free above.
    """
    names = [n for n in IR_NAMES if not n.startswith(("RBP", "RR@"))]
    for run_name in _runs("robust05"):
        bad = _compare(refdata, "robust05", run_name, names + GDEVAL_NAMES, _float32)
        assert not bad, f"{run_name}: {bad[:5]}"


@pytest.mark.refdata
def test_refdata_provider_aggregates_equal_ir_measures(refdata: Path) -> None:
    """Through the provider: ir_measures' own averaging (qrels topics missing from a run count 0)."""
    ir_measures = pytest.importorskip("ir_measures")
    from engine.ir_provider import workbench_provider
    from trec import read_run

    _, ir_qrels = _qrels(refdata, "robust05")
    run = _tie_free(read_run(refdata / "data" / "robust05" / "runs" / "terrier_bm25_b0.50.run"))  # lacks 689
    measures = [ir_measures.parse_measure(n) for n in IR_NAMES]
    ir_run = _ir_run(run, ir_measures)
    ours = workbench_provider().calc_aggregate(measures, ir_qrels, ir_run)
    theirs = {
        m: v
        for batch in _batches(measures)
        for m, v in ir_measures.calc_aggregate(batch, ir_qrels, ir_run).items()
    }
    assert {str(m): ours[m] for m in measures} == pytest.approx(
        {str(m): theirs[m] for m in measures}, abs=TOLERANCE
    )


# -------------------------------------------------------------------------------- deliberate differences


def test_difference_score_ties_follow_trec_eval_not_msmarco() -> None:
    """RR@k: ir_measures' msmarco provider breaks score ties by docno ascending, trec_eval descending."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {"1": {"a": 1, "b": 0}}
    run = {"1": {"a": 1.0, "b": 1.0}}
    ours = evaluate_run(
        Judgments(qrels_from_dict(qrels)), _run(run), parse_measures(["RR@10"]), EvalOptions()
    )
    assert per_topic(ours, "RR@10") == [0.5]  # b ranks first: docno descending
    theirs = ir_measures.msmarco.calc_aggregate([ir_measures.RR @ 10], qrels, run)
    assert theirs[ir_measures.RR @ 10] == 1.0  # a ranks first: docno ascending


def test_difference_pytrec_eval_scores_are_float32() -> None:
    """pytrec_eval stores scores as float32: scores 1e-9 apart tie there (then docno descending), not here."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {"1": {"a": 1, "b": 0}}
    run = {"1": {"a": 1.0 + 1e-9, "b": 1.0}}
    ours = evaluate_run(Judgments(qrels_from_dict(qrels)), _run(run), parse_measures(["P@1"]), EvalOptions())
    assert per_topic(ours, "P@1") == [1.0]  # a scores higher
    theirs = ir_measures.pytrec_eval.calc_aggregate([ir_measures.P @ 1], qrels, run)
    assert theirs[ir_measures.P @ 1] == 0.0  # a float32 tie: b ranks first
