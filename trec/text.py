"""The bytes every imported file may hold: never a NUL, UTF-8 text. Pure.

A NUL byte has no place in a TREC file and cannot be stored at all on PostgreSQL (neither in a
text column nor in a JSON value), so the imports refuse it, naming the file and the line
(docs/formats.md#bytes-and-encodings). Topics, runs and qrels must be UTF-8; documents are decoded
with a stated rule instead (:func:`decode_replacing`), because collections are large, old and not
the organizer's to fix.
"""

from __future__ import annotations

from trec.errors import FormatError
from trec.io import PathLike

NUL = b"\x00"
REPLACEMENT = "\ufffd"
_REPLACEMENT_BYTES = REPLACEMENT.encode()
_SURROGATE_FIRST, _SURROGATE_LAST = "\ud800", "\udfff"


def nul_message(what: str) -> str:
    return f"a NUL byte (\\x00) is not allowed in {what}"


def nul_lines(raw: bytes, first_line: int = 1) -> list[int]:
    """The lines (numbered from ``first_line``) of ``raw`` that hold a NUL byte; one scan when none does."""
    lines: list[int] = []
    at = raw.find(NUL)
    while at >= 0:
        lines.append(first_line + raw.count(b"\n", 0, at))
        end = raw.find(b"\n", at)
        if end < 0:
            break
        at = raw.find(NUL, end)
    return lines


def nul_error(path: PathLike, raw: bytes, first_line: int, what: str) -> FormatError | None:
    """The error for the first NUL byte of ``raw`` (a block starting on ``first_line``), if any."""
    if NUL not in raw:
        return None
    return FormatError(str(path), nul_lines(raw, first_line)[0], nul_message(what))


def utf8_error(path: PathLike, raw: bytes, first_line: int) -> FormatError | None:
    """The error for the first line of ``raw`` that is not UTF-8, if any."""
    if raw.isascii():
        return None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return FormatError(str(path), first_line + raw.count(b"\n", 0, exc.start), "not valid UTF-8 text")
    return None


def json_text_problem(value: str, what: str) -> str | None:
    """Why a string read from JSON cannot be stored: a ``\\u0000`` escape (a NUL) or a lone
    surrogate escape such as ``\\ud800`` (half of a character); None when it can."""
    if "\x00" in value:
        return f"a NUL character (\\u0000) is not allowed in {what}"
    if _has_surrogate(value):
        return "a lone surrogate escape (\\ud800 to \\udfff) is half a character, not text"
    return None


def _has_surrogate(value: str) -> bool:
    if value.isascii():
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def decode_replacing(data: bytes) -> tuple[str, int]:
    """``data`` as UTF-8, each byte sequence that is not UTF-8 read as U+FFFD; and how many were.

    U+FFFD already in the file (written as UTF-8) is text like any other and is not counted.
    """
    try:
        return data.decode("utf-8"), 0
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        return text, text.count(REPLACEMENT) - data.count(_REPLACEMENT_BYTES)


def without_surrogates(value: str) -> tuple[str, int]:
    """``value`` with each lone surrogate (from a JSON ``\\ud800`` escape) as U+FFFD; and how many."""
    if not _has_surrogate(value):
        return value, 0
    count = sum(1 for c in value if _SURROGATE_FIRST <= c <= _SURROGATE_LAST)
    return "".join(REPLACEMENT if _SURROGATE_FIRST <= c <= _SURROGATE_LAST else c for c in value), count


def printable(token: bytes | str, limit: int = 60) -> str:
    """A token as a message shows it: decoded with U+FFFD, control bytes written as ``\\xNN`` (a
    NUL would make the message itself unstorable), cut to ``limit`` characters."""
    text = token.decode("utf-8", errors="replace") if isinstance(token, bytes) else token
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    if not text.isprintable():
        text = "".join(c if c.isprintable() or c == "\t" else _escaped(c) for c in text)
    return text


def _escaped(c: str) -> str:
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"
