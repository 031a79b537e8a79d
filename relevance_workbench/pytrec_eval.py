"""pytrec_eval's API on the workbench's engine: switching is one import line.

    import relevance_workbench.pytrec_eval as pytrec_eval   # instead of: import pytrec_eval
    # or: from relevance_workbench import RelevanceEvaluator

    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P_5"})
    evaluator.evaluate(run)  # {"401": {"map": 0.31, "ndcg_cut_10": 0.52, "P_5": 0.6}, ...}

:class:`RelevanceEvaluator` takes pytrec_eval-terrier 0.5.11's arguments and returns its dicts:
the same measure names and nicknames, expanded and combined as its ``_expand_nicknames`` and
``_combine_measures`` do (``P`` gives P_5 ... P_1000, ``P_5`` and ``P.5`` give P_5, ``{"P", "P_5"}``
gives P_5 alone), the same keys (a cutoff family under ``family_cutoff``, any other under its
bare name: ``set_F``, ``11pt_avg``), the same topics (those of the run that the qrels judge) and the
same values, because it reproduces what pytrec_eval's bundled trec_eval 9 computes:

- scores are compared as C ``float`` (float32), as trec_eval 9 stores them, so scores equal in
  float32 tie and are ordered by docno descending;
- ``iprec_at_recall`` and ``11pt_avg`` take the ``(long)(c·R + 0.9)``-th relevant document
  (families ``iprec_at_recall_v9``, ``11pt_avg_v9``), where trec_eval 10.0 rounds;
- per topic, ``gm_map`` and ``gm_bpref`` are ``log(max(x, 0.00001))`` and ``num_q`` is 1;
  ``runid`` and ``relstring``, which are not numbers, are 0.0;
- a run topic with no documents scores 0 on every measure but ``num_q`` (trec_eval 9 cannot
  evaluate it, and pytrec_eval keeps the zeros it started from).

Where pytrec_eval crashes the interpreter or returns garbage, this refuses or computes instead
(docs/python_api.md lists each case): a qrels topic whose grades are all negative, a parameter
trec_eval cannot read (``ndcg.1``), a name only a prefix of which is a measure (``P_5abc``).
"""

from __future__ import annotations

import collections
import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Mapping
from numbers import Real
from typing import Any

import numpy as np

from engine.evaluate import Judgments, evaluate_run
from engine.measures import REGISTRY, EvalOptions, Measure
from engine.name_parts import MeasureError
from engine.names import TREC_EVAL_ORDER, parse_measures
from relevance_workbench.inputs import InputError, qrels_from_mapping
from trec.runs import run_from_arrays

__all__ = [
    "RelevanceEvaluator",
    "compute_aggregated_measure",
    "parse_qrel",
    "parse_run",
    "supported_measures",
    "supported_nicknames",
]

# pytrec_eval-terrier 0.5.11's ``supported_measures`` and ``supported_nicknames`` (trec_eval 9's
# measure table); tests/api/test_pytrec_eval_compat.py checks them against the installed package.
supported_measures: frozenset[str] = frozenset(
    {
        "11pt_avg", "G", "P", "Rndcg", "Rprec", "Rprec_mult", "binG", "bpref", "gm_bpref", "gm_map",
        "infAP", "iprec_at_recall", "map", "map_cut", "ndcg", "ndcg_cut", "ndcg_rel",
        "num_nonrel_judged_ret", "num_q", "num_rel", "num_rel_ret", "num_ret", "recall", "recip_rank",
        "relative_P", "relstring", "runid", "set_F", "set_P", "set_map", "set_recall",
        "set_relative_P", "success", "utility",
    }
)  # fmt: skip
_PREFS = {
    "num_q", "runid", "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_num_prefs_poss",
    "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
}  # fmt: skip
supported_nicknames: dict[str, frozenset[str]] = {
    "official": frozenset(
        {
            "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
            "recip_rank", "iprec_at_recall", "P",
        }
    ),
    "set": frozenset(
        {
            "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F",
        }
    ),
    "all_trec": supported_measures,
    "all_prefs": frozenset(
        _PREFS
        | {
            "prefs_simp_ret", "prefs_simp_imp", "prefs_pair_ret", "prefs_pair_imp", "prefs_avgjg_ret",
            "prefs_avgjg_imp", "prefs_avgjg_Rnonrel", "prefs_avgjg_Rnonrel_ret",
        }
    ),
    "prefs": frozenset(_PREFS),
    "qrels_jg": frozenset({"runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"}),
}  # fmt: skip

