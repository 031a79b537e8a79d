"""Every value in ../shared/refdata/expected/reference.tsv.gz, reproduced within 1e-9.

One test per (scenario, run, tool variant). The outputs there are trec_eval 10.0's and NIST
sample_eval.pl's own (see the refdata README); sample_eval's infAP/infNDCG are our xinfAP/xinfNDCG.
"""

from __future__ import annotations

import gzip
from collections import defaultdict
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from engine.evaluate import Judgments, evaluate_run
from engine.measures.base import EvalOptions
from engine.names import parse_measures
from tests.conftest import refdata_dir
from trec import read_prel, read_qrels, read_run

TOLERANCE = 1e-9

TREC_EVAL_OPTIONS = {
    "trec_eval": EvalOptions(),
    "trec_eval -J": EvalOptions(judged_only=True),
    "trec_eval -c": EvalOptions(complete=True),
    "trec_eval -l2": EvalOptions(level=2),
    "trec_eval -J -l2": EvalOptions(judged_only=True, level=2),
    "trec_eval -M3": EvalOptions(max_docs=3),
}
SAMPLE_EVAL_OPTIONS = {
    "sample_eval_trec2011": EvalOptions(sample_variant="trec2011"),
    "sample_eval_trecvid2012": EvalOptions(sample_variant="trecvid2012"),
}


@cache
def _reference() -> dict[tuple[str, str, str], dict[tuple[str, str], float]]:
    root = refdata_dir()
    assert root is not None
    table: dict[tuple[str, str, str], dict[tuple[str, str], float]] = defaultdict(dict)
    with gzip.open(root / "expected" / "reference.tsv.gz", "rt") as fh:
        next(fh)
        for line in fh:
            scenario, run, measure, topic, value, tool = line.rstrip("\n").split("\t")
            table[(scenario, run, tool)][(measure, topic)] = float(value)
    return dict(table)


def _cases() -> list[tuple[str, str, str]]:
    if refdata_dir() is None:
        return [("absent", "absent", "absent")]
    return sorted(_reference())


def _sample_eval_name(measure: str) -> str:
    """sample_eval's output names -> ours."""
    return {"infAP": "xinfAP", "infNDCG": "xinfNDCG"}.get(measure, measure)


@cache
def _judgments(root: Path, scenario: str, kind: str, path: str) -> Judgments:
    """Cached per engine path (``path``): the numpy path builds its own, with nothing compiled."""
    folder = root / "scenarios" / scenario
    if kind == "prel":
        return Judgments.from_prel(read_prel(folder / "prel.txt"))
    return Judgments(read_qrels(folder / "qrels.txt"))


@pytest.mark.refdata
@pytest.mark.parametrize(("scenario", "run", "tool"), _cases(), ids=lambda v: str(v).replace(" ", ""))
def test_reference_values(refdata: Path, scenario: str, run: str, tool: str, engine_path: str) -> None:
    expected = _reference()[(scenario, run, tool)]
    collection = scenario.split("/")[0]
    run_obj = read_run(refdata / "data" / collection / "runs" / f"{run}.run")
    if tool in TREC_EVAL_OPTIONS:
        options = TREC_EVAL_OPTIONS[tool]
        judgments = _judgments(refdata, scenario, "qrels", engine_path)
        measures = parse_measures(["all_trec"])
        rename = {}
    else:
        options = SAMPLE_EVAL_OPTIONS[tool]
        judgments = _judgments(refdata, scenario, "prel", engine_path)
        # the group expands to what that version of sample_eval.pl prints (its own iP cutoffs)
        measures = parse_measures(["sample_eval"], design="prel", sample_variant=options.sample_variant)
        rename = {m: _sample_eval_name(m) for m, _ in expected}
    result = evaluate_run(judgments, run_obj, measures, options)
    topic_pos = {t: i for i, t in enumerate(result.topics)}
    mismatches = []
    for (measure, topic), want in sorted(expected.items()):
        name = rename.get(measure, measure)
        assert name in result.per_topic, f"{name} not computed (have {sorted(result.per_topic)})"
        if topic == "all":
            got = result.summary[name]
        else:
            assert topic in topic_pos, f"{name}: topic {topic} not evaluated"
            got = float(result.per_topic[name][topic_pos[topic]])
        if not np.isclose(got, want, rtol=0, atol=TOLERANCE):
            mismatches.append(f"{name} {topic}: got {got!r}, trec tool printed {want!r}")
    assert not mismatches, f"{len(mismatches)} of {len(expected)} values differ:\n" + "\n".join(
        mismatches[:30]
    )
