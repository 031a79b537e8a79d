"""Every measure name the engine accepts, grouped by family, with the vocabulary each comes from.

``manage.py evaluate --help`` prints :func:`measure_help`. The list is generated, never written by
hand: families from :data:`engine.measures.REGISTRY` (the first line of each ``Family.doc``), groups
from :data:`engine.names.GROUPS`, ir_measures names from :data:`engine.ir_names.IR_ALIASES`,
pytrec_eval names from the parameterised trec_eval families, and trec_eval's preference measures
from :mod:`engine.prefs.names` when that package is present. A family or alias added by any measure
module therefore appears as soon as the module registers it.

Vocabularies: ``trec_eval`` (trec_eval 10.0's ``-m`` names), ``pytrec_eval`` (the names pytrec_eval
prints, ``P_10``), ``ir_measures`` (its ``Name(arg=value)@cutoff`` syntax), ``sample_eval``
(sample_eval.pl's measures: judgments given with ``--prel``), ``workbench`` (this engine only).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.measures import ORDER, REGISTRY, Family
from engine.measures.aliases import IR_ALIASES, IrAlias, Param
from engine.name_parts import MeasureError
from engine.names import GROUPS, TREC_EVAL_ORDER

# families the engine computes for ir_measures names only: their bare name takes no usable parameter
INTERNAL_FAMILIES = frozenset({"ir_judged_only", "ndcg_ir"})
DESIGN_FLAGS = {"prel": "--prel", "mq": "--mq-prel"}
PREFS_FORMATS_NOTE = "-R prefs / qrels_prefs"
JG_FORMAT_NOTE = "-R qrels_jg"
NAME_WIDTH = 24
LINE_WIDTH = 118
VOCAB_WIDTH = 12


@dataclass(frozen=True)
class Entry:
    """One line of the list: a name as typed, its vocabulary, what it needs, a short note."""

    name: str
    vocabulary: str
    family: str  # the family heading it is listed under ("" for groups and preference measures)
    design: str = "qrels"  # "prel" / "mq": the judgments it needs; "prefs" / "qrels_jg": its -R format
    note: str = ""


def _first_line(doc: str) -> str:
    return doc.strip().splitlines()[0] if doc.strip() else ""


def _vocabulary(fam: Family) -> str:
    if fam.name in TREC_EVAL_ORDER:
        return "trec_eval"
    if fam.design == "prel":
        return "sample_eval"
    return "workbench"


def _param_note(fam: Family) -> str:
    """How ``name.params`` is written for the family, with its default parameters."""
    if not fam.params or fam.params[0] is None:
        return ""
    first = fam.params[0]
    if isinstance(first, tuple):
        return f"{fam.name}.params (see trec_eval)" if first else f"{fam.name}.name=value,..."
    shown = ",".join(f"{p:g}" if isinstance(p, float) else str(p) for p in fam.params)
    return f"{fam.name}.k,... (default {shown})"


def _pytrec_eval_name(fam: Family) -> str | None:
    """pytrec_eval's name for a trec_eval cutoff family (``P_5``), from its first default parameter."""
    if fam.name not in TREC_EVAL_ORDER or fam.param_kind not in ("long_cutoffs", "double_cutoffs"):
        return None
    first = fam.params[0]
    if isinstance(first, bool) or not isinstance(first, int | float):
        return None
    value = f"{first:.2f}" if isinstance(first, float) else str(first)
    return f"{fam.name}_{value}"


def alias_family(alias: IrAlias) -> str:
    """The family an ir_measures name is listed under: its family without a cutoff, else with one."""
    for family in (alias.plain, alias.cutoff):
        if family is not None and family in REGISTRY:
            return family
    return alias.plain or alias.cutoff or ""


def alias_example(name: str, alias: IrAlias) -> str:
    """A parseable spelling of the name: its required arguments given (``P@10``, ``IPrec@0.5``,
    ``SDCG(max_rel=3)@10``), an example value of the right type for each."""
    args = [
        f"{key}={_example_value(key, param)!r}"
        for key, param in alias.spec.items()
        if param.required and key != alias.at
    ]
    text = f"{name}({', '.join(args)})" if args else name
    at = alias.spec.get(alias.at)
    if at is not None and at.required:
        text += "@0.5" if alias.at == "recall" else "@10"
    return text


_EXAMPLES: dict[type, tuple[Any, ...]] = {
    int: (3, 1, 10),
    float: (0.5, 1.0),
    bool: (True,),
    str: ("log2",),
    dict: ({0: 0, 1: 1},),
}


def _example_value(key: str, param: Param) -> Any:
    """The first of a few typical values ``param`` accepts (its first choice when it lists some)."""
    candidates = param.choices or _EXAMPLES.get(param.kind, ())
    for value in candidates:
        try:
            param.validate(value, key, key)
        except MeasureError:
            continue
        return value
    return candidates[0] if candidates else None


def _alias_note(name: str, alias: IrAlias) -> str:
    args = [a for a in alias.spec if a != alias.at]
    at = f"@{'r' if alias.at == 'recall' else 'k'}" if alias.at in alias.spec else ""
    shape = f"{name}({', '.join(args)}){at}" if args else f"{name}{at}"
    doc = _first_line(alias.doc)
    return f"{shape}: {doc}" if doc else shape


