"""Which measures trec_eval 10.0 computes under ``-R prefs``, ``-R qrels_prefs`` and ``-R qrels_jg``.

trec_eval marks the measures named by ``-m`` (a name, ``name.params`` or a group of ``measures.c``)
and prints them in the order of its measure table, whatever the order of the ``-m`` options. A
measure whose judgments are of another kind fails there at the first topic ("Can't calculate
measure"); here it is refused up front with a :class:`MeasureError`. With no ``-m`` trec_eval
marks ``official``, none of whose judgment measures runs under these formats, so an empty list is
refused the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.name_parts import MeasureError

FORMATS = ("prefs", "qrels_prefs", "qrels_jg")

# the preference measures, in trec_eval's measure-table order (measures.c)
PREFS_MEASURES = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)
PREFS_COUNTS = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret")
JG_MEASURES = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
P_AVGJG_CUTOFFS: tuple[int, ...] = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RPREC_MULT_AVGJG_CUTOFFS: tuple[float, ...] = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)

# trec_eval's measure table order of everything computable under these formats
TABLE_ORDER = ("runid", "num_q", *PREFS_MEASURES, *JG_MEASURES)

GROUPS: dict[str, tuple[str, ...]] = {
    "all_prefs": ("runid", "num_q", *PREFS_MEASURES),
    "prefs": ("runid", "num_q", *PREFS_MEASURES[:6]),
    "qrels_jg": ("runid", "num_q", *JG_MEASURES),
}
# trec_eval's groups (and names) that need ordinary qrels (-R qrels)
QRELS_GROUPS = ("official", "set", "all_trec", "all")


@dataclass(frozen=True)
class PrefsRequest:
    """The measures to print, in trec_eval's order, with the cutoffs of the two measures that take them."""

    names: tuple[str, ...]  # family names, table order
    p_cutoffs: tuple[int, ...] = P_AVGJG_CUTOFFS
    rprec_cutoffs: tuple[float, ...] = RPREC_MULT_AVGJG_CUTOFFS


def _format_of(name: str) -> str | None:
    if name in PREFS_MEASURES:
        return "prefs"
    if name in JG_MEASURES:
        return "qrels_jg"
    return None


def _c_atol(text: str) -> int:
    """C's ``atol``: optional blanks and sign, then the leading digits; 0 if there are none."""
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else 0


def _c_atof(text: str) -> float:
    """C's ``atof`` on a decimal prefix (``0.25x`` reads 0.25, ``x`` reads 0)."""
    m = re.match(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)", text)
    return float(m.group(1)) if m else 0.0


def _long_cutoffs(text: str, spec: str) -> tuple[int, ...]:
    """``P_avgjg.5,10``: comma-separated ``atol`` values, sorted, each > 0, no duplicates (meas_init.c)."""
    values = sorted(_c_atol(part) for part in text.split(","))
    if values[0] <= 0:
        raise MeasureError(
            f"measure '{spec}': cutoffs must be positive (trec_eval: Negative cutoff detected)"
        )
    if len(set(values)) < len(values):
        raise MeasureError(f"measure '{spec}': duplicate cutoffs")
    return tuple(values)


def _double_cutoffs(text: str, spec: str) -> tuple[float, ...]:
    """``Rprec_mult_avgjg.0.5,1``: comma-separated ``atof`` values, sorted, no duplicates (meas_init.c)."""
    values = sorted(_c_atof(part) for part in text.split(","))
    if len(set(values)) < len(values):
        raise MeasureError(f"measure '{spec}': duplicate cutoffs")
    return tuple(values)


def parse_prefs_measures(specs: list[str], rel_format: str) -> PrefsRequest:
    """Expand ``-m`` arguments under ``-R rel_format`` the way trec_eval marks measures.

    Parameters: the first ``-m`` giving parameters to a measure wins (trec_eval's ``meas_arg``
    search stops at the first match); a measure without parameters refuses them.
    """
    if rel_format not in FORMATS:
        raise MeasureError(f"unknown judgments format '{rel_format}' (expected one of {', '.join(FORMATS)})")
    if not specs:
        raise MeasureError(
            f"trec_eval's default measures ('official') need -R qrels; with -R {rel_format} name the "
            f"measures, e.g. -m {'qrels_jg' if rel_format == 'qrels_jg' else 'all_prefs'}"
        )
    wanted = "qrels_jg" if rel_format == "qrels_jg" else "prefs"
    marked: set[str] = set()
    params: dict[str, str] = {}
    for raw in specs:
        spec = raw.strip()
        if not spec:
            continue
        name, dot, param = spec.partition(".")
        if dot and not param:
            raise MeasureError(f"measure '{spec}': empty parameter list")
        if name in GROUPS:
            members = GROUPS[name]
            if any(_format_of(m) not in (None, wanted) for m in members):
                raise MeasureError(f"measure group '{name}' cannot be computed with -R {rel_format}")
            marked.update(members)
            continue
        if name in QRELS_GROUPS:
            raise MeasureError(f"measure group '{name}' needs ordinary qrels (-R qrels), not -R {rel_format}")
        if name not in TABLE_ORDER:
            raise MeasureError(
                f"measure '{name}' cannot be computed with -R {rel_format}; "
                f"available: {', '.join(_available(wanted))}, groups {', '.join(_groups(wanted))}"
            )
        fmt = _format_of(name)
        if fmt not in (None, wanted):
            need = "-R qrels_jg" if fmt == "qrels_jg" else "-R prefs or -R qrels_prefs"
            raise MeasureError(f"measure '{name}' needs {need}, not -R {rel_format}")
        if dot:
            if name not in ("P_avgjg", "Rprec_mult_avgjg"):
                raise MeasureError(f"measure '{name}' takes no parameters (got '{param}')")
            params.setdefault(name, param)
        marked.add(name)
    names = tuple(n for n in TABLE_ORDER if n in marked)
    p_cut = _long_cutoffs(params["P_avgjg"], "P_avgjg") if "P_avgjg" in params else P_AVGJG_CUTOFFS
    r_cut = (
        _double_cutoffs(params["Rprec_mult_avgjg"], "Rprec_mult_avgjg")
        if "Rprec_mult_avgjg" in params
        else RPREC_MULT_AVGJG_CUTOFFS
    )
    return PrefsRequest(names, p_cut, r_cut)


def _available(wanted: str) -> list[str]:
    return [n for n in TABLE_ORDER if _format_of(n) in (None, wanted)]


def _groups(wanted: str) -> list[str]:
    return [g for g, members in GROUPS.items() if all(_format_of(m) in (None, wanted) for m in members)]


def p_avgjg_name(cutoff: int) -> str:
    """``P_avgjg_<cutoff>`` (trec_eval's ``append_long``)."""
    return f"P_avgjg_{cutoff}"


def rprec_mult_avgjg_name(cutoff: float) -> str:
    """``Rprec_mult_avgjg_<%3.2f>``, cut to the 9 characters after the name that trec_eval's
    ``append_double`` buffer holds (``snprintf`` with size ``strlen(name) + 10``)."""
    base = "Rprec_mult_avgjg"
    return f"{base}_{cutoff:3.2f}"[: len(base) + 9]
