"""Parsing measure names: trec_eval's (``map``, ``P.5,10``, ``all_trec``) and ir_measures' (``nDCG@10``).

A name becomes one or more :class:`Measure` requests. trec_eval names print as trec_eval does
(``P_5``); ir_measures names print as written (``P(rel=2)@10``).
"""

from __future__ import annotations

import math
import re

from engine.ir_names import ir_measure, pytrec_eval_measure
from engine.measures import REGISTRY, Measure
from engine.measures.aliases import IR_ALIASES, IrAlias
from engine.name_parts import MeasureError
from engine.name_parts import number as _number
from engine.prefs.names import GROUPS as PREFS_GROUPS
from engine.prefs.names import JG_MEASURES, PREFS_MEASURES

__all__ = ["IR_ALIASES", "IrAlias", "MeasureError", "parse_measures", "parse_trec_eval_measures"]


# trec_eval 10.0's measures in the order it computes and prints them (``measures.c``,
# te_trec_measures): whatever order -m names them in, trec_eval prints them in this one.
TREC_EVAL_ORDER: tuple[str, ...] = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "dcg",
    "ideal_dcg",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    *PREFS_MEASURES,  # trec_eval's preference measures (engine.prefs), in its table's order
    *JG_MEASURES,
    "yaap",
    "rbp",
    "rbp_resid",
    "unj",
)
_TE_INDEX = {name: i for i, name in enumerate(TREC_EVAL_ORDER)}

# trec_eval's nicknames (measures.c te_trec_measure_nicknames); members print in TREC_EVAL_ORDER.
TREC_EVAL_GROUPS: dict[str, tuple[str, ...]] = {
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
        "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
    ),
    "set": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
        "set_recall", "set_relative_P", "set_map", "set_F",
    ),
    "all_trec": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
        "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
        "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref",
        "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
        "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G",
        "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
        "num_nonrel_judged_ret",
    ),
    **PREFS_GROUPS,  # all_prefs, prefs, qrels_jg: computed from -R prefs/qrels_prefs/qrels_jg files
}  # fmt: skip

# Measure groups usable with -m: trec_eval's nicknames, and what each sample_eval.pl version prints
GROUPS: dict[str, tuple[str, ...]] = {
    **{
        name: tuple(sorted(members, key=lambda m: _TE_INDEX.get(m, len(_TE_INDEX))))
        for name, members in TREC_EVAL_GROUPS.items()
    },
    # in its order; "sample_eval" picks one by sample_variant
    "sample_eval_trec2011": (
        "xinfAP",
        "xinfNDCG",
        "iprec_at_recall_est",
        "iP.10,50,1000",
        "inum_rel_ret",
        "inum_rel",
        "sample_num_ret",
    ),
    "sample_eval_trecvid2012": (
        "xinfAP",
        "xinfNDCG",
        "iprec_at_recall_est",
        "iP.5,10,15,20,30,100,200,500,1000",
        "inum_rel_ret",
        "inum_rel",
        "sample_num_ret",
    ),
}

_ATOL = re.compile(r"\s*[+-]?\d+")
_ATOF = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _atol(text: str, spec: str) -> int:
    """C's ``atol``: the leading integer of ``text`` (``23.4`` is 23); no leading integer is an error."""
    m = _ATOL.match(text)
    if m is None:
        raise MeasureError(f"measure '{spec}': parameter '{text}' is not a number")
    return int(m.group())


def _atof(text: str, spec: str) -> float:
    """C's ``atof``: the leading decimal number of ``text``; none (or inf/nan) is an error."""
    m = _ATOF.match(text)
    if m is None:
        raise MeasureError(f"measure '{spec}': parameter '{text}' is not a number")
    value = float(m.group())
    if not math.isfinite(value):
        raise MeasureError(f"measure '{spec}': parameter '{text}' is not a finite number")
    return value


def _long_cutoffs(name: str, params: str, spec: str) -> list[Measure]:
    """``P.5,10``: cutoffs read with atol, sorted; each must be > 0 and unique (meas_init.c)."""
    cuts = sorted(_atol(p, spec) for p in params.split(","))
    if cuts[0] <= 0:
        raise MeasureError(f"measure '{spec}': cutoffs must be positive integers")
    if len(set(cuts)) < len(cuts):
        raise MeasureError(f"measure '{spec}': duplicate cutoffs")
    return [Measure(name, k) for k in cuts]


