"""Run validation: every problem of a run file, with its line, before anything is stored or pooled. Pure.

``trec.read_run`` stops at the first problem, which is right for evaluation; an organizer checking a
participant's submission wants all of them at once. :func:`check_run` reads the file with the same
tokenizer (``trec.columns``), keeps going past bad lines, and sorts what it finds into errors, which
block the import, and warnings, which are listed. Codes are stable identifiers for pages and tests.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from trec.columns import Columns, concat, split_columns
from trec.errors import FormatError
from trec.grouping import find_duplicate, topic_codes
from trec.io import PathLike, iter_blocks
from trec.order import sort_by_topic_docno
from trec.runs import RUN_COLUMNS, RankedRun, run_from_arrays, run_name_from_path
from trec.text import nul_lines, nul_message
from trec.text import printable as _printable

DEFAULT_MAX_DOCS = 1000
# Column widths of the models that store runs; checked here so that a long value is a finding with
# a line number rather than a database error halfway through an import.
DOCNO_MAX_LENGTH = 200
TAG_MAX_LENGTH = 100
TOPIC_MAX_LENGTH = 64
# A campaign's topic ids are plain tokens: they appear in file names, exports and pages, so markup
# and path steps ('<b>', '../../etc', '/etc') are refused. CLEF's DOI-style ids ('10.2452/401-AH')
# and NTCIR's prefixed ones keep their '/' and ':' as long as no part is empty or only dots. Ids
# stay strings ('051' and '51' are two topics).
TOPIC_ID = re.compile(r"[A-Za-z0-9._:/-]+")
TOPIC_RULE = "letters, digits, '.', '_', '-', ':' and '/' between non-dot parts only"


def _topic_too_long(number: str) -> str | None:
    if len(number) > TOPIC_MAX_LENGTH:
        return f"topic id '{number[:60]}' is longer than {TOPIC_MAX_LENGTH} characters"
    return None


def _topic_spaced(number: str) -> str | None:
    if any(c.isspace() for c in number):  # run files split on whitespace: no run could name it
        return f"topic id '{number[:60]}' contains whitespace"
    return None


def _topic_not_a_token(number: str) -> str | None:
    if _topic_too_long(number) or _topic_spaced(number):
        return None  # said already
    if not TOPIC_ID.fullmatch(number) or not all(part.strip(".") for part in number.split("/")):
        return f"topic id '{number[:60]}' is not a plain token ({TOPIC_RULE})"
    return None


# why a topic id cannot be a campaign's, one check each (each returns the problem or None); an
# import lists the problems check by check
TOPIC_ID_CHECKS = (_topic_too_long, _topic_spaced, _topic_not_a_token)

# A report lists this many findings of each code and counts the rest: one broken file can have
# millions of bad lines, and nobody reads past the first screen.
LISTED_PER_CODE = 20
# Past this many malformed lines the file is not a run file at all; stop reading it.
MAX_MALFORMED_LINES = 50

# The format layer's number syntax (trec.columns): what strtod reads, no hex, no inf/nan, no "1_000".
_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(rb"[+-]?\d+")


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class Code(StrEnum):
    UNREADABLE = "unreadable"
    EMPTY = "empty"
    COLUMNS = "columns"
    GAVE_UP = "too-many-malformed-lines"
    ENCODING = "encoding"
    NUL = "nul-byte"
    TOO_LONG = "too-long"
    DUPLICATE_DOCNO = "duplicate-docno"
    TOO_MANY_DOCS = "too-many-docs"
    UNKNOWN_TOPIC = "unknown-topic"
    ZERO_PADDED_TOPIC = "zero-padded-topic"
    MISSING_TOPICS = "missing-topics"
    NON_NUMERIC_SCORE = "non-numeric-score"
    NAN_SCORE = "nan-score"
    INFINITE_SCORE = "infinite-score"
    TAG_MISMATCH = "tag-mismatch"
    TAG_TAKEN = "tag-taken"
    RANK_NOT_INTEGER = "rank-not-integer"
    RANK_CONTRADICTS_SCORE = "rank-contradicts-score"
    RANK_TIE_ORDER = "rank-tie-order"


# The rank column is never used (docs/formats.md#canonical-ranking-order), so its problems only
# warn; a missing topic may be
# deliberate. Everything else makes the stored run differ from what the participant meant.
WARNINGS = frozenset(
    {Code.MISSING_TOPICS, Code.RANK_NOT_INTEGER, Code.RANK_CONTRADICTS_SCORE, Code.RANK_TIE_ORDER}
)


@dataclass(frozen=True)
class Finding:
    code: Code
    line: int  # 1-based; 0 = the file as a whole
    message: str

    @property
    def severity(self) -> Severity:
        return Severity.WARNING if self.code in WARNINGS else Severity.ERROR


@dataclass
class RunReport:
    """Everything wrong with one run file. ``ok`` means no errors (warnings may remain)."""

    path: str
    tag: str = ""
    tag_line: int = 0  # where the tag is first read
    lines: int = 0  # result lines read, malformed ones included (not blank or comment lines)
    refused_lines: int = 0  # of those, the lines with an error (an error of the whole file counts none)
    topics: tuple[str, ...] = ()
    findings: list[Finding] = field(default_factory=list)
    listed: Counter[Code] = field(default_factory=Counter)
    unlisted: Counter[Code] = field(default_factory=Counter)
    # the line numbers with an error, complete where the findings list only LISTED_PER_CODE of a
    # code (a line may be here more than once); counted into refused_lines by check_run
    error_lines: list[np.ndarray] = field(default_factory=list, repr=False)

    def add(self, code: Code, line: int, message: str) -> None:
        if self.listed[code] < LISTED_PER_CODE:
            self.findings.append(Finding(code, line, message))
            self.listed[code] += 1
        else:
            self.unlisted[code] += 1

    def count(self, code: Code) -> int:
        """Occurrences of ``code``, listed or not."""
        return self.listed[code] + self.unlisted[code]

    def refuse(self, lines: np.ndarray | list[int]) -> None:
        """Count ``lines`` (line numbers) as refused, however many of their findings are listed."""
        self.error_lines.append(np.asarray(lines, dtype=np.int64))

    def count_refused(self) -> None:
        self.refused_lines = len(np.unique(np.concatenate(self.error_lines))) if self.error_lines else 0

    @property
    def accepted_lines(self) -> int:
        """The lines read that passed every check (a file with any error is still stored not at all)."""
        return self.lines - self.refused_lines

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.WARNING]

    @property
    def ok(self) -> bool:
        return not self.errors

    def counted(self, severity: Severity) -> int:
        """Findings of ``severity``, listed or not."""
        codes = self.listed + self.unlisted
        return sum(n for code, n in codes.items() if (code in WARNINGS) == (severity is Severity.WARNING))

    def shown_as(self, name: str) -> None:
        """Name the file ``name`` in the report (an upload's own name instead of its temporary path)."""
        old = self.path
        self.path = name
        self.findings = [Finding(f.code, f.line, f.message.replace(old, name)) for f in self.findings]

    def render(self, only: Severity | None = None) -> list[str]:
        """One line per finding, ``path:line: severity: message [code]``, errors first, then by line."""
        ordered = sorted(self.findings, key=lambda f: (f.severity is not Severity.ERROR, f.line))
        out = []
        for f in ordered:
            if only is None or f.severity is only:
                where = f"{self.path}:{f.line}" if f.line else self.path
                out.append(f"{where}: {f.severity}: {f.message} [{f.code}]")
        for code, n in sorted(self.unlisted.items()):
            severity = Severity.WARNING if code in WARNINGS else Severity.ERROR
            if only is None or severity is only:
                out.append(f"{self.path}: {severity}: ... and {n} more like the above [{code}]")
        return out


@dataclass(frozen=True)
class CheckedRun:
    """The report, and the run in canonical order when the report has no errors."""

    report: RunReport
    run: RankedRun | None


def _line_bounds(raw: bytes, index: int) -> tuple[int, int]:
    """Byte offsets of the start of line ``index`` (0-based) of ``raw`` and of the line after it."""
    start = 0
    for _ in range(index):
        start = raw.index(b"\n", start) + 1
    end = raw.find(b"\n", start)
    return start, (len(raw) if end < 0 else end + 1)


class _StopReading(Exception):
    """A file with too many malformed lines to be worth reading on."""


def _split_all(raw: bytes, first_line: int, path: str, report: RunReport) -> Iterator[Columns]:
    """``split_columns``, resuming after each line with the wrong column count (which is reported)."""
    while raw:
        try:
            yield split_columns(raw, first_line, path, RUN_COLUMNS)
            return
        except FormatError as exc:
            report.add(Code.COLUMNS, exc.line, exc.message)
            report.refuse([exc.line])
            report.lines += 1  # read, though it never becomes a row
            start, end = _line_bounds(raw, exc.line - first_line)
            if start:
                # everything before the bad line was tokenized fine by the failed call
                yield split_columns(raw[:start], first_line, path, RUN_COLUMNS)
            raw, first_line = raw[end:], exc.line + 1
            if report.count(Code.COLUMNS) >= MAX_MALFORMED_LINES:
                report.add(
                    Code.GAVE_UP,
                    first_line,
                    f"{MAX_MALFORMED_LINES} malformed lines: stopped reading here (is this a run file?)",
                )
                raise _StopReading from exc


def _check_encoding(raw: bytes, first_line: int, report: RunReport) -> None:
    if raw.isascii():
        return
    pos = 0
    while pos < len(raw):
        try:
            raw[pos:].decode("utf-8")
            return
        except UnicodeDecodeError as exc:
            bad = pos + exc.start
            line = first_line + raw.count(b"\n", 0, bad)
            report.add(Code.ENCODING, line, "not valid UTF-8 text")
            report.refuse([line])
            nl = raw.find(b"\n", bad)
            if nl < 0:
                return
            pos = nl + 1


def _scores(cols: Columns, report: RunReport) -> np.ndarray:
    """Scores as doubles, NaN where the token is not a finite number (each such line reported)."""
    try:
        return cols.floats(4, "a score")
    except FormatError:
        pass
    # Only a file with a bad score pays for this per-token pass.
    out = np.empty(len(cols), dtype=np.float64)
    for row in range(len(cols)):
        tok = cols.token(row, 4)
        line = int(cols.line_numbers[row])
        bare = tok.lower().lstrip(b"+-")
        value = float(tok) if _NUMBER.fullmatch(tok) else math.nan
        if bare == b"nan":
            report.add(Code.NAN_SCORE, line, f"score '{_printable(tok)}' is not a number (NaN)")
        elif bare in (b"inf", b"infinity") or (_NUMBER.fullmatch(tok) and not math.isfinite(value)):
            report.add(Code.INFINITE_SCORE, line, f"score '{_printable(tok)}' is infinite")
            value = math.nan
        elif not _NUMBER.fullmatch(tok):
            report.add(
                Code.NON_NUMERIC_SCORE, line, f"expected a score (a number), found '{_printable(tok)}'"
            )
        out[row] = value
    return out


def _ranks(cols: Columns, report: RunReport) -> np.ndarray:
    """The rank column as int64; -1 where it is not an integer (a warning: the column is ignored)."""
    try:
        return cols.integers(3, "a rank")
    except FormatError:
        pass
    out = np.full(len(cols), -1, dtype=np.int64)
    for row in range(len(cols)):
        tok = cols.token(row, 3)
        # the length first: Python refuses to convert integers of more than 4300 digits
        if len(tok) <= 20 and _INTEGER.fullmatch(tok) and abs(int(tok)) < 2**62:
            out[row] = int(tok)
        else:
            report.add(
                Code.RANK_NOT_INTEGER,
                int(cols.line_numbers[row]),
                f"rank '{_printable(tok)}' is not an integer (the rank column is ignored)",
            )
    return out


def _too_long(cols: Columns, col: int, what: str, limit: int, report: RunReport) -> list[int]:
    """Report the column's values over ``limit`` characters; the rows that hold one."""
    lengths = cols.ends[:, col] - cols.starts[:, col]
    found = []
    # byte length bounds the character length from above: decode only the candidates
    for row in np.flatnonzero(lengths > limit).tolist():
        tok = cols.token(row, col)
        if len(tok.decode("utf-8", errors="replace")) > limit:
            found.append(row)
            report.add(
                Code.TOO_LONG,
                int(cols.line_numbers[row]),
                f"{what} '{_printable(tok)}' is longer than {limit} characters",
            )
    return found


@dataclass
class _Columns:
    qids: list[np.ndarray] = field(default_factory=list)
    docnos: list[np.ndarray] = field(default_factory=list)
    tags: list[np.ndarray] = field(default_factory=list)
    ranks: list[np.ndarray] = field(default_factory=list)
    scores: list[np.ndarray] = field(default_factory=list)
    lines: list[np.ndarray] = field(default_factory=list)


def _without_rows(cols: Columns, rows: list[int]) -> Columns:
    """``cols`` without the rows ``rows`` (the tokens stay where they are in the block)."""
    keep = np.ones(len(cols), dtype=bool)
    keep[rows] = False
    return dataclasses.replace(
        cols, starts=cols.starts[keep], ends=cols.ends[keep], line_numbers=cols.line_numbers[keep]
    )


def _read(path: str, report: RunReport) -> _Columns | None:
    """The file's columns, every problem met on the way in ``report``; None when the file could
    not be read to its end (unreadable, or too many malformed lines: ``report`` still counts the
    lines read up to there)."""
    parts = _Columns()
    try:
        for raw, first_line in iter_blocks(path):
            nul = nul_lines(raw, first_line)
            for line in nul:
                report.add(Code.NUL, line, nul_message("a run file"))
            report.refuse(nul)
            _check_encoding(raw, first_line, report)
            for cols in _split_all(raw, first_line, path, report):
                if len(cols) == 0:
                    continue
                report.lines += len(cols)
                long_rows = sorted(
                    set(_too_long(cols, 0, "topic id", TOPIC_MAX_LENGTH, report))
                    | set(_too_long(cols, 2, "docno", DOCNO_MAX_LENGTH, report))
                    | set(_too_long(cols, 5, "tag", TAG_MAX_LENGTH, report))
                )
                if long_rows:
                    # refused already, and left out: the block's columns would be as wide as its
                    # longest token on every line (megabytes each); its other lines are checked
                    report.refuse(cols.line_numbers[long_rows])
                    cols = _without_rows(cols, long_rows)
                    if len(cols) == 0:
                        continue
                parts.qids.append(cols.strings(0))
                parts.docnos.append(cols.strings(2))
                parts.tags.append(cols.strings(5))
                parts.ranks.append(_ranks(cols, report))
                parts.scores.append(_scores(cols, report))
                parts.lines.append(cols.line_numbers)
    except _StopReading:
        report.count_refused()
        return None
    except FormatError as exc:
        report.add(Code.UNREADABLE, exc.line, exc.message)
        report.count_refused()
        return None
    return parts


def _check_tags(tags: np.ndarray, lines: np.ndarray, report: RunReport, taken: Mapping[str, str]) -> None:
    first = tags[0]
    report.tag = first.decode("utf-8", errors="replace")
    report.tag_line = int(lines[0])
    mismatched = np.flatnonzero(tags != first)
    report.refuse(lines[mismatched])
    for row in mismatched.tolist():
        report.add(
            Code.TAG_MISMATCH,
            int(lines[row]),
            f"tag '{_printable(tags[row])}' differs from the file's tag '{_printable(report.tag)}' "
            f"(line {int(lines[0])})",
        )
    if report.tag in taken:
        report.add(Code.TAG_TAKEN, report.tag_line, f"tag '{_printable(report.tag)}' {taken[report.tag]}")


def _same_number(a: str, b: str) -> bool:
    # compared as digits, not through int(): a 100,000-digit id is past what Python converts
    digits = a.isascii() and b.isascii() and a.isdigit() and b.isdigit()
    return digits and (a.lstrip("0") or "0") == (b.lstrip("0") or "0")


def _check_topics(
    names: list[str],
    codes: np.ndarray,
    lines: np.ndarray,
    known: Collection[str],
    report: RunReport,
) -> None:
    _, first_rows = np.unique(codes, return_index=True)
    counts = np.bincount(codes, minlength=len(names))
    known_set = set(known)
    unknown = [code for code, topic in enumerate(names) if topic not in known_set]
    report.refuse(lines[np.isin(codes, unknown)])
    for code in unknown:
        topic = names[code]
        line = int(lines[first_rows[code]])
        padded = [k for k in known_set if _same_number(topic, k)]
        if padded:
            report.add(
                Code.ZERO_PADDED_TOPIC,
                line,
                f"topic '{_printable(topic)}' is not a campaign topic but '{padded[0]}' is: topic ids are "
                f"strings, so '{_printable(topic)}' and '{padded[0]}' differ (fix the zero padding)",
            )
        else:
            report.add(
                Code.UNKNOWN_TOPIC,
                line,
                f"topic '{_printable(topic)}' is not one of the campaign's topics "
                f"({int(counts[code])} lines)",
            )
    missing = sorted(known_set - set(names))
    if missing:
        shown = ", ".join(missing[:10]) + (", ..." if len(missing) > 10 else "")
        report.add(
            Code.MISSING_TOPICS,
            0,
            f"no results for {len(missing)} of the campaign's {len(known_set)} topics: {shown}",
        )


def _check_depth(
    names: list[str], codes: np.ndarray, lines: np.ndarray, limit: int, report: RunReport
) -> None:
    counts = np.bincount(codes, minlength=len(names))
    over = np.flatnonzero(counts > limit).tolist()
    if over:
        # each row's place among its topic's rows, in file order: past the limit is refused
        order = np.argsort(codes, kind="stable")
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        place = np.empty(len(codes), dtype=np.int64)
        place[order] = np.arange(len(codes)) - starts[codes[order]]
        report.refuse(lines[place >= limit])
    for code in over:
        row = np.flatnonzero(codes == code)[limit]
        report.add(
            Code.TOO_MANY_DOCS,
            int(lines[row]),
            f"topic '{_printable(names[code])}' has {int(counts[code])} documents, more than the limit "
            f"of {limit} (document {limit + 1} is on this line)",
        )


def _check_duplicates(
    names: list[str], codes: np.ndarray, docnos: np.ndarray, lines: np.ndarray, report: RunReport
) -> None:
    # The hash test is cheap and almost always clean; only then pay for a full sort to list them all.
    if find_duplicate(codes, docnos) is None:
        return
    order = sort_by_topic_docno(codes, docnos)  # stable: equal rows stay in file order
    sc, sd = codes[order], docnos[order]
    same = np.r_[False, (sc[1:] == sc[:-1]) & (sd[1:] == sd[:-1])]
    head = np.maximum.accumulate(np.where(same, 0, np.arange(len(order))))
    report.refuse(lines[order[same]])
    for pos in np.flatnonzero(same).tolist():
        row, first = int(order[pos]), int(order[head[pos]])
        report.add(
            Code.DUPLICATE_DOCNO,
            int(lines[row]),
            f"docno '{_printable(docnos[row])}' is listed again in topic "
            f"'{_printable(names[int(codes[row])])}' (first on line {int(lines[first])}): "
            "a document may appear once per topic",
        )


def _check_ranks(
    codes: np.ndarray,
    docnos: np.ndarray,
    scores: np.ndarray,
    ranks: np.ndarray,
    lines: np.ndarray,
    report: RunReport,
) -> None:
    """Warn where the rank column disagrees with the scores, which are what the workbench ranks by."""
    valid_mask = ~np.isnan(scores) & (ranks >= 0)
    if int(valid_mask.sum()) < 2:
        return
    # Sorted by topic, score descending, then the participant's rank, a rank that goes down between
    # neighbours means a higher-scored document was given a larger rank. Most files are written in
    # that order already, which a linear check confirms without sorting.
    heads = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    same = codes[1:] == codes[:-1]
    in_order = (
        bool(valid_mask.all())
        and len(np.unique(codes[heads])) == len(heads)
        and bool(
            np.all(
                ~same | (scores[1:] < scores[:-1]) | ((scores[1:] == scores[:-1]) & (ranks[1:] >= ranks[:-1]))
            )
        )
    )
    if in_order:
        order = np.arange(len(codes))
    else:
        valid = np.flatnonzero(valid_mask)
        order = valid[np.lexsort((ranks[valid], -scores[valid], codes[valid]))]
    prev, cur = order[:-1], order[1:]
    same_topic = codes[prev] == codes[cur]
    inverted = same_topic & (ranks[cur] < ranks[prev])
    for p, c in zip(prev[inverted].tolist(), cur[inverted].tolist(), strict=True):
        report.add(
            Code.RANK_CONTRADICTS_SCORE,
            int(lines[c]),
            f"rank {int(ranks[c])} with score {float(scores[c])!r} is ahead of line {int(lines[p])}, "
            f"which has the higher score {float(scores[p])!r} but rank {int(ranks[p])}: "
            "the workbench ranks by score",
        )
    # Among equal scores the canonical order puts the larger docno first
    # (docs/formats.md#canonical-ranking-order).
    tie = (
        same_topic & (scores[cur] == scores[prev]) & (ranks[prev] < ranks[cur]) & (docnos[prev] < docnos[cur])
    )
    if tie.any():
        first = int(np.min(lines[cur[tie]]))
        report.add(
            Code.RANK_TIE_ORDER,
            first,
            f"{int(tie.sum())} pair(s) of documents with equal scores ranked in a different order from the "
            "canonical tie-break (docno descending), which is the order the workbench uses",
        )


def check_run(
    path: PathLike,
    *,
    topics: Collection[str] | None = None,
    max_docs: int | None = DEFAULT_MAX_DOCS,
    taken_tags: Mapping[str, str] | None = None,
    name: str | None = None,
) -> CheckedRun:
    """Read and check one run file.

    ``topics``: the campaign's topic ids (unknown, zero-padded and missing topics are checked
    only when given). ``max_docs``: documents allowed per topic (None: no limit).
    ``taken_tags``: tags that may not be used again, each with the phrase that says why
    (``{"bm25": "is already the tag of a run in this campaign"}``).
    """
    report = RunReport(str(path))
    parts = _read(str(path), report)
    if parts is None:
        return CheckedRun(report, None)
    lines = concat(parts.lines, np.int64)
    if not len(lines):
        if not report.findings:
            report.add(Code.EMPTY, 0, "the run has no result lines (expected 'qid Q0 docno rank score tag')")
        report.count_refused()
        return CheckedRun(report, None)
    qids, docnos = concat(parts.qids), concat(parts.docnos)
    scores, ranks = concat(parts.scores, np.float64), concat(parts.ranks, np.int64)
    report.refuse(lines[np.isnan(scores)])  # not a finite number, each reported by _scores
    names, codes = topic_codes(qids)
    report.topics = tuple(names)
    _check_tags(concat(parts.tags), lines, report, taken_tags or {})
    if topics is not None:
        _check_topics(names, codes, lines, topics, report)
    if max_docs is not None:
        _check_depth(names, codes, lines, max_docs, report)
    _check_duplicates(names, codes, docnos, lines, report)
    _check_ranks(codes, docnos, scores, ranks, lines, report)
    report.count_refused()
    if not report.ok:
        return CheckedRun(report, None)
    run = run_from_arrays(
        name or run_name_from_path(path), qids, docnos, scores, tag=report.tag, path=str(path), lines=lines
    )
    return CheckedRun(report, run)


def validate_run(
    path: PathLike,
    *,
    topics: Collection[str] | None = None,
    max_docs: int | None = DEFAULT_MAX_DOCS,
    taken_tags: Mapping[str, str] | None = None,
) -> RunReport:
    """The validation report of one run file (see :func:`check_run`)."""
    return check_run(path, topics=topics, max_docs=max_docs, taken_tags=taken_tags).report
