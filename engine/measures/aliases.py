"""ir_measures' names as the engine's families declare them: :class:`IrAlias`, :class:`Param`, and
the table :data:`IR_ALIASES` that ``engine.ir_names`` parses names against.

Each ir_measures name maps to an :class:`IrAlias`: the engine family computing it without a cutoff
(``plain``), the family taking ``@k`` (``cutoff``), and the parameters it accepts, each a
:class:`Param` (type, default, validator), mirroring the measure's ``SUPPORTED_PARAMS`` in
``ir_measures/measures/*.py``. An argument it does not declare is refused, as ir_measures refuses it
(``nDCG(rel=2)``: nDCG has no ``rel``). Accepted arguments become the :class:`Measure`:

- ``rel=N`` sets :attr:`Measure.level` (relevant means grade >= N);
- ``judged_only=True`` wraps the family in ``ir_judged_only`` (trec_eval's ``-J`` for that measure
  alone: unjudged and unpooled documents are dropped before ranking);
- the ``@`` value (``at``, normally ``cutoff``) and every other argument whose value differs from
  its default become :attr:`Measure.param`: the cutoff alone, ``(cutoff, extra)``, or ``extra``,
  where ``extra = tuple(sorted({name: value}.items()))`` and a dict value is itself stored as
  ``tuple(sorted(d.items()))`` so the parameter stays hashable. The family's kernel reads it.

A measure module adds its own names when it is imported (``engine/measures/__init__.py`` imports
every module), e.g. in ``engine/measures/cwl.py``::

    from engine.measures.aliases import CUTOFF, IR_ALIASES, IrAlias, Param

    IR_ALIASES["SDCG"] = IrAlias(
        plain=None,  # SDCG needs a cutoff
        cutoff="sdcg",  # kernel gets 10, or (10, (("max_rel", 3), ("min_rel", 1)))
        params={
            "cutoff": CUTOFF,
            "min_rel": Param(int, default=0),
            "max_rel": Param(int, required=True),
            "dcg": Param(str, default="log2", choices=("log2",)),
        },
    )
    IR_ALIASES["α_SDCG"] = IR_ALIASES["SDCG"]  # another spelling of the same measure

``build=`` replaces the default mapping when a name needs another family for some arguments (see
``NumRet`` and ``nDCG`` below): it receives the validated :class:`IrCall` and returns measures,
using :func:`make_measure`. This module imports only :mod:`engine.measures.base`, so every measure
module can import it, and ``engine.ir_names`` imports the filled table: the arrows point one way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.measures.base import REGISTRY, Measure
from engine.name_parts import MeasureError

JUDGED_ONLY_FAMILY = "ir_judged_only"  # registered by engine/measures/extra.py

# ir_measures' Measure.DEFAULT: what its Evaluator gives a qrels topic the run does not rank
IR_MEASURES_DEFAULT = 0.0
# Families whose NaN means "no value for this topic": ir_measures' accuracy provider yields no
# Metric for a topic without a relevant and a non-relevant retrieved document (nor for a topic the
# run lacks: its evaluator does not fill them with DEFAULT), so neither do we.
NO_VALUE_IS_ABSENT = frozenset({"accuracy"})


class _Missing:
    """The default of a parameter that has none (ir_measures' ``NOT_PROVIDED``)."""

    def __repr__(self) -> str:
        return "NOT_PROVIDED"


NOT_PROVIDED: Any = _Missing()

Check = Callable[[Any], "str | None"]  # why a value is invalid, or None when it is fine


@dataclass(frozen=True)
class Param:
    """One named argument of an ir_measures measure (its ``ParamInfo``).

    ``kind`` is int, float, bool, str or dict. An int is accepted where a float is expected (ir_measures
    refuses ``SetF(beta=1)``; we read it as 1.0). ``check`` returns the reason a value is refused.
    """

    kind: type
    default: Any = NOT_PROVIDED
    required: bool = False
    choices: tuple[Any, ...] = ()
    check: Check | None = None
    doc: str = ""

    def validate(self, value: Any, key: str, spec: str) -> Any:
        """The value, normalised (float for float, sorted tuple for dict); MeasureError if invalid."""
        value = self._typed(value, key, spec)
        if self.choices and value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise MeasureError(f"measure '{spec}': {key}={value!r} is not one of {allowed}")
        if self.check is not None:
            reason = self.check(value)
            if reason:
                raise MeasureError(f"measure '{spec}': {key}={_show(value)} is invalid ({reason})")
        return value

    def _typed(self, value: Any, key: str, spec: str) -> Any:
        kind = self.kind
        ok = isinstance(value, kind) and not (isinstance(value, bool) and kind is not bool)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not ok:
            raise MeasureError(
                f"measure '{spec}': {key} must be {_KIND_NAMES.get(kind, kind.__name__)}, got {value!r}"
            )
        if kind is dict:
            return _dict_param(value, key, spec)
        return value


_KIND_NAMES = {
    int: "an integer",
    float: "a number",
    bool: "True or False",
    str: "a quoted string",
    dict: "a dict such as {0:0,1:1,2:3}",
}


def _show(value: Any) -> str:
    return "{" + ",".join(f"{k}:{v}" for k, v in value) + "}" if isinstance(value, tuple) else repr(value)


def _dict_param(value: dict[Any, Any], key: str, spec: str) -> tuple[tuple[Any, Any], ...]:
    for k, v in value.items():
        if (
            isinstance(k, bool)
            or not isinstance(k, int)
            or isinstance(v, bool)
            or not isinstance(v, int | float)
        ):
            raise MeasureError(
                f"measure '{spec}': {key} must map integer grades to numbers, got {k!r}: {v!r}"
            )
    return tuple(sorted(value.items()))


def positive_int(value: Any) -> str | None:
    """A cutoff: a positive integer."""
    return None if value > 0 else "a cutoff must be a positive integer"


def open_unit(value: Any) -> str | None:
    """A persistence or probability strictly between 0 and 1."""
    return None if 0.0 < value < 1.0 else "it must lie strictly between 0 and 1"


def persistence(value: Any) -> str | None:
    """A user-model persistence p (RBP, Compat): strictly between 0 and 1."""
    return None if 0.0 < value < 1.0 else "the persistence p must lie strictly between 0 and 1"


def unit_interval(value: Any) -> str | None:
    """A recall level in [0, 1]."""
    return None if 0.0 <= value <= 1.0 else "it must lie between 0 and 1"


def non_negative(value: Any) -> str | None:
    return None if value >= 0 else "it must not be negative"


# The parameters most measures share, as ir_measures declares them.
CUTOFF = Param(int, check=positive_int, doc="ranking cutoff threshold")
REQUIRED_CUTOFF = Param(int, required=True, check=positive_int, doc="ranking cutoff threshold")
REL = Param(int, default=1, doc="minimum relevance score to be considered relevant (inclusive)")
JUDGED_ONLY = Param(bool, default=False, doc="ignore returned documents that have no relevance judgment")


@dataclass(frozen=True)
class IrCall:
    """A parsed, validated ir_measures name: the arguments given (``@`` value included, by its name)."""

    spec: str
    name: str
    alias: IrAlias
    args: dict[str, Any]


def _no_build(call: IrCall) -> list[Measure]:  # placeholder default for the dataclass field
    return default_build(call)


@dataclass(frozen=True)
class IrAlias:
    """An ir_measures name: the family without a cutoff, the family taking ``@k``, the parameters.

    ``params`` maps each accepted argument to its :class:`Param`; a plain tuple of names (the older
    form) means float parameters plus ``rel``. The ``@`` value is the parameter named ``at``
    (``cutoff``, or ``recall`` for IPrec); when ``cutoff`` is set and ``params`` lacks it, it is
    added (required when ``plain`` is None).
    """

    plain: str | None
    cutoff: str | None
    params: Mapping[str, Param] | tuple[str, ...] = field(default_factory=dict)
    at: str = "cutoff"
    build: Callable[[IrCall], list[Measure]] = _no_build
    doc: str = ""

    def __post_init__(self) -> None:
        params = self.params
        if isinstance(params, tuple):
            params = {"rel": REL, **{name: Param(float) for name in params}}
        params = dict(params)
        if self.cutoff is not None and self.at not in params:
            params[self.at] = REQUIRED_CUTOFF if self.plain is None else CUTOFF
        object.__setattr__(self, "params", params)

    @property
    def spec(self) -> Mapping[str, Param]:
        """The accepted parameters (always a mapping after construction)."""
        assert isinstance(self.params, Mapping)
        return self.params


def make_measure(
    call: IrCall, family: str, param: Any = None, *, level: int | None = None, judged_only: bool = False
) -> Measure:
    """The request for ``family`` printed as the name written, with ``-J`` for it alone if asked.

    Under ``-c`` a topic the run lacks takes ir_measures' default (see :attr:`Measure.missing_value`).
    """
    if family not in REGISTRY:
        raise MeasureError(f"measure '{call.spec}' is not available in this engine")
    missing = None if family in NO_VALUE_IS_ABSENT else IR_MEASURES_DEFAULT
    if judged_only:
        return Measure(
            JUDGED_ONLY_FAMILY, (family, param), name=call.spec, level=level, missing_value=missing
        )
    return Measure(family, param, name=call.spec, level=level, missing_value=missing)


def extra_params(call: IrCall, skip: tuple[str, ...] = ()) -> tuple[tuple[str, Any], ...]:
    """The given arguments other than rel, judged_only, the ``@`` value and ``skip``, minus defaults."""
    drop = {"rel", "judged_only", call.alias.at, *skip}
    spec = call.alias.spec
    return tuple(sorted((k, v) for k, v in call.args.items() if k not in drop and v != spec[k].default))


def combine(cut: Any, extra: tuple[tuple[str, Any], ...]) -> Any:
    """The engine's parameter: the cutoff, ``(cutoff, extra)``, ``extra``, or None."""
    if extra:
        return (cut, extra) if cut is not None else extra
    return cut


def default_build(call: IrCall) -> list[Measure]:
    """``plain`` or ``cutoff`` family; rel → level, judged_only → -J wrapper, the rest → param."""
    alias = call.alias
    cut = call.args.get(alias.at)
    family = alias.cutoff if cut is not None else alias.plain
    if family is None:  # unreachable once validated: kept for aliases with odd declarations
        raise MeasureError(f"measure '{call.spec}' needs {alias.at}, e.g. {call.name}@10")
    return [
        make_measure(
            call,
            family,
            combine(cut, extra_params(call)),
            level=call.args.get("rel"),
            judged_only=bool(call.args.get("judged_only", False)),
        )
    ]


# -------------------------------------------------------------------------------- custom mappings


def _build_numret(call: IrCall) -> list[Measure]:
    """NumRet: num_ret; NumRet(rel=N): retrieved docs with grade >= N (pytrec_eval's num_rel_ret at N)."""
    rel = call.args.get("rel", call.alias.spec["rel"].default)
    if rel is NOT_PROVIDED:
        return [make_measure(call, "num_ret")]
    return [make_measure(call, "num_rel_ret", level=rel)]


def _build_numq(call: IrCall) -> list[Measure]:
    """NumQ: 1 per evaluated topic, summed (ir_measures' SumAgg); trec_eval's num_q has no per-topic line."""
    return [make_measure(call, "num_q_per_topic")]


def _build_setp(call: IrCall) -> list[Measure]:
    """SetP: set_P, or set_relative_P when relative=True (SetRelP is SetP(relative=True))."""
    relative = call.args.get("relative", call.alias.spec["relative"].default)
    family = "set_relative_P" if relative else "set_P"
    judged_only = bool(call.args.get("judged_only", False))
    return [make_measure(call, family, level=call.args.get("rel"), judged_only=judged_only)]


def _build_ndcg(call: IrCall) -> list[Measure]:
    """nDCG: trec_eval's ndcg / ndcg_cut; with dcg='exp-log2' or gains={...}, the ndcg_ir family."""
    cut = call.args.get("cutoff")
    extra = extra_params(call)
    judged_only = bool(call.args.get("judged_only", False))
    if not extra:
        return [make_measure(call, "ndcg_cut" if cut is not None else "ndcg", cut, judged_only=judged_only)]
    return [make_measure(call, "ndcg_ir", (cut, extra), judged_only=judged_only)]


def _build_rbp(call: IrCall) -> list[Measure]:
    """RBP: binary rbp_p with p and the cutoff; relevant means grade >= rel (default 1 or -l)."""
    cut = call.args.get("cutoff")
    extra = extra_params(call)
    return [make_measure(call, "rbp_p", combine(cut, extra), level=call.args.get("rel"))]


# -------------------------------------------------------------------------------- the names

_P_LIKE = {"cutoff": REQUIRED_CUTOFF, "rel": REL, "judged_only": JUDGED_ONLY}
_RANKED = {"cutoff": CUTOFF, "rel": REL, "judged_only": JUDGED_ONLY}
_REL_ONLY = {"rel": REL}

_AP = IrAlias("map", "map_cut", _RANKED, doc="Average Precision; AP@k is trec_eval's map_cut")
_NDCG = IrAlias(
    "ndcg",
    "ndcg_cut",
    {
        "cutoff": CUTOFF,
        "dcg": Param(str, default="log2", choices=("log2", "exp-log2"), doc="DCG formulation"),
        "gains": Param(dict, doc="custom gain per grade (int to number)"),
        "judged_only": JUDGED_ONLY,
    },
    build=_build_ndcg,
    doc="nDCG (trec_eval's ndcg/ndcg_cut; exp-log2 as gdeval.pl)",
)
_P = IrAlias(None, "P", _P_LIKE, doc="Precision at k")
_RR = IrAlias("recip_rank", "recip_rank_cut", _RANKED, doc="Reciprocal rank of the first relevant doc")
_RPREC = IrAlias("Rprec", None, {"rel": REL, "judged_only": JUDGED_ONLY}, doc="Precision at R")
_BPREF = IrAlias("bpref", None, _REL_ONLY, doc="Binary preference")
_R = IrAlias(None, "recall", _P_LIKE, doc="Recall at k")
_NUMRET = IrAlias(
    "num_ret",
    None,
    {"rel": Param(int, doc="count only docs with grade >= rel")},
    build=_build_numret,
    doc="Documents retrieved (with grade >= rel when given)",
)
_SETP = IrAlias(
    "set_P",
    None,
    {"rel": REL, "relative": Param(bool, default=False), "judged_only": JUDGED_ONLY},
    build=_build_setp,
    doc="Precision of the whole retrieved set",
)

# ir_measures name -> families. Extended by the measure modules that add families.
IR_ALIASES: dict[str, IrAlias] = {
    "AP": _AP,
    "MAP": _AP,
    "nDCG": _NDCG,
    "NDCG": _NDCG,
    "P": _P,
    "Precision": _P,
    "RR": _RR,
    "MRR": _RR,
    "Rprec": _RPREC,
    "RPrec": _RPREC,
    "Bpref": _BPREF,
    "BPref": _BPREF,
    "infAP": IrAlias("infAP", None, _REL_ONLY, doc="Inferred AP (trec_eval's infAP)"),
    "NumRet": _NUMRET,
    "NumRelRet": IrAlias(
        "num_rel_ret", None, {"rel": REL}, build=_build_numret, doc="NumRet(rel=1): relevant docs retrieved"
    ),
    "NumRel": IrAlias("num_rel", None, _REL_ONLY, doc="Relevant docs in the qrels"),
    "NumQ": IrAlias(
        "num_q_per_topic", None, {}, build=_build_numq, doc="Topics evaluated (1 per topic, summed)"
    ),
    "Judged": IrAlias("judged", "judged", {"cutoff": CUTOFF}, doc="Share of the top k found in the qrels"),
    "ERR": IrAlias("err", "err", {"cutoff": CUTOFF}, doc="Expected Reciprocal Rank (gdeval.pl)"),
    "RBP": IrAlias(
        "rbp_p",
        "rbp_p",
        {"cutoff": CUTOFF, "p": Param(float, default=0.8, check=persistence), "rel": Param(int)},
        build=_build_rbp,
        doc="Rank-Biased Precision (binary)",
    ),
    "R": _R,
    "Recall": _R,
    "Success": IrAlias(None, "success", _P_LIKE, doc="1 if a relevant doc is in the top k"),
    "IPrec": IrAlias(
        None,
        "iprec_at_recall_v9",
        {
            "recall": Param(float, required=True, check=unit_interval, doc="recall level"),
            "rel": REL,
            "judged_only": JUDGED_ONLY,
        },
        at="recall",
        doc="Interpolated precision at a recall level, trec_eval 9's rounding (as pytrec_eval)",
    ),
    "SetP": _SETP,
    "SetRelP": IrAlias(
        "set_relative_P",
        None,
        {"rel": REL, "relative": Param(bool, default=True), "judged_only": JUDGED_ONLY},
        build=_build_setp,
        doc="SetP(relative=True): set precision over the best possible for the set's size",
    ),
    "SetR": IrAlias("set_recall", None, _REL_ONLY, doc="Recall of the whole retrieved set"),
    "SetAP": IrAlias("set_map", None, {"rel": REL, "judged_only": JUDGED_ONLY}, doc="SetP x SetR"),
    "SetF": IrAlias(
        "set_F",
        None,
        {"rel": REL, "beta": Param(float, default=1.0, check=non_negative), "judged_only": JUDGED_ONLY},
        doc="F measure of the retrieved set (beta is trec_eval's set_F parameter)",
    ),
}
