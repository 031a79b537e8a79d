"""What both vocabularies' name parsers share: the error they raise and how they read a number."""

from __future__ import annotations


class MeasureError(ValueError):
    """An unknown measure name or a bad parameter."""


def number(text: str, measure: str) -> int | float:
    try:
        value = float(text)
    except ValueError as exc:
        raise MeasureError(f"measure '{measure}': parameter '{text}' is not a number") from exc
    return int(value) if value.is_integer() and "." not in text else value
