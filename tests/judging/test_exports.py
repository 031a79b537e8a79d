"""Exports of a tiny hand-judged campaign: exact lines per kind, prels, CSV, the command, round trips."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from campaigns.models import Campaign, Topic
from campaigns.services import membership_add, runs_import, topics_import
from judging.exports import CSV_COLUMNS, export_file
from judging.models import Assignment
from judging.services import JudgingRefused, adjudication_decide, assignments_create, judgment_record
from pooling.models import PoolDocument
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD
from trec import read_mq_prel, read_prel, read_qrels

pytestmark = pytest.mark.django_db

RUN = """401 Q0 d1 1 4.0 r
401 Q0 d2 2 3.0 r
401 Q0 d3 3 2.0 r
402 Q0 d4 1 2.0 r
402 Q0 d5 2 1.0 r
"""
# (topic, docno): grades of alice, bob, carol (None = can't judge)
VOTES = {
    ("401", "d1"): (2, 2, 1),
    ("401", "d2"): (0, 1, 2),
    ("401", "d3"): (1, None, 1),
    ("402", "d4"): (None, None, None),
    ("402", "d5"): (0, 2, 0),
}


def lines(*rows: str) -> str:
    return "".join(r + "\n" for r in rows)


@pytest.fixture
def carol(campaign: Campaign) -> Any:
    user = get_user_model().objects.create_user(username="carol", password=PASSWORD)
    membership_add(campaign=campaign, user=user, roles=["assessor"])
    return user


@pytest.fixture
def tiny(
    campaign: Campaign, tmp_path: Path, assessor: Any, co_assessor: Any, carol: Any, adjudicator: Any
) -> Campaign:
    """Three assessors judged every document of a depth-3 pool (VOTES); ada decided 402/d5 = 2."""
    (tmp_path / "topics.tsv").write_text("401\tpooling bias\n402\tassessor agreement\n")
    (tmp_path / "r.run").write_text(RUN)
    topics_import(campaign=campaign, path=tmp_path / "topics.tsv")
    runs_import(campaign=campaign, paths=[tmp_path / "r.run"])
    pool = pool_commit(pool=pool_build(campaign=campaign, name="p", spec=PoolSpec("depth", depth=3)))
    people = [assessor, co_assessor, carol]
    assignments_create(campaign=campaign, pool=pool, assessors=people, k=3, order="docno")
    for (topic, docno), grades in VOTES.items():
        for user, grade in zip(people, grades, strict=True):
            a = Assignment.objects.get(pool=pool, assessor=user, topic__number=topic)
            extra: dict[str, Any] = (
                {"comment": "clear", "active_ms": 1500} if (user, docno) == (assessor, "d1") else {}
            )
            judgment_record(
                assessor=user, assignment=a, docno=docno, grade=grade, cant_judge=grade is None, **extra
            )
    t402 = Topic.objects.get(campaign=campaign, number="402")
    adjudication_decide(adjudicator=adjudicator, campaign=campaign, topic=t402.number, docno="d5", grade=2)
    return campaign


def text(campaign: Campaign, kind: str, **kw: Any) -> str:
    return export_file(campaign=campaign, kind=kind, **kw)[0]


def test_assessor_qrels_write_cant_judge_as_minus_one(tiny: Campaign) -> None:
    body, name = export_file(campaign=tiny, kind="assessor", assessor="alice")[:2]
    assert body == lines("401 0 d1 2", "401 0 d2 0", "401 0 d3 1", "402 0 d4 -1", "402 0 d5 0")
    assert name == "trec-demo-alice.qrels"
    assert text(tiny, "assessor", assessor="bob") == lines(
        "401 0 d1 2", "401 0 d2 1", "401 0 d3 -1", "402 0 d4 -1", "402 0 d5 2"
    )


def test_consensus_qrels_under_each_rule(tiny: Campaign) -> None:
    # d2 votes 0 1 2: majority is a three-way tie -> lowest 0; median of 0 1 2 -> 1
    # d5 votes 0 2 0: majority and median 0; the adjudicator decided 2
    # d4: nobody could judge -> -1
    assert text(tiny, "consensus", rule="majority") == lines(
        "401 0 d1 2", "401 0 d2 0", "401 0 d3 1", "402 0 d4 -1", "402 0 d5 0"
    )
    assert text(tiny, "consensus", rule="median") == lines(
        "401 0 d1 2", "401 0 d2 1", "401 0 d3 1", "402 0 d4 -1", "402 0 d5 0"
    )
    adjudicated = lines("401 0 d1 2", "401 0 d2 0", "401 0 d3 1", "402 0 d4 -1", "402 0 d5 2")
    assert text(tiny, "consensus", rule="adjudicated") == adjudicated
    body, name = export_file(campaign=tiny, kind="adjudicated", rule="median")[:2]  # the kind fixes the rule
    assert (body, name) == (adjudicated, "trec-demo-adjudicated.qrels")


def test_binarized_qrels(tiny: Campaign) -> None:
    # majority grades 2 0 1 -1 0 at threshold 2 -> 1 0 0 -1 0
    assert text(tiny, "binary", rule="majority", threshold=2) == lines(
        "401 0 d1 1", "401 0 d2 0", "401 0 d3 0", "402 0 d4 -1", "402 0 d5 0"
    )
    # adjudicated grades 2 0 1 -1 2 at threshold 1 -> 1 0 1 -1 1
    assert text(tiny, "binary", rule="adjudicated", threshold=1) == lines(
        "401 0 d1 1", "401 0 d2 0", "401 0 d3 1", "402 0 d4 -1", "402 0 d5 1"
    )


def test_prel_and_mq_of_a_depth_pool_carry_the_consensus(tiny: Campaign) -> None:
    # a depth pool judges everything: one stratum "1", inclusion probability 1
    assert text(tiny, "prel") == lines(
        "401 1 d1 1 2", "401 1 d2 1 0", "401 1 d3 1 1", "402 1 d4 1 -1", "402 1 d5 1 0"
    )
    assert text(tiny, "mq", rule="adjudicated", pool="p") == lines(
        "401 d1 2 depth 1.0",
        "401 d2 0 depth 1.0",
        "401 d3 1 depth 1.0",
        "402 d4 -1 depth 1.0",
        "402 d5 2 depth 1.0",
    )


def test_every_qrels_kind_round_trips_through_the_readers(tiny: Campaign, tmp_path: Path) -> None:
    expected = {"401": {"d1": 2, "d2": 1, "d3": 1}, "402": {"d4": -1, "d5": 0}}
    path = tmp_path / "median.qrels"
    path.write_text(text(tiny, "consensus", rule="median"))
    assert read_qrels(path).as_dict() == expected
    path = tmp_path / "alice.qrels"
    path.write_text(text(tiny, "assessor", assessor="alice"))
    assert read_qrels(path).as_dict() == {"401": {"d1": 2, "d2": 0, "d3": 1}, "402": {"d4": -1, "d5": 0}}
    path = tmp_path / "p.prel"
    path.write_text(text(tiny, "prel", rule="median"))
    prel = read_prel(path)
    assert prel.qrels.as_dict() == expected
    assert set(prel.strata.tolist()) == {b"1"}
    path = tmp_path / "p.mq"
    path.write_text(text(tiny, "mq", rule="median"))
    mq = read_mq_prel(path)
    assert mq.qrels.as_dict() == expected
    assert mq.iprobs.tolist() == [1.0] * 5


def test_sampled_pool_prel_lists_unsampled_documents_as_minus_one(tiny: Campaign) -> None:
    # ranks 1 | 2-3: stratum "1" judged whole, stratum "2" half sampled (seeded)
    spec = PoolSpec("stratified", strata=(1, 3), rates=(1.0, 0.5), seed=3)
    sampled = pool_commit(pool=pool_build(campaign=tiny, name="s", spec=spec))
    rows = list(
        PoolDocument.objects.filter(pool=sampled).values_list(
            "topic__number", "docno", "stratum", "sampled", "iprob"
        )
    )
    assert {r[:2] for r in rows} == set(VOTES)  # the universe: every pooled document
    majority = {("401", "d1"): 2, ("401", "d2"): 0, ("401", "d3"): 1, ("402", "d4"): -1, ("402", "d5"): 0}
    prel_rows = sorted((t, d, s, majority[t, d] if on else -1, int(on)) for t, d, s, on, _ in rows)
    # the iter column carries the draw (1 = drawn): d4 was drawn but nobody judged it yet, so its
    # rel is -1 like an undrawn document's, and only that column tells them apart
    assert text(tiny, "prel", pool="s") == lines(*(f"{t} {m} {d} {s} {g}" for t, d, s, g, m in prel_rows))
    assert any(not on for *_, on, _ in rows)  # some documents were left out of the sample
    mq_rows = sorted((t, d, majority[t, d], p) for t, d, _, on, p in rows if on)
    assert text(tiny, "mq", pool="s") == lines(*(f"{t} {d} {g} stratified {p!r}" for t, d, g, p in mq_rows))
    assert {p for _, _, s, on, p in rows if on and s == "1"} == {1.0}  # stratum 1 is judged whole


def test_prel_needs_a_pool_choice_when_there_are_several(tiny: Campaign) -> None:
    pool_build(campaign=tiny, name="other", spec=PoolSpec("depth", depth=1))
    with pytest.raises(JudgingRefused, match=r"several pools \(other, p\): choose one"):
        export_file(campaign=tiny, kind="prel")
    with pytest.raises(JudgingRefused, match="no pool named 'nope'"):
        export_file(campaign=tiny, kind="mq", pool="nope")


def test_csv_lists_every_judgment_with_times(tiny: Campaign) -> None:
    body, name = export_file(campaign=tiny, kind="csv")[:2]
    assert name == "trec-demo-judgments.csv"
    rows = list(csv.reader(io.StringIO(body)))
    assert (
        tuple(rows[0])
        == CSV_COLUMNS
        == (
            "assessor",
            "topic",
            "docno",
            "grade",
            "cant_judge",
            "comment",
            "created_at",
            "updated_at",
            "active_seconds",
        )
    )
    assert len(rows) == 1 + 5 * 3  # five documents, three assessors each
    assert [r[:3] for r in rows[1:4]] == [
        ["alice", "401", "d1"],
        ["bob", "401", "d1"],
        ["carol", "401", "d1"],
    ]
    alice_d1 = rows[1]
    assert alice_d1[3:6] == ["2", "false", "clear"]
    assert alice_d1[8] == "1.500"  # 1500 ms
    assert alice_d1[6].endswith("+00:00") and alice_d1[7] >= alice_d1[6]
    bob_d3 = next(r for r in rows if r[:3] == ["bob", "401", "d3"])
    assert bob_d3[3:5] == ["", "true"]


def test_refusals(tiny: Campaign) -> None:
    with pytest.raises(JudgingRefused, match="choose the assessor"):
        export_file(campaign=tiny, kind="assessor")
    with pytest.raises(JudgingRefused, match=r"no judgments by 'zoe'.*\(alice, bob, carol\)"):
        export_file(campaign=tiny, kind="assessor", assessor="zoe")
    with pytest.raises(JudgingRefused, match="unknown export 'trec'"):
        export_file(campaign=tiny, kind="trec")
    with pytest.raises(JudgingRefused, match="unknown consensus rule 'mean'"):
        export_file(campaign=tiny, kind="consensus", rule="mean")


def test_nothing_to_export_before_any_judgment(campaign: Campaign) -> None:
    with pytest.raises(JudgingRefused, match="no judgments yet"):
        export_file(campaign=campaign, kind="consensus")


# ------------------------------------------------------------------------------------ command


def test_export_qrels_command_writes_the_file(tiny: Campaign, tmp_path: Path) -> None:
    out = tmp_path / "median.qrels"
    err = io.StringIO()
    call_command(
        "export_qrels",
        "trec-demo",
        "--kind",
        "consensus",
        "--rule",
        "median",
        "--output",
        str(out),
        stderr=err,
    )
    assert out.read_text() == text(tiny, "consensus", rule="median")
    assert "5 lines written" in err.getvalue()
    gz = tmp_path / "bob.qrels.gz"
    call_command("export_qrels", "trec-demo", "--kind", "assessor", "--assessor", "bob", "--output", str(gz))
    assert read_qrels(gz).as_dict()["401"] == {"d1": 2, "d2": 1, "d3": -1}
    stdout = io.StringIO()
    call_command(
        "export_qrels", "trec-demo", "--kind", "binary", "--threshold", "2", "--output", "-", stdout=stdout
    )
    assert stdout.getvalue() == text(tiny, "binary", threshold=2)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope", "--kind", "csv"], "no campaign 'nope'"),
        (["trec-demo", "--kind", "assessor", "--assessor", "zoe"], "no judgments by 'zoe'"),
        (["trec-demo", "--kind", "binary", "--threshold", "0"], "threshold is a grade of 1 or more"),
    ],
)
def test_export_qrels_command_exits_2_with_the_reason(
    tiny: Campaign, tmp_path: Path, args: list[str], message: str
) -> None:
    with pytest.raises(CommandError, match=message) as exc:
        call_command("export_qrels", *args, "--output", str(tmp_path / "x"))
    assert exc.value.returncode == 2
    assert not (tmp_path / "x").exists()


def test_csv_cells_never_start_a_spreadsheet_formula() -> None:
    from trec.csvout import neutralise as spreadsheet_safe

    # OWASP CSV injection: = + - @ and tab/CR lead a formula in Excel and LibreOffice
    assert spreadsheet_safe('=HYPERLINK("http://evil.example")') == '\'=HYPERLINK("http://evil.example")'
    assert [spreadsheet_safe(t) for t in ("+1", "-1", "@SUM(A1)", "\tx")] == [
        "'+1",
        "'-1",
        "'@SUM(A1)",
        "'\tx",
    ]
    assert spreadsheet_safe("fine, not a formula") == "fine, not a formula"
