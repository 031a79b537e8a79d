"""Judgments: the hash join with runs and its reduced copies."""

from __future__ import annotations

import numpy as np

from engine.evaluate import Judgments
from trec.qrels import qrels_from_dict


def test_without_deletes_lines_and_joins_like_judgments_built_from_scratch() -> None:
    full = {"1": {"a": 1, "b": 0, "c": -1}, "2": {"a": 2, "d": 1}, "3": {"z": 1}}
    judgments = Judgments(qrels_from_dict(full))
    q = judgments.qrels
    # delete topic 1's "b" and topic 3's only line (the topic stays, empty)
    doomed = [i for i in range(len(q)) if (q.docnos[i], q.rels[i]) in ((b"b", 0), (b"z", 1))]
    reduced = judgments.without(np.array(doomed))
    assert reduced.qrels.topics == ("1", "2", "3")
    assert np.diff(reduced.qrels.offsets).tolist() == [2, 2, 0]
    scratch = Judgments(qrels_from_dict({"1": {"a": 1, "c": -1}, "2": {"a": 2, "d": 1}}))
    docnos = np.array([b"a", b"b", b"c", b"a", b"d", b"z"])
    reduced_topics = np.array([0, 0, 0, 1, 1, 2])
    got = reduced.lookup(reduced_topics, docnos)
    want = scratch.lookup(np.array([0, 0, 0, 1, 1]), docnos[:5])
    assert got[:5].tolist() == want.tolist() == [1, -2, -1, 2, 1]
    assert got[5] == -2  # the deleted line is now unpooled
