"""Reading and writing qrels (``qid iter docno rel``)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.trec.conftest import WriteFile
from trec import read_qrels, write_qrels
from trec.qrels import qrels_from_dict

QRELS = "# grades 0-2, -1 = pooled but unjudged\n301 0 b 2\r\n301\t0\ta 0\n\n051 0 a -1\n51 0 a 1\n301 0 c 1"


def test_read_qrels_groups_by_topic_and_sorts_docnos(write_file: WriteFile) -> None:
    qrels = read_qrels(write_file("q.qrels", QRELS))
    assert qrels.topics == ("051", "301", "51")
    assert qrels.as_dict() == {"051": {"a": -1}, "301": {"a": 0, "b": 2, "c": 1}, "51": {"a": 1}}
    assert qrels.offsets.tolist() == [0, 1, 4, 5]


def test_gzip_qrels_read_like_plain(write_file: WriteFile) -> None:
    plain = read_qrels(write_file("q.qrels", QRELS))
    assert read_qrels(write_file("q.qrels.gz", QRELS)).as_dict() == plain.as_dict()


def test_lookup_returns_missing_for_unpooled_docs(write_file: WriteFile) -> None:
    qrels = read_qrels(write_file("q.qrels", QRELS))
    i = qrels.topic_index()["301"]
    got = qrels.lookup(i, np.array([b"c", b"zz", b"a", b"", b"b"]), missing=-99)
    assert got.tolist() == [1, -99, 0, -99, 2]


@pytest.mark.parametrize("suffix", [".qrels", ".qrels.gz"])
def test_write_qrels_round_trips(write_file: WriteFile, tmp_path, suffix: str) -> None:
    qrels = read_qrels(write_file("q.qrels", QRELS))
    out = tmp_path / f"out{suffix}"
    write_qrels(qrels, out)
    assert read_qrels(out).as_dict() == qrels.as_dict()


def test_write_qrels_writes_iter_zero_in_topic_then_docno_order(write_file: WriteFile, tmp_path) -> None:
    out = tmp_path / "out.qrels"
    write_qrels(qrels_from_dict({"2": {"b": 1, "a": -1}, "10": {"x": 3}}), out)
    assert out.read_text() == "10 0 x 3\n2 0 a -1\n2 0 b 1\n"
