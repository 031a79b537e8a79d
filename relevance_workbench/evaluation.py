"""``rw.evaluate``: the ``manage.py evaluate`` engine as a function returning dicts and DataFrames.

Files go through the very code the command runs (:func:`engine.evaluate.evaluate_files`, the same
reader threads); in-memory runs are built with the same readers' array constructors and evaluated
by :func:`engine.evaluate.evaluate_run`. Numbers are therefore identical to the command's.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from engine.evaluate import Judgments, RunResult, evaluate_files, evaluate_run, no_common_topic
from engine.measure_dict import MeasureDict
from engine.measures.base import EvalOptions
from engine.names import parse_measures
from engine.zscores import read_zscores
from relevance_workbench.frames import PandasMissing, frame, pandas
from relevance_workbench.inputs import (
    InputError,
    RunSource,
    is_path,
    measure_specs,
    run_sources,
    to_judgments,
    to_run,
)

DEFAULT_MEASURES = {"qrels": "official", "prel": "sample_eval", "mq": "statAP"}
PREFS_FORMATS = ("prefs", "qrels_prefs", "qrels_jg")
ALL = "all"  # the topic label of the aggregate, as trec_eval prints it


class Results:
    """Per-topic and aggregate values of one or more runs, from :func:`evaluate`.

    ``aggregates()`` → ``{run: {measure: value}}``; ``per_topic()`` → ``{run: {measure: {topic: value}}}``;
    ``to_frame()`` → long DataFrame (run, topic, measure, value) with the aggregate as topic ``"all"``.
    Values are floats (NaN where a measure is undefined, e.g. ``gm_map`` of nothing). ``runid`` and
    ``relstring`` are not numbers: see :attr:`runids` and :attr:`text`.
    """

    def __init__(self, results: list[RunResult]) -> None:
        self.raw = results  # the engine's RunResult of every run, in input order
        self.runs = [r.run for r in results]
        names: list[str] = []
        for r in results:
            names += [n for n in r.names if n not in names and _numeric(r, n)]
        self.measures = names
        self.runids = {r.run: r.runid or r.run for r in results}  # trec_eval's runid: the run's tag
        self.missing_topics = {r.run: list(r.missing_topics) for r in results}  # qrels topics without results
        self.text = {  # per-topic strings (trec_eval's relstring): {run: {measure: {topic: text}}}
            r.run: {n: dict(zip(r.topics, v, strict=True)) for n, v in r.text.items()} for r in results
        }

    def aggregates(self) -> dict[str, MeasureDict]:
        """``{run: {measure: value}}``: each run's 'all' line (mean over topics for most measures).

        Keyed by measure names; an ir_measures Measure object finds its value too (``[nDCG@10]``).
        """
        return {
            r.run: MeasureDict((n, float(r.summary[n])) for n in r.names if _numeric(r, n)) for r in self.raw
        }

    def per_topic(self) -> dict[str, MeasureDict]:
        """``{run: {measure: {topic: value}}}``; measures with only an aggregate (num_q) are left out."""
        return {
            r.run: MeasureDict(
                (n, dict(zip(r.topics, map(float, r.per_topic[n].tolist()), strict=True)))
                for n in r.names
                if _numeric(r, n) and n not in r.summary_only
            )
            for r in self.raw
        }

    def rows(
        self, *, per_topic: bool = True, aggregate: bool = True
    ) -> Iterator[tuple[str, str, str, float]]:
        """(run, topic, measure, value) tuples: per-topic values first, then the aggregates (topic 'all')."""
        for r in self.raw:
            names = [n for n in r.names if _numeric(r, n)]
            if per_topic:
                for n in names:
                    if n in r.summary_only:
                        continue
                    for topic, value in zip(r.topics, r.per_topic[n].tolist(), strict=True):
                        yield r.run, topic, n, float(value)
            if aggregate:
                for n in names:
                    yield r.run, ALL, n, float(r.summary[n])

    def to_frame(self, *, per_topic: bool = True, aggregate: bool = True, wide: bool = False) -> Any:
        """A pandas DataFrame, long format: columns run, topic, measure, value (aggregate: topic "all").

        ``wide=True`` pivots it: one row per (run, topic), one column per measure.
        """
        df = frame(
            list(self.rows(per_topic=per_topic, aggregate=aggregate)), ["run", "topic", "measure", "value"]
        )
        if not wide:
            return df
        out = df.pivot_table(
            index=["run", "topic"], columns="measure", values="value", sort=False, dropna=False
        )
        return out[[m for m in self.measures if m in out.columns]]

    def _repr_html_(self) -> str | None:
        """In a notebook: the aggregates as a table (runs x measures); plain repr without pandas."""
        try:
            pd = pandas()
        except PandasMissing:
            return None
        table = pd.DataFrame.from_dict(self.aggregates(), orient="index").reindex(columns=self.measures)
        return str(table._repr_html_())

    def __repr__(self) -> str:
        lines = [f"Results: {len(self.runs)} run(s), measures {', '.join(self.measures)}"]
        for run, values in self.aggregates().items():
            lines.append(f"  {run}: " + ", ".join(f"{m}={v:.4f}" for m, v in values.items()))
        return "\n".join(lines)


def _numeric(result: RunResult, name: str) -> bool:
    """A number, not runid (the run's tag) nor a per-topic string (relstring)."""
    return name != "runid" and name not in result.text


def evaluate(
    qrels: Any,
    runs: Any,
    measures: Any = None,
    *,
    level: int = 1,
    judged_only: bool = False,
    complete: bool = False,
    max_docs: int | None = None,
    num_docs: int = 0,
    design: str = "qrels",
    rel_format: str = "qrels",
    sample_version: str = "trec2011",
    prior: str = "third",
    zscores: str | os.PathLike[str] | None = None,
    threads: int | None = None,
) -> Results:
    """Evaluate ``runs`` against ``qrels`` as ``manage.py evaluate`` does; see docs/python_api.md.

    ``measures``: names in any vocabulary (trec_eval ``map``, ``P.10``, ``all_trec``; ir_measures
    ``nDCG@10``, ``P(rel=2)@5``; pytrec_eval ``P_10``) and ir_measures Measure objects; default the
    command's (``official``; ``sample_eval`` with ``design="prel"``, ``statAP`` with ``"mq"``).
    Options mirror the command: ``level`` -l, ``judged_only`` -J, ``complete`` -c, ``max_docs`` -M,
    ``num_docs`` -N, ``design`` --prel / --mq-prel, ``rel_format`` -R, ``zscores`` -Z,
    ``sample_version`` / ``prior`` as the command's flags, ``threads`` --threads.
    """
    if max_docs is not None and max_docs < 1:
        raise InputError("max_docs takes a positive number of documents")
    specs = measure_specs(measures) or [DEFAULT_MEASURES.get(design, "official")]
    options = EvalOptions(
        level=level,
        max_docs=max_docs,
        judged_only=judged_only,
        complete=complete,
        sample_variant=sample_version,
        sample_prior=prior,
        num_docs_in_coll=num_docs,
    )
    sources = run_sources(runs)
    if rel_format != "qrels":
        return _checked(list(_prefs(qrels, sources, specs, options, rel_format)))
    parsed = parse_measures(specs, design=design, sample_variant=sample_version)  # MeasureError first
    judgments = to_judgments(qrels, design)
    z = read_zscores(str(zscores)) if zscores is not None else None
    if all(s.is_file for s in sources):  # the command's own path: reader threads overlap evaluation
        paths = [str(s.source) for s in sources]
        names = [s.name for s in sources]
        found = evaluate_files(judgments, paths, parsed, options, names=names, workers=threads, zscores=z)
        return _checked(list(found))
    return _checked(_evaluate_in_memory(judgments, sources, parsed, options, z, threads))


def _checked(results: list[RunResult]) -> Results:
    """Results, unless a run shares no topic with the qrels: then :class:`InputError` (trec_eval exits 7)."""
    for result in results:
        refused = no_common_topic(result)
        if refused:
            raise InputError(refused)
    return Results(results)


def _evaluate_in_memory(
    judgments: Judgments,
    sources: Sequence[RunSource],
    measures: Sequence[Any],
    options: EvalOptions,
    zscores: Any,
    threads: int | None,
) -> list[RunResult]:
    """Runs held in memory (frames, dicts, records) or mixed with files: built, then evaluated."""

    def job(source: RunSource) -> RunResult:
        return evaluate_run(judgments, to_run(source.source, source.name), measures, options, zscores=zscores)

    workers = threads if threads is not None else min(4, os.cpu_count() or 1)
    if workers <= 1 or len(sources) <= 1:
        return [job(s) for s in sources]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(job, sources))


def _prefs(
    qrels: Any, sources: list[RunSource], specs: list[str], options: EvalOptions, rel_format: str
) -> Iterator[RunResult]:
    """``-R prefs|qrels_prefs|qrels_jg``: trec_eval's preference formats, files only."""
    if rel_format not in PREFS_FORMATS:
        raise InputError(f"rel_format must be qrels, {', '.join(PREFS_FORMATS)}, not {rel_format!r}")
    if not is_path(qrels) or not all(s.is_file for s in sources):
        raise InputError(f"rel_format={rel_format!r} takes a judgments file path and run file paths")
    from engine.prefs import evaluate_prefs_files

    paths = [str(s.source) for s in sources]
    return evaluate_prefs_files(str(qrels), paths, specs, options, rel_format, [s.name for s in sources])
