"""Regenerate ir_measures_pyndeval.expected.tsv: pyndeval 0.0.8 (through ir_measures) on the vectors of
ir_measures' tests/test_pyndeval.py. Run from the repository root with the venv's python:

    .venv/bin/python tests/data/diversity/record_expected.py
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import ir_measures

HERE = Path(__file__).resolve().parent
# the measures of ir_measures' test_pyndeval.py (test_measures, test_ERR_IA), then other parameters
MEASURES = [
    "ERR_IA@5", "ERR_IA(rel=2)@10", "nERR_IA@5", "nERR_IA(rel=2)@10", "alpha_DCG@5", "alpha_nDCG@5",
    "NRBP", "NRBP(rel=2)", "nNRBP", "nNRBP(rel=2)", "AP_IA", "AP_IA(rel=2)", "P_IA@5", "P_IA(rel=2)@10",
    "StRecall@5", "StRecall(rel=2)@10", "ERR_IA@20",
    "ERR_IA@1", "alpha_DCG@1", "alpha_nDCG(alpha=0.3)@3", "alpha_DCG(alpha=1.0)@4",
    "NRBP(alpha=0.2,beta=0.9)", "nNRBP(alpha=0.2,beta=0.9)", "nERR_IA@2", "P_IA@20", "StRecall@1",
    "AP_IA(rel=0)",
]  # fmt: skip


def main() -> None:
    warnings.simplefilter("ignore")
    qrels = list(ir_measures.read_trec_qrels(str(HERE / "ir_measures_pyndeval.qrels")))
    run = list(ir_measures.read_trec_run(str(HERE / "ir_measures_pyndeval.run")))
    lines = []
    for name in MEASURES:
        measure = ir_measures.parse_measure(name)
        evaluator = ir_measures.pyndeval.evaluator([measure], qrels)
        result = evaluator.calc(run)
        for metric in result.per_query:
            lines.append(f"{name}\t{metric.query_id}\t{metric.value!r}")
        value = float(result.aggregated[measure])  # type: ignore[index]
        lines.append(f"{name}\tall\t{'nan' if math.isnan(value) else repr(value)}")
    (HERE / "ir_measures_pyndeval.expected.tsv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
