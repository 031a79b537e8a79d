"""Parsing measure names: trec_eval's (``map``, ``P.5,10``, ``all_trec``) and ir_measures' (``nDCG@10``).

A name becomes one or more :class:`Measure` requests. trec_eval names print as trec_eval does
(``P_5``); ir_measures names print as written (``P(rel=2)@10``).
"""

from __future__ import annotations

from engine.ir_names import IR_ALIASES, IrAlias, ir_measure, pytrec_eval_measure
from engine.measures import ORDER, REGISTRY, Measure
from engine.name_parts import MeasureError
from engine.name_parts import number as _number

__all__ = ["IR_ALIASES", "IrAlias", "MeasureError", "parse_measures"]


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
