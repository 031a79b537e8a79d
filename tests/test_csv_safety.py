"""Every CSV the workbench writes quotes text that a spreadsheet would run as a formula (OWASP CSV
injection), through the one writer of :mod:`trec.csvout`; numbers, negative ones included, stay numbers.

Covered: the helper itself, ``manage.py evaluate --format csv`` and ``manage.py compare --format csv``,
the evaluation and significance downloads, the judgments export and the pool simulation CSV.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from trec.csvout import SafeWriter, neutralise, safe_cell

# one run tag / docno / user name per character that starts a formula
DANGEROUS = ["=HYPERLINK(1)", "+cmd", "-2+3+cmd|'!A0", "@SUM(1)"]


def rows_of(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


# ------------------------------------------------------------------------------ the helper


@pytest.mark.parametrize("text", [*DANGEROUS, "\tx", "\rx", "-", "+", "-inf-", "- 1", "-1,5"])
def test_text_that_starts_like_a_formula_gets_a_quote(text: str) -> None:
    assert safe_cell(text) == "'" + text
    assert neutralise(text) == "'" + text


@pytest.mark.parametrize("value", ["-0.5", "+1", "-1e-05", "-0.5000", "-inf", "inf", "nan", "0.25", "12"])
def test_numbers_written_as_text_stay_numbers(value: str) -> None:
    assert safe_cell(value) == value


@pytest.mark.parametrize("value", [-0.5, -1, 0, 2.5, None, True, "bm25", "DEMO-401-001", "a=b", ""])
def test_numbers_and_harmless_text_pass_unchanged(value: Any) -> None:
    assert safe_cell(value) is value


def test_free_text_is_quoted_even_when_it_reads_as_a_number() -> None:
    # a comment "-1" is words typed by an assessor, not a value of the file
    assert neutralise("-1") == "'-1"
    assert neutralise("fine") == "fine"


def test_the_writer_quotes_cells_and_keeps_csv_quoting() -> None:
    out = io.StringIO()
    writer = SafeWriter(out)
    writer.writerow(["=1+1", -0.5, "-0.5", "a,b", '"x"'])
    writer.writerows([["@x", 3]])
    assert out.getvalue() == '\'=1+1,-0.5,-0.5,"a,b","""x"""\n\'@x,3\n'


# ------------------------------------------------------------------------------ the commands


@pytest.fixture
def dangerous_files(tmp_path: Path) -> dict[str, Path]:
    """A qrels and one run per dangerous name (the run's name is its file name), topic ``@t``."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("@t 0 d1 1\n@t 0 d2 0\n@t 0 d3 2\n")
    files = {"qrels": qrels}
    for i, name in enumerate(DANGEROUS):
        path = tmp_path / f"{name}.run"
        docs = ["d1", "d2", "d3"][i % 3 :] + ["d1", "d2", "d3"][: i % 3]
        path.write_text("".join(f"@t Q0 {d} {r + 1} {10 - r} tag\n" for r, d in enumerate(docs)))
        files[name] = path
    return files


def test_evaluate_command_csv_quotes_run_names_and_topics(dangerous_files: dict[str, Path]) -> None:
    out = io.StringIO()
    runs = [str(dangerous_files[n]) for n in DANGEROUS]
    call_command(
        "evaluate", "-q", "-m", "map", "--format", "csv", str(dangerous_files["qrels"]), *runs, stdout=out
    )
    rows = rows_of(out.getvalue())
    assert rows[0] == ["run", "measure", "topic", "value"]
    assert {r[0] for r in rows[1:]} == {"'" + n for n in DANGEROUS}
    assert {r[2] for r in rows[1:]} == {"'@t", "all"}
    # the values are the trec output's, unquoted
    trec = io.StringIO()
    call_command("evaluate", "-q", "-m", "map", str(dangerous_files["qrels"]), *runs, stdout=trec)
    assert [r[3] for r in rows[1:]] == [line.split("\t")[-1] for line in trec.getvalue().splitlines()]


def test_compare_command_csv_quotes_run_names_and_keeps_negative_numbers(
    dangerous_files: dict[str, Path],
) -> None:
    out = io.StringIO()
    runs = [str(dangerous_files[n]) for n in DANGEROUS]
    call_command(
        "compare", "-m", "map", "--test", "t", "--format", "csv", "--per-topic",
        str(dangerous_files["qrels"]), *runs, stdout=out,
    )  # fmt: skip
    rows = rows_of(out.getvalue())
    named = {r[1] for r in rows[1:] if r[1]} | {r[2] for r in rows[1:] if r[2]}
    assert named == {"'" + n for n in DANGEROUS}
    assert {r[3] for r in rows[1:] if r[0] == "score"} == {"'@t"}
    diffs = [r[5] for r in rows if r[0] == "pair"]
    assert any(d.startswith("-") for d in diffs)  # a negative difference: written as a number
    assert all(float(d) == float(d) for d in diffs)


def test_ordinary_command_csv_is_unchanged_by_the_safe_writer(tmp_path: Path) -> None:
    """For ordinary names the bytes are those of a plain ``csv.writer`` (the commands' outputs are pinned)."""
    from engine.output import COMPARISON_CSV_COLUMNS, comparison_csv, comparison_csv_rows

    data = {
        "runs": [{"run": "bm25", "mean": 0.25}, {"run": "dense", "mean": 0.5}],
        "dropped": {},
        "pairs": [
            {
                "a": "bm25",
                "b": "dense",
                "diff": -0.25,
                "ci": [-0.5, float("-inf")],
                "tests": {
                    "t": {"statistic": float("-inf"), "p": 0.01, "p_adjusted": 0.02, "significant": True}
                },
            }
        ],
    }
    plain = io.StringIO()
    writer = csv.writer(plain, lineterminator="\n")
    writer.writerow(COMPARISON_CSV_COLUMNS)
    writer.writerows(comparison_csv_rows(data))
    assert comparison_csv(data) == plain.getvalue()
    assert "pair,bm25,dense,,t,-0.25,-0.5,-inf,-inf,0.01,0.02,1" in comparison_csv(data)


# ------------------------------------------------------------------------------ the downloads


@pytest.fixture
def dangerous_runs(campaign: Any, tmp_path: Path) -> Any:
    """The demo collection with its four runs retagged with the dangerous names."""
    from campaigns.services import qrels_set_import, runs_import, topics_import
    from tests.conftest import demo_dir, demo_run_paths

    topics_import(campaign=campaign, path=demo_dir() / "topics.txt")
    paths: list[Path] = []
    for name, source in zip(DANGEROUS, demo_run_paths(), strict=True):
        lines = source.read_text().splitlines()
        path = tmp_path / f"run{len(paths)}.run"
        path.write_text("".join(" ".join([*line.split()[:5], name]) + "\n" for line in lines if line.strip()))
        paths.append(path)
    runs_import(campaign=campaign, paths=paths, group="demo")
    qrels_set_import(campaign=campaign, path=demo_dir() / "qrels.txt", name="reference")
    return campaign


def login(user: Any) -> Client:
    from tests.conftest import PASSWORD

    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def evaluate(campaign: Any, user: Any) -> Any:
    from campaigns.models import QrelsSet
    from metrics.services import evaluation_run
    from metrics.sources import JudgmentSource

    qset = QrelsSet.objects.get(campaign=campaign, name="reference")
    return evaluation_run(
        campaign=campaign, source=JudgmentSource(kind="qrels", qrels_set=qset.pk), user=user
    )


@pytest.mark.django_db
def test_evaluation_csv_download_quotes_run_tags(dangerous_runs: Any, organizer: Any) -> None:
    evaluation = evaluate(dangerous_runs, organizer)
    client = login(organizer)
    url = reverse("evaluation:download", args=[dangerous_runs.slug, evaluation.pk])
    rows = rows_of(client.get(url + "?format=csv").content.decode())
    assert {r[0] for r in rows[1:]} == {"'" + n for n in DANGEROUS}
    trec = client.get(url + "?format=trec").content.decode().splitlines()
    assert [r[1:] for r in rows[1:]] == [line.split("\t")[1:] for line in trec]  # values untouched
    assert all(float(r[3]) >= 0 for r in rows[1:] if r[3] != "nan")


@pytest.mark.django_db
def test_significance_csv_download_quotes_run_tags(dangerous_runs: Any, organizer: Any) -> None:
    evaluation = evaluate(dangerous_runs, organizer)
    client = login(organizer)
    url = reverse("evaluation:significance", args=[dangerous_runs.slug, evaluation.pk])
    form = {"measure": "map", "test": "randomization", "correction": "holm", "seed": 3, "permutations": 200}
    first = client.post(url, form)
    assert first.status_code == 302
    rows = rows_of(client.get(first["Location"] + "&format=csv").content.decode())
    assert rows[0][:3] == ["section", "a", "b"]
    means = [r for r in rows if r[0] == "mean"]
    assert {r[1] for r in means} == {"'" + n for n in DANGEROUS}
    pairs = [r for r in rows if r[0] == "pair"]
    assert len(pairs) == 6 and all(r[1].startswith("'") and r[2].startswith("'") for r in pairs)
    assert any(r[5].startswith("-") for r in pairs)  # a negative difference stays a number
    assert all(float(r[5]) == float(r[5]) for r in pairs)


@pytest.mark.django_db
def test_judgments_csv_export_quotes_user_names_and_docnos(campaign: Any, tmp_path: Path) -> None:
    from campaigns.services import membership_add, runs_import, topics_import
    from judging.exports import export_file
    from judging.models import Assignment
    from judging.services import assignments_create, judgment_record
    from pooling.services import pool_build, pool_commit
    from pooling.spec import PoolSpec
    from tests.conftest import _user

    (tmp_path / "topics.tsv").write_text("1\tformulas\n")
    (tmp_path / "r.run").write_text("".join(f"1 Q0 {d} {i + 1} {9 - i} r\n" for i, d in enumerate(DANGEROUS)))
    topics_import(campaign=campaign, path=tmp_path / "topics.tsv")
    runs_import(campaign=campaign, paths=[tmp_path / "r.run"])
    pool = pool_commit(pool=pool_build(campaign=campaign, name="all", spec=PoolSpec("depth", depth=10)))
    users: list[Any] = [_user(name) for name in DANGEROUS]
    for user in users:
        membership_add(campaign=campaign, user=user, roles=["assessor"])
    assignments_create(campaign=campaign, pool=pool, assessors=users, k=len(users))
    for user in users:
        a = Assignment.objects.get(pool=pool, assessor=user, topic__number="1")
        for docno in DANGEROUS:
            judgment_record(assessor=user, assignment=a, docno=docno, grade=1, comment="-1")
    text = export_file(campaign=campaign, kind="csv").text
    rows = rows_of(text)
    header, body = rows[0], rows[1:]
    assert len(body) == len(DANGEROUS) ** 2
    col = {name: header.index(name) for name in ("assessor", "docno", "grade", "comment")}
    assert {r[col["assessor"]] for r in body} == {"'" + n for n in DANGEROUS}
    assert {r[col["docno"]] for r in body} == {"'" + n for n in DANGEROUS}
    assert {r[col["grade"]] for r in body} == {"1"}
    assert {r[col["comment"]] for r in body} == {"'-1"}  # free text: always quoted


def test_pool_simulation_csv_goes_through_the_safe_writer(tmp_path: Path) -> None:
    from pooling.cli import main

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("=t 0 d1 1\n=t 0 d2 0\n")
    run = tmp_path / "a.run"
    run.write_text("=t Q0 d1 1 2 a\n=t Q0 d2 2 1 a\n")
    out, err = io.StringIO(), io.StringIO()
    argv = ["--qrels", str(qrels), "--strategy", "depth", "--budget", "2", "--format", "csv", str(run)]
    code = main(argv, out, err, prog="manage.py simulate_pool")
    assert code == 0, err.getvalue()
    rows = rows_of(out.getvalue())
    assert rows[0] == ["topic", "step", "judged", "relevant"]
    assert {r[0] for r in rows[1:]} == {"'=t", "all"}


def test_the_revealed_login_links_csv_quotes_usernames_and_emails() -> None:
    """The People page's CSV of new one-time login links carries what a stranger typed at sign-up
    (a username, an e-mail): a cell that starts like a formula is quoted, the link and date are not."""
    from judging.views import links_csv

    rows = [
        {
            "username": "=HYPERLINK(1)",
            "email": "+1@example.org",
            "link": "https://wb.example.org/accounts/link/abc/",
            "expires": "2026-12-06T10:00:00+00:00",
        }
    ]
    cells = next(iter(csv.reader(io.StringIO(links_csv(rows).splitlines()[1]))))
    assert cells[0] == "'=HYPERLINK(1)" and cells[1] == "'+1@example.org"
    assert cells[2:] == ["https://wb.example.org/accounts/link/abc/", "2026-12-06T10:00:00+00:00"]
