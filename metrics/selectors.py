"""Reads for the metrics pages."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from metrics.evaluate import Judgments, evaluate_run
from metrics.names import parse_measures
from trec import read_qrels, read_run, read_topics

LEADERBOARD_MEASURES = ["map", "bpref", "infAP", "ndcg_cut.10", "P.10", "recip_rank"]


@dataclass(frozen=True)
class LeaderboardRow:
    run: str
    values: list[float]


@dataclass(frozen=True)
class Leaderboard:
    collection: str
    topics: int
    judgments: int
    measures: list[str]
    rows: list[LeaderboardRow]


def demo_leaderboard(demo_dir: Path | None = None) -> Leaderboard:
    """The demo collection's runs evaluated against its qrels, best MAP first."""
    folder = Path(demo_dir or settings.WORKBENCH_DEMO_DIR)
    qrels = read_qrels(folder / "qrels.txt")
    judgments = Judgments(qrels)
    measures = parse_measures(LEADERBOARD_MEASURES)
    rows = []
    names: list[str] = []
    for path in sorted((folder / "runs").glob("*.run")):
        result = evaluate_run(judgments, read_run(path), measures)
        names = result.names
        rows.append(LeaderboardRow(result.run, [result.summary[n] for n in names]))
    rows.sort(key=lambda r: -r.values[0])
    return Leaderboard(
        collection=folder.name,
        topics=len(read_topics(folder / "topics.txt")),
        judgments=len(qrels),
        measures=names,
        rows=rows,
    )
