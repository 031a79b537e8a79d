"""Parsing measure names: trec_eval's (``map``, ``P.5,10``, ``all_trec``) and ir_measures' (``nDCG@10``).

A name becomes one or more :class:`Measure` requests. trec_eval names print as trec_eval does
(``P_5``); ir_measures names print as written (``P(rel=2)@10``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from metrics.measures import ORDER, REGISTRY, Measure


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
    "RR": IrAlias("recip_rank", None),
    "Rprec": IrAlias("Rprec", None),
    "Bpref": IrAlias("bpref", None),
    "infAP": IrAlias("infAP", None),
    "NumRet": IrAlias("num_ret", None),
    "NumRel": IrAlias("num_rel", None),
    "NumRelRet": IrAlias("num_rel_ret", None),
    "NumQ": IrAlias("num_q", None),
}

# Measure groups usable with -m besides all_trec.
GROUPS: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
                 "iprec_at_recall", "P"),
    "sample_eval": ("xinfAP", "xinfNDCG", "iprec_at_recall_est", "iP", "inum_rel_ret", "inum_rel", "num_ret"),
}

_IR_RE = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\((?P<args>[^)]*)\))?(?:@(?P<cut>[0-9.]+))?$")


def _number(text: str, measure: str) -> int | float:
    try:
        value = float(text)
    except ValueError as exc:
        raise MeasureError(f"measure '{measure}': parameter '{text}' is not a number") from exc
    return int(value) if value.is_integer() and "." not in text else value


def _trec_eval_family(spec: str, design: str) -> list[Measure] | None:
    name, _, params = spec.partition(".")
    fam = REGISTRY.get(name)
    if fam is None:
        return None
    if params:
        if not fam.params:
            raise MeasureError(f"measure '{name}' takes no parameters (got '{params}')")
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
    param = None
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


def parse_measures(specs: list[str], design: str = "qrels") -> list[Measure]:
    """Expand ``-m`` arguments (each possibly comma-joined groups) into measure requests.

    ``design`` is the judgments' kind ("qrels", "prel" or "mq"): ``all_trec`` expands to every
    family available for it, and families needing another design are refused with a reason.
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
        if spec in GROUPS:
            for fam_name in GROUPS[spec]:
                if fam_name in REGISTRY and REGISTRY[fam_name].design in ("qrels", design):
                    out.extend(_trec_eval_family(fam_name, design) or [])
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
