"""Job kinds declared with their module: a process imports the job code it runs, when it first looks
a kind up, and no other."""

from __future__ import annotations

import sys
from importlib import import_module
from pathlib import Path

import pytest

from jobs import registry
from tests.conftest import python_stdout


def test_a_declared_module_is_imported_when_one_of_its_kinds_is_first_looked_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "lazy_kinds_probe.py").write_text(
        "from jobs.registry import register\n"
        "@register('lazy_probe_kind')\n"
        "def run(job, progress):\n"
        "    return {'ok': True}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_kinds", dict(registry._kinds))
    monkeypatch.setattr(registry, "_declared", dict(registry._declared))
    registry.register_module("lazy_kinds_probe", "lazy_probe_kind")
    assert "lazy_kinds_probe" not in sys.modules  # declared, not imported
    with pytest.raises(KeyError, match="unknown job kind 'nope'"):
        registry.kind("nope")
    assert "lazy_kinds_probe" not in sys.modules  # another kind's lookup does not import it
    assert registry.kind("lazy_probe_kind").name == "lazy_probe_kind"
    assert "lazy_kinds_probe" in sys.modules
    monkeypatch.delitem(sys.modules, "lazy_kinds_probe")


def test_every_declared_kind_is_registered_by_its_module_and_every_app_kind_is_declared() -> None:
    declared = registry.declared()
    assert len(declared) >= 15
    for module in set(declared.values()):
        import_module(module)
    by_module = {
        name: kind.run.__module__
        for name, kind in registry._kinds.items()
        if not kind.run.__module__.startswith("tests.")
    }
    assert by_module == declared


def test_a_django_process_starts_without_the_job_modules_and_imports_only_the_one_it_runs() -> None:
    code = (
        "import sys; from workbench.startup import django_setup; django_setup(); "
        "mods = ('metrics.jobs', 'metrics.live.jobs', 'judging.reports.jobs', 'judging.services.machine'); "
        "print(*[m in sys.modules for m in mods]); "
        "from jobs.registry import kind; from metrics.evaluations import EVALUATE_JOB; "
        "print(kind(EVALUATE_JOB).name == EVALUATE_JOB, *[m in sys.modules for m in mods])"
    )
    env = {"DJANGO_SETTINGS_MODULE": "workbench.settings", "PATH": "/usr/bin:/bin"}
    printed = python_stdout("-c", code, env=env).split()
    assert printed == ["False"] * 4 + ["True", "True", "False", "False", "False"]