# trec_eval 9 prints these families one value per parameter, named family_param
# (te_print_single_meas_a_cut); every other family prints one value under its bare name
CUTOFF_FAMILIES = frozenset(
    {"P", "Rprec_mult", "iprec_at_recall", "map_cut", "ndcg_cut", "recall", "relative_P", "success"}
)
# trec_eval 9 turns a recall fraction into a count of relevant documents as (long)(c·R + 0.9)
TREC_EVAL_9_FAMILIES = {"iprec_at_recall": "iprec_at_recall_v9", "11pt_avg": "11pt_avg_v9"}
MIN_GEO_MEAN = 0.00001  # trec_eval.h: gm_map and gm_bpref take log(max(x, MIN_GEO_MEAN)) per topic
# pytrec_eval's _combine_measures: a family followed by '.' or '_' and comma-separated numbers
_PARAMS = r"[\._]([0-9]+(?:\.[0-9]+)?(?:,[0-9]+(?:\.[0-9]+)?)*)"


@dataclasses.dataclass(frozen=True)
class _Column:
    """One key of a topic's result: computed by ``measure`` and passed through ``per_topic``."""

    key: str
    measure: Measure | None  # None: a constant (num_q 1, runid and relstring 0)
    per_topic: Callable[[float], float]
    constant: float = 0.0


def _expand_nicknames(measures: Iterable[str]) -> set[str]:
    """pytrec_eval's ``_expand_nicknames``: a nickname stands for its members."""
    result: set[str] = set()
    for measure in measures:
        if not isinstance(measure, str):
            raise TypeError(f"measure names are strings, got {type(measure).__name__} {measure!r}")
        result.update(supported_nicknames.get(measure, {measure}))
    return result


def _combine_measures(measures: Iterable[str]) -> set[str]:
    """pytrec_eval's ``_combine_measures``: ``{"P", "P_5", "P.10"}`` → ``{"P.10,5"}``.

    The parameters of a family are pooled as a set of strings, sorted as strings and joined; a
    bare name adds none, so ``{"P", "P_5"}`` asks for P_5 alone. pytrec_eval matches only a prefix
    of the name (``P_5abc`` is P_5); here the whole name must match.
    """
    params: dict[str, set[str]] = collections.defaultdict(set)
    for measure in measures:
        if measure in supported_measures:
            params.setdefault(measure, set())
            continue
        for family in supported_measures:
            found = re.fullmatch(re.escape(family) + _PARAMS, measure)
            if found is not None:
                params[family].update(found.group(1).split(","))
                break
        else:
            raise ValueError(f"unsupported measure {measure}")
    return {f"{family}.{','.join(sorted(args))}" if args else family for family, args in params.items()}


def _log_floor(value: float) -> float:
    return math.log(max(value, MIN_GEO_MEAN))


def _same(value: float) -> float:
    return value


def _columns(requests: set[str]) -> list[_Column]:
    """The result's keys in trec_eval's order, each with the engine measure computing it."""
    order = {name: i for i, name in enumerate(TREC_EVAL_ORDER)}
    columns: list[_Column] = []
    for request in sorted(requests, key=lambda r: (order.get(r.partition(".")[0], len(order)), r)):
        family, _, params = request.partition(".")
        if family == "num_q":
            columns.append(_Column("num_q", None, _same, 1.0))
            continue
        if family in ("runid", "relstring"):
            columns.append(_Column(family, None, _same, 0.0))
            continue
        if params and not REGISTRY[family].params:
            params = ""  # trec_eval reads no parameter for such a family: map.5 is map
        try:
            measures = parse_measures([f"{family}.{params}" if params else family])
        except MeasureError as exc:
            raise ValueError(f"measure '{request}': {exc}") from exc
        transform = _log_floor if family in ("gm_map", "gm_bpref") else _same
        for m in measures:
            key = m.measure_name() if family in CUTOFF_FAMILIES else family
            engine_family = TREC_EVAL_9_FAMILIES.get(family, m.family)
            columns.append(_Column(key, dataclasses.replace(m, family=engine_family, name=key), transform))
    return columns


def _check_key(value: Any, what: str) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be strings, as in pytrec_eval; got {type(value).__name__} {value!r}")