def _double_cutoffs(name: str, params: str, spec: str) -> list[Measure]:
    """``iprec_at_recall..1,.5``: cutoffs read with atof, sorted, unique; printed ``%3.2f``."""
    cuts = sorted(_atof(p, spec) for p in params.split(","))
    if len(set(cuts)) < len(cuts):
        raise MeasureError(f"measure '{spec}': duplicate cutoffs")
    if name == "iprec_at_recall" and (cuts[0] < 0 or cuts[-1] > 1):
        raise MeasureError(f"measure '{spec}': recall levels must lie in [0, 1]")
    if name != "iprec_at_recall" and cuts[0] < 0:
        raise MeasureError(f"measure '{spec}': multiples must not be negative")
    return [Measure(name, c) for c in cuts]


def _double_params(name: str, params: str, spec: str) -> list[Measure]:
    """``utility.1,-1,0,0``: one measure named ``name_<params as written>`` (meas_init.c append_string)."""
    values = tuple(_atof(p, spec) for p in params.split(","))
    label = f"{name}_{params}"
    if name == "utility":
        if len(values) != 4:
            raise MeasureError(f"measure '{spec}': utility takes 4 coefficients, got {len(values)}")
        return [Measure(name, values, name=label)]
    if name == "11pt_avg":
        if min(values) < 0 or max(values) > 1:
            raise MeasureError(f"measure '{spec}': recall levels must lie in [0, 1]")
        return [Measure(name, values, name=label)]
    if name == "set_F" and values[0] < 0:
        raise MeasureError(f"measure '{spec}': set_F's parameter must not be negative")
    return [Measure(name, values[0], name=label)]  # set_F, relstring: the first value only


def _pairs(name: str, params: str, spec: str) -> list[Measure]:
    """``ndcg.1=3,2=9``: ``name=value`` pairs, values read with atof (meas_init.c get_param_pairs)."""
    items: list[tuple[str, float]] = []
    for part in params.split(","):
        key, eq, value = part.partition("=")
        if not eq or not key or "=" in value:
            raise MeasureError(f"measure '{spec}': malformed pair parameters (expected name=value,...)")
        items.append((key, _atof(value, spec)))
    keys = dict(items)
    if name in ("rbp", "rbp_resid") and "p" in keys and not 0 < keys["p"] < 1:
        raise MeasureError(f"measure '{spec}': p must lie in (0, 1)")
    return [Measure(name, tuple(items), name=f"{name}_{params}")]


_KINDS = {
    "long_cutoffs": _long_cutoffs,
    "double_cutoffs": _double_cutoffs,
    "double_params": _double_params,
    "pairs": _pairs,
}


def _trec_eval_family(spec: str, design: str) -> list[Measure] | None:
    """The measures of one ``name[.params]`` whose name is a registered family; None if it is not one.

    Families trec_eval defines read their parameters as trec_eval does (``param_kind``); others
    (sample_eval's, the workbench's) take comma-separated numbers or ``name=value`` pairs.
    """
    name, dot, params = spec.partition(".")
    fam = REGISTRY.get(name)
    if fam is None:
        return None
    if dot and not params:
        raise MeasureError(f"measure '{spec}': empty parameter list after '.'")
    if params:
        if not fam.params:
            raise MeasureError(f"measure '{name}' takes no parameters (got '{params}')")
        kind = _KINDS.get(fam.param_kind)
        if kind is not None:
            return kind(name, params, spec)
        if isinstance(fam.params[0], tuple):  # one parameter list: utility.1,-2,0,0 or G.1=3.5,2=9
            return [Measure(name, _param_list(params, spec))]
        values = [_number(p, spec) for p in params.split(",") if p]
        if fam.params and isinstance(fam.params[0], float):
            values = [float(v) for v in values]
        for v in values:
            if not math.isfinite(v) or v <= 0:
                raise MeasureError(f"measure '{spec}': parameter {v:g} must be a positive number")
        return [Measure(name, v) for v in values]
    if fam.params:
        return [Measure(name, v) for v in fam.params]
    return [Measure(name)]


def _param_list(text: str, measure: str) -> tuple[float | tuple[str, float], ...]:
    """Comma-separated numbers or ``name=number`` pairs, as one tuple."""
    items: list[float | tuple[str, float]] = []
    for part in filter(None, text.split(",")):
        key, eq, val = part.partition("=")
        items.append((key, float(_number(val, measure))) if eq else float(_number(part, measure)))
    return tuple(items)


PREFERENCE_GROUPS = ("prefs", "all_prefs", "qrels_jg")


