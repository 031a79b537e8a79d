"""A small graded test collection written to files, shared by the API tests.

Six topics, three runs of 25 documents each: grades 0-3, some pooled-but-unjudged (-1) lines,
tied scores (so the canonical order's docno tie-break matters), a qrels topic no run retrieves
for, and a run topic absent from the qrels.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pytest

TOPICS = ["401", "402", "403", "404", "405", "406"]
RUNS = ["bm25", "dense", "rerank"]


@dataclass
class Collection:
    qrels: Path
    runs: dict[str, Path]
    qrels_rows: list[tuple[str, str, int]]
    run_rows: dict[str, list[tuple[str, str, float]]]


def _make(folder: Path) -> Collection:
    rng = random.Random(11)
    qrels_rows: list[tuple[str, str, int]] = []
    for t in TOPICS:
        for d in range(40):
            if rng.random() < 0.6:
                qrels_rows.append((t, f"D{t}-{d:02d}", rng.choice([0, 0, 0, 1, 1, 2, 3, -1])))
    qrels_rows.append(("499", "D499-00", 1))  # judged topic that no run retrieves for
    run_rows: dict[str, list[tuple[str, str, float]]] = {}
    for r in RUNS:
        rows = []
        for t in [*TOPICS, "777"]:  # 777: not in the qrels
            if r == "rerank" and t == "406":
                continue  # one run misses a qrels topic
            docs = rng.sample(range(60), 25)
            for d in docs:
                rows.append((t, f"D{t}-{d:02d}", float(rng.choice([1.0, 1.5, 2.0, 2.25, 3.0, 4.5, 7.0]))))
        run_rows[r] = rows
    folder.mkdir(parents=True, exist_ok=True)
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 {d} {g}\n" for t, d, g in qrels_rows))
    runs = {}
    for r, rows in run_rows.items():
        path = folder / f"{r}.run"
        path.write_text("".join(f"{t} Q0 {d} {i} {s!r} tag_{r}\n" for i, (t, d, s) in enumerate(rows, 1)))
        runs[r] = path
    return Collection(qrels, runs, qrels_rows, run_rows)


@pytest.fixture(scope="session")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Collection:
    return _make(tmp_path_factory.mktemp("api"))
