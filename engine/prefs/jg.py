"""Judgment-group qrels (``-R qrels_jg``): map_avgjg, P_avgjg, Rprec_mult_avgjg of trec_eval 10.0.

``form_res_rels_jg.c`` evaluates the run against each judgment group of a topic as if that group
were the topic's whole qrels (``-J``, ``-M`` and ``-l`` apply per group, ties broken by docno
descending as for ordinary qrels), and ``m_map_avgjg.c``, ``m_P_avgjg.c``, ``m_Rprec_mult_avgjg.c``
average the ordinary measure over the topic's groups:
value(topic) = Σ_g value_g, divided by the number of groups when there is more than one.

Here each (topic, group) becomes one virtual topic of an ordinary :class:`~engine.evaluate.Judgments`,
the run's ranking of the topic is repeated for each of its groups, and the engine's own ``map``,
``P`` and ``Rprec_mult`` kernels (``engine.measures.trec_eval``, ``trec_eval_extra``) score them.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from engine.evaluate import Judgments, evaluate_run
from engine.measures.base import EvalOptions, Measure
from engine.prefs.names import PrefsRequest, p_avgjg_name, rprec_mult_avgjg_name
from trec.prefs_files import JgQrels
from trec.qrels import qrels_from_arrays
from trec.runs import RankedRun


class JgJudgments:
    """A qrels_jg file prepared once for any number of runs."""

    def __init__(self, q: JgQrels) -> None:
        order = np.lexsort((q.jg, q.qid))  # topics, then groups, in byte order (trec_eval's strcmp)
        qid, jg = q.qid[order], q.jg[order]
        new = np.r_[True, (qid[1:] != qid[:-1]) | (jg[1:] != jg[:-1])]
        vindex = np.cumsum(new) - 1
        heads = np.flatnonzero(new)
        self.keys = [f"{v:09d}" for v in range(len(heads))]
        self.vtopic = [t.decode(errors="replace") for t in qid[heads].tolist()]
        self.topics: list[str] = list(dict.fromkeys(self.vtopic))
        self.groups: dict[str, list[int]] = {}
        for v, t in enumerate(self.vtopic):
            self.groups.setdefault(t, []).append(v)
        line_keys = np.array([k.encode() for k in self.keys], dtype="S9")[vindex]
        self.judgments = Judgments(
            qrels_from_arrays(line_keys, q.docno[order], q.rel[order], path=q.path, lines=q.line[order])
        )

    def _virtual_run(self, run: RankedRun, topics: list[str]) -> RankedRun:
        """The run with each topic's ranking repeated once per judgment group of the topic."""
        index = {t: i for i, t in enumerate(run.topics)}
        vs = [v for t in topics if t in index for v in self.groups[t]]
        seg = np.array([index[self.vtopic[v]] for v in vs], dtype=np.int64)
        starts = run.offsets[seg] if len(seg) else np.zeros(0, dtype=np.int64)
        lengths = run.offsets[seg + 1] - starts if len(seg) else np.zeros(0, dtype=np.int64)
        offsets = np.r_[0, np.cumsum(lengths)].astype(np.int64)
        rows = np.arange(int(offsets[-1]), dtype=np.int64) - np.repeat(offsets[:-1] - starts, lengths)
        hashes = run.docno_hashes[rows] if run.docno_hashes is not None else None
        return dataclasses.replace(
            run,
            topics=tuple(self.keys[v] for v in vs),
            offsets=offsets,
            docnos=run.docnos[rows],
            scores=run.scores[rows],
            docno_hashes=hashes,
        )

    def evaluate(
        self, run: RankedRun, request: PrefsRequest, options: EvalOptions
    ) -> tuple[list[str], list[str], dict[str, np.ndarray]]:
        """(evaluated topics, missing topics, per-topic values) of the judgment-group measures asked for."""
        present = set(run.topics)
        missing = [t for t in self.topics if t not in present]
        topics = self.topics if options.complete else [t for t in self.topics if t in present]
        measures: list[Measure] = []
        if "map_avgjg" in request.names:
            measures.append(Measure("map", name="map_avgjg"))
        if "P_avgjg" in request.names:
            measures += [Measure("P", k, name=p_avgjg_name(k)) for k in request.p_cutoffs]
        if "Rprec_mult_avgjg" in request.names:
            measures += [
                Measure("Rprec_mult", c, name=rprec_mult_avgjg_name(c)) for c in request.rprec_cutoffs
            ]
        if not measures:
            return topics, missing, {}
        result = evaluate_run(self.judgments, self._virtual_run(run, topics), measures, options)
        position = {key: i for i, key in enumerate(result.topics)}
        out: dict[str, np.ndarray] = {}
        for m in measures:
            values = result.per_topic[m.name]
            column = np.zeros(len(topics))
            for i, t in enumerate(topics):
                groups = self.groups[t]
                total = 0.0
                for v in groups:  # trec_eval adds the groups' values in group order, then divides
                    total += float(values[position[self.keys[v]]])
                column[i] = total / len(groups) if len(groups) > 1 else total
            out[m.name] = column
        return topics, missing, out
