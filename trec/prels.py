"""The two prel formats, always declared and never guessed (both have five columns).

* sample_eval (xinfAP/xinfNDCG): ``qid iter docno stratum rel``; every doc of a stratum is listed,
  rel -1 = in the stratum but not sampled, rel >= 0 = sampled and judged.
* Million Query (statAP): ``qid docno rel method iprob``; iprob is the inclusion probability.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trec.columns import Columns, concat, read_columns
from trec.errors import FormatError
from trec.io import PathLike, open_text_out
from trec.qrels import Qrels, qrels_and_order

PREL_COLUMNS = ("qid", "iter", "docno", "stratum", "rel")
MQ_PREL_COLUMNS = ("qid", "docno", "rel", "method", "iprob")


@dataclass(frozen=True)
class StratifiedPrel:
    """A sample_eval prel: the qrels view (rel -1 = not sampled) plus each listed doc's stratum label."""

    qrels: Qrels
    strata: np.ndarray  # bytes labels aligned with qrels.docnos
    # Which listed documents the design drew for judging, when the prel is written before the
    # judgments are in (build_pool): sample_eval reads "rel >= 0" as "sampled and judged", so a
    # drawn but unjudged document cannot be told from an unsampled one by its rel. write_prel
    # marks the draw in the iter column, which sample_eval and trec_eval ignore: 1 drawn, 0 not.
    drawn: np.ndarray | None = None

    @property
    def topics(self) -> tuple[str, ...]:
        return self.qrels.topics


@dataclass(frozen=True)
class MQPrel:
    """A Million Query prel: judgments with per-document inclusion probabilities."""

    qrels: Qrels
    iprobs: np.ndarray  # float64 aligned with qrels.docnos
    methods: np.ndarray  # bytes, aligned


def _convert_prel(cols: Columns) -> dict[str, np.ndarray]:
    return {
        "qid": cols.strings(0),
        "docno": cols.strings(2),
        "stratum": cols.strings(3),
        "rel": cols.integers(4, "a relevance grade (-1 = not sampled)"),
        "line": cols.line_numbers,
    }


def read_prel(path: PathLike) -> StratifiedPrel:
    """Read a sample_eval prel ``qid iter docno stratum rel``."""
    from trec.arrow_runs import parse_judgments

    fast = parse_judgments(path, "prel")  # pyarrow's reader, for plainly laid-out files
    if fast is not None:
        qrels, order = qrels_and_order(
            fast["qid"], fast["docno"], fast["rel"], path=str(path), lines=fast["line"]
        )
        return StratifiedPrel(qrels=qrels, strata=fast["stratum"][order])
    parts, total = read_columns(str(path), PREL_COLUMNS, _convert_prel)
    if total == 0:
        raise FormatError(str(path), 0, "the prel file is empty (expected 'qid iter docno stratum rel')")
    qids, docnos = concat(parts["qid"]), concat(parts["docno"])
    qrels, order = qrels_and_order(
        qids, docnos, concat(parts["rel"], np.int64), path=str(path), lines=concat(parts["line"], np.int64)
    )
    return StratifiedPrel(qrels=qrels, strata=concat(parts["stratum"])[order])


def _convert_mq(cols: Columns) -> dict[str, np.ndarray]:
    iprob = cols.floats(4, "an inclusion probability")
    bad = (iprob <= 0) | (iprob > 1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        found = cols.token(row, 4).decode(errors="replace")
        raise cols.error(row, f"inclusion probability must be in (0, 1], found '{found}'")
    return {
        "qid": cols.strings(0),
        "docno": cols.strings(1),
        "rel": cols.integers(2, "a relevance grade"),
        "method": cols.strings(3),
        "iprob": iprob,
        "line": cols.line_numbers,
    }


def read_mq_prel(path: PathLike) -> MQPrel:
    """Read a Million Query prel ``qid docno rel method iprob``."""
    parts, total = read_columns(str(path), MQ_PREL_COLUMNS, _convert_mq)
    if total == 0:
        raise FormatError(str(path), 0, "the prel file is empty (expected 'qid docno rel method iprob')")
    qids, docnos = concat(parts["qid"]), concat(parts["docno"])
    qrels, order = qrels_and_order(
        qids, docnos, concat(parts["rel"], np.int64), path=str(path), lines=concat(parts["line"], np.int64)
    )
    return MQPrel(
        qrels=qrels,
        iprobs=concat(parts["iprob"], np.float64)[order],
        methods=concat(parts["method"])[order],
    )


def write_prel(prel: StratifiedPrel, path: PathLike) -> None:
    """``qid iter docno stratum rel``; iter is 1 for a document drawn for judging when ``prel.drawn``
    says so, else 0 (sample_eval ignores the column: the draw travels with the file)."""
    q = prel.qrels
    with open_text_out(path) as fh:
        for i, topic in enumerate(q.topics):
            a, b = int(q.offsets[i]), int(q.offsets[i + 1])
            marks = ["0"] * (b - a) if prel.drawn is None else ["01"[x] for x in prel.drawn[a:b].tolist()]
            for d, m, s, r in zip(
                q.docnos[a:b].tolist(), marks, prel.strata[a:b].tolist(), q.rels[a:b].tolist(), strict=False
            ):
                fh.write(f"{topic} {m} {d.decode()} {s.decode()} {r}\n")


def write_mq_prel(prel: MQPrel, path: PathLike) -> None:
    q = prel.qrels
    with open_text_out(path) as fh:
        for i, topic in enumerate(q.topics):
            a, b = int(q.offsets[i]), int(q.offsets[i + 1])
            rows = zip(
                q.docnos[a:b].tolist(),
                q.rels[a:b].tolist(),
                prel.methods[a:b].tolist(),
                prel.iprobs[a:b],
                strict=False,
            )
            for d, r, m, p in rows:
                fh.write(f"{topic} {d.decode()} {r} {m.decode()} {float(p)!r}\n")
