"""An ir_measures provider backed by this engine: ir_measures' API, the workbench's numbers.

    import ir_measures
    from engine.ir_provider import workbench_provider

    provider = workbench_provider()
    provider.calc_aggregate([ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 5], qrels, run)

ir_measures stays optional: it is imported when :func:`workbench_provider` is first called, never
at import time, and nothing is registered in ``ir_measures.providers.registry`` (pass the provider
where ir_measures takes one, or call its methods). A measure is converted through its ``repr``
(``nDCG@10``, ``P(rel=2)@5``, ``SetP(relative=True)``) to the engine's ir_measures names
(:mod:`engine.ir_names`), so the provider supports exactly the names the engine parses.

Semantics follow ir_measures' :class:`~ir_measures.providers.Evaluator`: a qrels topic the run does
not rank gets the measure's ``DEFAULT`` (0) from the base class, a run topic absent from the qrels
is ignored, and aggregates use the measure's own aggregator (mean, or sum for NumQ/NumRet/NumRel).
``calc_aggregate`` (and ``calc``'s aggregates) are keyed by the Measure objects passed and answer
to their names too (:class:`~engine.measure_dict.MeasureDict`): ``result["nDCG@10"]`` works.
A document listed twice keeps its last entry, as ir_measures' dict-of-dict conversion does; the
qrels' ``iteration`` column is kept as the subtopic of diversity measures (as pyndeval reads it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from engine.evaluate import Judgments, evaluate_run
from engine.ir_names import ir_measure
from engine.measure_dict import MeasureDict
from engine.measures import EvalOptions, Measure
from engine.measures.aliases import NO_VALUE_IS_ABSENT
from engine.name_parts import MeasureError
from trec.qrels import qrels_from_arrays
from trec.runs import run_from_arrays

_PROVIDER: Any = None


def engine_measure(measure: Any) -> Measure | None:
    """The engine's request for an ir_measures measure (or its name); None if the engine lacks it."""
    try:
        found = ir_measure(str(measure))
    except MeasureError:
        return None
    return found[0] if found and len(found) == 1 else None


def _bytes(values: list[str]) -> np.ndarray:
    return np.array(values, dtype=object).astype(str).astype("S") if values else np.zeros(0, dtype="S1")


def _judgments(lines: Iterable[Any]) -> Judgments:
    """Judgments from ir_measures' Qrel tuples, subtopics (``iteration``) kept for diversity measures.

    A (topic, doc, iteration) given twice keeps its last grade, as ir_measures' dict conversion does.
    """
    grades: dict[tuple[str, str, str], int] = {}
    for q in lines:
        grades[(str(q.query_id), str(q.doc_id), str(getattr(q, "iteration", "0")))] = int(q.relevance)
    keys = list(grades)
    return Judgments(
        qrels_from_arrays(
            _bytes([k[0] for k in keys]),
            _bytes([k[1] for k in keys]),
            np.array(list(grades.values()), dtype=np.int64),
            iters=_bytes([k[2] for k in keys]),
        )
    )


def _ranked(run: dict[str, dict[str, float]]) -> Any:
    qids = [q for q, docs in run.items() for _ in docs]
    docnos = [d for docs in run.values() for d in docs]
    scores = [float(s) for docs in run.values() for s in docs.values()]
    return run_from_arrays("run", _bytes(qids), _bytes(docnos), np.array(scores, dtype=np.float64))


def _value(v: float) -> float | int:
    return int(v) if float(v).is_integer() and abs(v) < 2**53 else float(v)


def workbench_provider() -> Any:
    """The provider instance (an ``ir_measures.providers.Provider`` subclass); imports ir_measures."""
    global _PROVIDER
    if _PROVIDER is None:
        _PROVIDER = _provider_class()()
    return _PROVIDER


def _provider_class() -> type:
    from ir_measures.providers.base import Evaluator, Provider
    from ir_measures.util import CalcResults, Metric, QrelsConverter, RunConverter

    class WorkbenchEvaluator(Evaluator):
        """Judgments prepared once; each run is evaluated with :func:`engine.evaluate.evaluate_run`."""

        def __init__(self, measures: Iterable[Any], qrels: Any) -> None:
            lines = list(QrelsConverter(qrels).as_namedtuple_iter())
            measures = list(dict.fromkeys(measures))  # equal measures (NumRelRet, NumRet(rel=1)) once
            super().__init__(measures, {q.query_id for q in lines})
            self.judgments = _judgments(lines)
            self.requests: list[tuple[Any, Measure]] = []
            for m in measures:
                req = engine_measure(m)
                if req is None:
                    raise ValueError(f"measure {m} is not supported by the workbench provider")
                self.requests.append((m, req))

        def iter_calc(self, run: Any) -> Iterator[Any]:
            # ir_measures' Evaluator.iter_calc, except that a topic without a value for a family of
            # NO_VALUE_IS_ABSENT stays absent instead of being filled with the measure's default
            missing = {
                (m, qid)
                for m, req in self.requests
                if req.family not in NO_VALUE_IS_ABSENT
                for qid in self.qrel_qids
            }
            for metric in self._iter_calc(run):
                missing.discard((metric.measure, metric.query_id))
                yield metric
            for measure, query_id in sorted(missing, key=lambda x: (str(x[0]), x[1])):
                yield Metric(query_id=query_id, measure=measure, value=measure.DEFAULT)

        def calc_aggregate(self, run: Any) -> MeasureDict:
            # keyed by the Measure objects passed, as ir_measures', and by their names too
            return MeasureDict(super().calc_aggregate(run))

        def calc(self, run: Any) -> Any:
            aggregated, per_query = super().calc(run)
            if isinstance(aggregated, dict):
                aggregated = MeasureDict(aggregated)
            return CalcResults(aggregated, per_query)

        def _iter_calc(self, run: Any) -> Iterator[Any]:
            run_dict = RunConverter(run).as_dict_of_dict()
            if not any(run_dict.values()):
                return
            result = evaluate_run(
                self.judgments, _ranked(run_dict), [r for _, r in self.requests], EvalOptions()
            )
            for i, topic in enumerate(result.topics):
                for m, req in self.requests:
                    if req.family in NO_VALUE_IS_ABSENT and math.isnan(
                        result.per_topic[req.measure_name()][i]
                    ):
                        continue  # ir_measures yields nothing for such a topic (see NO_VALUE_IS_ABSENT)
                    yield Metric(
                        query_id=topic, measure=m, value=_value(result.per_topic[req.measure_name()][i])
                    )

    class WorkbenchProvider(Provider):
        """relevance-workbench's engine (trec_eval 10.0 semantics, ir_measures' names)."""

        NAME = "workbench"

        def supports(self, measure: Any) -> bool:
            try:
                measure.validate_params()
            except AssertionError:
                return False
            return engine_measure(measure) is not None

        def _evaluator(self, measures: Iterable[Any], qrels: Any) -> Any:
            return WorkbenchEvaluator(measures, qrels)

    return WorkbenchProvider
