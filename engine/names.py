"""Parsing measure names: trec_eval's (``map``, ``P.5,10``, ``all_trec``) and ir_measures' (``nDCG@10``).

A name becomes one or more :class:`Measure` requests. trec_eval names print as trec_eval does
(``P_5``); ir_measures names print as written (``P(rel=2)@10``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.measures import ORDER, REGISTRY, Measure


class MeasureError(ValueError):
    """An unknown measure name or a bad parameter."""


@dataclass(frozen=True)
class IrAlias:
    """An ir_measures name: the family without a cutoff, and the family taking ``@k``."""

    plain: str | None
    cutoff: str | None
    params: tuple[str, ...] = ()  # named arguments other than rel= (e.g. RBP's p)


# ir_measures name -> families. Extended by the measure modules that add families.
IR_ALIASES: dict[str, IrAlias] = {
    "AP": IrAlias("map", "map_cut"),
    "nDCG": IrAlias("ndcg", "ndcg_cut"),
    "P": IrAlias(None, "P"),
    "RR": IrAlias("recip_rank", "recip_rank_cut"),
    "Rprec": IrAlias("Rprec", None),
    "Bpref": IrAlias("bpref", None),
    "infAP": IrAlias("infAP", None),
    "NumRet": IrAlias("num_ret", None),
    "NumRel": IrAlias("num_rel", None),
    "NumRelRet": IrAlias("num_rel_ret", None),
    "NumQ": IrAlias("num_q", None),
    "Judged": IrAlias("judged", "judged"),
    "ERR": IrAlias("err", "err"),
    "RBP": IrAlias("rbp_p", "rbp_p", ("p",)),
    # trec_eval 10.0 families of engine/measures/trec_eval_extra.py, named as ir_measures names them
    "R": IrAlias(None, "recall"),
    "Recall": IrAlias(None, "recall"),
    "Success": IrAlias(None, "success"),
    "IPrec": IrAlias(None, "iprec_at_recall"),  # IPrec@0.1 = iprec_at_recall_0.10
    "SetP": IrAlias("set_P", None),
    "SetRelP": IrAlias("set_relative_P", None),
    "SetR": IrAlias("set_recall", None),
    "SetAP": IrAlias("set_map", None),
    "SetF": IrAlias("set_F", None, ("beta",)),  # beta is trec_eval's set_F parameter x
}

# Measure groups usable with -m besides all_trec.
GROUPS: dict[str, tuple[str, ...]] = {
    "official": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
    ),
    # what each sample_eval.pl version prints, in its order; "sample_eval" picks one by sample_variant
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

_IR_RE = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\((?P<args>[^)]*)\))?(?:@(?P<cut>[0-9.]+))?$")


def _number(text: str, measure: str) -> int | float:
    try:
        value = float(text)
    except ValueError as exc:
        raise MeasureError(f"measure '{measure}': parameter '{text}' is not a number") from exc
    return int(value) if value.is_integer() and "." not in text else value


def _param_list(text: str, measure: str) -> tuple[float | tuple[str, float], ...]:
    """trec_eval's comma-separated numbers or ``name=number`` pairs, as one tuple."""
    items: list[float | tuple[str, float]] = []
    for part in filter(None, text.split(",")):
        key, eq, val = part.partition("=")
        items.append((key, float(_number(val, measure))) if eq else float(_number(part, measure)))
    return tuple(items)


def _trec_eval_family(spec: str, design: str) -> list[Measure] | None:
    name, _, params = spec.partition(".")
    fam = REGISTRY.get(name)
    if fam is None:
        return None
    if params:
        if not fam.params:
            raise MeasureError(f"measure '{name}' takes no parameters (got '{params}')")
        if isinstance(fam.params[0], tuple):  # one parameter list: utility.1,-2,0,0 or G.1=3.5,2=9
            return [Measure(name, _param_list(params, spec))]
        values = [_number(p, spec) for p in params.split(",") if p]
        if fam.params and isinstance(fam.params[0], float):
            values = [float(v) for v in values]
        return [Measure(name, v) for v in values]
    if fam.params:
        return [Measure(name, v) for v in fam.params]
    return [Measure(name)]


def _ir_measure(spec: str) -> list[Measure] | None:
    m = _IR_RE.match(spec)
    if not m:
        return None
    alias = IR_ALIASES.get(m.group("name"))
    if alias is None:
        return None
    level = None
    param: Any = None
    extra: dict[str, float] = {}
    for arg in filter(None, (a.strip() for a in (m.group("args") or "").split(","))):
        key, eq, val = arg.partition("=")
        if not eq:
            raise MeasureError(f"measure '{spec}': expected name=value arguments, got '{arg}'")
        if key == "rel":
            level = int(_number(val, spec))
        elif key in alias.params:
            extra[key] = float(val)
        else:
            raise MeasureError(f"measure '{spec}': unknown argument '{key}'")
    cut = m.group("cut")
    if cut is not None:
        if alias.cutoff is None:
            raise MeasureError(f"measure '{m.group('name')}' takes no @cutoff")
        family = alias.cutoff
        param = _number(cut, spec)
    else:
        if alias.plain is None:
            raise MeasureError(f"measure '{m.group('name')}' needs a cutoff, e.g. {m.group('name')}@10")
        family = alias.plain
    if extra:
        param = (param, tuple(sorted(extra.items()))) if param is not None else tuple(sorted(extra.items()))
    if family not in REGISTRY:
        raise MeasureError(f"measure '{spec}' is not available")
    return [Measure(family, param, name=spec, level=level)]


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
        if spec in ("all_trec", "all"):
            for fam_name in ORDER:
                fam = REGISTRY[fam_name]
                if fam.in_all_trec and fam.design in ("qrels", design):
                    out.extend(_trec_eval_family(fam_name, design) or [])
            continue
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
            found = _ir_measure(spec)
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
