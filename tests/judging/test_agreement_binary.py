"""Agreement of the labels binarized at the threshold (relevant = grade ≥ L), as TREC papers report κ.

One hand-computed 0–2 table, rows assessor A, columns B (13 items):

    A\\B  0  1  2
     0   4  2  0
     1   1  2  1
     2   0  1  2

At L = 1 (relevant = 1 or 2) it sums to [[4, 2], [1, 6]]: P_o = 10/13; A's marginals (6, 7)/13,
B's (5, 8)/13; Cohen P_e = (6·5 + 7·8)/169 = 86/169, κ = (130 − 86)/(169 − 86) = 44/83; pooled
π = (11, 15)/26, P_e = (121 + 225)/676 = 346/676, pooled κ = (520 − 346)/(676 − 346) = 29/55;
AC1 P_e = 2·(11/26)(15/26) = 330/676, AC1 = (520 − 330)/(676 − 330) = 95/173.

At L = 2 (relevant = 2 only) it sums to [[9, 1], [1, 2]]: P_o = 11/13; both marginals (10, 3)/13;
P_e = (100 + 9)/169 = 109/169, κ = pooled κ = (143 − 109)/(169 − 109) = 17/30; AC1 P_e =
2·10·3/169 = 60/169, AC1 = (143 − 60)/(169 − 60) = 83/109.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from judging.agreement import (
    BINARY_STATISTICS,
    PAIR_STATISTICS,
    agreement_report,
    binary_agreement,
    cohen_kappa,
    report_as_dict,
    table_agreement,
)

GRADED = [[4, 2, 0], [1, 2, 1], [0, 1, 2]]
EXPECTED: dict[int, dict[str, Any]] = {
    1: {"matrix": [[4, 2], [1, 6]], "p_o": 10 / 13, "cohen": 44 / 83, "pooled": 29 / 55, "ac1": 95 / 173},
    2: {"matrix": [[9, 1], [1, 2]], "p_o": 11 / 13, "cohen": 17 / 30, "pooled": 17 / 30, "ac1": 83 / 109},
}


def pairs_of(table: list[list[int]]) -> list[tuple[int, int]]:
    return [(i, j) for i, row in enumerate(table) for j, n in enumerate(row) for _ in range(n)]


def label_sets(topic: str = "1") -> dict[str, list[tuple[str, str, int]]]:
    cells = pairs_of(GRADED)
    return {
        "alice": [(topic, f"d{k}", a) for k, (a, _) in enumerate(cells)],
        "bob": [(topic, f"d{k}", b) for k, (_, b) in enumerate(cells)],
    }


@pytest.mark.parametrize("threshold", [1, 2])
def test_binarized_statistics_match_the_hand_computed_table(threshold: int) -> None:
    want = EXPECTED[threshold]
    b = binary_agreement(GRADED, (0, 1, 2), threshold)
    assert b.threshold == threshold and b.n == 13
    assert b.counts.tolist() == want["matrix"]
    assert b.p_o == pytest.approx(want["p_o"], abs=1e-12)
    assert b.cohen.value == pytest.approx(want["cohen"], abs=1e-12)
    assert b.pooled.value == pytest.approx(want["pooled"], abs=1e-12)
    assert b.ac1.value == pytest.approx(want["ac1"], abs=1e-12)
    # the SE and CI are Cohen's κ's of the 2 × 2 table
    assert b.cohen == cohen_kappa(want["matrix"])
    # the batched path of table_agreement gives the same block
    s = table_agreement(GRADED, (0, 1, 2), threshold=threshold).binary
    assert s.counts.tolist() == want["matrix"]
    for name in ("cohen", "pooled", "ac1"):
        assert getattr(s, name).value == pytest.approx(getattr(b, name).value, abs=1e-12)
    assert s.cohen.se == pytest.approx(b.cohen.se, abs=1e-12)


def test_binarized_kappa_differs_from_the_graded_one() -> None:
    s = table_agreement(GRADED, (0, 1, 2), threshold=1)
    # graded P_o = (4 + 2 + 2)/13 = 8/13; binarized 10/13: the 1-vs-2 disagreements vanish
    assert s.p_o == pytest.approx(8 / 13, abs=1e-12)
    assert s.binary.p_o == pytest.approx(10 / 13, abs=1e-12)
    assert s.binary.cohen.value != pytest.approx(s.cohen.value, abs=1e-6)


def test_one_side_of_the_threshold_empty_leaves_kappa_undefined() -> None:
    # everybody said 0 or 1: at L = 2 nobody found anything relevant, P_e = 1
    b = binary_agreement([[3, 1], [0, 2]], (0, 1), 2)
    assert b.counts.tolist() == [[6, 0], [0, 0]]
    assert math.isnan(b.cohen.value) and math.isnan(b.pooled.value)
    assert b.ac1.value == pytest.approx(1.0)  # P_o = 1, AC1 P_e = 0


def test_report_pools_the_binarized_statistics_over_topics() -> None:
    # topic 1: the table above; topic 2: the same table again; concatenated = 2× the table (same κ)
    sets = label_sets("1")
    for name, rows in label_sets("2").items():
        sets[name] = sets[name] + rows
    report = agreement_report(sets, threshold=1)
    (p,) = report.pairs
    assert set(BINARY_STATISTICS) <= set(PAIR_STATISTICS)
    assert p.overall.binary.counts.tolist() == (2 * np.asarray(EXPECTED[1]["matrix"])).tolist()
    for stat, key in (("binary_cohen", "cohen"), ("binary_pooled", "pooled"), ("binary_ac1", "ac1")):
        pooled = p.pooled[stat]
        assert pooled.concatenated == pytest.approx(EXPECTED[1][key], abs=1e-12)
        assert pooled.mean_per_topic == pytest.approx(EXPECTED[1][key], abs=1e-12)
        assert pooled.de_vries == pytest.approx(EXPECTED[1][key], abs=1e-12)
        assert pooled.topics == 2
    assert p.per_topic["2"].binary.cohen.value == pytest.approx(44 / 83, abs=1e-12)


@pytest.mark.parametrize("threshold", [1, 2])
def test_report_json_states_the_threshold_of_the_binarized_block(threshold: int) -> None:
    data = report_as_dict(agreement_report(label_sets(), threshold=threshold))
    binary = data["pairs"][0]["overall"]["binary"]
    assert binary["threshold"] == threshold
    assert binary["labels"] == [f"< {threshold}", f">= {threshold}"]
    assert binary["matrix"] == EXPECTED[threshold]["matrix"]
    assert binary["cohen"]["value"] == pytest.approx(EXPECTED[threshold]["cohen"], abs=1e-12)
    assert binary["ac1"]["se"] is None  # no SE for AC1: JSON null
    assert data["pairs"][0]["per_topic"]["1"]["binary"]["matrix"] == EXPECTED[threshold]["matrix"]


# ------------------------------------------------------------------------------ the command


def qrels_files(tmp_path: Path) -> tuple[Path, Path]:
    paths = []
    for name, rows in label_sets().items():
        path = tmp_path / f"{name}.qrels"
        path.write_text("".join(f"{t} 0 {d} {g}\n" for t, d, g in rows))
        paths.append(path)
    return paths[0], paths[1]


@pytest.mark.parametrize("threshold", [1, 2])
def test_command_json_has_the_binarized_block(tmp_path: Path, threshold: int) -> None:
    a, b = qrels_files(tmp_path)
    out = io.StringIO()
    call_command("agreement", str(a), str(b), "--threshold", str(threshold), "--format", "json", stdout=out)
    data = json.loads(out.getvalue())
    assert data["threshold"] == threshold
    binary = data["pairs"][0]["overall"]["binary"]
    assert binary["threshold"] == threshold and binary["matrix"] == EXPECTED[threshold]["matrix"]
    assert binary["pooled"]["value"] == pytest.approx(EXPECTED[threshold]["pooled"], abs=1e-12)
    assert data["pairs"][0]["pooled"]["binary_ac1"]["concatenated"] == pytest.approx(
        EXPECTED[threshold]["ac1"], abs=1e-12
    )


def test_command_text_prints_the_binarized_block_with_its_threshold(tmp_path: Path) -> None:
    a, b = qrels_files(tmp_path)
    out = io.StringIO()
    call_command("agreement", str(a), str(b), "--threshold", "2", "--digits", "4", stdout=out)
    text = out.getvalue()
    assert "labels binarized at the threshold (relevant = grade >= 2)" in text
    row = next(line for line in text.splitlines() if line.startswith("alice  bob") and "0.8462" in line)
    # P_o 11/13, κ 17/30, pooled κ 17/30, AC1 83/109
    assert row.split()[3:5] == ["0.8462", "0.5667"]
    assert row.split()[-2:] == ["0.5667", "0.7615"]
    assert "binarized confusion matrix (relevant = grade >= 2; rows alice, columns bob):" in text
    assert "binarized: Cohen kappa" in text  # pooled over topics, beside the graded statistics
    lines = text.splitlines()
    at = lines.index("binarized confusion matrix (relevant = grade >= 2; rows alice, columns bob):")
    assert lines[at + 2].split() == ["<", "2", "9", "1"]
    assert lines[at + 3].split() == [">=", "2", "1", "2"]


# ------------------------------------------------------------------------------ the report page


@pytest.fixture
def graded(campaign: Any, tmp_path: Path, assessor: Any, co_assessor: Any) -> Any:
    """alice and bob judge 13 documents of topic 1 on the 0–2 scale so that they cross-tabulate to GRADED."""
    from campaigns.services import runs_import, topics_import
    from judging.models import Assignment
    from judging.services import assignments_create, judgment_record
    from pooling.services import pool_build, pool_commit
    from pooling.spec import PoolSpec

    (tmp_path / "topics.tsv").write_text("1\tbinarized\n")
    cells = pairs_of(GRADED)
    docnos = [f"D{k:02d}" for k in range(len(cells))]
    (tmp_path / "r.run").write_text("".join(f"1 Q0 {d} {i + 1} {99 - i} r\n" for i, d in enumerate(docnos)))
    topics_import(campaign=campaign, path=tmp_path / "topics.tsv")
    runs_import(campaign=campaign, paths=[tmp_path / "r.run"])
    pool = pool_commit(pool=pool_build(campaign=campaign, name="all", spec=PoolSpec("depth", depth=100)))
    assignments_create(campaign=campaign, pool=pool, assessors=[assessor, co_assessor], k=2)
    for user, side in ((assessor, 0), (co_assessor, 1)):
        a = Assignment.objects.get(pool=pool, assessor=user, topic__number="1")
        for docno, cell in zip(docnos, cells, strict=True):
            judgment_record(assessor=user, assignment=a, docno=docno, grade=cell[side], cant_judge=False)
    return campaign


@pytest.mark.django_db
def test_report_page_shows_the_binarized_block_beside_the_graded_one(graded: Any, organizer: Any) -> None:
    from tests.conftest import PASSWORD

    client = Client()
    assert client.login(username=organizer.username, password=PASSWORD)
    response = client.post(
        reverse("judging:agreement", args=[graded.slug]),
        {"threshold": 2, "bootstrap": 0, "seed": 0, "decimals": 7},
        follow=True,
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="binary-alice-bob"' in html
    assert "Binarized: relevant = grade ≥ 2" in html
    assert f"{17 / 30:.7f}" in html  # binarized κ = pooled κ = 17/30
    assert f"{83 / 109:.7f}" in html  # binarized AC1
    assert "binarized: Cohen κ" in html  # the pooled readings
    # the 2 × 2 matrix [[9, 1], [1, 2]] under the "< 2" / ">= 2" headers
    block = html[html.index('id="binary-alice-bob"') :]
    block = block[block.index("binary-confusion") :]
    assert "<th>&lt; 2</th><td>9</td><td>1</td>" in block
    assert "<th>&gt;= 2</th><td>1</td><td>2</td>" in block
