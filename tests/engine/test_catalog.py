"""``manage.py evaluate --help``'s measure list (engine.catalog): complete, and every name in it parses."""

from __future__ import annotations

import numpy as np
import pytest

from engine.catalog import INTERNAL_FAMILIES, Entry, alias_example, entries, has_own_name, measure_help
from engine.evaluate import Judgments, evaluate_run
from engine.measures import REGISTRY
from engine.measures.aliases import IR_ALIASES
from engine.names import GROUPS, TREC_EVAL_ORDER, parse_measures
from trec.qrels import qrels_from_dict
from trec.runs import run_from_arrays

HELP = measure_help()
LISTED = entries()
VOCABULARIES = {"trec_eval", "pytrec_eval", "ir_measures", "sample_eval", "workbench"}


def _name_lines() -> list[str]:
    """Lines that start an entry (four spaces, then the name); continuation lines are indented more."""
    return [line for line in HELP.splitlines() if line.startswith("    ") and line[4] not in " ("]


def _lines_of(name: str) -> list[str]:
    return [line for line in _name_lines() if line.split()[0] == name]


def test_every_registered_family_has_a_heading_and_its_own_name_unless_internal() -> None:
    targets = {f for a in IR_ALIASES.values() for f in (a.plain, a.cutoff) if f is not None}
    assert set(REGISTRY) >= INTERNAL_FAMILIES
    headings = {
        line.strip() for line in HELP.splitlines() if line.startswith("  ") and not line.startswith("    ")
    }
    for name in REGISTRY:
        assert any(h.startswith(name) for h in headings), f"family {name} has no heading"
        if has_own_name(REGISTRY[name], targets):
            assert _lines_of(name), f"family {name} is not listed by name"
        else:
            assert not _lines_of(name), f"{name} is computed for ir_measures names only"


def test_every_ir_measures_alias_appears_with_its_vocabulary() -> None:
    for name, alias in IR_ALIASES.items():
        lines = _lines_of(alias_example(name, alias))
        assert any(line.split()[1] == "ir_measures" for line in lines), f"{name} missing"


def test_every_group_appears_and_names_say_their_vocabulary() -> None:
    for group in [*GROUPS, "all", "sample_eval"]:
        assert _lines_of(group), group
    for e in LISTED:
        assert e.vocabulary in VOCABULARIES
        assert e.vocabulary == "trec_eval" or e.name not in TREC_EVAL_ORDER or e.vocabulary == "ir_measures"
    assert {e.vocabulary for e in LISTED} == VOCABULARIES


def test_trec_eval_families_are_labelled_trec_eval_and_cutoff_families_have_a_pytrec_eval_name() -> None:
    by_name = {(e.name, e.vocabulary) for e in LISTED}
    assert ("map", "trec_eval") in by_name
    assert ("P_5", "pytrec_eval") in by_name
    assert ("ndcg_cut_5", "pytrec_eval") in by_name
    assert ("nDCG", "ir_measures") in by_name
    assert ("P@10", "ir_measures") in by_name
    assert ("xinfAP", "sample_eval") in by_name
    assert ("bpref_10", "workbench") in by_name


def test_one_line_per_name() -> None:
    for e in LISTED:
        assert [x for x in _name_lines() if x.split()[:2] == [e.name, e.vocabulary]], e
    assert len(_name_lines()) == len(LISTED)  # one entry line per listed name, nothing else


@pytest.mark.parametrize(
    "entry", [e for e in LISTED if e.design in ("qrels", "prel", "mq")], ids=lambda e: e.name
)
def test_every_listed_name_parses(entry: Entry) -> None:
    measures = parse_measures([entry.name], design=entry.design)
    if entry.family:
        assert measures, entry.name


# one topic, graded, with an unjudged (-1) line and an unpooled document in the run
QRELS = qrels_from_dict({"1": {"a": 2, "b": 0, "c": 1, "d": -1, "e": 3}})
RUN = run_from_arrays("r", np.array([b"1"] * 5), np.array([b"a", b"b", b"c", b"d", b"x"]), np.arange(5.0))


@pytest.mark.parametrize(
    "entry", [e for e in LISTED if e.design == "qrels" and e.family], ids=lambda e: f"{e.vocabulary}:{e.name}"
)
def test_every_listed_qrels_name_evaluates(entry: Entry) -> None:
    """A name in --help is usable as written: it evaluates to one finite or NaN value per topic."""
    result = evaluate_run(Judgments(QRELS), RUN, parse_measures([entry.name]))
    assert result.names, entry.name
    for name in result.names:
        assert len(result.per_topic[name]) == 1


def test_preference_measures_parse_under_their_format() -> None:
    from engine.prefs import names as prefs

    listed = [e for e in LISTED if e.design in ("prefs", "qrels_jg")]
    assert {e.name for e in listed} >= set(prefs.PREFS_MEASURES) | set(prefs.JG_MEASURES)
    for e in listed:
        fmt = "qrels_jg" if e.design == "qrels_jg" else "prefs"
        assert prefs.parse_prefs_measures([e.name], fmt).names, e.name


def test_evaluate_help_prints_the_list(capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from engine.cli import main

    with pytest.raises(SystemExit):
        main(["--help"], io.StringIO(), io.StringIO())
    text = capsys.readouterr().out
    assert "    P@10                     ir_measures  P(rel, judged_only)@k" in text
    assert "    ndcg_cut_5               pytrec_eval  " in text
