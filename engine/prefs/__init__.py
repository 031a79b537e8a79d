"""trec_eval 10.0's preference and judgment-group evaluation (``-R prefs``, ``qrels_prefs``, ``qrels_jg``).

:func:`evaluate_prefs_files` is the entry point: it reads the judgments once, then each run, and
yields one :class:`~engine.evaluate.RunResult` per run, shaped like the ordinary path's so the
same writers print it. Formats: :mod:`trec.prefs_files`; names and groups: :mod:`engine.prefs.names`;
counting: :mod:`engine.prefs.counts`; measures: :mod:`engine.prefs.measures`, :mod:`engine.prefs.jg`.

Topics: trec_eval evaluates the judgments' topics in byte order. A topic the run has no ranking
for is skipped and listed in ``missing_topics`` (trec_eval 10.0 stops with "result qid not
found"; this engine's ordinary path skips too), unless ``complete`` (-c), where it is evaluated
against trec_eval's one-document stand-in ranking ``ceci_nest_pas_un_docno``.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from engine.evaluate import RunResult
from engine.measures.base import EvalOptions
from engine.name_parts import MeasureError
from engine.prefs.counts import (
    RankPool,
    Topic,
    build_topic,
    docid_ranks,
    ec_rank_pool,
    group_counts,
    topic_rows,
)
from engine.prefs.jg import JgJudgments
from engine.prefs.measures import topic_values
from engine.prefs.names import (
    FORMATS,
    GROUPS,
    PREFS_COUNTS,
    PREFS_MEASURES,
    PrefsRequest,
    p_avgjg_name,
    parse_prefs_measures,
    rprec_mult_avgjg_name,
)
from trec.prefs_files import PrefLines, read_prefs, read_qrels_jg, read_qrels_prefs
from trec.runs import RankedRun, read_run

__all__ = [
    "FORMATS",
    "GROUPS",
    "JgJudgments",
    "PrefJudgments",
    "PrefsRequest",
    "evaluate_prefs_files",
    "evaluate_prefs_run",
    "parse_prefs_measures",
]

BOGUS_DOCNO = b"ceci_nest_pas_un_docno"  # trec_eval.c's ranking for a topic missing from the run (-c)


class PrefJudgments:
    """A prefs (or qrels_prefs) file prepared once for any number of runs; topics are built lazily,
    so a file's inconsistencies are reported, as by trec_eval, when a run reaches that topic."""

    def __init__(self, prefs: PrefLines) -> None:
        self.prefs = prefs
        self.rows = topic_rows(prefs)
        self.topics = list(self.rows)
        self._built: dict[str, Topic] = {}

    def topic(self, qid: str) -> Topic:
        if qid not in self._built:
            self._built[qid] = build_topic(self.prefs, qid, self.rows[qid])
        return self._built[qid]

    def evaluate(
        self, run: RankedRun, request: PrefsRequest, options: EvalOptions
    ) -> tuple[list[str], list[str], dict[str, np.ndarray]]:
        """(evaluated topics, missing topics, per-topic values) of the preference measures asked for."""
        index = {t: i for i, t in enumerate(run.topics)}
        missing = [t for t in self.topics if t not in index]
        topics = self.topics if options.complete else [t for t in self.topics if t in index]
        wanted = tuple(n for n in request.names if n in PREFS_MEASURES)
        columns: dict[str, list[float]] = {n: [] for n in wanted}
        if not wanted:
            return topics, missing, {}
        rank_pool = RankPool() if any("Rnonrel" in n for n in wanted) else None
        for qid in topics:
            topic = self.topic(qid)
            if qid in index:
                a, b = int(run.offsets[index[qid]]), int(run.offsets[index[qid] + 1])
                docnos, scores = run.docnos[a:b], run.scores[a:b]
            else:
                docnos, scores = np.array([BOGUS_DOCNO]), np.array([1.0])
            rank, njr = docid_ranks(topic, docnos, scores, options.max_docs)
            counts = [group_counts(g, rank, njr) for g in topic.groups]
            pool = None
            if rank_pool is not None:
                entries, last = ec_rank_pool(topic.groups, rank)
                pool = (rank_pool.fill(len(self.rows[qid]), entries), last)
            values = topic_values(topic, counts, rank, njr, wanted, pool)
            for n in wanted:
                columns[n].append(values[n])
        return topics, missing, {n: np.array(v, dtype=np.float64) for n, v in columns.items()}


