"""Reading the operator's environment variables for the settings: a value that is not what the
variable takes stops the start with one sentence naming it, never a silent default.

A typo such as ``WORKBENCH_DEBUG=ture`` or ``WORKBENCH_SSL_REDIRECT=flase`` would otherwise read as
false (healthchecks' ``envbool`` refuses such values for the same reason).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from django.core.exceptions import ImproperlyConfigured

TRUE = frozenset({"1", "true", "yes", "on"})
FALSE = frozenset({"0", "false", "no", "off"})


def env_bool(name: str, default: bool, environ: Mapping[str, str] | None = None) -> bool:
    """``name``'s value as a boolean: 1/true/yes/on or 0/false/no/off (any case); unset or empty
    is ``default``; anything else is refused."""
    value = (os.environ if environ is None else environ).get(name, "").strip().lower()
    if not value:
        return default
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of {', '.join(sorted(TRUE))} or {', '.join(sorted(FALSE))}, not {value!r}"
    )


def env_int(
    name: str,
    default: int,
    *,
    minimum: int = 1,
    maximum: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """``name``'s value as a whole number within [minimum, maximum]; unset or empty is
    ``default``; anything else (a sign, a fraction, a unit, out of range) is refused."""
    value = (os.environ if environ is None else environ).get(name, "").strip()
    if not value:
        return default
    bounds = f"at least {minimum}" if maximum is None else f"between {minimum} and {maximum}"
    if not value.isascii() or not value.isdigit():
        raise ImproperlyConfigured(f"{name} must be a whole number {bounds}, not {value!r}")
    number = int(value)
    if number < minimum or (maximum is not None and number > maximum):
        raise ImproperlyConfigured(f"{name} must be a whole number {bounds}, not {value!r}")
    return number
