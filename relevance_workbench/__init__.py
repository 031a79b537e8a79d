"""The relevance workbench's Python API, for notebooks and pipelines: ``import relevance_workbench as rw``.

- :func:`evaluate`: runs against qrels, any measure name of trec_eval, ir_measures or pytrec_eval;
- :func:`compare`: significance tests between runs on one measure (``manage.py compare``);
- :func:`agreement`: agreement between assessors' judgments (``manage.py agreement``);
- :func:`calc_aggregate`, :func:`iter_calc`, :func:`calc`, :func:`evaluator`: ir_measures' functions
  (``rw.calc_aggregate([nDCG@10, P@5], qrels, run)``), with its semantics;
- :class:`RelevanceEvaluator`: pytrec_eval's (``relevance_workbench.pytrec_eval`` is its module).

Each returns an object with dict methods and ``to_frame()`` (pandas, optional:
``pip install 'relevance-workbench[api]'``). The numbers are the commands' own: the same engine
runs underneath. Pure: no Django. Reference: docs/python_api.md.

:func:`compare` and :func:`agreement` (and with them scipy) are imported on first use, so that
``import relevance_workbench`` and :func:`evaluate` start as fast as ``manage.py evaluate`` or faster.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from engine.measure_dict import MeasureDict
from engine.name_parts import MeasureError
from relevance_workbench.calc import (
    CalcResults,
    Evaluator,
    Metric,
    calc,
    calc_aggregate,
    evaluator,
    iter_calc,
)
from relevance_workbench.evaluation import Results, evaluate
from relevance_workbench.frames import PandasMissing
from relevance_workbench.inputs import InputError
from trec.errors import FormatError

if TYPE_CHECKING:
    from engine.catalog import measure_help
    from engine.significance import ComparisonError
    from relevance_workbench.agreement import AgreementResults, agreement
    from relevance_workbench.comparison import ComparisonResults, compare
    from relevance_workbench.pytrec_eval import RelevanceEvaluator

_LAZY = {
    "agreement": "relevance_workbench.agreement",
    "AgreementResults": "relevance_workbench.agreement",
    "compare": "relevance_workbench.comparison",
    "ComparisonResults": "relevance_workbench.comparison",
    "ComparisonError": "engine.significance",
    "measure_help": "engine.catalog",
    "RelevanceEvaluator": "relevance_workbench.pytrec_eval",
}

__all__ = [
    "AgreementResults",
    "CalcResults",
    "ComparisonError",
    "ComparisonResults",
    "Evaluator",
    "FormatError",
    "InputError",
    "MeasureDict",
    "MeasureError",
    "Metric",
    "PandasMissing",
    "RelevanceEvaluator",
    "Results",
    "agreement",
    "calc",
    "calc_aggregate",
    "compare",
    "evaluate",
    "evaluator",
    "iter_calc",
    "measure_help",
]


def __getattr__(name: str) -> Any:
    """The lazily imported names of :data:`_LAZY` (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'relevance_workbench' has no attribute '{name}'")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
