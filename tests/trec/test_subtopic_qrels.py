"""Diversity (subtopic) qrels: ``topic subtopic docno rel``, a docno once per subtopic it was judged for.

The reader keeps every line's second column; a docno may repeat in a topic under different second
columns, never under the same one. The ordinary arrays keep one grade per (topic, docno), the last
line's, as ir_measures' dict-of-dict conversion (``result[qid][did] = rel``) keeps it.
"""

from __future__ import annotations

import numpy as np
import pytest

import trec.io
from tests.trec.conftest import WriteFile
from trec import FormatError, read_qrels, write_qrels
from trec.qrels import qrels_from_arrays

DIVERSITY = (
    "# topic subtopic docno rel\n"
    "1 2 b 1\n"
    "1 1 b 0\n"
    "1 1 a 2\n"
    "2 1 a 1\n"
    "1 3 b 1\n"  # b's last line in topic 1: its grade for ordinary measures is 1
    "2 10 c 0\n"
)


def _lines(qrels: object) -> list[tuple[str, str, str, int]]:
    """Every kept line as (topic, subtopic, docno, rel), in the qrels' order."""
    from trec.qrels import Qrels

    assert isinstance(qrels, Qrels) and qrels.subtopics is not None
    sub = qrels.subtopics
    row_topic = np.repeat(np.arange(len(qrels.topics)), np.diff(qrels.offsets))
    return [
        (qrels.topics[row_topic[r]], sub.names[c], qrels.docnos[r].decode(), rel)
        for r, c, rel in zip(sub.rows().tolist(), sub.codes.tolist(), sub.rels.tolist(), strict=True)
    ]


def test_repeated_docnos_keep_every_line_and_the_last_grade(write_file: WriteFile) -> None:
    qrels = read_qrels(write_file("d.qrels", DIVERSITY))
    assert qrels.as_dict() == {"1": {"a": 2, "b": 1}, "2": {"a": 1, "c": 0}}
    assert qrels.has_repeated_docnos
    assert _lines(qrels) == [
        ("1", "1", "a", 2),
        ("1", "2", "b", 1),  # a docno's lines stay in file order
        ("1", "1", "b", 0),
        ("1", "3", "b", 1),
        ("2", "1", "a", 1),
        ("2", "10", "c", 0),
    ]
    # subtopics are numbered by first appearance in the file, as pyndeval numbers them
    assert qrels.subtopics is not None and qrels.subtopics.names == ("2", "1", "3", "10")
    assert qrels.subtopics.row_offsets(len(qrels)).tolist() == [0, 1, 4, 5, 6]


def test_the_last_grade_is_ir_measures_choice(write_file: WriteFile) -> None:
    ir_measures = pytest.importorskip("ir_measures")
    path = write_file("d.qrels", DIVERSITY.partition("\n")[2])  # ir_measures reads no comment line
    theirs = ir_measures.util.QrelsConverter(list(ir_measures.read_trec_qrels(str(path)))).as_dict_of_dict()
    assert read_qrels(path).as_dict() == theirs


def test_same_docno_and_subtopic_twice_is_an_error_at_the_later_line(write_file: WriteFile) -> None:
    path = write_file("d.qrels", DIVERSITY + "2 1 c 1\n1 1 b 1\n")
    with pytest.raises(FormatError) as info:
        read_qrels(path)
    assert info.value.line == 9
    assert str(info.value) == (
        f"{path}:9: duplicate docno 'b' in topic '1' for subtopic '1' (first on line 3): "
        "a document may appear once per topic and subtopic (2nd column)"
    )


def test_the_first_repetition_in_file_order_is_reported(write_file: WriteFile) -> None:
    # z (topic 1) repeats on line 4, a (topic 1, earlier in sort order) only on line 5
    text = "1 0 z 1\n1 0 a 1\n1 1 a 0\n1 0 z 0\n1 0 a 1\n"
    with pytest.raises(FormatError) as info:
        read_qrels(write_file("d.qrels", text))
    assert (info.value.line, "docno 'z'" in info.value.message) == (4, True)


def test_ordinary_qrels_duplicate_keeps_its_old_message(write_file: WriteFile) -> None:
    path = write_file("q.qrels", "301 0 d1 1\n301 0 d2 0\n302 0 d1 1\n301 0 d2 1\n")
    with pytest.raises(FormatError) as info:
        read_qrels(path)
    assert str(info.value) == (
        f"{path}:4: duplicate docno 'd2' in topic '301' (first on line 2): "
        "a document may appear once per topic"
    )