def _refuse_preference_names(name: str) -> None:
    """trec_eval's preference measures and groups are computed from -R prefs/qrels_prefs/qrels_jg files
    (:mod:`engine.prefs`), never from ordinary qrels: say so instead of "unknown measure"."""
    if name in PREFERENCE_GROUPS or (name in _TE_INDEX and name not in REGISTRY):
        need = "qrels_jg" if name == "qrels_jg" or name.endswith("_avgjg") else "prefs or -R qrels_prefs"
        raise MeasureError(f"measure '{name}' needs judgments given with -R {need}")


def trec_eval_position(m: Measure) -> int:
    """Where trec_eval prints the measure's family (families it does not define come last)."""
    return _TE_INDEX.get(m.family, len(_TE_INDEX))


def parse_trec_eval_measures(
    specs: list[str], design: str = "qrels", sample_variant: str = "trec2011"
) -> list[Measure]:
    """``-m`` arguments with trec_eval 10.0's own semantics (``trec_eval.c`` mark_measure).

    A measure named several times is computed once, with the parameters of the first ``-m``
    that gives it any (``-m P -m P.10`` prints P_10 only; ``-m P.5 -m P.10`` P_5 only), and
    measures print in trec_eval's order (:data:`TREC_EVAL_ORDER`), not the order of ``-m``.
    Names trec_eval does not know (ir_measures', the workbench's) follow, in the order given.
    """
    marked: set[str] = set()
    params: dict[str, str] = {}
    others: list[str] = []
    for spec in specs:
        spec = spec.strip()
        if not spec:
            continue
        name, dot, param = spec.partition(".")
        _refuse_preference_names(name)
        if name in TREC_EVAL_GROUPS:
            if dot:
                raise MeasureError(f"measure group '{name}' takes no parameters (got '{param}')")
            marked.update(TREC_EVAL_GROUPS[name])
        elif name in _TE_INDEX and name in REGISTRY:
            if dot and not param:
                raise MeasureError(f"measure '{spec}': empty parameter list after '.'")
            marked.add(name)
            if dot:
                params.setdefault(name, param)
        else:
            others.append(spec)
    te_specs = [
        f"{name}.{params[name]}" if name in params else name
        for name in TREC_EVAL_ORDER
        if name in marked and name in REGISTRY
    ]
    return parse_measures(te_specs + others, design=design, sample_variant=sample_variant)


def parse_measures(
    specs: list[str], design: str = "qrels", sample_variant: str = "trec2011"
) -> list[Measure]:
    """Expand ``-m`` arguments (each possibly comma-joined groups) into measure requests.

    ``design`` is the judgments' kind ("qrels", "prel" or "mq"): ``all_trec`` expands to every
    family available for it, and families needing another design are refused with a reason.
    ``sample_variant`` ("trec2011" or "trecvid2012") picks what the ``sample_eval`` group prints.
    """
    out: list[Measure] = []
    for spec in specs:
        spec = spec.strip()
        if not spec:
            continue
        if spec == "all":
            spec = "all_trec"
        group, dot, _ = spec.partition(".")
        if dot and (group in GROUPS or group in ("all", "sample_eval")):
            raise MeasureError(f"measure group '{group}' takes no parameters (got '{spec}')")
        _refuse_preference_names(group)
        if spec == "sample_eval":
            spec = f"sample_eval_{sample_variant}"
        if spec in GROUPS:
            for member in GROUPS[spec]:  # a family, or a family with parameters ("iP.10,50")
                family = REGISTRY.get(member.partition(".")[0])
                if family is not None and family.design in ("qrels", design):
                    out.extend(_trec_eval_family(member, design) or [])
            continue
        found = _trec_eval_family(spec, design)
        if found is None:
            found = ir_measure(spec)
        if found is None:
            found = pytrec_eval_measure(spec)
        if found is None:
            known = ", ".join(sorted(set(REGISTRY) | set(IR_ALIASES)))
            raise MeasureError(f"unknown measure '{spec}'; known: {known}, all_trec")
        for m in found:
            need = REGISTRY[m.family].design
            if need not in ("qrels", design):
                flag = {"prel": "--prel", "mq": "--mq-prel"}[need]
                raise MeasureError(f"measure '{spec}' needs judgments given with {flag}")
        out.extend(found)
    # keep the first request of each output name
    seen: set[tuple[str, str]] = set()
    unique = []
    for m in out:
        key = (m.family, m.name or REGISTRY[m.family].output_name(m.param))
        if key not in seen:
            seen.add(key)
            unique.append(m)
    return unique
