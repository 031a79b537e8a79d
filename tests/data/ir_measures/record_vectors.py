"""Record ir_measures' own test vectors as data: qrels, run, measures and the values its tests accept.

Usage (needs ir_measures and its providers installed, and a checkout of terrierteam/ir_measures)::

    git -C <ir_measures git dir> archive <commit> tests | tar -x -C /tmp/irm
    python tests/data/ir_measures/record_vectors.py /tmp/irm <commit> tests/data/ir_measures/vectors.json

It runs ir_measures' unittest files unchanged, watching every provider call (``iter_calc``,
``calc_aggregate``, ``calc`` and evaluators' ``iter_calc``/``calc_aggregate``): the inputs, the
provider, and what it returned. Only calls made by tests that passed are kept, so every recorded
value satisfies that test's assertions (which compare to 4 places, or exactly). Nothing of
ir_measures' code is copied: this script only observes it.
"""

from __future__ import annotations

import functools
import json
import math
import sys
import threading
import unittest
from pathlib import Path
from typing import Any

_local = threading.local()
_calls: list[dict[str, Any]] = []
_current_test: list[str] = [""]


def _qrels_rows(qrels: Any) -> list[list[Any]]:
    from ir_measures.util import QrelsConverter

    return [
        [q.query_id, q.doc_id, int(q.relevance), str(q.iteration)]
        for q in QrelsConverter(qrels).as_namedtuple_iter()
    ]


def _run_rows(run: Any) -> list[list[Any]]:
    from ir_measures.util import RunConverter

    return [[r.query_id, r.doc_id, float(r.score)] for r in RunConverter(run).as_namedtuple_iter()]


def _reusable(data: Any) -> Any:
    """A list in place of a one-shot iterator, so recording does not consume the test's input."""
    if isinstance(data, list | tuple | dict) or hasattr(data, "columns"):
        return data
    return list(data)


def _num(v: Any) -> Any:
    v = float(v)
    return None if math.isnan(v) else v


def _record(kind: str, provider: str, measures: Any, qrels: Any, run: Any, fn: Any) -> Any:
    if getattr(_local, "depth", 0):
        return fn(qrels, run)
    _local.depth = 1
    entry: dict[str, Any] = {"test": _current_test[0], "provider": provider, "call": kind}
    try:
        measures = list(measures)
        entry["measures"] = [str(m) for m in measures]
        qrels, run = _reusable(qrels), _reusable(run)
        try:
            entry["qrels"] = _qrels_rows(qrels)
            entry["run"] = _run_rows(run)
        except (ValueError, TypeError, AttributeError, KeyError):  # not document qrels (runtime measures)
            return fn(qrels, run)
        try:
            out = fn(qrels, run)
            if kind.endswith("iter_calc"):
                out = list(out)
                entry["per_query"] = [[m.query_id, str(m.measure), _num(m.value)] for m in out]
            elif kind.endswith("calc_aggregate"):
                entry["aggregate"] = {str(m): _num(v) for m, v in out.items()}
            else:
                entry["aggregate"] = {str(m): _num(v) for m, v in out.aggregated.items()}
                entry["per_query"] = [[m.query_id, str(m.measure), _num(m.value)] for m in out.per_query]
        except Exception as exc:
            entry["error"] = type(exc).__name__
            raise
        finally:
            _calls.append(entry)
        return out
    finally:
        _local.depth = 0


def _name(provider: Any) -> str:
    return str(getattr(provider, "NAME", type(provider).__name__))


