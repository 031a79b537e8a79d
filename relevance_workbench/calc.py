"""ir_measures' calling conventions on the workbench's engine: ``rw.calc_aggregate(measures, qrels, run)``.

    from ir_measures import nDCG, P, AP
    import relevance_workbench as rw

    rw.calc_aggregate([nDCG @ 10, P @ 5, AP], qrels, run)  # {nDCG@10: 0.52, P@5: 0.6, AP: 0.31}
    for metric in rw.iter_calc([AP], qrels, run):
        print(metric.query_id, metric.measure, metric.value)

The functions take ir_measures' arguments in its order (measures, qrels, run) and answer as it
does: aggregates keyed by the measures passed, each also reachable by its name
(``result[nDCG@10] == result["nDCG@10"]``, :class:`~engine.measure_dict.MeasureDict`), per-topic
values as ``Metric(query_id, measure, value)``. A measure is an ir_measures Measure object or any
name ``rw.evaluate`` takes; ir_measures itself is never imported. Semantics are ir_measures': every
qrels topic is scored, a topic the run lacks takes the measure's default 0 (NumQ and NumRel too),
run topics without judgments are ignored, and the aggregate is each measure's own (sum for
NumQ/NumRet/NumRel, else the mean).

Two deliberate differences: a run sharing no topic with the qrels raises :class:`InputError`
(ir_measures scores it 0 everywhere, which a pipeline takes for a result), and a docno twice in one
topic of the run or the qrels is an error (ir_measures silently keeps the last one).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from engine.evaluate import Judgments, RunResult, evaluate_run, no_common_topic
from engine.measure_dict import MeasureDict
from engine.measures import EvalOptions, Measure
from engine.measures.aliases import NO_VALUE_IS_ABSENT
from engine.names import parse_measures
from relevance_workbench.inputs import InputError, measure_specs, to_judgments, to_run

# ir_measures' Evaluator: every qrels topic, a missing one at the measure's default
IR_MEASURES_OPTIONS = EvalOptions(complete=True)


class Metric(NamedTuple):
    """One topic's value of one measure: ir_measures' ``Metric`` (query_id, measure, value)."""

    query_id: str
    measure: Any  # the measure as passed: an ir_measures Measure object or a name
    value: float


class CalcResults(NamedTuple):
    """ir_measures' ``CalcResults``: the aggregates and every per-topic Metric."""

    aggregated: MeasureDict
    per_query: list[Metric]


@dataclass(frozen=True)
class _Column:
    key: Any  # what the result is keyed by: the measure passed, or an output name
    name: str  # the engine's column
    family: str


def _as_list(measures: Any) -> list[Any]:
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        return [measures]
    return list(dict.fromkeys(measures))  # equal measures once, as ir_measures' set of measures


def _columns(measures: list[Any]) -> tuple[list[_Column], list[Measure]]:
    """Each measure passed, with the engine measures computing it (MeasureError first, before any run)."""
    columns: list[_Column] = []
    requests: list[Measure] = []
    for item in measures:
        (spec,) = measure_specs([item])
        found = parse_measures([spec])
        for m in found:
            name = m.measure_name()
            # a name giving several columns (P.5,10; official) is keyed by each column's name
            key = item if len(found) == 1 else name
            if any(c.name == name for c in columns):
                continue
            columns.append(_Column(key, name, m.family))
            requests.append(m)
    return columns, requests


class Evaluator:
    """ir_measures' ``Evaluator``: measures and qrels prepared once, then any number of runs."""

    def __init__(self, measures: Any, qrels: Any) -> None:
        self.measures = _as_list(measures)
        self._columns, self._requests = _columns(self.measures)
        self._judgments: Judgments = to_judgments(qrels)

    def _result(self, run: Any) -> RunResult:
        result = evaluate_run(self._judgments, to_run(run, "run"), self._requests, IR_MEASURES_OPTIONS)
        refused = no_common_topic(result)
        if refused:
            raise InputError(refused)
        return result

    def _metrics(self, result: RunResult) -> Iterator[Metric]:
        for i, topic in enumerate(result.topics):
            for column in self._columns:
                if column.name in result.summary_only:
                    continue  # trec_eval's num_q, gm_map: an aggregate only
                value = float(result.per_topic[column.name][i])
                if column.family in NO_VALUE_IS_ABSENT and math.isnan(value):
                    continue  # ir_measures yields no Metric for such a topic
                yield Metric(topic, column.key, value)

    def _aggregated(self, result: RunResult) -> MeasureDict:
        return MeasureDict((c.key, float(result.summary[c.name])) for c in self._columns)

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Every (topic, measure) value of ``run``, topics in the qrels' order."""
        return self._metrics(self._result(run))

    def calc_aggregate(self, run: Any) -> MeasureDict:
        """``{measure: value}`` keyed by the measures passed (and answering to their names)."""
        return self._aggregated(self._result(run))

    def calc(self, run: Any) -> CalcResults:
        """The aggregates and the per-topic values, from one evaluation."""
        result = self._result(run)
        return CalcResults(self._aggregated(result), list(self._metrics(result)))


def evaluator(measures: Any, qrels: Any) -> Evaluator:
    """``ir_measures.evaluator(measures, qrels)``: evaluate many runs against the same judgments."""
    return Evaluator(measures, qrels)


def iter_calc(measures: Any, qrels: Any, run: Any) -> Iterator[Metric]:
    """``ir_measures.iter_calc``: a ``Metric(query_id, measure, value)`` per qrels topic and measure."""
    return Evaluator(measures, qrels).iter_calc(run)


def calc_aggregate(measures: Any, qrels: Any, run: Any) -> MeasureDict:
    """``ir_measures.calc_aggregate``: ``{measure: value}``, by the measure passed or by its name."""
    return Evaluator(measures, qrels).calc_aggregate(run)


def calc(measures: Any, qrels: Any, run: Any) -> CalcResults:
    """``ir_measures.calc``: ``CalcResults(aggregated, per_query)``."""
    return Evaluator(measures, qrels).calc(run)
