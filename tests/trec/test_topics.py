"""Topics in the three formats: TREC ``<top>`` blocks, TSV and JSON lines."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.trec.conftest import WriteFile
from trec import FormatError, Topic, read_topics

# the TREC ad hoc layout: fields open with a tag and run to the next tag, labels inside the text
TREC = """<top>

<num> Number: 051
<title> Topic: Airbus   Subsidies

<desc> Description:
Document will discuss government assistance
to Airbus Industrie.

<narr> Narrative:
To be relevant, a document must cite
a specific subsidy.

</top>

<TOP>
<NUM> 51 </NUM>
<TITLE>caf\u00e9 prices</TITLE>
<DESC>Description: price of coffee</DESC>
</TOP>
"""

EXPECTED = [
    Topic(
        "051",
        "Airbus Subsidies",
        "Document will discuss government assistance to Airbus Industrie.",
        "To be relevant, a document must cite a specific subsidy.",
    ),
    Topic("51", "caf\u00e9 prices", "price of coffee", ""),
]


@pytest.mark.parametrize("name", ["t.trec", "t.trec.gz"])
def test_trec_topics_with_all_fields(write_file: WriteFile, name: str) -> None:
    assert read_topics(write_file(name, TREC)) == EXPECTED


def test_trec_topics_with_crlf_line_endings(write_file: WriteFile) -> None:
    assert read_topics(write_file("t.trec", TREC.replace("\n", "\r\n"))) == EXPECTED


def test_tsv_topics_with_one_to_three_text_columns(write_file: WriteFile) -> None:
    text = "# qid title description narrative\n051\tAirbus  subsidies\r\n51\tcafé\tprice of coffee\n\n"
    text += "7\tt\td\tn"  # no trailing newline
    assert read_topics(write_file("t.tsv", text)) == [
        Topic("051", "Airbus subsidies"),
        Topic("51", "café", "price of coffee"),
        Topic("7", "t", "d", "n"),
    ]


def test_jsonl_topics_accept_the_common_key_names(write_file: WriteFile) -> None:
    rows = [
        {"qid": "051", "title": "a", "description": "b", "narrative": "c"},
        {"query_id": 51, "query": "x  y"},
        {"id": "q3", "text": "t", "desc": "d", "narr": "n"},
    ]
    text = "\n".join(json.dumps(r) for r in rows) + "\n\n"
    assert read_topics(write_file("t.jsonl", text)) == [
        Topic("051", "a", "b", "c"),
        Topic("51", "x y"),
        Topic("q3", "t", "d", "n"),
    ]


def test_jsonl_comment_lines_are_skipped(write_file: WriteFile) -> None:
    text = '# exported topics\n{"qid": "1", "title": "a"}\n'
    assert read_topics(write_file("t.jsonl", text), fmt="jsonl") == [Topic("1", "a")]


def test_line_separators_inside_a_title_do_not_split_the_line(write_file: WriteFile) -> None:
    # str.splitlines() breaks at U+2028, U+0085 and \x1c; json.dumps(ensure_ascii=False) writes U+2028 raw
    jsonl = json.dumps({"qid": "1", "title": "a\u2028b"}, ensure_ascii=False) + '\n{"qid": "2", "title": "c"}'
    assert read_topics(write_file("t.jsonl", jsonl)) == [Topic("1", "a b"), Topic("2", "c")]
    tsv = "1\ta\u0085b\n2\tc\x1cd\n3\te\n"
    assert [t.number for t in read_topics(write_file("t.tsv", tsv))] == ["1", "2", "3"]


def test_jsonl_error_line_counts_lines_with_unicode_separators(write_file: WriteFile) -> None:
    text = json.dumps({"qid": "1", "title": "a\u2028b"}, ensure_ascii=False) + "\nnot json\n"
    with pytest.raises(FormatError) as info:
        read_topics(write_file("t.jsonl", text))
    assert info.value.line == 2


def test_051_and_51_are_different_topics(write_file: WriteFile) -> None:
    assert [t.number for t in read_topics(write_file("t.tsv", "051\ta\n51\tb\n"))] == ["051", "51"]


def test_format_can_be_declared(write_file: WriteFile) -> None:
    # declared TSV: a title that starts with "<" is not taken for a TREC file
    path = write_file("t.txt", "<b>\tbold\n")
    assert read_topics(path, fmt="tsv") == [Topic("<b>", "bold")]


def test_unknown_format_is_a_value_error(write_file: WriteFile) -> None:
    with pytest.raises(ValueError, match="unknown topics format 'xml'"):
        read_topics(write_file("t.tsv", "1\ta\n"), fmt="xml")


def test_trec_error_lines_stay_exact_deep_into_a_large_file(write_file: WriteFile) -> None:
    # 20000 topics, then a stray </top>; counting lines from the start at every tag took minutes
    block = "<top>\n<num> Number: {0}\n<title> t{0}\n<desc> Description:\nd{0}\n<narr>\nn{0}\n</top>\n"
    text = "".join(block.format(i) for i in range(20000)) + "\n</top>\n"
    path = write_file("big.trec", text)
    started = time.perf_counter()
    with pytest.raises(FormatError) as info:
        read_topics(path)
    assert time.perf_counter() - started < 10
    assert info.value.line == 20000 * 8 + 2


@pytest.mark.parametrize("fmt", ["trec", "tsv", "jsonl"])
def test_write_topics_round_trips_in_every_format(tmp_path: Path, fmt: str) -> None:
    from trec import Topic, read_topics, write_topics

    topics = [
        Topic(
            "301",
            "international organized crime",
            "Identify organizations.",
            "A relevant document names one.",
        ),
        Topic("051", "airbus subsidies", "Subsidies to Airbus.", ""),
        Topic("q-7", "naïve bayes ≠ logistic", "", ""),
    ]
    path = tmp_path / f"topics.{fmt}"
    write_topics(topics, path, fmt=fmt)
    assert read_topics(path, fmt=fmt) == topics


def test_each_topic_knows_the_line_it_starts_on(write_file: WriteFile) -> None:
    assert [t.line for t in read_topics(write_file("t.trec", TREC))] == [1, 16]
    tsv = "# header\n051\tone\n\n51\ttwo\n"
    assert [t.line for t in read_topics(write_file("t.tsv", tsv))] == [2, 4]
    jsonl = '{"qid": "1", "title": "a"}\n\n{"qid": "2", "title": "b"}\n'
    assert [t.line for t in read_topics(write_file("t.jsonl", jsonl))] == [1, 3]