def _patch() -> None:
    from ir_measures.providers.base import Evaluator, Provider

    orig_iter, orig_agg, orig_calc, orig_eval = (
        Provider.iter_calc,
        Provider.calc_aggregate,
        Provider.calc,
        Provider.evaluator,
    )

    def iter_calc(self: Any, measures: Any, qrels: Any, run: Any) -> Any:
        measures = list(measures)
        return iter(
            _record(
                "iter_calc",
                _name(self),
                measures,
                qrels,
                run,
                lambda q, r: list(orig_iter(self, measures, q, r)),
            )
        )

    def calc_aggregate(self: Any, measures: Any, qrels: Any, run: Any) -> Any:
        measures = list(measures)
        return _record(
            "calc_aggregate", _name(self), measures, qrels, run, lambda q, r: orig_agg(self, measures, q, r)
        )

    def calc(self: Any, measures: Any, qrels: Any, run: Any) -> Any:
        measures = list(measures)
        return _record(
            "calc", _name(self), measures, qrels, run, lambda q, r: orig_calc(self, measures, q, r)
        )

    def evaluator(self: Any, measures: Any, qrels: Any) -> Any:
        measures = list(measures)
        qrels = _reusable(qrels)
        ev = orig_eval(self, measures, qrels)
        if getattr(_local, "depth", 0):
            return ev
        name = _name(self)
        ev_iter, ev_agg = ev.iter_calc, ev.calc_aggregate

        def ev_iter_calc(run: Any) -> Any:
            return iter(
                _record("evaluator.iter_calc", name, measures, qrels, run, lambda q, r: list(ev_iter(r)))
            )

        def ev_calc_aggregate(run: Any) -> Any:
            return _record("evaluator.calc_aggregate", name, measures, qrels, run, lambda q, r: ev_agg(r))

        setattr(ev, "iter_calc", ev_iter_calc)  # noqa: B010  (patching an instance's method)
        setattr(ev, "calc_aggregate", ev_calc_aggregate)  # noqa: B010
        return ev

    for attr, orig, new in (
        ("iter_calc", orig_iter, iter_calc),
        ("calc_aggregate", orig_agg, calc_aggregate),
        ("calc", orig_calc, calc),
        ("evaluator", orig_eval, evaluator),
    ):
        setattr(Provider, attr, functools.wraps(orig)(new))
    del Evaluator


def _registered(measure: str) -> bool:
    import re

    from ir_measures.measures import registry

    return re.split(r"[(@]", measure, maxsplit=1)[0] in registry


def _kept(failures: set[str], errored: set[str]) -> list[dict[str, Any]]:
    """Calls whose test passed, or ran before the call that raised in a test that errored."""
    kept, stopped = [], set()
    for call in _calls:
        test = call["test"]
        if "error" in call:
            stopped.add(test)
        if test in failures or test in stopped or "error" in call:
            continue
        if test in errored and not any(c["test"] == test and "error" in c for c in _calls):
            continue  # an error outside any provider call: its calls are not known to be asserted
        if call["provider"] == "runtime" or not all(_registered(m) for m in call["measures"]):
            continue  # measures defined at run time by the test (ir_measures.define): no name to map
        kept.append(call)
    return kept


def _tables(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Share identical qrels and runs between cases: ``qrels``/``run`` become indices into tables."""
    qrels: dict[str, int] = {}
    runs: dict[str, int] = {}
    for case in cases:
        case["qrels"] = qrels.setdefault(json.dumps(case["qrels"]), len(qrels))
        case["run"] = runs.setdefault(json.dumps(case["run"]), len(runs))
    return {
        "qrels_tables": [json.loads(k) for k in qrels],
        "run_tables": [json.loads(k) for k in runs],
        "cases": cases,
    }


class _Result(unittest.TextTestResult):
    failed: set[str]

    def startTest(self, test: unittest.TestCase) -> None:
        _current_test[0] = test.id()
        super().startTest(test)

    def addSubTest(self, test: Any, subtest: Any, err: Any) -> None:
        if err is not None:
            self.failed.add(test.id())
        super().addSubTest(test, subtest, err)


def main(tests_root: str, commit: str, out: str) -> None:
    sys.path.insert(0, tests_root)
    _patch()
    suite = unittest.defaultTestLoader.discover(str(Path(tests_root) / "tests"), top_level_dir=tests_root)
    runner = unittest.TextTestRunner(resultclass=_Result, verbosity=0)  # type: ignore[arg-type]
    _Result.failed = set()
    result = runner.run(suite)
    failures = {t.id() for t, _ in result.failures} | _Result.failed
    errored = {t.id() for t, _ in result.errors} | {t.id() for t, _ in result.skipped}
    data = {
        "source": "terrierteam/ir_measures",
        "commit": commit,
        "license": "Apache-2.0",
        "recorded_with": {"ir_measures": __import__("ir_measures").__version__},
        "note": (
            "Each case: one provider call made by an ir_measures test, with its inputs and outputs. "
            "Kept: calls of passing tests, and of tests that stopped with an error (an unavailable "
            "provider) the calls made before the one that raised. qrels/runs are shared tables."
        ),
        "failed_or_skipped_tests": sorted(failures | errored),
        **_tables(_kept(failures, errored)),
    }
    Path(out).write_text(json.dumps(data, indent=0, ensure_ascii=False) + "\n")
    print(f"{len(data['cases'])} cases kept of {len(_calls)} calls")


if __name__ == "__main__":
    main(*sys.argv[1:4])
