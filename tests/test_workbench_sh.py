"""``./workbench.sh serve``'s command line: where the server listens (WORKBENCH_ADDR, --port,
--addr) reaches ``manage.py runserver``.

The script runs for real against a stub virtual environment (WORKBENCH_VENV) whose ``bin/python``
only writes down how it was called: no install, no database, no server.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STUB = """#!/usr/bin/env bash
# a stand-in for the venv's python: -c (the version check) succeeds, anything else is logged
[ "$1" = "-c" ] && exit 0
printf '%s\\n' "$*" >> "$WORKBENCH_STUB_LOG"
# the server and the worker wait for each other's line (the first to end stops the other)
case "$*" in
  *runserver*|*jobs_worker*)
    for _ in $(seq 100); do
      grep -q runserver "$WORKBENCH_STUB_LOG" && grep -q jobs_worker "$WORKBENCH_STUB_LOG" && break
      sleep 0.1
    done ;;
esac
"""


def _serve(
    tmp_path: Path, *args: str, addr: str | None = None
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(STUB)
    python.chmod(0o755)
    (venv / ".installed-test").touch()  # newer than pyproject.toml: setup installs nothing
    log = tmp_path / "calls.log"
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_ADDR"}
    env.update(WORKBENCH_VENV=str(venv), WORKBENCH_STUB_LOG=str(log))
    if addr is not None:
        env["WORKBENCH_ADDR"] = addr
    done = subprocess.run(
        ["bash", str(ROOT / "workbench.sh"), "serve", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done, log.read_text().splitlines() if log.exists() else []


def _runserver(calls: list[str]) -> str:
    (line,) = [c for c in calls if c.startswith("manage.py runserver")]
    return line


def test_serve_listens_on_localhost_8000_by_default(tmp_path: Path) -> None:
    done, calls = _serve(tmp_path)
    assert done.returncode == 0, done.stderr
    assert _runserver(calls) == "manage.py runserver 127.0.0.1:8000"
    assert "manage.py migrate --no-input" in calls and "manage.py workbench_demo" in calls
    assert "manage.py jobs_worker" in calls
    assert "http://127.0.0.1:8000/" in done.stdout


@pytest.mark.parametrize("args", [("--port", "8123"), ("--port=8123",)])
def test_port_option_reaches_the_server_address(tmp_path: Path, args: tuple[str, ...]) -> None:
    done, calls = _serve(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    assert _runserver(calls) == "manage.py runserver 127.0.0.1:8123"
    assert "http://127.0.0.1:8123/" in done.stdout


def test_port_keeps_the_host_of_workbench_addr(tmp_path: Path) -> None:
    _, calls = _serve(tmp_path, "--port", "9001", addr="0.0.0.0:8000")
    assert _runserver(calls) == "manage.py runserver 0.0.0.0:9001"


def test_workbench_addr_and_addr_option(tmp_path: Path) -> None:
    _, calls = _serve(tmp_path, addr="0.0.0.0:8080")
    assert _runserver(calls) == "manage.py runserver 0.0.0.0:8080"
    _, calls = _serve(tmp_path / "again", "--addr", "127.0.0.1:8500", addr="0.0.0.0:8080")
    assert _runserver(calls) == "manage.py runserver 127.0.0.1:8500"


def test_other_arguments_still_go_to_runserver(tmp_path: Path) -> None:
    _, calls = _serve(tmp_path, "--port", "8124", "--noreload")
    assert _runserver(calls) == "manage.py runserver 127.0.0.1:8124 --noreload"


@pytest.mark.parametrize(
    "args", [("--port",), ("--port", "http"), ("--port", "70000"), ("--addr", "nohost"), ("--addr",)]
)
def test_a_bad_port_or_address_stops_with_a_sentence(tmp_path: Path, args: tuple[str, ...]) -> None:
    done, calls = _serve(tmp_path, *args)
    assert done.returncode == 2
    assert "--port" in done.stderr or "--addr" in done.stderr
    assert not calls  # nothing was set up or started
