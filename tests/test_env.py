"""The operator's environment variables: a value the variable does not take stops the start."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from workbench.env import env_bool, env_int

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("value", ["1", "true", "TRUE", " yes ", "On"])
def test_true_spellings(value: str) -> None:
    assert env_bool("X", False, {"X": value}) is True


@pytest.mark.parametrize("value", ["0", "false", "False", "no", " OFF "])
def test_false_spellings(value: str) -> None:
    assert env_bool("X", True, {"X": value}) is False


@pytest.mark.parametrize("default", [True, False])
def test_unset_or_empty_is_the_default(default: bool) -> None:
    assert env_bool("X", default, {}) is default
    assert env_bool("X", default, {"X": "  "}) is default


@pytest.mark.parametrize("value", ["ture", "flase", "2", "y", "enabled"])
def test_a_typo_is_refused_not_read_as_false(value: str) -> None:
    with pytest.raises(ImproperlyConfigured, match=f"X must be one of .* not '{value}'"):
        env_bool("X", False, {"X": value})


def test_whole_numbers_within_their_range() -> None:
    assert env_int("N", 7, environ={}) == 7
    assert env_int("N", 7, environ={"N": " 12 "}) == 12
    assert env_int("N", 7, minimum=0, environ={"N": "0"}) == 0
    assert env_int("N", 7, minimum=0, maximum=19, environ={"N": "19"}) == 19


@pytest.mark.parametrize(
    ("value", "minimum", "maximum", "why"),
    [
        ("0", 1, None, "at least 1, not '0'"),
        ("-3", 0, None, "at least 0, not '-3'"),
        ("1.5", 1, None, "at least 1, not '1.5'"),
        ("10s", 1, None, "at least 1, not '10s'"),
        ("٣", 1, None, "at least 1"),  # a digit Python's int() takes, not an ASCII number
        ("20", 0, 19, "between 0 and 19, not '20'"),
        ("59", 60, None, "at least 60, not '59'"),
    ],
)
def test_a_number_out_of_range_or_not_a_number_is_refused(
    value: str, minimum: int, maximum: int | None, why: str
) -> None:
    with pytest.raises(ImproperlyConfigured, match=f"N must be a whole number {why}"):
        env_int("N", 1, minimum=minimum, maximum=maximum, environ={"N": value})


@pytest.mark.parametrize(
    ("name", "value", "why"),
    [
        ("WORKBENCH_DEBUG", "ture", "WORKBENCH_DEBUG must be one of"),
        ("WORKBENCH_CONN_MAX_AGE", "-1", "WORKBENCH_CONN_MAX_AGE must be a whole number at least 0"),
        (
            "WORKBENCH_PASSWORD_RESET_SECONDS",
            "0",
            "RESET_SECONDS must be a whole number at least 60",
        ),
        ("WORKBENCH_EMAIL_PORT", "70000", "WORKBENCH_EMAIL_PORT must be a whole number between 1 and 65535"),
        (
            "WORKBENCH_UPLOAD_STALE_SECONDS",
            "10",
            "STALE_SECONDS must be a whole number at least 60",
        ),
        ("WORKBENCH_WORKER_NICE", "20", "WORKBENCH_WORKER_NICE must be a whole number between 0 and 19"),
    ],
)
def test_the_settings_refuse_a_bad_value_at_start(name: str, value: str, why: str) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")},
        "DJANGO_SETTINGS_MODULE": "workbench.settings",
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/unused",  # CONN_MAX_AGE is PostgreSQL's
        "WORKBENCH_EMAIL_HOST": "mail.example.org",  # the port is read only with a host
        name: value,
    }
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode != 0 and why in done.stderr, done.stderr[-2000:]
