"""Turning what notebook users hold into the engine's types: qrels, runs and measure names.

Accepted qrels: a file path (``qid iter docno rel``, gzip fine), a pandas DataFrame (ir_measures',
TREC, PyTerrier or trectools column names), a trectools ``TrecQrel``, a dict ``{qid: {docno: rel}}``
(pytrec_eval's and ir_measures' shape), an iterable of ir_measures ``Qrel`` namedtuples, or the
engine's own :class:`~trec.qrels.Qrels` / :class:`~engine.evaluate.Judgments`. Accepted runs: the
same shapes with scores (``ScoredDoc``, ``{qid: {docno: score}}``, a trectools ``TrecRun``) or a
:class:`~trec.runs.RankedRun`; several runs as a dict ``{name: run}`` or a list of paths.
Everything else is refused with :class:`InputError`, one sentence saying what was expected.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.evaluate import Judgments
from engine.measure_dict import is_ir_measure
from trec.prels import MQPrel, StratifiedPrel, read_mq_prel, read_prel
from trec.qrels import Qrels, qrels_from_arrays, read_qrels
from trec.runs import RankedRun, read_run, run_from_arrays, run_name_from_path

# DataFrame columns, the first present of each tuple: ir_measures' names, the TREC ones (PyTerrier's
# 'label' too), then trectools' (TrecQrel.qrels_data: query, q0, docid, rel; TrecRun.run_data:
# query, q0, docid, rank, score, system). The order matters for PyTerrier's frames, whose 'query'
# is the query text beside 'qid' and whose 'docid' is an index number beside 'docno'.
QUERY_COLUMNS = ("query_id", "qid", "query")
DOC_COLUMNS = ("doc_id", "docno", "docid")
REL_COLUMNS = ("relevance", "rel", "label")
SCORE_COLUMNS = ("score",)
ITERATION_COLUMNS = ("iteration", "iter", "q0")  # the qrels' second field (subtopics)
DESIGNS = ("qrels", "prel", "mq")


class InputError(TypeError, ValueError):
    """Qrels, a run or an option the API cannot read: the message says what it expected.

    Both a TypeError (a shape it does not take) and a ValueError (bad values in a shape it takes).
    """


def is_path(value: Any) -> bool:
    """A file name: ``str`` or ``os.PathLike`` (a bytes path is not accepted)."""
    return isinstance(value, str | os.PathLike)


def _is_frame(value: Any) -> bool:
    """A pandas DataFrame, recognised without importing pandas (it stays optional)."""
    return type(value).__name__ == "DataFrame" and hasattr(value, "columns")


def _trectools_frame(value: Any, attribute: str) -> Any:
    """The frame of a trectools ``TrecQrel`` (``qrels_data``) or ``TrecRun`` (``run_data``), else None."""
    frame = getattr(value, attribute, None) if not isinstance(value, str | bytes | Mapping) else None
    return frame if _is_frame(frame) else None


def _encode(values: Iterable[Any]) -> np.ndarray:
    """Strings (or ints: qids) as UTF-8 bytes, as the file readers hold them."""
    text = np.asarray([str(v) for v in values], dtype=str)
    if text.size == 0:
        return np.asarray([], dtype="S1")
    return np.char.encode(text, "utf-8")


def _column(frame: Any, names: tuple[str, ...], what: str, required: bool = True) -> str | None:
    for name in names:
        if name in frame.columns:
            return name
    if required:
        have = ", ".join(str(c) for c in frame.columns)
        raise InputError(
            f"{what} DataFrame needs a column named {' or '.join(names)} (it has: {have or 'no columns'})"
        )
    return None


def _integers(values: np.ndarray, what: str) -> np.ndarray:
    values = np.asarray(values)
    if values.dtype.kind in "iub":
        return values.astype(np.int64)
    try:
        floats = values.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} must be integers (relevance grades)") from exc
    if not np.all(np.isfinite(floats)) or not np.all(floats == np.round(floats)):
        raise InputError(f"{what} must be integers (relevance grades)")
    return floats.astype(np.int64)


def _floats(values: np.ndarray, what: str) -> np.ndarray:
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} must be numbers") from exc


# --------------------------------------------------------------------------- qrels


def qrels_from_frame(frame: Any) -> Qrels:
    """Qrels from a DataFrame: query_id|qid|query, doc_id|docno|docid, relevance|rel|label, and
    optionally iteration|iter|q0 (the second field: subtopics)."""
    q = _column(frame, QUERY_COLUMNS, "a qrels")
    d = _column(frame, DOC_COLUMNS, "a qrels")
    r = _column(frame, REL_COLUMNS, "a qrels")
    it = _column(frame, ITERATION_COLUMNS, "a qrels", required=False)
    iters = _encode(frame[it].tolist()) if it is not None else None
    return qrels_from_arrays(
        _encode(frame[q].tolist()),
        _encode(frame[d].tolist()),
        _integers(frame[r].to_numpy(), f"qrels column '{r}'"),
        path="<DataFrame>",
        iters=iters,
    )


def qrels_from_mapping(judgments: Mapping[Any, Any]) -> Qrels:
    """``{qid: {docno: rel}}`` (pytrec_eval's and ir_measures' dict form)."""
    qids, docnos, rels = [], [], []
    for qid, docs in judgments.items():
        if not isinstance(docs, Mapping):
            raise InputError(
                f"qrels dict: topic {qid!r} maps to {type(docs).__name__}, expected {{docno: rel}}"
            )
        for docno, rel in docs.items():
            qids.append(qid)
            docnos.append(docno)
            rels.append(rel)
    return qrels_from_arrays(
        _encode(qids), _encode(docnos), _integers(np.asarray(rels), "qrels dict values"), path="<dict>"
    )


def qrels_from_records(records: Iterable[Any]) -> Qrels:
    """ir_measures ``Qrel(query_id, doc_id, relevance, iteration)`` namedtuples (or alike)."""
    rows = list(records)
    bad = next((r for r in rows if not all(hasattr(r, a) for a in ("query_id", "doc_id", "relevance"))), None)
    if bad is not None:
        raise InputError(
            f"qrels records must have query_id, doc_id and relevance (ir_measures Qrel), got {bad!r}"
        )
    iters = None
    if rows and all(hasattr(r, "iteration") for r in rows):
        iters = _encode(r.iteration for r in rows)
    return qrels_from_arrays(
        _encode(r.query_id for r in rows),
        _encode(r.doc_id for r in rows),
        _integers(np.asarray([r.relevance for r in rows]), "Qrel relevance"),
        path="<records>",
        iters=iters,
    )


def to_qrels(source: Any) -> Qrels:
    """Ordinary qrels from any accepted shape (see the module docstring)."""
    if isinstance(source, Qrels):
        return source
    if isinstance(source, Judgments):
        return source.qrels
    if is_path(source):
        return read_qrels(source)
    if _is_frame(source):
        return qrels_from_frame(source)
    if _trectools_frame(source, "qrels_data") is not None:
        return qrels_from_frame(source.qrels_data)
    if isinstance(source, Mapping):
        return qrels_from_mapping(source)
    if isinstance(source, Iterable) and not isinstance(source, bytes):
        return qrels_from_records(source)
    raise InputError(
        "qrels must be a file path, a DataFrame (query_id, doc_id, relevance), a trectools TrecQrel, "
        f"a dict {{qid: {{docno: rel}}}} or ir_measures Qrel records, not {type(source).__name__}"
    )


def to_judgments(source: Any, design: str = "qrels") -> Judgments:
    """Judgments for ``design``: qrels of any shape, or (prel / mq) a file path or the prel object."""
    if design not in DESIGNS:
        raise InputError(f"design must be one of {', '.join(DESIGNS)}, not {design!r}")
    if isinstance(source, Judgments):
        return source
    if design == "prel":
        if isinstance(source, StratifiedPrel):
            return Judgments.from_prel(source)
        if is_path(source):
            return Judgments.from_prel(read_prel(source))
        raise InputError("design='prel' takes a prel file path (qid iter docno stratum rel)")
    if design == "mq":
        if isinstance(source, MQPrel):
            return Judgments.from_mq(source)
        if is_path(source):
            return Judgments.from_mq(read_mq_prel(source))
        raise InputError("design='mq' takes a Million Query prel file path (qid docno rel method iprob)")
    return Judgments(to_qrels(source))


# --------------------------------------------------------------------------- runs


def run_from_frame(frame: Any, name: str) -> RankedRun:
    """A run from a DataFrame: query_id|qid|query, doc_id|docno|docid, score (other columns ignored)."""
    q = _column(frame, QUERY_COLUMNS, "a run")
    d = _column(frame, DOC_COLUMNS, "a run")
    s = _column(frame, SCORE_COLUMNS, "a run")
    return run_from_arrays(
        name,
        _encode(frame[q].tolist()),
        _encode(frame[d].tolist()),
        _floats(frame[s].to_numpy(), f"run column '{s}'"),
    )


def run_from_mapping(run: Mapping[Any, Any], name: str) -> RankedRun:
    """``{qid: {docno: score}}`` (pytrec_eval's and ir_measures' dict form)."""
    qids, docnos, scores = [], [], []
    for qid, docs in run.items():
        if not isinstance(docs, Mapping):
            raise InputError(
                f"run dict: topic {qid!r} maps to {type(docs).__name__}, expected {{docno: score}}"
            )
        for docno, score in docs.items():
            qids.append(qid)
            docnos.append(docno)
            scores.append(score)
    return run_from_arrays(
        name, _encode(qids), _encode(docnos), _floats(np.asarray(scores), "run dict values")
    )


def run_from_records(records: Iterable[Any], name: str) -> RankedRun:
    """ir_measures ``ScoredDoc(query_id, doc_id, score)`` namedtuples (or alike)."""
    rows = list(records)
    bad = next((r for r in rows if not all(hasattr(r, a) for a in ("query_id", "doc_id", "score"))), None)
    if bad is not None:
        raise InputError(
            f"run records must have query_id, doc_id and score (ir_measures ScoredDoc), got {bad!r}"
        )
    return run_from_arrays(
        name,
        _encode(r.query_id for r in rows),
        _encode(r.doc_id for r in rows),
        _floats(np.asarray([r.score for r in rows]), "ScoredDoc scores"),
    )


def to_run(source: Any, name: str) -> RankedRun:
    """One run from any accepted shape, named ``name`` (a file keeps its tag as runid)."""
    if isinstance(source, RankedRun):
        return source
    if is_path(source):
        return read_run(source, name=name)
    if _is_frame(source):
        return run_from_frame(source, name)
    if _trectools_frame(source, "run_data") is not None:
        return run_from_frame(source.run_data, name)
    if isinstance(source, Mapping):
        return run_from_mapping(source, name)
    if isinstance(source, Iterable) and not isinstance(source, bytes):
        return run_from_records(source, name)
    raise InputError(
        "a run must be a file path, a DataFrame (query_id, doc_id, score), a trectools TrecRun, "
        f"a dict {{qid: {{docno: score}}}} or ir_measures ScoredDoc records, not {type(source).__name__}"
    )


@dataclass(frozen=True)
class RunSource:
    """One run to evaluate: its name and what it is read from (a path, a frame, a dict...)."""

    name: str
    source: Any

    @property
    def is_file(self) -> bool:
        return is_path(self.source)


def _is_run_mapping(value: Mapping[Any, Any]) -> bool:
    """``{qid: {docno: score}}`` (one run) rather than ``{name: run}`` (several)."""
    for docs in value.values():
        if not isinstance(docs, Mapping):
            return False
        return all(isinstance(v, int | float | np.number) for v in list(docs.values())[:10])
    return True  # empty: one empty run


def run_sources(runs: Any, default_name: str = "run") -> list[RunSource]:
    """The runs a call names: one run of any shape, a dict ``{name: run}``, or a list of runs.

    A list of file paths is named as the command names its arguments (file names; parent folders
    where two files share a name); other list items are named run1, run2, ...
    """
    if is_path(runs):
        return [RunSource(run_name_from_path(runs), runs)]
    if isinstance(runs, RankedRun):
        return [RunSource(runs.name, runs)]
    if _is_frame(runs) or _trectools_frame(runs, "run_data") is not None:
        return [RunSource(default_name, runs)]
    if isinstance(runs, Mapping):
        if _is_run_mapping(runs):
            return [RunSource(default_name, runs)]
        return [RunSource(str(name), run) for name, run in runs.items()]
    if isinstance(runs, Sequence) and not isinstance(runs, bytes) and runs and _all_runs(runs):
        if all(is_path(r) for r in runs):
            names = _file_run_names([str(r) for r in runs])
            return [RunSource(n, r) for n, r in zip(names, runs, strict=True)]
        return [
            RunSource(r.name if isinstance(r, RankedRun) else f"run{i}", r)
            for i, r in enumerate(runs, start=1)
        ]
    if isinstance(runs, Iterable) and not isinstance(runs, bytes):
        return [RunSource(default_name, runs)]  # ScoredDoc records
    raise InputError(
        "runs must be one run (path, DataFrame, dict, ScoredDoc records), a dict {name: run} "
        f"or a list of runs, not {type(runs).__name__}"
    )


def _file_run_names(paths: list[str]) -> list[str]:
    """The command's names for its run files (:func:`engine.cli.unique_run_names`).

    File names without extensions; only when two clash is engine.cli (and with it scipy) imported
    to add parent folders exactly as the command does.
    """
    names = [run_name_from_path(p) for p in paths]
    if len(set(names)) == len(names):
        return names
    from engine.cli import unique_run_names

    return unique_run_names(paths)


def _all_runs(items: Sequence[Any]) -> bool:
    """A list of whole runs (paths, frames, dicts, RankedRun), not a list of ScoredDoc records."""
    return all(
        is_path(r)
        or _is_frame(r)
        or _trectools_frame(r, "run_data") is not None
        or isinstance(r, Mapping | RankedRun)
        for r in items
    )


# --------------------------------------------------------------------------- measures


def measure_specs(measures: Any) -> list[str]:
    """Measure names as strings: one name, or a list of names and ir_measures Measure objects."""
    if measures is None:
        return []
    items = [measures] if isinstance(measures, str) or not isinstance(measures, Iterable) else list(measures)
    specs = []
    for m in items:
        if isinstance(m, str):
            specs.append(m)
        elif is_ir_measure(m):
            specs.append(str(m))  # ir_measures prints a Measure as its name: nDCG@10, P(rel=2)@5
        else:
            raise InputError(f"a measure must be a name or an ir_measures Measure, not {type(m).__name__}")
    return specs
