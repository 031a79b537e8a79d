"""Measure values that answer to an ir_measures ``Measure`` object and to its name alike.

ir_measures returns ``{Measure: value}``; the workbench names its columns with strings
(``"nDCG@10"``). A :class:`MeasureDict` keeps the keys it was given (objects or names) and finds a
value by the other kind too: ``result[nDCG@10]``, ``result["nDCG@10"]``, ``nDCG@10 in result`` and
``result.get("nDCG@10")`` all work whichever kind the caller passed. The link is the name ir_measures
prints for a measure (``str(nDCG@10) == "nDCG@10"``, also its ``repr``, which its ``__eq__`` and
``__hash__`` compare); ir_measures itself is never imported here.
"""

from __future__ import annotations

from typing import Any


def is_ir_measure(value: Any) -> bool:
    """An ir_measures ``Measure`` object (``nDCG@10``, ``P(rel=2)@5``), recognised without importing it."""
    return not isinstance(value, str) and type(value).__module__.split(".")[0] == "ir_measures"


def measure_key_name(value: Any) -> str | None:
    """The name a key stands for: a string itself, an ir_measures Measure its printed name, else None."""
    if isinstance(value, str):
        return value
    return str(value) if is_ir_measure(value) else None


class MeasureDict(dict[Any, Any]):
    """A dict of measure values whose keys are names or ir_measures Measures, looked up by either.

    Equality, iteration and ``len`` are a plain dict's: the keys are exactly those it was given.
    Only a lookup that misses tries the key's other form (an object's name, or the object whose
    name the string is), so ``{nDCG@10: v} == MeasureDict({nDCG@10: v})``.
    """

    def _other(self, key: Any) -> tuple[bool, Any]:
        """(found, the stored key standing for the same measure as ``key``)."""
        name = measure_key_name(key)
        if name is None:
            return False, None
        for stored in self:
            if stored is not key and measure_key_name(stored) == name:
                return True, stored
        return False, None

    def __missing__(self, key: Any) -> Any:
        found, stored = self._other(key)
        if not found:
            raise KeyError(key)
        return dict.__getitem__(self, stored)

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or self._other(key)[0]

    def get(self, key: Any, default: Any = None) -> Any:
        found, stored = (True, key) if dict.__contains__(self, key) else self._other(key)
        return dict.__getitem__(self, stored) if found else default
