"""Reading the grade out of a judge's answer, or saying why it can't be read.

Accepted (case and spacing aside), the first form found deciding:

1. ``##final score: N`` (the prompts' form, any case, ``:`` or ``=``); failing that, a line
   ``O: N`` (UMBRELA's overall score) or a line ``score: N``;
2. a JSON object with a ``score``, ``final_score`` or ``grade`` number;
3. an answer that is a lone integer.

Anything else is "can't judge" with the reason, the raw text kept by the caller. So is a number
the prompt does not allow, a non-integer number, and an answer giving two different final scores.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass

_NUM = r"\s*[:=]\s*\**\s*(-?\d+(?:\.\d+)?)"
# in order: the first kind found decides, and every match of it must agree
_FORMS = (
    re.compile(r"final[\s_]+score" + _NUM, re.IGNORECASE),
    re.compile(r"^\W*\(?O\)?" + _NUM, re.MULTILINE),
    re.compile(r"^\W*score" + _NUM, re.IGNORECASE | re.MULTILINE),
)
_LONE = re.compile(r"\s*\**\s*(-?\d+)\s*\**\s*\.?\s*")
_JSON = re.compile(r"\{[^{}]*\}")


@dataclass(frozen=True)
class Reading:
    """An answer read: ``answer`` (an allowed integer) or ``reason`` (why it can't be read)."""

    answer: int | None
    reason: str = ""


def _number(text: str, allowed: Collection[int]) -> Reading:
    try:
        value = float(text)
    except ValueError:
        return Reading(None, f"'{text}' is not a number")
    if value != int(value):
        return Reading(None, f"the score {text} is not an integer")
    if int(value) not in allowed:
        return Reading(None, f"the score {int(value)} is not one of {', '.join(map(str, sorted(allowed)))}")
    return Reading(int(value))


def read_answer(text: str, allowed: Collection[int]) -> Reading:
    """The answer in ``text`` (see the module's doc)."""
    if not text or not text.strip():
        return Reading(None, "the answer is empty")
    for form in _FORMS:
        finals = form.findall(text)
        if finals:
            if len({float(f) for f in finals}) > 1:
                return Reading(None, f"the answer gives several final scores ({', '.join(finals)})")
            return _number(finals[-1], allowed)
    for blob in _JSON.findall(text):
        try:
            data = json.loads(blob)
        except ValueError:
            continue
        for key in ("final_score", "score", "grade"):
            if isinstance(data, dict) and key in data:
                value = data[key]
                if isinstance(value, bool) or not isinstance(value, int | float | str):
                    return Reading(None, f"the JSON {key} is not a number")
                return _number(str(value), allowed)
    lone = _LONE.fullmatch(text)
    if lone:
        return _number(lone.group(1), allowed)
    return Reading(None, "no score found in the answer")
