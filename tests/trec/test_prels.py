"""The two prels: sample_eval ``qid iter docno stratum rel``, Million Query ``qid docno rel method iprob``."""

from __future__ import annotations

import pytest

from tests.trec.conftest import WriteFile
from trec import read_mq_prel, read_prel, write_mq_prel, write_prel

PREL = "# stratum 1 = ranks 1-10, 2 = ranks 11-100\n302 0 z 1 1\n302 0 a 2 -1\n301 0 m 2 0\n301 0 b 1 2\n"
MQ = "302 z 1 depth 1\n302 a 0 sampled 0.125\r\n301 m 1 sampled 1e-300\n301 b -1 sampled 0.5\n"


def strata(prel) -> dict[str, dict[str, tuple[str, int]]]:
    q = prel.qrels
    out: dict[str, dict[str, tuple[str, int]]] = {}
    for i, t in enumerate(q.topics):
        a, b = int(q.offsets[i]), int(q.offsets[i + 1])
        rows = zip(q.docnos[a:b].tolist(), prel.strata[a:b].tolist(), q.rels[a:b].tolist(), strict=True)
        out[t] = {d.decode(): (s.decode(), int(r)) for d, s, r in rows}
    return out


def mq_rows(prel) -> dict[str, dict[str, tuple[int, str, float]]]:
    q = prel.qrels
    out: dict[str, dict[str, tuple[int, str, float]]] = {}
    for i, t in enumerate(q.topics):
        a, b = int(q.offsets[i]), int(q.offsets[i + 1])
        cols = (q.docnos[a:b], q.rels[a:b], prel.methods[a:b], prel.iprobs[a:b])
        rows = zip(*(c.tolist() for c in cols), strict=True)
        out[t] = {d.decode(): (int(r), m.decode(), p) for d, r, m, p in rows}
    return out


def test_read_prel_keeps_each_docs_stratum_aligned(write_file: WriteFile) -> None:
    prel = read_prel(write_file("p.prel", PREL))
    assert prel.topics == ("301", "302")
    assert strata(prel) == {"301": {"b": ("1", 2), "m": ("2", 0)}, "302": {"a": ("2", -1), "z": ("1", 1)}}


@pytest.mark.parametrize("suffix", [".prel", ".prel.gz"])
def test_write_prel_round_trips(write_file: WriteFile, tmp_path, suffix: str) -> None:
    prel = read_prel(write_file("p.prel", PREL))
    out = tmp_path / f"out{suffix}"
    write_prel(prel, out)
    assert strata(read_prel(out)) == strata(prel)


def test_read_mq_prel_keeps_iprob_and_method_aligned(write_file: WriteFile) -> None:
    prel = read_mq_prel(write_file("mq.prel", MQ))
    assert mq_rows(prel) == {
        "301": {"b": (-1, "sampled", 0.5), "m": (1, "sampled", 1e-300)},
        "302": {"a": (0, "sampled", 0.125), "z": (1, "depth", 1.0)},
    }


@pytest.mark.parametrize("suffix", [".prel", ".prel.gz"])
def test_write_mq_prel_round_trips(write_file: WriteFile, tmp_path, suffix: str) -> None:
    prel = read_mq_prel(write_file("mq.prel", MQ))
    out = tmp_path / f"out{suffix}"
    write_mq_prel(prel, out)
    assert mq_rows(read_mq_prel(out)) == mq_rows(prel)
