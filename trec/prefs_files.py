"""trec_eval's preference judgments (``-R prefs``, ``qrels_prefs``) and judgment-group qrels (``qrels_jg``).

Three line formats, whitespace-separated, one judgment a line:

* prefs (``get_prefs.c``): ``qid jg jsg docno rel_level`` -- a judgment group (one user's
  information need) split into sub-groups; within a sub-group every pair of documents with
  different ``rel_level`` (a double) is a preference, the higher level preferred.
* qrels_prefs (``get_qrels_prefs.c``): an ordinary qrels ``qid iter docno rel`` read as prefs: the
  ``iter`` field is the judgment group, every line is in sub-group ``"0"``, ``rel`` is a double.
* qrels_jg (``get_qrels_jg.c``): an ordinary qrels ``qid jg docno rel`` whose second field names
  a judgment group (a user); ``rel`` is an integer grade, negative meaning pooled but unjudged.

Comments: a line whose first character is ``#`` is skipped, as trec_eval does. Blank lines and
``#`` lines indented by blanks are also skipped here, where trec_eval calls them malformed: the
one place these readers are more lenient than trec_eval 10.0. Numbers are read strictly (trec_eval's
``atof``/``atol`` would read ``x`` as 0): a bad token is a :class:`FormatError` naming its line.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trec.columns import Columns, concat, read_columns
from trec.errors import FormatError
from trec.io import PathLike

PREFS_COLUMNS = ("qid", "jg", "jsg", "docno", "rel_level")
QRELS_PREFS_COLUMNS = ("qid", "jg", "docno", "rel_level")
QRELS_JG_COLUMNS = ("qid", "jg", "docno", "rel")


@dataclass(frozen=True)
class PrefLines:
    """Every line of a prefs (or qrels_prefs) file, column-wise, in file order.

    ``qid``, ``jg``, ``jsg`` and ``docno`` are fixed-width bytes arrays; ``rel`` is float64
    (trec_eval's ``atof``); ``line`` is each row's 1-based line number in the file.
    """

    path: str
    qid: np.ndarray
    jg: np.ndarray
    jsg: np.ndarray
    docno: np.ndarray
    rel: np.ndarray
    line: np.ndarray

    def __len__(self) -> int:
        return len(self.qid)


@dataclass(frozen=True)
class JgQrels:
    """Every line of a qrels_jg file, column-wise, in file order (``rel`` is int64, trec_eval's ``atol``)."""

    path: str
    qid: np.ndarray
    jg: np.ndarray
    docno: np.ndarray
    rel: np.ndarray
    line: np.ndarray

    def __len__(self) -> int:
        return len(self.qid)


def _prefs_convert(cols: Columns) -> dict[str, np.ndarray]:
    return {
        "qid": cols.strings(0),
        "jg": cols.strings(1),
        "jsg": cols.strings(2),
        "docno": cols.strings(3),
        "rel": cols.floats(4, "a relevance level"),
        "line": cols.line_numbers,
    }


def _qrels_prefs_convert(cols: Columns) -> dict[str, np.ndarray]:
    return {
        "qid": cols.strings(0),
        "jg": cols.strings(1),
        "docno": cols.strings(2),
        "rel": cols.floats(3, "a relevance level"),
        "line": cols.line_numbers,
    }


def _qrels_jg_convert(cols: Columns) -> dict[str, np.ndarray]:
    return {
        "qid": cols.strings(0),
        "jg": cols.strings(1),
        "docno": cols.strings(2),
        "rel": cols.integers(3, "a relevance grade"),
        "line": cols.line_numbers,
    }


def _empty(path: PathLike, expected: str) -> FormatError:
    return FormatError(str(path), 0, f"the file has no judgments (expected '{expected}')")


def read_prefs(path: PathLike) -> PrefLines:
    """Read a trec_eval prefs file ``qid jg jsg docno rel_level`` (gzip transparently)."""
    parts, total = read_columns(str(path), PREFS_COLUMNS, _prefs_convert)
    if total == 0:
        raise _empty(path, " ".join(PREFS_COLUMNS))
    return PrefLines(
        str(path),
        concat(parts["qid"]),
        concat(parts["jg"]),
        concat(parts["jsg"]),
        concat(parts["docno"]),
        concat(parts["rel"], np.float64),
        concat(parts["line"], np.int64),
    )


def read_qrels_prefs(path: PathLike) -> PrefLines:
    """Read a qrels file as trec_eval's ``-R qrels_prefs`` does: iter is the jg, every jsg is ``"0"``."""
    parts, total = read_columns(str(path), QRELS_PREFS_COLUMNS, _qrels_prefs_convert)
    if total == 0:
        raise _empty(path, "qid iter docno rel")
    qid = concat(parts["qid"])
    return PrefLines(
        str(path),
        qid,
        concat(parts["jg"]),
        np.full(len(qid), b"0", dtype="S1"),
        concat(parts["docno"]),
        concat(parts["rel"], np.float64),
        concat(parts["line"], np.int64),
    )


def read_qrels_jg(path: PathLike) -> JgQrels:
    """Read a qrels_jg file ``qid jg docno rel``; a docno twice in one (qid, jg) is an error."""
    parts, total = read_columns(str(path), QRELS_JG_COLUMNS, _qrels_jg_convert)
    if total == 0:
        raise _empty(path, " ".join(QRELS_JG_COLUMNS))
    out = JgQrels(
        str(path),
        concat(parts["qid"]),
        concat(parts["jg"]),
        concat(parts["docno"]),
        concat(parts["rel"], np.int64),
        concat(parts["line"], np.int64),
    )
    _check_jg_duplicates(out)
    return out


def _check_jg_duplicates(q: JgQrels) -> None:
    order = np.lexsort((q.line, q.docno, q.jg, q.qid))
    qid, jg, docno = q.qid[order], q.jg[order], q.docno[order]
    same = (qid[1:] == qid[:-1]) & (jg[1:] == jg[:-1]) & (docno[1:] == docno[:-1])
    if same.any():
        k = int(np.flatnonzero(same)[0])
        first, second = int(q.line[order[k]]), int(q.line[order[k + 1]])
        raise FormatError(
            q.path,
            second,
            f"duplicate docno '{docno[k + 1].decode(errors='replace')}' in topic "
            f"'{qid[k].decode(errors='replace')}', judgment group '{jg[k].decode(errors='replace')}' "
            f"(first on line {first}): a document may appear once per judgment group",
        )