def test_ordinary_qrels_arrays_are_unchanged_and_carry_their_second_column(write_file: WriteFile) -> None:
    text = "301 0 b 2\n301 Q0 a 0\n51 0 a 1\n301 0 c -1\n"
    qrels = read_qrels(write_file("q.qrels", text))
    plain = qrels_from_arrays(
        np.array([b"301", b"301", b"51", b"301"]),
        np.array([b"b", b"a", b"a", b"c"]),
        np.array([2, 0, 1, -1]),
    )
    assert (qrels.topics, qrels.offsets.tolist(), qrels.docnos.tolist(), qrels.rels.tolist()) == (
        plain.topics,
        plain.offsets.tolist(),
        plain.docnos.tolist(),
        plain.rels.tolist(),
    )
    assert plain.subtopics is None and not qrels.has_repeated_docnos
    sub = qrels.subtopics
    assert sub is not None and sub.line_rows is None and sub.rels is qrels.rels  # no copy per line
    assert [sub.names[c] for c in sub.codes.tolist()] == ["Q0", "0", "0", "0"]  # a, b, c of 301; a of 51


def test_small_blocks_keep_lines_and_report_repeats(
    write_file: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trec.io, "BLOCK_SIZE", 32)
    text = "".join(f"7 {s} d{i} {(i + s) % 3}\n" for i in range(30) for s in range(3))
    qrels = read_qrels(write_file("d.qrels", text))
    assert len(qrels) == 30 and qrels.subtopics is not None and len(qrels.subtopics) == 90
    assert qrels.as_dict()["7"]["d4"] == (4 + 2) % 3  # the last line, subtopic 2
    with pytest.raises(FormatError) as info:
        read_qrels(write_file("bad.qrels", text + "# again\n7 1 d17 2\n"))
    assert (info.value.line, "first on line 53" in info.value.message) == (92, True)


@pytest.mark.parametrize("suffix", [".qrels", ".qrels.gz"])
def test_write_qrels_round_trips_subtopic_lines(write_file: WriteFile, tmp_path, suffix: str) -> None:
    qrels = read_qrels(write_file("d.qrels", DIVERSITY))
    out = tmp_path / f"out{suffix}"
    write_qrels(qrels, out)
    again = read_qrels(out)
    assert again.as_dict() == qrels.as_dict()
    assert sorted(_lines(again)) == sorted(_lines(qrels))


def test_arrays_with_iters_accept_repeats_without_line_numbers() -> None:
    qrels = qrels_from_arrays(
        np.array([b"1", b"1", b"1"]),
        np.array([b"a", b"a", b"a"]),
        np.array([1, 0, 2]),
        iters=np.array([b"x", b"y", b"z"]),
    )
    assert qrels.as_dict() == {"1": {"a": 2}}
    with pytest.raises(FormatError) as info:
        qrels_from_arrays(
            np.array([b"1", b"1"]), np.array([b"a", b"a"]), np.array([1, 0]), iters=np.array([b"x", b"x"])
        )
    assert str(info.value) == "qrels: duplicate docno 'a' in topic '1': a document may appear once per topic"


def test_keep_rows_and_only_topic_carry_the_subtopic_lines(write_file: WriteFile) -> None:
    qrels = read_qrels(write_file("d.qrels", DIVERSITY))
    kept = qrels.keep_rows(np.array([False, True, True, False]))  # rows: 1/a, 1/b, 2/a, 2/c
    assert kept.topics == ("1", "2") and kept.as_dict() == {"1": {"b": 1}, "2": {"a": 1}}
    assert _lines(kept) == [("1", "2", "b", 1), ("1", "1", "b", 0), ("1", "3", "b", 1), ("2", "1", "a", 1)]
    one = qrels.only_topic(1)
    assert one.topics == ("2",) and _lines(one) == [("2", "1", "a", 1), ("2", "10", "c", 0)]
    plain = read_qrels(write_file("q.qrels", "1 0 a 1\n1 Q0 b 0\n2 0 c 2\n"))
    assert _lines(plain.keep_rows(np.array([False, True, True]))) == [("1", "Q0", "b", 0), ("2", "0", "c", 2)]
    assert _lines(plain.only_topic(0)) == [("1", "0", "a", 1), ("1", "Q0", "b", 0)]