def _alias_targets() -> set[str]:
    return {f for a in IR_ALIASES.values() for f in (a.plain, a.cutoff) if f is not None}


def has_own_name(fam: Family, alias_targets: set[str]) -> bool:
    """Whether ``-m <family>`` is a usable name: not for the families computed only for ir_measures
    names (INTERNAL_FAMILIES, and parameterless workbench families an ir_measures name maps to,
    e.g. cwl_eval's ``inst``, whose required arguments only the ir_measures syntax can give)."""
    if fam.name in INTERNAL_FAMILIES:
        return False
    no_default = not fam.params or fam.params[0] in ((), None)  # () / None: "what the alias passes"
    alias_only = fam.name in alias_targets and fam.name not in TREC_EVAL_ORDER and no_default
    return not (alias_only and fam.design == "qrels")


def _family_entries(fam: Family, alias_targets: set[str]) -> Iterator[Entry]:
    if has_own_name(fam, alias_targets):
        note = _param_note(fam)
        if fam.design in DESIGN_FLAGS:
            note = (note + "; " if note else "") + f"needs {DESIGN_FLAGS[fam.design]}"
        yield Entry(fam.name, _vocabulary(fam), fam.name, fam.design, note)
    pytrec = _pytrec_eval_name(fam)
    if pytrec is not None:
        yield Entry(
            pytrec, "pytrec_eval", fam.name, fam.design, f"{fam.name}_<param>, as pytrec_eval prints it"
        )


def entries() -> list[Entry]:
    """Every name, family by family (trec_eval's order, then the others), then groups and prefs."""
    targets = _alias_targets()
    by_family = {name: list(_family_entries(REGISTRY[name], targets)) for name in ORDER}
    for name, alias in IR_ALIASES.items():
        family = alias_family(alias)
        if family in by_family:
            design = REGISTRY[family].design
            entry = Entry(alias_example(name, alias), "ir_measures", family, design, _alias_note(name, alias))
            by_family[family].append(entry)
    out = [e for family in _family_order() for e in by_family[family]]
    return out + list(_group_entries()) + list(_prefs_entries())


def _family_order() -> list[str]:
    """trec_eval's families in its print order, then every other family in registration order."""
    te = [f for f in TREC_EVAL_ORDER if f in REGISTRY]
    return te + [f for f in ORDER if f not in te]


def _group_entries() -> Iterator[Entry]:
    yield Entry("all", "trec_eval", "", "qrels", "same as all_trec")
    yield Entry(
        "sample_eval", "sample_eval", "", "prel", "sample_eval_trec2011 or _trecvid2012 (--sample-version)"
    )
    for name, members in GROUPS.items():
        vocabulary = "sample_eval" if name.startswith("sample_eval") else "trec_eval"
        design = "prel" if vocabulary == "sample_eval" else "qrels"
        if name in ("prefs", "all_prefs"):
            design = "prefs"
        elif name == "qrels_jg":
            design = "qrels_jg"
        yield Entry(name, vocabulary, "", design, " ".join(members))


def _prefs_entries() -> Iterator[Entry]:
    """trec_eval's preference measures (engine.prefs), listed when that package is present."""
    try:
        from engine.prefs.names import JG_MEASURES, PREFS_MEASURES  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return
    for name in PREFS_MEASURES:
        yield Entry(name, "trec_eval", "", "prefs", f"needs {PREFS_FORMATS_NOTE}")
    for name in JG_MEASURES:
        yield Entry(name, "trec_eval", "", "qrels_jg", f"needs {JG_FORMAT_NOTE}")


def _heading(family: str) -> str:
    """``family: first line of its doc`` (the doc alone when it already starts with the name)."""
    doc = _first_line(REGISTRY[family].doc)
    return doc if doc.startswith(family) else f"{family}: {doc}"


def _line(e: Entry) -> str:
    """``NAME  VOCABULARY  note``; a long note (a group's members) continues under the note column."""
    head = f"    {e.name:<{NAME_WIDTH}} {e.vocabulary:<{VOCAB_WIDTH}} "
    if not e.note:
        return head.rstrip()
    wrapped = textwrap.wrap(e.note, width=LINE_WIDTH - len(head), break_on_hyphens=False) or [""]
    return "\n".join([head + wrapped[0], *(" " * len(head) + rest for rest in wrapped[1:])])


def measure_help() -> str:
    """The measure list for ``--help``: one line per name, grouped by family."""
    listed = entries()
    lines = [
        "measures (-m NAME, repeatable; one line per name: NAME  VOCABULARY  how to write it):",
        "  vocabularies: trec_eval = trec_eval 10.0's -m names (P.5,10); pytrec_eval = the names it prints",
        "  (P_10); ir_measures = its syntax (nDCG@10, P(rel=2)@5); sample_eval = sample_eval.pl's, with",
        "  --prel; workbench = this engine only. ir_measures names follow ir_measures' semantics,",
        "  trec_eval and pytrec_eval names trec_eval's (docs/ir_measures.md lists where they differ).",
    ]
    for family in _family_order():
        mine = [e for e in listed if e.family == family]
        lines += ["", f"  {_heading(family)}"]
        lines += [_line(e) for e in mine] or [
            "    (no name of its own: computed for ir_measures names' arguments)"
        ]
    lines += ["", "  groups and trec_eval's preference measures:"]
    lines += [_line(e) for e in listed if not e.family]
    return "\n".join(lines) + "\n"
