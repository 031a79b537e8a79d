"""ir_measures' vocabulary: ``nDCG@10``, ``P(rel=2)@5``, ``RBP(p=0.8)``, mapped onto the engine's families.

Names print as written. Measure modules that add families extend :data:`IR_ALIASES`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.measures import REGISTRY, Measure
from engine.name_parts import MeasureError
from engine.name_parts import number as _number


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


_IR_RE = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\((?P<args>[^)]*)\))?(?:@(?P<cut>[0-9.]+))?$")


def ir_measure(spec: str) -> list[Measure] | None:
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


def pytrec_eval_measure(spec: str) -> list[Measure] | None:
    """pytrec_eval's names as printed in its output (``P_10``, ``ndcg_cut_10``, ``recall_100``); None if not one."""
    return None
