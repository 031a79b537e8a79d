"""Vectorized splitting of whitespace-separated line files into typed columns, with exact error lines.

Every TREC format is "N whitespace-separated columns per line, blank and ``#`` lines allowed".
This module turns a block of bytes into token offsets with numpy (no Python object per token),
checks the column count of every line, and materializes columns as fixed-width byte strings,
integers or doubles. Any token that does not fit the expected type is reported with its line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from trec.errors import FormatError
from trec.text import printable as _printable

# 10**k is exactly representable as a double for k <= 22, which makes m / 10**k correctly rounded.
_POW10_FLOAT = np.array([float(10**k) for k in range(23)], dtype=np.float64)
_MAX_EXACT = 2**53
_FLOAT_RE = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INT_RE = re.compile(rb"[+-]?\d+")
_WIDE = 96  # wider string columns are gathered with Python slices instead of an n x width matrix
_PAD = _WIDE + 1


@lru_cache(maxsize=128)
def _prefix_masks(width: int) -> np.ndarray:
    """Row ``k`` is ``[1]*k + [0]*(width-k)`` (uint8): a token's mask is one row gather, not a broadcast."""
    return np.tri(width + 1, width, -1, dtype=np.uint8)


@dataclass
class Columns:
    """Token offsets of the data lines of one block: ``starts[i, c]``/``ends[i, c]`` for line i, column c."""

    path: str
    buf: np.ndarray  # uint8 view of the block
    raw: bytes
    padded: np.ndarray  # _PAD spaces, the block, _PAD spaces: windows never run off either end
    starts: np.ndarray  # (n, ncols) int64
    ends: np.ndarray  # (n, ncols) int64
    line_numbers: np.ndarray  # (n,) int64, 1-based line numbers in the file

    def __len__(self) -> int:
        return int(self.starts.shape[0])

    def token(self, row: int, col: int) -> bytes:
        return self.raw[int(self.starts[row, col]) : int(self.ends[row, col])]

    def error(self, row: int, message: str) -> FormatError:
        return FormatError(self.path, int(self.line_numbers[row]), message)

    def _char_matrix(self, col: int, clip: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(n, width) bytes of the column, zero past each token's end.

        Gathers whole rows out of a sliding-window view of the buffer, which copies ``width``
        contiguous bytes per token instead of indexing every byte separately.
        """
        s = self.starts[:, col]
        lengths = self.ends[:, col] - s
        width = max(int(lengths.max()) if len(lengths) else 1, 1)
        if width > _WIDE and clip:
            width = _WIDE  # numbers: a token this long is never a fast-path number, nothing is lost
        if width > _WIDE:
            raise ValueError("token too wide for the vectorized path")
        windows = np.lib.stride_tricks.sliding_window_view(self.padded, width)
        chars = windows[s + _PAD]
        chars *= _prefix_masks(width)[np.minimum(lengths, width)]
        return chars, lengths

    def _fixed_point(self, col: int) -> tuple[np.ndarray, np.ndarray, int] | None:
        """Mantissas of a column whose numbers all share one layout, e.g. every score printed "%.6f".

        Right-aligns the tokens and fills their left with '0', so that every column of the
        matrix has one meaning: the dot sits in the same column in every row and the mantissa
        is one dot product with powers of ten. Returns (mantissa, negative, fraction digits),
        or None when the layout differs between rows or a number is too long to be exact.
        """
        e = self.ends[:, col]
        lengths = e - self.starts[:, col]
        width = int(lengths.max())
        if width > 17:
            return None
        windows = np.lib.stride_tricks.sliding_window_view(self.padded, width)
        chars = windows[e + _PAD - width]
        lead = _prefix_masks(width)[width - lengths].view(bool)
        neg = chars[np.arange(len(e)), width - lengths] == 45
        chars[lead] = 48
        chars[neg, width - lengths[neg]] = 48
        dots = chars == 46
        dot_cols = np.flatnonzero(dots[0])
        if dot_cols.size > 1:
            return None
        frac = width - 1 - int(dot_cols[0]) if dot_cols.size else 0
        digit_cols = np.ones(width, dtype=bool)
        if dot_cols.size:
            digit_cols[dot_cols[0]] = False
            if not dots[:, dot_cols[0]].all():
                return None
        digits = chars[:, digit_cols] - np.uint8(48)
        if not (digits < 10).all() or (lengths == neg).any():
            return None
        ndig = int(digit_cols.sum())
        if ndig > 15:  # the float dot product below is exact only below 2**53
            return None
        weights = 10.0 ** np.arange(ndig - 1, -1, -1)
        return digits.astype(np.float64) @ weights, neg, frac

    def _char_columns(self, col: int) -> tuple[list[np.ndarray], np.ndarray]:
        """The column's characters as one 1-D array per character position (0 past a token's end)."""
        chars, lengths = self._char_matrix(col, clip=True)
        columns = np.ascontiguousarray(chars.T)
        return list(columns), lengths

    def strings(self, col: int) -> np.ndarray:
        """Column ``col`` as a numpy fixed-width bytes array (dtype ``S<width>``)."""
        n = len(self)
        if n == 0:
            return np.zeros(0, dtype="S1")
        lengths = self.ends[:, col] - self.starts[:, col]
        if int(lengths.max()) > _WIDE:
            return np.array([self.token(i, col) for i in range(n)], dtype=bytes)
        chars, lengths = self._char_matrix(col)
        return chars.view(f"S{chars.shape[1]}").ravel()

    def _decimal(self, col: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Horner-parse ``[+-]digits[.digits]`` tokens: (ok, negative, mantissa, fraction digits)."""
        chars, lengths = self._char_columns(col)
        n = len(lengths)
        first = chars[0]
        neg = first == 45
        signed = neg | (first == 43)
        mant = np.zeros(n, dtype=np.int64)
        frac = np.zeros(n, dtype=np.int64)
        ndig = np.zeros(n, dtype=np.int64)
        seen_dot = np.zeros(n, dtype=bool)
        ok = np.ones(n, dtype=bool)
        for j, c in enumerate(chars):
            d = c - np.uint8(48)
            is_dig = d < 10
            is_dot = c == 46
            valid = is_dig | is_dot | (c == 0)
            if j == 0:
                valid |= signed
            ok &= valid
            ok &= ~(is_dot & seen_dot)
            seen_dot |= is_dot
            mant = np.where(is_dig, mant * 10 + d, mant)
            ndig += is_dig
            frac += is_dig & seen_dot
        ok &= (ndig >= 1) & (ndig <= 18)
        return ok, neg, mant, frac

    def integers(self, col: int, what: str) -> np.ndarray:
        """Column ``col`` as int64; anything but an optionally signed decimal integer is an error."""
        n = len(self)
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        ok, neg, mant, frac = self._decimal(col)
        ok &= frac == 0
        # no fraction digits yet a dot means a trailing dot ("1."), which is not an integer either
        ok &= self.buf[self.ends[:, col] - 1] != 46
        lengths = self.ends[:, col] - self.starts[:, col]
        ok &= ~((lengths == 1) & neg)
        if not ok.all():
            row = int(np.flatnonzero(~ok)[0])
            tok = self.token(row, col)
            if not _INT_RE.fullmatch(tok):
                raise self.error(row, f"expected {what} (an integer), found '{_printable(tok)}'")
            raise self.error(row, f"{what} '{_printable(tok)}' is out of range")
        return np.where(neg, -mant, mant)

    def floats(self, col: int, what: str) -> np.ndarray:
        """Column ``col`` as float64 parsed exactly like C's strtod; non-numeric or non-finite is an error."""
        n = len(self)
        if n == 0:
            return np.zeros(0, dtype=np.float64)
        # m / 10**f is correctly rounded, hence equal to strtod, when m < 2**53 and f <= 22 (Clinger).
        fixed = self._fixed_point(col)
        if fixed is not None:
            mant_f, neg, f = fixed
            out = mant_f / _POW10_FLOAT[f]
            np.negative(out, out=out, where=neg)
            fast = np.ones(n, dtype=bool)
        else:
            ok, neg, mant, frac = self._decimal(col)
            fast = ok & (mant <= _MAX_EXACT) & (frac <= 22)
            out = mant.astype(np.float64) / _POW10_FLOAT[np.minimum(frac, 22)]
            np.negative(out, out=out, where=neg)
        for row in np.flatnonzero(~fast).tolist():
            tok = self.token(row, col)
            if not _FLOAT_RE.fullmatch(tok):
                low = tok.lower().lstrip(b"+-")
                if low in (b"nan", b"inf", b"infinity"):
                    raise self.error(row, f"{what} '{_printable(tok)}' is not finite")
                raise self.error(row, f"expected {what} (a number), found '{_printable(tok)}'")
            out[row] = float(tok)
        bad = ~np.isfinite(out)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise self.error(row, f"{what} '{_printable(self.token(row, col))}' is not finite")
        return out