def _output_names(request: PrefsRequest) -> list[str]:
    names: list[str] = []
    for n in request.names:
        if n == "P_avgjg":
            names += [p_avgjg_name(k) for k in request.p_cutoffs]
        elif n == "Rprec_mult_avgjg":
            names += [rprec_mult_avgjg_name(c) for c in request.rprec_cutoffs]
        else:
            names.append(n)
    return names


def _seq_mean(values: np.ndarray, n: int) -> float:
    """trec_eval's average: a left-to-right sum over topics divided by the number of topics."""
    return float(np.cumsum(values)[-1]) / n if n else 0.0


def evaluate_prefs_run(
    judgments: PrefJudgments | JgJudgments,
    run: RankedRun,
    request: PrefsRequest,
    options: EvalOptions,
    name: str,
) -> RunResult:
    """One run's :class:`RunResult` under a prefs/qrels_prefs or qrels_jg judgments file."""
    topics, missing, per_topic = judgments.evaluate(run, request, options)
    n = len(topics)
    names = _output_names(request)
    summary: dict[str, float] = {}
    for out_name in names:
        if out_name == "runid":
            per_topic[out_name] = np.zeros(n)
            summary[out_name] = 0.0
        elif out_name == "num_q":
            per_topic[out_name] = np.ones(n)
            summary[out_name] = float(n)
        elif out_name in PREFS_COUNTS:
            summary[out_name] = float(np.sum(per_topic[out_name]))  # integers: exact in any order
        else:
            summary[out_name] = _seq_mean(per_topic[out_name], n)
    return RunResult(
        run=name,
        topics=topics,
        per_topic=per_topic,
        summary=summary,
        names=names,
        integer={x for x in names if x in PREFS_COUNTS or x == "num_q"},
        summary_only={x for x in names if x in ("runid", "num_q")},
        missing_topics=missing,
        runid=getattr(run, "runid", "") or run.tag,
        unmatched_topics=[t for t in run.topics if t not in set(topics) | set(missing)],
    )


def load_judgments(judgments_path: str, rel_format: str) -> PrefJudgments | JgJudgments:
    """Read a judgments file of trec_eval format ``rel_format`` (prefs, qrels_prefs or qrels_jg)."""
    if rel_format == "qrels_jg":
        return JgJudgments(read_qrels_jg(judgments_path))
    if rel_format == "prefs":
        return PrefJudgments(read_prefs(judgments_path))
    if rel_format == "qrels_prefs":
        return PrefJudgments(read_qrels_prefs(judgments_path))
    raise MeasureError(f"unknown judgments format '{rel_format}' (expected one of {', '.join(FORMATS)})")


def evaluate_prefs_files(
    judgments_path: str,
    run_paths: list[str],
    measure_specs: list[str],
    options: EvalOptions,
    rel_format: str,
    names: list[str],
) -> Iterator[RunResult]:
    """Evaluate run files against a ``-R prefs|qrels_prefs|qrels_jg`` judgments file, as trec_eval 10.0.

    ``measure_specs`` are the raw ``-m`` arguments; unknown names, names needing another format,
    and an empty list (trec_eval's default set cannot run under these formats) raise
    :class:`MeasureError` before any file is read; a bad judgments file raises
    :class:`trec.errors.FormatError` at once, a bad run file when its turn comes.
    """
    request = parse_prefs_measures(measure_specs, rel_format)
    judgments = load_judgments(judgments_path, rel_format)
    if len(names) != len(run_paths):
        raise ValueError("one display name per run file is needed")

    def results() -> Iterator[RunResult]:
        for path, name in zip(run_paths, names, strict=True):
            yield evaluate_prefs_run(judgments, read_run(path, name=name), request, options, name)

    return results()
