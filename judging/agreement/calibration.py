"""A machine assessor calibrated against the humans (pure: no Django).

The humans' labels are combined into one consensus label per document (:mod:`judging.consensus`,
majority by default, the machine's vote never counted), and the agreement core compares that
consensus with the machine exactly as it compares two assessors
(:func:`judging.agreement.summary.agreement_report` on the two label sets): the κ family overall,
per topic and binarized, the bootstrap CIs, the confusion matrix (consensus in rows, machine in
columns) and, with runs, the system rankings under each (Kendall τ_b, τ_AP both ways, τ_AP,b,
RBO). On top: how far any run moves between the two rankings (the largest rank change, and the
run), and the topics where the machine disagrees with the humans most.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from engine.measures.base import EvalOptions
from judging.agreement.labels import LabelSource, as_labels, labels_from_triples
from judging.agreement.report import PairReport
from judging.agreement.summary import AgreementReport, agreement_report
from judging.agreement.systems import DEFAULT_MEASURES, SystemCorrelation
from judging.consensus import final_labels
from trec.runs import RankedRun

HUMANS = "humans"


@dataclass(frozen=True)
class TopicDisagreement:
    topic: str
    items: int  # documents both the consensus and the machine graded
    agree: int
    disagree: int
    p_o: float  # agree / items
    largest: int  # the largest |human - machine| grade distance on the topic


@dataclass(frozen=True)
class RankShift:
    """A measure's largest rank change of a run between the humans' and the machine's rankings."""

    measure: str
    run: str
    human_rank: int
    machine_rank: int

    @property
    def change(self) -> int:
        return self.machine_rank - self.human_rank


@dataclass(frozen=True)
class Calibration:
    machine: str
    rule: str
    humans: tuple[str, ...]
    report: AgreementReport  # the agreement core's report of (humans' consensus, machine)
    topics: list[TopicDisagreement]  # worst first

    @property
    def pair(self) -> PairReport:
        return self.report.pairs[0]

    @property
    def confusion(self) -> np.ndarray:
        """Consensus grade (rows) x machine grade (columns), over ``self.pair.labels``."""
        return self.pair.overall.counts

    @property
    def correlations(self) -> list[SystemCorrelation]:
        return self.report.systems.correlations if self.report.systems is not None else []

    def shifts(self) -> list[RankShift]:
        """Per measure, the run whose rank changes most (ties: the first run by name)."""
        systems = self.report.systems
        if systems is None:
            return []
        out = []
        for m in systems.measures:
            human = systems.means.get(HUMANS, {}).get(m, {})
            machine = systems.means.get(self.machine, {}).get(m, {})
            if not human or not machine:
                continue
            hr = _ranks(human)
            mr = _ranks(machine)
            run = max(sorted(hr), key=lambda r: abs(mr[r] - hr[r]))
            out.append(RankShift(m, run, hr[run], mr[run]))
        return out


def _ranks(means: Mapping[str, float]) -> dict[str, int]:
    """1 = best; ties broken by run name (as the RBO of the agreement core breaks them)."""
    ordered = sorted(means, key=lambda r: (-means[r], r))
    return {r: i + 1 for i, r in enumerate(ordered)}


def consensus_of(human_sets: Mapping[str, LabelSource], rule: str = "majority") -> list[tuple[str, str, int]]:
    """The humans' consensus label of every document at least one of them graded."""
    votes: dict[tuple[str, str], dict[str, int | None]] = {}
    for name, source in human_sets.items():
        labels = as_labels(source)
        for t, d, g in zip(
            labels.topics.tolist(), labels.docnos.tolist(), labels.grades.tolist(), strict=True
        ):
            if g >= 0:  # a negative grade is "pooled, not judged": no vote
                votes.setdefault((str(t), d.decode() if isinstance(d, bytes) else str(d)), {})[name] = int(g)
    final = final_labels(votes, rule)
    return sorted(((t, d, g) for (t, d), g in final.items() if g is not None), key=lambda r: (r[0], r[1]))


def calibrate(
    human_sets: Mapping[str, LabelSource],
    machine: LabelSource,
    machine_name: str,
    *,
    rule: str = "majority",
    threshold: int = 1,
    scale: Sequence[int] | None = None,
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
    runs: Sequence[RankedRun] | None = None,
    measures: Sequence[str] = DEFAULT_MEASURES,
    options: EvalOptions | None = None,
    worst: int = 20,
) -> Calibration:
    """The machine's calibration (see the module's doc); ``worst`` topics are listed."""
    if not human_sets:
        raise ValueError("calibration needs at least one human assessor")
    if machine_name == HUMANS or machine_name in human_sets:
        raise ValueError(f"the machine's name '{machine_name}' is taken")
    consensus = labels_from_triples(consensus_of(human_sets, rule))
    report = agreement_report(
        {HUMANS: consensus, machine_name: machine},
        threshold=threshold,
        scale=scale,
        bootstrap=bootstrap,
        seed=seed,
        confidence=confidence,
        runs=runs,
        measures=measures,
        options=options,
    )
    pair = report.pairs[0]
    cats = np.asarray(pair.labels)
    distance = np.abs(cats[:, None] - cats[None, :])
    topics = []
    for topic, per in pair.per_topic.items():
        table = per.counts
        n = int(table.sum())
        agree = int(np.trace(table))
        largest = int(distance[table > 0].max()) if n else 0
        topics.append(
            TopicDisagreement(topic, n, agree, n - agree, agree / n if n else float("nan"), largest)
        )
    topics.sort(key=lambda d: (d.p_o, -d.disagree, d.topic.encode()))
    return Calibration(machine_name, rule, tuple(human_sets), report, topics[:worst])
