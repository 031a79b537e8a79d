"""The mutation harness (tools/mutants.py) itself: its catalog still matches the code, and it counts
only a failing test as a kill.

The mutation run is too slow for CI (docs/testing.md); these checks are fast. The first fails when
code a mutant targets moves or changes (fix the snippet, or retire the mutant); the others run the
harness on a five-line project whose outcomes are known.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[1] / "tools"
sys.path.insert(0, str(TOOLS))

import mutant_catalog  # noqa: E402
import mutants  # noqa: E402
from mutants import ERROR, KILLED, SURVIVED, Mutant  # noqa: E402


def test_every_snippet_of_the_catalog_is_found_exactly_once_in_the_tree() -> None:
    assert mutants.check(mutant_catalog.MUTANTS) == []


def test_the_catalog_covers_every_area_and_says_what_each_bug_is() -> None:
    catalog = mutant_catalog.MUTANTS
    assert {m.area for m in catalog} == set(mutant_catalog.AREAS)
    assert all(m.bug.strip() for m in catalog)
    assert len([m for m in catalog if not m.equivalent]) >= 40


def test_a_snippet_found_twice_or_not_at_all_is_refused() -> None:
    twice = Mutant("twice", "x", "f.py", "a", "b", ("t.py",), "bug")
    with pytest.raises(ValueError, match="2 times"):
        twice.apply("a = a")
    with pytest.raises(ValueError, match="0 times"):
        twice.apply("c = 1")
    assert twice.apply("a = 1") == "b = 1"


# ------------------------------------------------------------------- the harness on a tiny project


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project of one function and its tests, outside any git work tree (every file is copied).
    Its pytest runs load no plugin (Django's, hypothesis'...): they need none, and start faster."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    root = tmp_path / "project"
    root.mkdir()
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    (root / "test_broken.py").write_text("def test_already_failing():\n    assert False\n")
    return root


def _mutant(name: str, original: str, replacement: str, tests: tuple[str, ...] = ("test_calc.py",)) -> Mutant:
    return Mutant(name, "calc", "calc.py", original, replacement, tests, name)


def test_only_a_failing_test_kills_and_what_cannot_run_is_an_error(project: Path) -> None:
    catalog = [
        _mutant("wrong-operator", "a + b", "a - b"),  # the test fails: killed
        _mutant("same-sum", "a + b", "b + a"),  # nothing can tell: survives
        _mutant("syntax-error", "a + b", "a +"),  # tests cannot be collected: an error, not a kill
        _mutant("not-found", "a * b", "a / b"),  # the snippet is not there: an error
        _mutant("no-such-test", "a + b", "a - b", ("test_missing.py",)),  # pytest's usage error
        _mutant("baseline-fails", "a + b", "a - b", ("test_broken.py",)),  # fails unmutated: an error
    ]
    outcomes = mutants.run_all(catalog, root=project, timeout=300)
    got = {o.mutant.id: o.status for o in outcomes}
    assert got == {
        "wrong-operator": KILLED,
        "same-sum": SURVIVED,
        "syntax-error": ERROR,
        "not-found": ERROR,
        "no-such-test": ERROR,
        "baseline-fails": ERROR,
    }
    assert mutants.ratio(outcomes) == pytest.approx(1 / 6)  # errors count against the ratio
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"  # never touched


def test_an_equivalent_mutant_is_not_run_nor_counted_and_the_exit_code_follows_the_ratio(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = [
        _mutant("wrong-operator", "a + b", "a - b"),
        Mutant(
            "same-sum",
            "calc",
            "calc.py",
            "a + b",
            "b + a",
            ("test_calc.py",),
            "x",
            equivalent="a + b = b + a",
        ),
    ]
    monkeypatch.setattr(mutants, "ROOT", project)
    monkeypatch.chdir(project)
    assert mutants.main(["--no-baseline", "--min-kill", "1"], catalog=catalog) == 0
    out = capsys.readouterr().out
    assert "kill ratio 100.0%" in out and "equivalent: calc/same-sum: a + b = b + a" in out
    catalog[1] = _mutant("same-sum", "a + b", "b + a")
    assert mutants.main(["--no-baseline", "--min-kill", "0.95"], catalog=catalog) == 1
    assert "kill ratio 50.0%" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("code", "status"), [(0, SURVIVED), (1, KILLED), (2, ERROR), (3, ERROR), (4, ERROR), (5, ERROR)]
)
def test_pytest_exit_codes_map_to_outcomes(code: int, status: str) -> None:
    assert mutants.classify(code) == status