class RelevanceEvaluator:
    """pytrec_eval's ``RelevanceEvaluator``: judgments and measures once, then ``evaluate(run)`` per run.

    ``query_relevance``: ``{qid: {docno: grade}}`` (grades integers; a topic with no documents is
    dropped, as pytrec_eval drops it); ``measures``: names and nicknames (a set, or any iterable of
    strings); ``relevance_level``: relevant means grade >= it (at least 1); ``judged_docs_only_flag``:
    trec_eval's ``-J``. Unknown names raise ValueError (``unsupported measure foo``), as pytrec_eval.
    """

    def __init__(
        self,
        query_relevance: Mapping[str, Mapping[str, int]],
        measures: Iterable[str],
        relevance_level: int = 1,
        judged_docs_only_flag: bool = False,
    ) -> None:
        if isinstance(measures, str):
            raise TypeError(f"measures is a set of names, e.g. {{{measures!r}}}, not a string")
        self._columns = _columns(_combine_measures(_expand_nicknames(measures)))
        if isinstance(relevance_level, bool) or not isinstance(relevance_level, int) or relevance_level < 1:
            raise TypeError("Argument relevance_level should be positive.")
        if not isinstance(query_relevance, Mapping):
            raise TypeError("Argument object_relevance_per_qid should be of type dictionary.")
        judged: dict[str, Mapping[str, int]] = {}
        for qid, docs in query_relevance.items():
            _check_key(qid, "topic ids")
            if not isinstance(docs, Mapping):
                raise TypeError(f"topic {qid!r}: expected a dictionary {{docno: grade}}")
            for docno in docs:
                _check_key(docno, "docnos")
            if len(docs) > 0:
                judged[qid] = docs
        self._judgments = Judgments(qrels_from_mapping(judged))
        self._options = EvalOptions(level=relevance_level, judged_only=bool(judged_docs_only_flag))
        self._measures = [c.measure for c in self._columns if c.measure is not None]

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """``{topic: {measure: value}}`` for the run's topics that the judgments have, in the run's order.

        ``scores``: ``{qid: {docno: score}}``. An empty run gives ``{}``, as pytrec_eval; so does a
        run sharing no topic with the judgments (``rw.evaluate`` refuses that one).
        """
        if not scores:
            return {}
        if not isinstance(scores, Mapping):
            raise TypeError("Argument object scores should be of type dictionary.")
        topics = self._judgments.topic_index
        wanted: list[str] = []
        qids: list[str] = []
        docnos: list[str] = []
        values: list[float] = []
        for qid, docs in scores.items():
            _check_key(qid, "topic ids")
            if not isinstance(docs, Mapping):
                raise TypeError(f"topic {qid!r}: expected a dictionary {{docno: score}}")
            for docno, score in docs.items():
                _check_key(docno, "docnos")
                if not isinstance(score, Real):
                    raise TypeError(f"topic {qid!r}, docno {docno!r}: a score must be a number")
            if qid in topics:
                wanted.append(qid)
                qids += [qid] * len(docs)
                docnos += list(docs)
                values += [float(s) for s in docs.values()]
        found = self._evaluate(qids, docnos, values)
        return {qid: found.get(qid) or self._empty() for qid in wanted}

    def _evaluate(
        self, qids: list[str], docnos: list[str], values: list[float]
    ) -> dict[str, dict[str, float]]:
        if not qids:
            return {}
        scores = np.asarray(values, dtype=np.float64)
        if np.isnan(scores).any():
            raise InputError("a score is NaN: documents with no score cannot be ranked")
        with np.errstate(over="ignore"):  # float32 overflows to ±inf, as a C float does
            scores = scores.astype(np.float32).astype(np.float64)
        run = run_from_arrays(
            "run",
            np.char.encode(np.asarray(qids, dtype=str), "utf-8"),
            np.char.encode(np.asarray(docnos, dtype=str), "utf-8"),
            scores,
            unique=True,  # dict keys
        )
        result = evaluate_run(self._judgments, run, self._measures, self._options)
        out: dict[str, dict[str, float]] = {}
        for i, topic in enumerate(result.topics):
            row: dict[str, float] = {}
            for column in self._columns:
                if column.measure is None:
                    row[column.key] = column.constant
                else:
                    row[column.key] = column.per_topic(float(result.per_topic[column.key][i]))
            out[topic] = row
        return out

    def _empty(self) -> dict[str, float]:
        """A run topic with no documents: trec_eval 9 cannot rank it; pytrec_eval keeps its zeros."""
        return {c.key: (c.constant if c.measure is None else 0.0) for c in self._columns}


def compute_aggregated_measure(measure: str, values: list[float]) -> float:
    """pytrec_eval's aggregate over topics: sum for ``num_*``, geometric mean for ``gm_*``, else mean.

    ``gm_*`` values are the per-topic logs :meth:`RelevanceEvaluator.evaluate` returns.
    """
    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """``{qid: {docno: score}}`` from lines ``qid Q0 docno rank score tag``; a docno twice is an error."""
    run: dict[str, dict[str, float]] = collections.defaultdict(dict)
    for line in f_run:
        qid, _, docno, _, score, _ = line.strip().split()
        if docno in run[qid]:
            raise InputError(f"run: docno {docno} twice in topic {qid}")
        run[qid][docno] = float(score)
    return run


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """``{qid: {docno: grade}}`` from qrels lines ``qid 0 docno grade``; a repeated docno is an error."""
    qrel: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for line in f_qrel:
        qid, _, docno, grade = line.strip().split()
        if docno in qrel[qid]:
            raise InputError(f"qrels: docno {docno} twice in topic {qid}")
        qrel[qid][docno] = int(grade)
    return qrel