def split_columns(
    raw: bytes, first_line: int, path: str, names: Sequence[str], *, extra_ok: bool = False
) -> Columns:
    """Split a block into exactly ``len(names)`` columns per data line; blank and ``#`` lines are skipped.

    ``extra_ok`` accepts lines with more tokens and drops the extra ones, as trec_eval's results
    reader does (``get_trec_results.c`` skips the rest of a line after the run tag); fewer
    tokens are still an error.
    """
    ncols = len(names)
    buf = np.frombuffer(raw, dtype=np.uint8)
    empty = np.zeros((0, ncols), dtype=np.int64)
    if buf.size == 0:
        return Columns(path, buf, raw, buf, empty, empty, np.zeros(0, dtype=np.int64))
    # Every byte up to space counts as a separator (a superset of C's isspace; other control
    # bytes have no place in TREC text and would only split a token, which the column check reports).
    ws = np.empty(buf.size + 1, dtype=bool)
    ws[0] = True
    np.less_equal(buf, 32, out=ws[1:])
    # positions where whitespace-ness flips are exactly token starts and (exclusive) ends
    flips = np.flatnonzero(ws[1:] != ws[:-1])
    if not ws[-1]:
        flips = np.r_[flips, buf.size]
    tstart, tend = flips[0::2], flips[1::2]
    pad = b" " * _PAD
    if (
        tstart.size % ncols == 0
        and tstart.size
        and tstart[0] == 0
        and raw.endswith(b"\n")
        and b"#" not in raw
        and bool((tstart[1:] == tend[:-1] + 1).all())
    ):
        # The common layout (single separators, no blank or comment lines) is checked from the
        # byte after each token alone: a newline after every ncols-th token and nowhere else.
        after = buf[tend].reshape(-1, ncols)
        if bool((after[:, -1] == 10).all()) and not bool((after[:, :-1] == 10).any()):
            padded = np.frombuffer(pad + raw + pad, dtype=np.uint8)
            lines = first_line + np.arange(tstart.size // ncols, dtype=np.int64)
            return Columns(path, buf, raw, padded, tstart.reshape(-1, ncols), tend.reshape(-1, ncols), lines)
    newlines = np.flatnonzero(buf == 10)
    # tokens before each line's newline; line k holds tokens before_nl[k-1]:before_nl[k]
    before_nl = np.searchsorted(tstart, newlines)
    bounds = (
        np.r_[0, before_nl, tstart.size]
        if (newlines.size == 0 or newlines[-1] != buf.size - 1)
        else np.r_[0, before_nl]
    )
    per_line = np.diff(bounds)
    tline = None
    if tstart.size and b"#" in raw and (buf[tstart] == 35).any():
        heads = bounds[:-1][per_line > 0]
        comment = np.zeros(per_line.size, dtype=bool)
        comment[np.flatnonzero(per_line > 0)[buf[tstart[heads]] == 35]] = True
        if comment.any():
            tline = np.repeat(np.arange(per_line.size), per_line)
            keep = ~comment[tline]
            tstart, tend = tstart[keep], tend[keep]
            per_line = np.where(comment, 0, per_line)
    if tstart.size == 0:
        return Columns(path, buf, raw, buf, empty, empty, np.zeros(0, dtype=np.int64))
    if extra_ok and bool((per_line > ncols).any()):
        tstart, tend, per_line = _first_tokens(tstart, tend, per_line, ncols)
    bad = (per_line != 0) & (per_line != ncols)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        lo = int(newlines[k - 1]) + 1 if k > 0 else 0
        hi = int(newlines[k]) if k < newlines.size else len(raw)
        text = _printable(raw[lo:hi].strip())
        raise FormatError(
            path,
            first_line + k,
            f"expected {ncols} columns ({' '.join(names)}), found {int(per_line[k])}: '{text}'",
        )
    line_ids = np.flatnonzero(per_line)
    starts = tstart.reshape(-1, ncols)
    ends = tend.reshape(-1, ncols)
    padded = np.frombuffer(pad + raw + pad, dtype=np.uint8)
    return Columns(path, buf, raw, padded, starts, ends, first_line + line_ids.astype(np.int64))


def _first_tokens(
    tstart: np.ndarray, tend: np.ndarray, per_line: np.ndarray, ncols: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Keep only the first ``ncols`` tokens of every line (lines with fewer keep all of theirs)."""
    line_start = np.repeat(np.cumsum(per_line) - per_line, per_line)
    within = np.arange(tstart.size) - line_start
    keep = within < ncols
    return tstart[keep], tend[keep], np.minimum(per_line, ncols)


def concat(parts: list[np.ndarray], empty_dtype: str | type = "S1") -> np.ndarray:
    """Concatenate block results (fixed-width strings of different widths promote to the widest)."""
    if not parts:
        return np.zeros(0, dtype=empty_dtype)
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts)


def read_columns(
    path: str,
    names: Sequence[str],
    convert: Callable[[Columns], dict[str, np.ndarray]],
    *,
    extra_ok: bool = False,
) -> tuple[dict[str, list[np.ndarray]], int]:
    """Read a whole file block by block; ``convert`` maps each block's Columns to named arrays.

    ``extra_ok``: see :func:`split_columns`.
    """
    from trec.io import iter_blocks

    out: dict[str, list[np.ndarray]] = {}
    total = 0
    for raw, first_line in iter_blocks(path):
        cols = split_columns(raw, first_line, str(path), names, extra_ok=extra_ok)
        if len(cols) == 0:
            continue
        total += len(cols)
        for key, arr in convert(cols).items():
            out.setdefault(key, []).append(arr)
    return out, total
