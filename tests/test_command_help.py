"""Every command of the workbench prints its --help as written: argparse %-formats option help but
not a command's description, so a '%%' there reached the reader ("--budget 10%%")."""

from __future__ import annotations

import contextlib
import importlib
import io

import pytest
from django.core.management import get_commands, load_command_class

PROJECT_APPS = ("campaigns", "pooling", "judging", "metrics", "jobs", "workbench", "engine")
COMMANDS = sorted((name, app) for name, app in get_commands().items() if app.split(".")[0] in PROJECT_APPS)


def test_the_project_has_commands_to_check() -> None:
    assert {"simulate_pool", "build_pool", "evaluate", "workbench_demo"} <= {name for name, _ in COMMANDS}


@pytest.mark.parametrize(("name", "app"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_help_shows_no_doubled_percent_sign(name: str, app: str) -> None:
    text = load_command_class(app, name).create_parser("manage.py", name).format_help()
    assert "%%" not in text


def test_simulate_pool_help_shows_the_budget_example_as_typed() -> None:
    text = (
        load_command_class("pooling", "simulate_pool")
        .create_parser("manage.py", "simulate_pool")
        .format_help()
    )
    assert "--budget 10% --depth 100" in " ".join(text.split())


@pytest.mark.parametrize("name", ["evaluate", "compare", "build_pool", "simulate_pool", "agreement"])
def test_the_fast_path_help_shows_no_doubled_percent_sign(name: str) -> None:
    """manage.py runs these without Django (manage.PURE_COMMANDS): their --help is argparse's own."""
    import manage

    module, function = manage.PURE_COMMANDS[name]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(out):
        getattr(importlib.import_module(module), function)(["--help"], out, err, prog=f"manage.py {name}")
    text = out.getvalue()
    assert "usage:" in text and "%%" not in text
    if name == "simulate_pool":
        assert "--budget 10% --depth 100" in " ".join(text.split())
