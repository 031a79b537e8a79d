"""ir_measures' vocabulary (``nDCG@10``, ``P(rel=2)@5``, ``RBP(p=0.8)``) and pytrec_eval's (``P_10``).

An ir_measures name is ``Name``, ``Name@cut`` or ``Name(arg=value, ...)@cut``, exactly the syntax
``ir_measures.parse_measure`` accepts (``ir_measures/util.py``). The string is parsed with
:func:`ast.parse` (which only builds a syntax tree) and every argument value is read with
:func:`ast.literal_eval`: numbers, ``True``/``False``, quoted strings (``'exp-log2'``) and dicts
(``{0:0,1:1,2:3}``). Nothing is ever evaluated. Names print as written. What each name means
(its families and parameters) is declared in :mod:`engine.measures.aliases`, which the measure
modules fill when :mod:`engine.measures` is imported.

pytrec_eval's names are trec_eval's output names (``P_10``, ``ndcg_cut_10``,
``iprec_at_recall_0.10``), parsed by :func:`pytrec_eval_measure`.
"""

from __future__ import annotations

import ast
from typing import Any

from engine.measures import REGISTRY, Measure
from engine.measures.aliases import (
    IR_ALIASES,
    IrAlias,
    IrCall,
)
from engine.name_parts import MeasureError

# -------------------------------------------------------------------------------- parsing


def _split(spec: str) -> tuple[str, list[ast.keyword], list[ast.expr], ast.expr | None] | None:
    """(name, keyword nodes, positional nodes, @ node) of ``Name(k=v)@c``; None if not that shape."""
    try:
        node = ast.parse(spec.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return None
    at: ast.expr | None = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        at = node.right
        node = node.left
    keywords: list[ast.keyword] = []
    positional: list[ast.expr] = []
    if isinstance(node, ast.Call):
        keywords, positional, node = node.keywords, node.args, node.func
    if not isinstance(node, ast.Name):
        return None
    return node.id, keywords, positional, at


def _literal(node: ast.expr, key: str, spec: str) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
        raise MeasureError(
            f"measure '{spec}': {key} must be a literal (a number, True/False, a quoted string or a dict)"
        ) from exc


def _given_args(spec: str, name: str, alias: IrAlias, parts: tuple[Any, ...]) -> dict[str, Any]:
    _, keywords, positional, at = parts
    if positional:
        raise MeasureError(f"measure '{spec}': arguments must be named, e.g. {name}(rel=2)")
    given: dict[str, Any] = {}
    for kw in keywords:
        if kw.arg is None:
            raise MeasureError(f"measure '{spec}': arguments must be named, e.g. {name}(rel=2)")
        if kw.arg in given:
            raise MeasureError(f"measure '{spec}': argument '{kw.arg}' is given twice")
        given[kw.arg] = _literal(kw.value, kw.arg, spec)
    if at is not None:
        if alias.at in given:
            raise MeasureError(f"measure '{spec}': {alias.at} is given both as an argument and after @")
        given[alias.at] = _literal(at, alias.at, spec)
    return given


def _validate(spec: str, name: str, alias: IrAlias, given: dict[str, Any]) -> dict[str, Any]:
    params = alias.spec
    for key in given:
        if key not in params:
            accepted = ", ".join(params) or "no parameters"
            raise MeasureError(f"measure '{spec}': {name} has no parameter '{key}' (it accepts {accepted})")
    for key, param in params.items():
        if param.required and key not in given:
            example = f"{name}@10" if key == "cutoff" else f"{name}({key}=...)"
            raise MeasureError(f"measure '{spec}': {name} needs {key}, e.g. {example}")
    return {key: params[key].validate(value, key, spec) for key, value in given.items()}


def parse_ir_call(spec: str) -> IrCall | None:
    """The validated :class:`IrCall` of an ir_measures name; None when ``spec`` is not one."""
    import engine.measures  # noqa: F401  (measure modules add their names to IR_ALIASES on import)

    parts = _split(spec)
    if parts is None or parts[0] not in IR_ALIASES:
        return None
    name = parts[0]
    alias = IR_ALIASES[name]
    args = _validate(spec, name, alias, _given_args(spec, name, alias, parts))
    return IrCall(spec=spec, name=name, alias=alias, args=args)


def ir_measure(spec: str) -> list[Measure] | None:
    """The measures an ir_measures name asks for, printed as written; None if not an ir_measures name."""
    call = parse_ir_call(spec)
    if call is None:
        return None
    return call.alias.build(call)


# -------------------------------------------------------------------------------- pytrec_eval names


# pytrec_eval names whose semantics differ from trec_eval 10.0's family of the same name
PYTREC_EVAL_FAMILIES = {"iprec_at_recall": "iprec_at_recall_v9"}


def pytrec_eval_measure(spec: str) -> list[Measure] | None:
    """pytrec_eval's names as printed in its output (``P_10``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``).

    pytrec_eval prints a parameterised trec_eval measure as ``family_value`` (trec_eval's own output
    name), where trec_eval takes ``family.value``. The value is read as trec_eval reads it (an int
    cutoff, a float recall level or multiplier); the name prints as written. None if not one.
    """
    family, sep, value = spec.rpartition("_")
    fam = REGISTRY.get(family) if sep else None
    if fam is None or not fam.params or isinstance(fam.params[0], tuple):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    if isinstance(fam.params[0], float):
        param: int | float = number
    elif number.is_integer() and "." not in value:
        param = int(number)
    else:
        raise MeasureError(f"measure '{spec}': {family} takes an integer cutoff, got {value}")
    if isinstance(param, int) and param <= 0:
        raise MeasureError(f"measure '{spec}': a cutoff must be a positive integer")
    # pytrec_eval bundles trec_eval 9, which picks the recall level's relevant doc differently
    family = PYTREC_EVAL_FAMILIES.get(family, family)
    return [Measure(family, param, name=spec)]
