"""The run validation report (``campaigns.validation``): every finding, with its line. No database."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import trec.io
from campaigns.validation import (
    DOCNO_MAX_LENGTH,
    LISTED_PER_CODE,
    MAX_MALFORMED_LINES,
    Code,
    RunReport,
    Severity,
    check_run,
    validate_run,
)
from trec import FormatError, read_run

WriteRun = Callable[[str | bytes], Path]


@pytest.fixture
def write_run(tmp_path: Path) -> WriteRun:
    def write(content: str | bytes) -> Path:
        path = tmp_path / "sub.run"
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return path

    return write


def found(report: RunReport, code: Code) -> list[int]:
    """Line numbers of the listed findings of ``code``."""
    return [f.line for f in report.findings if f.code == code]


CLEAN = """\
51 Q0 d1 1 3.0 bm25
51 Q0 d2 2 2.0 bm25
52 Q0 d1 1 1.5 bm25
"""


def test_clean_run_has_no_findings_and_comes_back_in_canonical_order(write_run: WriteRun) -> None:
    checked = check_run(write_run(CLEAN), topics=["51", "52"])
    assert checked.report.findings == []
    assert checked.report.ok
    assert (checked.report.tag, checked.report.lines, checked.report.topics) == ("bm25", 3, ("51", "52"))
    assert checked.run is not None
    assert checked.run.ranking("51") == [("d1", 3.0), ("d2", 2.0)]


def test_wrong_column_counts_are_all_reported_and_the_other_lines_still_checked(write_run: WriteRun) -> None:
    text = (
        "51 Q0 d1 1 3.0 bm25\n"
        "51 Q0 d2 2 2.0\n"  # line 2: five columns
        "51 Q0 d3 3 1.0 bm25\n"
        "51 Q0 d4 4 0.5 bm25 extra\n"  # line 4: seven columns
        "51 Q0 d5 5 nan bm25\n"  # line 5: still checked after the bad lines
    )
    report = validate_run(write_run(text))
    assert found(report, Code.COLUMNS) == [2, 4]
    assert found(report, Code.NAN_SCORE) == [5]
    assert "expected 6 columns" in report.findings[0].message


def test_every_duplicate_names_its_first_line(write_run: WriteRun) -> None:
    text = (
        "51 Q0 d1 1 3.0 t\n"
        "51 Q0 d2 2 2.0 t\n"
        "52 Q0 d1 1 2.0 t\n"  # same docno, other topic: fine
        "51 Q0 d1 3 1.0 t\n"  # line 4: again d1 in 51
        "51 Q0 d1 4 0.5 t\n"  # line 5: and again
    )
    report = validate_run(write_run(text))
    duplicates = [f for f in report.findings if f.code is Code.DUPLICATE_DOCNO]
    assert [f.line for f in duplicates] == [4, 5]
    assert all(
        "'d1'" in f.message and "topic '51'" in f.message and "line 1" in f.message for f in duplicates
    )
    assert not report.ok


def test_more_documents_than_the_limit_points_at_the_first_one_too_many(write_run: WriteRun) -> None:
    text = "".join(f"51 Q0 d{i} {i} {10 - i}.0 t\n" for i in range(1, 4)) + "52 Q0 d1 1 1.0 t\n"
    report = validate_run(write_run(text), max_docs=2)
    assert found(report, Code.TOO_MANY_DOCS) == [3]  # the third document of topic 51
    assert "has 3 documents, more than the limit of 2" in report.findings[0].message
    assert validate_run(write_run(text), max_docs=None).ok


def test_unknown_zero_padded_and_missing_topics(write_run: WriteRun) -> None:
    text = (
        "51 Q0 d1 1 3.0 t\n"
        "051 Q0 d1 1 3.0 t\n"  # line 2: the topics say "51"
        "99 Q0 d1 1 3.0 t\n"  # line 3: not a campaign topic at all
        "99 Q0 d2 2 2.0 t\n"
    )
    report = validate_run(write_run(text), topics=["51", "52", "53"])
    padded = [f for f in report.findings if f.code is Code.ZERO_PADDED_TOPIC]
    assert [f.line for f in padded] == [2]
    assert "'051'" in padded[0].message and "'51' is" in padded[0].message
    unknown = [f for f in report.findings if f.code is Code.UNKNOWN_TOPIC]
    assert [(f.line, "(2 lines)" in f.message) for f in unknown] == [(3, True)]
    missing = [f for f in report.findings if f.code is Code.MISSING_TOPICS]
    assert [f.line for f in missing] == [0]
    assert "2 of the campaign's 3 topics: 52, 53" in missing[0].message
    assert missing[0].severity is Severity.WARNING


def test_zero_padding_is_caught_both_ways(write_run: WriteRun) -> None:
    report = validate_run(write_run("51 Q0 d1 1 3.0 t\n"), topics=["051"])
    assert found(report, Code.ZERO_PADDED_TOPIC) == [1]


def test_topics_are_not_checked_without_a_topic_list(write_run: WriteRun) -> None:
    assert validate_run(write_run("anything Q0 d1 1 3.0 t\n")).ok


@pytest.mark.parametrize(
    ("score", "code"),
    [
        ("abc", Code.NON_NUMERIC_SCORE),
        ("0x1p3", Code.NON_NUMERIC_SCORE),  # strtod reads hex; the format does not
        ("1_000", Code.NON_NUMERIC_SCORE),  # Python's float() reads it; the format does not
        ("nan", Code.NAN_SCORE),
        ("-NaN", Code.NAN_SCORE),
        ("inf", Code.INFINITE_SCORE),
        ("-Infinity", Code.INFINITE_SCORE),
        ("1e999", Code.INFINITE_SCORE),  # a number, but it overflows a double
    ],
)
def test_bad_scores_are_errors_on_their_line(write_run: WriteRun, score: str, code: Code) -> None:
    text = f"51 Q0 d1 1 3.0 t\n51 Q0 d2 2 {score} t\n51 Q0 d3 3 1.0 t\n"
    path = write_run(text)
    report = validate_run(path)
    assert [(f.code, f.line) for f in report.findings] == [(code, 2)]
    assert report.findings[0].severity is Severity.ERROR
    # the strict reader of the evaluation engine rejects the very same line
    with pytest.raises(FormatError) as exc:
        read_run(path)
    assert exc.value.line == 2


def test_every_bad_score_of_a_file_is_reported(write_run: WriteRun) -> None:
    text = "".join(f"51 Q0 d{i} {i} {'nan' if i % 2 else '1.5'} t\n" for i in range(1, 11))
    report = validate_run(write_run(text))
    assert found(report, Code.NAN_SCORE) == [1, 3, 5, 7, 9]


def test_a_second_tag_in_the_file_is_an_error_on_each_of_its_lines(write_run: WriteRun) -> None:
    text = "51 Q0 d1 1 3.0 runA\n51 Q0 d2 2 2.0 runB\n51 Q0 d3 3 1.0 runA\n51 Q0 d4 4 0.5 runB\n"
    report = validate_run(write_run(text))
    assert report.tag == "runA"
    assert found(report, Code.TAG_MISMATCH) == [2, 4]
    assert "tag 'runB' differs from the file's tag 'runA' (line 1)" in report.findings[0].message


def test_a_taken_tag_is_an_error_saying_why(write_run: WriteRun) -> None:
    report = validate_run(
        write_run(CLEAN), taken_tags={"bm25": "is already the tag of a run in campaign 'x'"}
    )
    assert [(f.code, f.line) for f in report.findings] == [(Code.TAG_TAKEN, 1)]
    assert report.findings[0].message == "tag 'bm25' is already the tag of a run in campaign 'x'"


def test_a_rank_column_contradicting_the_scores_is_a_warning(write_run: WriteRun) -> None:
    # d1 is said to be rank 1 but scores lower than d2 at rank 2
    text = "51 Q0 d1 1 1.0 t\n51 Q0 d2 2 3.0 t\n51 Q0 d3 3 0.5 t\n"
    checked = check_run(write_run(text))
    [finding] = checked.report.findings
    assert (finding.code, finding.line, finding.severity) == (
        Code.RANK_CONTRADICTS_SCORE,
        1,
        Severity.WARNING,
    )
    assert (
        "rank 1 with score 1.0 is ahead of line 2, which has the higher score 3.0 but rank 2"
        in finding.message
    )
    assert checked.report.ok and checked.run is not None
    assert [d for d, _ in checked.run.ranking("51")] == ["d2", "d1", "d3"]  # by score, as evaluation ranks


def test_contradictions_are_found_in_files_not_written_in_score_order(write_run: WriteRun) -> None:
    # topics interleaved and lines shuffled: the linear fast path cannot apply
    text = "52 Q0 x 1 5.0 t\n51 Q0 d3 3 0.5 t\n51 Q0 d1 2 3.0 t\n52 Q0 y 2 4.0 t\n51 Q0 d2 1 1.0 t\n"
    report = validate_run(write_run(text))
    # topic 51 by score: d1 (3.0, rank 2), d2 (1.0, rank 1), d3 (0.5, rank 3): d2 on line 5 contradicts
    assert found(report, Code.RANK_CONTRADICTS_SCORE) == [5]


def test_ties_ranked_against_the_canonical_tie_break_are_a_warning(write_run: WriteRun) -> None:
    # equal scores: the canonical order puts docno 'b' before 'a'; the file ranks 'a' first
    text = "51 Q0 a 1 2.0 t\n51 Q0 b 2 2.0 t\n51 Q0 c 3 1.0 t\n"
    report = validate_run(write_run(text))
    assert [(f.code, f.line) for f in report.findings] == [(Code.RANK_TIE_ORDER, 2)]
    assert report.ok
    in_canonical_order = "51 Q0 b 1 2.0 t\n51 Q0 a 2 2.0 t\n51 Q0 c 3 1.0 t\n"
    assert validate_run(write_run(in_canonical_order)).findings == []


def test_a_rank_that_is_not_an_integer_is_a_warning(write_run: WriteRun) -> None:
    report = validate_run(write_run("51 Q0 d1 first 3.0 t\n51 Q0 d2 2 2.0 t\n"))
    assert [(f.code, f.line, f.severity) for f in report.findings] == [
        (Code.RANK_NOT_INTEGER, 1, Severity.WARNING)
    ]


def test_invalid_utf8_is_an_error_on_its_line(write_run: WriteRun) -> None:
    report = validate_run(write_run(b"51 Q0 d1 1 3.0 t\n51 Q0 d\xff2 2 2.0 t\n51 Q0 d\xe93 3 1.0 t\n"))
    assert found(report, Code.ENCODING) == [2, 3]


def test_utf8_docnos_are_fine(write_run: WriteRun) -> None:
    assert validate_run(write_run("51 Q0 dé1 1 3.0 t\n51 Q0 文書 2 2.0 t\n")).ok


def test_values_too_long_for_the_database_are_errors(write_run: WriteRun) -> None:
    long_docno = "d" * (DOCNO_MAX_LENGTH + 1)
    fits = "é" * DOCNO_MAX_LENGTH  # 200 characters in 400 bytes: the limit counts characters
    text = f"51 Q0 {long_docno} 1 3.0 t\n51 Q0 {fits} 2 2.0 t\n"
    report = validate_run(write_run(text))
    assert [(f.code, f.line) for f in report.findings] == [(Code.TOO_LONG, 1)]


@pytest.mark.parametrize("content", ["", "\n\n", "# only a comment\n"])
def test_a_file_without_result_lines_is_an_error(write_run: WriteRun, content: str) -> None:
    report = validate_run(write_run(content))
    assert [(f.code, f.line) for f in report.findings] == [(Code.EMPTY, 0)]


def test_a_missing_file_is_an_error(tmp_path: Path) -> None:
    report = validate_run(tmp_path / "absent.run")
    assert [f.code for f in report.findings] == [Code.UNREADABLE]
    assert "cannot open file" in report.findings[0].message


def test_a_report_lists_a_few_of_each_problem_and_counts_the_rest(write_run: WriteRun) -> None:
    n = LISTED_PER_CODE + 10
    text = "".join(f"51 Q0 d{i} {i} nan t\n" for i in range(1, n + 1))
    report = validate_run(write_run(text))
    assert found(report, Code.NAN_SCORE) == list(range(1, LISTED_PER_CODE + 1))
    assert report.count(Code.NAN_SCORE) == n
    assert report.render()[-1].endswith(f"... and 10 more like the above [{Code.NAN_SCORE}]")


def test_a_file_that_is_not_a_run_stops_being_read(write_run: WriteRun) -> None:
    text = "".join(f"word{i}\n" for i in range(MAX_MALFORMED_LINES * 3))
    report = validate_run(write_run(text))
    assert report.count(Code.COLUMNS) == MAX_MALFORMED_LINES
    assert [(f.code, f.line) for f in report.findings if f.code is Code.GAVE_UP] == [
        (Code.GAVE_UP, MAX_MALFORMED_LINES + 1)
    ]


def test_line_numbers_hold_across_read_blocks(write_run: WriteRun, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trec.io, "BLOCK_SIZE", 64)  # a few lines per block
    lines = [f"51 Q0 d{i} {i} {100 - i}.0 t" for i in range(1, 41)]
    lines[9] = "51 Q0 d10 10 nan t"
    lines[24] = "51 Q0 d25 25"
    lines[33] = "51 Q0 d1 34 66.0 t"  # duplicate of line 1
    report = validate_run(write_run("\n".join(lines) + "\n"))
    assert [(f.code, f.line) for f in report.findings] == [
        (Code.NAN_SCORE, 10),
        (Code.COLUMNS, 25),
        (Code.DUPLICATE_DOCNO, 34),
    ]


def test_one_report_gathers_every_kind_of_problem(write_run: WriteRun) -> None:
    text = (
        "51 Q0 d1 1 3.0 runA\n"
        "51 Q0 d1 2 2.0 runA\n"  # 2 duplicate
        "51 Q0 d3 3 abc runA\n"  # 3 non-numeric score
        "051 Q0 d1 1 1.0 runA\n"  # 4 zero-padded topic
        "51 Q0 d4 4 inf runA\n"  # 5 infinite score
        "51 Q0 d5 5 0.5 runB\n"  # 6 tag mismatch
        "51 Q0 d6\n"  # 7 columns
        "51 Q0 d7 6 0.25 runA\n"  # 8: topic 51's 6th document, the limit
        "51 Q0 d8 7 0.125 runA\n"  # 9: its 7th, one too many
    )
    report = validate_run(write_run(text), topics=["51", "52"], max_docs=6)
    assert sorted((f.line, f.code) for f in report.errors) == [
        (2, Code.DUPLICATE_DOCNO),
        (3, Code.NON_NUMERIC_SCORE),
        (4, Code.ZERO_PADDED_TOPIC),
        (5, Code.INFINITE_SCORE),
        (6, Code.TAG_MISMATCH),
        (7, Code.COLUMNS),
        (9, Code.TOO_MANY_DOCS),
    ]
    assert [(f.line, f.code) for f in report.warnings] == [(0, Code.MISSING_TOPICS)]
    rendered = report.render()
    assert rendered[0].startswith(f"{report.path}:2: error: ")
    assert rendered[-1].startswith(f"{report.path}: warning: no results for 1 of the campaign's 2 topics")


def test_the_checked_run_equals_what_the_evaluation_reader_reads(write_run: WriteRun) -> None:
    rng = np.random.default_rng(3)
    lines = [
        f"{t} Q0 doc{d} {r} {s!r} tag"
        for t in ("401", "402")
        for r, (d, s) in enumerate(
            zip(rng.permutation(50), np.round(rng.random(50), 2).tolist(), strict=True), 1
        )
    ]
    path = write_run("\n".join(lines) + "\n")
    checked = check_run(path)
    assert checked.run is not None
    expected = read_run(path)
    assert checked.run.topics == expected.topics
    assert np.array_equal(checked.run.offsets, expected.offsets)
    assert np.array_equal(checked.run.docnos, expected.docnos)
    assert np.array_equal(checked.run.scores, expected.scores)


# ------------------------------------------------------------------ lines read, refused, accepted


def counts(report: RunReport) -> tuple[int, int, int]:
    return report.lines, report.refused_lines, report.accepted_lines


def test_a_clean_run_accepts_every_line_it_reads(write_run: WriteRun) -> None:
    report = validate_run(write_run("# a comment\n\n" + CLEAN), topics=["51", "52"])
    assert counts(report) == (3, 0, 3)  # blank and comment lines are not result lines


def test_lines_read_count_the_malformed_ones_and_each_refused_line_once(write_run: WriteRun) -> None:
    text = (
        "51 Q0 d1 1 3.0 bm25\n"  # 1 fine
        "51 Q0 d2 2 2.0\n"  # 2 five columns
        "51 Q0 d1 3 1.0 bm25\n"  # 3 duplicate of line 1
        "99 Q0 d3 1 1.0 bm25\n"  # 4 unknown topic
        "99 Q0 d4 2 x bm25\n"  # 5 unknown topic and a bad score: one refused line
        "52 Q0 d1 1 1.5 other\n"  # 6 another tag
        "52 Q0 d5 2 1.0 bm25\n"  # 7 fine
    )
    report = validate_run(write_run(text), topics=["51", "52"])
    assert counts(report) == (7, 5, 2)  # 7 read (the five-column line too), lines 2-6 refused


def test_every_line_past_the_depth_limit_is_refused(write_run: WriteRun) -> None:
    text = "".join(f"51 Q0 d{i} {i} {10 - i}.0 t\n" for i in range(1, 6)) + "52 Q0 d1 1 1.0 t\n"
    report = validate_run(write_run(text), max_docs=2)
    assert found(report, Code.TOO_MANY_DOCS) == [3]  # one finding for the topic...
    assert counts(report) == (6, 3, 3)  # ...whose 3rd, 4th and 5th documents are refused


def test_every_line_of_an_unknown_topic_is_refused(write_run: WriteRun) -> None:
    text = "51 Q0 d1 1 3.0 t\n" + "".join(f"99 Q0 d{i} {i} {10 - i}.0 t\n" for i in range(1, 5))
    report = validate_run(write_run(text), topics=["51"])
    assert counts(report) == (5, 4, 1)


def test_counts_hold_past_the_listed_findings(write_run: WriteRun) -> None:
    n = LISTED_PER_CODE + 10
    text = "".join(f"51 Q0 d{i} {i} nan t\n" for i in range(1, n + 1)) + "51 Q0 dx 1 1.0 t\n"
    report = validate_run(write_run(text))
    assert len(found(report, Code.NAN_SCORE)) == LISTED_PER_CODE
    assert counts(report) == (n + 1, n, 1)


def test_a_line_too_long_is_refused_and_the_rest_of_its_block_still_checked(write_run: WriteRun) -> None:
    long_docno = "d" * (DOCNO_MAX_LENGTH + 1)
    text = f"51 Q0 {long_docno} 1 3.0 t\n51 Q0 d2 2 2.0 t\n51 Q0 d2 3 1.0 t\n"
    report = validate_run(write_run(text))
    # the duplicate on line 3 is found although its block holds the long docno
    assert sorted((f.line, f.code) for f in report.errors) == [(1, Code.TOO_LONG), (3, Code.DUPLICATE_DOCNO)]
    assert counts(report) == (3, 2, 1)


def test_encoding_and_nul_lines_are_refused(write_run: WriteRun) -> None:
    report = validate_run(write_run(b"51 Q0 d1 1 3.0 t\n51 Q0 d\xff2 2 2.0 t\n51 Q0 d\x003 3 1.0 t\n"))
    assert counts(report) == (3, 2, 1)


def test_a_file_that_stops_being_read_counts_what_was_read(write_run: WriteRun) -> None:
    text = "51 Q0 d1 1 3.0 t\n51 Q0 d2 2 2.0 t\n" + "".join(
        f"word{i}\n" for i in range(MAX_MALFORMED_LINES * 3)
    )
    report = validate_run(write_run(text))
    assert counts(report) == (2 + MAX_MALFORMED_LINES, MAX_MALFORMED_LINES, 2)


def test_a_file_level_error_refuses_no_line_of_its_own(write_run: WriteRun) -> None:
    report = validate_run(write_run(CLEAN), taken_tags={"bm25": "is already the tag of a run here"})
    assert not report.ok and counts(report) == (3, 0, 3)
