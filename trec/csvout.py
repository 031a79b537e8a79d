"""The one CSV writer of the workbench: cells a spreadsheet would run as formulas are written as text.

A spreadsheet (Excel, LibreOffice, Google Sheets) opening a CSV treats a cell that starts with
``=``, ``+``, ``-`` or ``@`` as a formula, and a leading tab or carriage return can hide one; a run
tag, docno, topic id, user name or comment is typed by someone else, so ``=HYPERLINK(...)`` or
``-2+3+cmd|' /C calc'!A0`` would run on the reader's machine (OWASP, "CSV Injection"). OWASP's
advice, followed here: such a text cell starts with a single quote, which the spreadsheet shows as
text and does not evaluate.

Numbers are not text: a cell that is an int or float, or a string that reads as a number
(``-0.5``, ``+1``, ``-1e-05``, ``-inf``, ``nan``), is written as it is, so the measures' values and
``manage.py evaluate``/``compare`` CSV outputs keep their bytes for ordinary data. Pure: no Django.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any, Protocol

# what makes a spreadsheet read a cell as a formula (OWASP's list)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE)


class _Stream(Protocol):
    def write(self, s: str, /) -> Any: ...


def neutralise(text: str) -> str:
    """``text`` with a single quote in front when it starts like a formula; free text (a comment)
    goes through this even when it reads as a number."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def safe_cell(value: Any) -> Any:
    """A cell as :class:`SafeWriter` writes it: text that starts like a formula is quoted; numbers,
    and strings that read as numbers, are left alone; other values (None, bool) too."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


class SafeWriter:
    """``csv.writer`` with every cell through :func:`safe_cell`; lines end in ``\\n``."""

    def __init__(self, stream: _Stream, **fmtparams: Any) -> None:
        fmtparams.setdefault("lineterminator", "\n")
        self._writer = csv.writer(stream, **fmtparams)

    def writerow(self, row: Iterable[Any]) -> None:
        self._writer.writerow([safe_cell(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)
