"""The pure core imports without Django: each package is imported in a fresh interpreter and
``sys.modules`` is checked, so a Django import anywhere in its import graph fails the test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PURE = [
    "trec",
    "engine",
    "engine.cli",
    "engine.output",
    "engine.significance",
    "engine.estimates",
    "pooling.strategies",
    "pooling.diagnostics",
    "judging.agreement",
    "judging.design",
    "judging.llm",
    "relevance_workbench",
]
FORBIDDEN = ("django", "rest_framework", "drf_spectacular", "campaigns", "jobs")

PROBE = """
import importlib, json, pkgutil, sys
name = sys.argv[1]
module = importlib.import_module(name)
# every submodule too: a package's __init__ may not import all of them
for info in pkgutil.walk_packages(getattr(module, "__path__", []), prefix=name + "."):
    importlib.import_module(info.name)
print(json.dumps(sorted(sys.modules)))
"""


@pytest.mark.parametrize("package", PURE)
def test_a_pure_package_imports_no_django(package: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}  # no DJANGO_SETTINGS_MODULE
    done = subprocess.run(
        [sys.executable, "-c", PROBE, package], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert package in loaded
    leaked = [m for m in loaded if m.split(".")[0] in FORBIDDEN]
    assert leaked == [], f"{package} pulls in {leaked[:5]}"
