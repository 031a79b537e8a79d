"""Importing documents: ``documents_import`` and ``manage.py import_documents``."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

import campaigns.services.imports
from campaigns.errors import ImportRefused
from campaigns.models import Campaign, Document
from campaigns.selectors import documents_missing
from campaigns.services import DOCUMENT_BATCH, documents_import

pytestmark = pytest.mark.django_db

SGML = """\
<DOC>
<DOCNO>LA-1</DOCNO>
<HEADLINE>Flood</HEADLINE>
<TEXT>Rivers rose.</TEXT>
</DOC>
<DOC>
<DOCNO>LA-2</DOCNO>
<TEXT>Markets fell.</TEXT>
</DOC>
<DOC>
<DOCNO>LA-3</DOCNO>
<HEADLINE>Only a headline</HEADLINE>
</DOC>
"""


@pytest.fixture
def campaign() -> Campaign:
    return Campaign.objects.create(slug="c", name="C")


def stored(campaign: Campaign) -> list[tuple[str, str, str]]:
    return list(
        Document.objects.filter(campaign=campaign).order_by("docno").values_list("docno", "title", "text")
    )


def test_every_document_with_text_is_stored_without_a_pool(tmp_path: Path, campaign: Campaign) -> None:
    (tmp_path / "la.sgml").write_text(SGML)
    result = documents_import(campaign=campaign, paths=[tmp_path / "la.sgml"])
    assert stored(campaign) == [("LA-1", "Flood", "Rivers rose."), ("LA-2", "", "Markets fell.")]
    assert (result.stored, result.without_text, result.not_found) == (2, ["LA-3"], [])


def test_only_the_needed_documents_are_stored_and_the_missing_ones_reported(
    tmp_path: Path, campaign: Campaign
) -> None:
    (tmp_path / "la.sgml").write_text(SGML)
    (tmp_path / "more.jsonl").write_text(
        '{"docno": "J-1", "text": "json text"}\n{"docno": "J-2", "text": "no"}\n'
    )
    needed = {"LA-2", "LA-3", "J-1", "GONE-1"}
    result = documents_import(
        campaign=campaign, paths=[tmp_path / "la.sgml", tmp_path / "more.jsonl"], needed=needed
    )
    assert stored(campaign) == [("J-1", "", "json text"), ("LA-2", "", "Markets fell.")]
    assert result.stored == 2
    assert result.not_needed == 2  # LA-1 and J-2
    assert result.without_text == ["LA-3"]  # found, but nothing to read
    assert result.not_found == ["GONE-1"]
    assert documents_missing(campaign=campaign, docnos=needed) == ["GONE-1", "LA-3"]


def test_stored_documents_are_kept_and_a_later_file_can_fill_in_text(
    tmp_path: Path, campaign: Campaign
) -> None:
    Document.objects.create(campaign=campaign, docno="LA-1", title="", text="judged version")
    (tmp_path / "la.sgml").write_text(SGML)
    documents_import(campaign=campaign, paths=[tmp_path / "la.sgml"])
    (tmp_path / "fix.tsv").write_text("LA-1\tother text\nLA-3\tHeadline\tthe missing text\n")
    result = documents_import(campaign=campaign, paths=[tmp_path / "fix.tsv"])
    assert (result.stored, result.already_stored) == (1, 1)
    assert stored(campaign) == [
        ("LA-1", "", "judged version"),  # what assessors may have read already never changes under them
        ("LA-2", "", "Markets fell."),
        ("LA-3", "Headline", "the missing text"),
    ]


def test_a_docno_listed_twice_keeps_the_first(tmp_path: Path, campaign: Campaign) -> None:
    (tmp_path / "d.tsv").write_text("a\tfirst\nb\tbee\na\tsecond\n")
    result = documents_import(campaign=campaign, paths=[tmp_path / "d.tsv"])
    assert result.duplicates == ["a"]
    assert stored(campaign) == [("a", "", "first"), ("b", "", "bee")]


def test_a_bad_file_stores_nothing_even_after_full_batches(tmp_path: Path, campaign: Campaign) -> None:
    Document.objects.create(campaign=campaign, docno="old", text="kept")
    # more than one batch is written before the error at the end of the file
    body = "".join(f"d{i}\ttext {i}\n" for i in range(DOCUMENT_BATCH + 10)) + "x\ty\tz\textra\n"
    (tmp_path / "big.tsv").write_text(body)
    with pytest.raises(ImportRefused) as exc:
        documents_import(campaign=campaign, paths=[tmp_path / "big.tsv"])
    expected = "expected 'docno<TAB>text' or 'docno<TAB>title<TAB>text'"
    assert exc.value.problems == [f"{tmp_path / 'big.tsv'}:{DOCUMENT_BATCH + 11}: {expected}"]
    assert stored(campaign) == [("old", "", "kept")]


def test_import_documents_command_with_a_pool_file(tmp_path: Path, campaign: Campaign) -> None:
    (tmp_path / "la.sgml.gz").write_bytes(gzip.compress(SGML.encode()))
    (tmp_path / "pool.qrels").write_text("401 0 LA-1 -1\n402 0 LA-3 -1\n402 0 NOPE -1\n")
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "import_documents",
        "c",
        str(tmp_path / "la.sgml.gz"),
        "--pool",
        str(tmp_path / "pool.qrels"),
        stdout=out,
        stderr=err,
    )
    assert "1 documents stored" in out.getvalue()
    assert "1 documents with no text (not stored): LA-3" in err.getvalue()
    assert "1 documents needed but in none of the files: NOPE" in err.getvalue()
    assert [d for d, _, _ in stored(campaign)] == ["LA-1"]


def test_import_documents_command_exits_2_on_a_malformed_file(tmp_path: Path) -> None:
    (tmp_path / "bad.trec").write_text("<DOC>\n<TEXT>no docno</TEXT>\n</DOC>\n")
    err = io.StringIO()
    with pytest.raises(CommandError) as exc:
        call_command(
            "import_documents", "new", str(tmp_path / "bad.trec"), "--create", "--format", "trec", stderr=err
        )
    assert exc.value.returncode == 2
    assert f"{tmp_path / 'bad.trec'}:1: <DOC> without a <DOCNO>" in err.getvalue()
    assert not Campaign.objects.filter(slug="new").exists()


def test_progress_counts_documents_not_bytes(
    tmp_path: Path, campaign: Campaign, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(campaigns.services.imports, "DOCUMENT_BATCH", 1)
    (tmp_path / "la.sgml").write_text(SGML)
    (tmp_path / "more.tsv").write_text("T-1\tone\nT-2\ttwo\n")
    calls: list[tuple[str, int, int]] = []
    documents_import(
        campaign=campaign,
        paths=[tmp_path / "la.sgml", tmp_path / "more.tsv"],
        progress=lambda phase, done, total: calls.append((phase, done, total)),
    )
    assert {phase for phase, _, _ in calls} == {"importing documents"}
    done = [d for _, d, _ in calls]
    assert done == sorted(done) and set(done) <= {1, 2, 3, 4, 5}
    assert calls[-1] == ("importing documents", 5, 5)  # 5 documents read (LA-3, without text, too)
    assert all(d <= t for _, d, t in calls)
