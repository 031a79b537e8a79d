"""Every file of tests/data/malformed/ is rejected with a FormatError naming the file, the line and the rule.

One file per failure kind; the table says which reader, which line (0 = the file as a whole) and the
phrases the message must contain. A file added to the folder without a row here fails the last test.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from trec import FormatError, read_mq_prel, read_prel, read_qrels, read_run, read_topics

MALFORMED = Path(__file__).resolve().parents[1] / "data" / "malformed"

RUN_COLS = "expected 6 columns (qid Q0 docno rank score tag)"
QRELS_COLS = "expected 4 columns (qid iter docno rel)"
PREL_COLS = "expected 5 columns (qid iter docno stratum rel)"
MQ_COLS = "expected 5 columns (qid docno rel method iprob)"
TSV_EXPECTED = "expected 'qid<TAB>title'"
TRUNCATED = "cannot read file: Compressed file ended before the end-of-stream marker"
IPROB_RANGE = "inclusion probability must be in (0, 1]"


def duplicate(docno: str, first_line: int) -> tuple[str, ...]:
    return (f"duplicate docno '{docno}' in topic '301'", f"first on line {first_line}")


# (file, reader, line, phrases the message must contain)
CASES: list[tuple[str, Callable[[Any], Any], int, tuple[str, ...]]] = [
    # runs; the files start with two valid lines, some after a comment line and a blank line
    ("run_too_few_columns.run", read_run, 5, (RUN_COLS, "found 5", "'301 Q0 d3 3 10.0'")),
    ("run_non_numeric_score.run", read_run, 3, ("expected a score (a number), found 'high'",)),
    ("run_nan_score.run", read_run, 3, ("score 'NaN' is not finite",)),
    ("run_inf_score.run", read_run, 3, ("score '-inf' is not finite",)),
    ("run_overflowing_score.run", read_run, 3, ("score '1e999' is not finite",)),
    # Python's float() accepts "1_0" (= 10.0); C's strtod, hence trec_eval, does not
    ("run_underscore_score.run", read_run, 3, ("expected a score (a number), found '1_0'",)),
    ("run_duplicate_docno.run", read_run, 6, duplicate("d1", 3)),
    ("run_empty.run", read_run, 0, ("no result lines", "'qid Q0 docno rank score tag'")),
    ("run_only_comments.run", read_run, 0, ("no result lines",)),
    ("run_truncated.run.gz", read_run, 0, (TRUNCATED,)),
    ("run_corrupt.run.gz", read_run, 0, ("cannot read file", "Error -3 while decompressing")),
    ("run_bad_crc.run.gz", read_run, 0, ("cannot read file", "CRC check failed")),
    # qrels
    ("qrels_too_few_columns.qrels", read_qrels, 5, (QRELS_COLS, "found 3", "'301 0 d3'")),
    ("qrels_too_many_columns.qrels", read_qrels, 3, (QRELS_COLS, "found 5")),
    ("qrels_fractional_rel.qrels", read_qrels, 3, ("expected a relevance grade (an integer), found '1.5'",)),
    ("qrels_text_rel.qrels", read_qrels, 3, ("expected a relevance grade (an integer), found 'x'",)),
    ("qrels_trailing_dot_rel.qrels", read_qrels, 3, ("expected a relevance grade (an integer), found '1.'",)),
    ("qrels_huge_rel.qrels", read_qrels, 3, ("relevance grade '99999999999999999999' is out of range",)),
    ("qrels_duplicate_docno.qrels", read_qrels, 4, duplicate("d2", 2)),
    ("qrels_empty.qrels", read_qrels, 0, ("no judgments", "'qid iter docno rel'")),
    ("qrels_only_comments.qrels", read_qrels, 0, ("no judgments",)),
    ("qrels_truncated.qrels.gz", read_qrels, 0, (TRUNCATED,)),
    # sample_eval prels
    ("prel_too_few_columns.prel", read_prel, 3, (PREL_COLS, "found 4")),
    ("prel_too_many_columns.prel", read_prel, 3, (PREL_COLS, "found 6")),
    ("prel_fractional_rel.prel", read_prel, 5, ("grade (-1 = not sampled) (an integer)", "found '0.5'")),
    ("prel_text_rel.prel", read_prel, 3, ("(an integer), found 'rel'",)),
    ("prel_duplicate_docno.prel", read_prel, 3, duplicate("d2", 2)),
    ("prel_empty.prel", read_prel, 0, ("empty", "'qid iter docno stratum rel'")),
    ("prel_only_comments.prel", read_prel, 0, ("empty",)),
    ("prel_truncated.prel.gz", read_prel, 0, (TRUNCATED,)),
    # Million Query prels
    ("mqprel_too_few_columns.prel", read_mq_prel, 3, (MQ_COLS, "found 4")),
    ("mqprel_too_many_columns.prel", read_mq_prel, 3, (MQ_COLS, "found 6")),
    ("mqprel_text_rel.prel", read_mq_prel, 3, ("expected a relevance grade (an integer), found 'yes'",)),
    ("mqprel_iprob_zero.prel", read_mq_prel, 3, (IPROB_RANGE, "found '0'")),
    ("mqprel_iprob_above_one.prel", read_mq_prel, 5, (IPROB_RANGE, "found '1.5'")),
    ("mqprel_iprob_text.prel", read_mq_prel, 3, ("an inclusion probability (a number)", "found 'half'")),
    ("mqprel_iprob_nan.prel", read_mq_prel, 3, ("inclusion probability 'nan' is not finite",)),
    ("mqprel_duplicate_docno.prel", read_mq_prel, 3, duplicate("d1", 1)),
    ("mqprel_empty.prel", read_mq_prel, 0, ("empty", "'qid docno rel method iprob'")),
    ("mqprel_only_comments.prel", read_mq_prel, 0, ("empty",)),
    ("mqprel_truncated.prel.gz", read_mq_prel, 0, (TRUNCATED,)),
    # topics: TREC <top> blocks
    ("topics_top_unclosed.trec", read_topics, 6, ("<top> block is never closed with </top>",)),
    ("topics_top_nested.trec", read_topics, 5, ("<top> inside another <top>", "missing </top>")),
    ("topics_close_without_open.trec", read_topics, 5, ("</top> without a matching <top>",)),
    ("topics_no_num.trec", read_topics, 6, ("topic has no <num>", "'<num> Number: 301'")),
    ("topics_no_title.trec", read_topics, 1, ("topic 301 has no <title>",)),
    ("topics_text_outside_field.trec", read_topics, 2, ("unexpected text outside a field: 'stray text'",)),
    ("topics_no_top_blocks.trec", read_topics, 1, ("<num> outside a <top> block",)),
    ("topics_duplicate_id.trec", read_topics, 5, ("topic '301' is defined twice", "first on line 1")),
    ("topics_not_utf8.trec", read_topics, 3, ("not valid UTF-8",)),
    # topics: TSV
    ("topics_tsv_missing_title.tsv", read_topics, 2, (TSV_EXPECTED,)),
    ("topics_tsv_no_tab.tsv", read_topics, 3, (TSV_EXPECTED,)),
    ("topics_tsv_duplicate_id.tsv", read_topics, 3, ("topic '301' is defined twice", "first on line 1")),
    ("topics_tsv_empty.tsv", read_topics, 0, ("no topics found",)),
    ("topics_tsv_only_comments.tsv", read_topics, 0, ("no topics found",)),
    ("topics_truncated.tsv.gz", read_topics, 0, (TRUNCATED,)),
    ("topics_corrupt.tsv.gz", read_topics, 0, ("cannot read file", "Error -3 while decompressing")),
    # topics: JSON lines
    ("topics_jsonl_not_json.jsonl", read_topics, 2, ("expected a JSON object", "delimiter")),
    ("topics_jsonl_not_object.jsonl", read_topics, 3, ("expected a JSON object with 'qid' and 'title'",)),
    ("topics_jsonl_no_title.jsonl", read_topics, 1, ("expected a JSON object with 'qid' and 'title'",)),
    # 301 and "301" are the same topic id once read
    ("topics_jsonl_duplicate_id.jsonl", read_topics, 2, ("topic '301' is defined twice", "first on line 1")),
]


@pytest.mark.parametrize(("name", "reader", "line", "phrases"), CASES, ids=[c[0] for c in CASES])
def test_malformed_file_raises_format_error_naming_file_line_and_rule(
    name: str, reader: Callable[[Any], Any], line: int, phrases: tuple[str, ...]
) -> None:
    path = MALFORMED / name
    with pytest.raises(FormatError) as info:
        reader(path)
    err = info.value
    assert type(err) is FormatError
    assert err.path == str(path)
    assert err.line == line
    prefix = f"{path}:{line}: " if line else f"{path}: "
    assert str(err).startswith(prefix)
    for phrase in phrases:
        assert phrase in err.message


# files of the corpus that are not errors: trec_eval ignores fields after a run's tag, and so do we
ACCEPTED = ("run_too_many_columns.run",)


def test_fields_after_the_run_tag_are_ignored_as_trec_eval_does() -> None:
    run = read_run(MALFORMED / "run_too_many_columns.run")
    assert run.ranking("301") == [("d1", 12.5), ("d2", 11.0), ("d3", 10.0)]
    assert run.runid == "bm25"


def test_malformed_corpus_and_table_list_the_same_files() -> None:
    on_disk = {p.name for p in MALFORMED.iterdir() if p.name != "README.md"}
    assert on_disk == {c[0] for c in CASES} | set(ACCEPTED)


def test_malformed_corpus_lines_are_the_files_real_lines() -> None:
    """The reported line of a plain-text case holds the offending text (guards the table's numbers)."""
    spot_checks = {
        "run_too_few_columns.run": "301 Q0 d3 3 10.0",
        "run_duplicate_docno.run": "301 Q0 d1 4 9.0 bm25",
        "qrels_too_few_columns.qrels": "301 0 d3",
        "prel_fractional_rel.prel": "301 0 d3 1 0.5",
        "mqprel_iprob_above_one.prel": "301 d3 1 sampled 1.5",
        "topics_top_unclosed.trec": "<top>",
        "topics_no_num.trec": "<top>",
        "topics_text_outside_field.trec": "stray text",
    }
    table = {c[0]: c[2] for c in CASES}
    for name, text in spot_checks.items():
        lines = (MALFORMED / name).read_text().split("\n")
        assert lines[table[name] - 1] == text, name
