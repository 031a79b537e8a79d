"""Every process that sets Django up (manage.py's commands, the WSGI and ASGI servers) freezes the
objects of its start-up out of the garbage collector and leaves the collector on for the rest
(workbench/startup.py)."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from tests.conftest import python_stdout
from workbench.startup import frozen_startup

PROBE = "import gc; print(gc.get_freeze_count() > 10000, gc.isenabled())"


def _python(*args: str, tmp_path: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["WORKBENCH_SQLITE_PATH"] = str(tmp_path / "db.sqlite3")
    # the probe's line (the shell may say more first)
    return python_stdout(*args, env=env).strip().splitlines()[-1]


def test_a_management_command_runs_with_its_start_up_frozen(tmp_path: Path) -> None:
    assert _python("manage.py", "shell", "-c", PROBE, tmp_path=tmp_path) == "True True"


@pytest.mark.parametrize("server", ["wsgi", "asgi"])
def test_the_servers_start_up_frozen(tmp_path: Path, server: str) -> None:
    code = f"import workbench.{server}; {PROBE}"
    assert _python("-c", code, tmp_path=tmp_path) == "True True"


def test_the_collector_is_paused_inside_and_restored_after() -> None:
    assert gc.isenabled()
    before = gc.get_freeze_count()
    try:
        with frozen_startup():
            assert not gc.isenabled()
            kept = [[i] for i in range(1000)]
        assert gc.isenabled() and gc.get_freeze_count() >= before + len(kept)
        gc.disable()  # a caller that had it off keeps it off
        with frozen_startup():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()  # the test process's own objects back under the collector
