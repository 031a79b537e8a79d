"""Bad bytes in imported files (docs/formats.md#bytes-and-encodings): a NUL byte, a token longer
than its limit (a topic id of 100,000 digits among them) and, in documents, bytes that are not
UTF-8. Each is refused with its file and line, or for documents stored by the stated rule and
counted, the same way through the page or the API and the command, on SQLite and PostgreSQL (which
cannot store a NUL at all: these imports ended in internal errors there, or in jobs left running
that a worker later failed as interrupted). Nothing of a refused import is stored."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns.models import Campaign, Document, QrelsSet, Run, Topic
from jobs.models import Job
from tests.campaigns.conftest import api_job, follow_job

pytestmark = pytest.mark.django_db

NUL = "a NUL byte (\\x00) is not allowed in"
HUGE_ID = b"1" * 100_000
ENDPOINTS = {
    "topics": "topics/import",
    "runs": "runs/import",
    "documents": "documents/import",
    "qrels": "judgments/import",
}
COMMANDS = {"topics": "import_topics", "runs": "import_runs", "documents": "import_documents"}


@pytest.fixture
def seven(campaign: Campaign) -> Campaign:
    """A campaign with topics '7' and '8', whose stored state every refusal must leave as it was."""
    Topic.objects.bulk_create(Topic(campaign=campaign, number=n, title=f"topic {n}") for n in ("7", "8"))
    return campaign


def on_page(web: Client, campaign: Campaign, what: str, name: str, data: bytes) -> Job:
    response = web.post(
        reverse("campaigns:import", args=[campaign.slug]),
        {"what": what, "files": [SimpleUploadedFile(name, data)]},
    )
    return follow_job(web, response)


def by_api(api: APIClient, campaign: Campaign, what: str, name: str, data: bytes) -> dict[str, Any]:
    response = api.post(
        f"/api/campaigns/{campaign.slug}/{ENDPOINTS[what]}/",
        {"files": [SimpleUploadedFile(name, data)]},
        format="multipart",
    )
    return api_job(api, response)


def by_command(tmp_path: Path, campaign: Campaign, what: str, name: str, data: bytes) -> list[str]:
    """The lines the command wrote on stderr, refusing with exit code 2 (the path shown as ``name``)."""
    path = tmp_path / name
    path.write_bytes(data)
    err = io.StringIO()
    with pytest.raises(CommandError) as exc:
        call_command(COMMANDS[what], campaign.slug, str(path), stderr=err, stdout=io.StringIO())
    assert exc.value.returncode == 2
    return err.getvalue().replace(str(path), name).splitlines()


def stored(campaign: Campaign) -> tuple[list[tuple[str, str]], int, int, int]:
    topics = list(Topic.objects.filter(campaign=campaign).order_by("number").values_list("number", "title"))
    return topics, Document.objects.count(), Run.objects.count(), QrelsSet.objects.count()


UNTOUCHED = ([("7", "topic 7"), ("8", "topic 8")], 0, 0, 0)


def storable(lines: list[str]) -> None:
    """A refusal's lines quote tokens with their NUL written out, never the byte itself."""
    assert not any("\x00" in line for line in lines)


# ----------------------------------------------------------------------------------------- NUL bytes

TOPICS_WITH_NUL = {
    "trec": ("t.txt", b"<top>\n<num> Number: 9\n<title> a\x00b\n</top>\n", 3, NUL + " a topics file"),
    "tsv": ("t.tsv", b"9\tnine\n10\x00\tten\n", 2, NUL + " a topics file"),
    "jsonl-escape": (
        "t.jsonl",
        b'{"qid": "9", "title": "nine"}\n{"qid": "10", "title": "a\\u0000b"}\n',
        2,
        "a NUL character (\\u0000) is not allowed in a topics file",
    ),
}


@pytest.mark.parametrize("layout", list(TOPICS_WITH_NUL))
def test_a_nul_in_topics_is_refused_with_file_and_line(
    web: Client, seven: Campaign, tmp_path: Path, layout: str
) -> None:
    name, data, line, message = TOPICS_WITH_NUL[layout]
    job = on_page(web, seven, "topics", name, data)
    assert (job.status, job.errors) == (Job.Status.FAILED, [f"{name}:{line}: {message}"])
    assert by_command(tmp_path, seven, "topics", name, data)[0] == f"{name}:{line}: {message}"
    assert stored(seven) == UNTOUCHED


DOCUMENTS_WITH_NUL = {
    "tsv-text": ("d.tsv", b"d1\tfine\nd2\ttext\x00here\n", 2, NUL + " a documents file"),
    "tsv-docno": ("d.tsv", b"d\x001\ttext\n", 1, NUL + " a documents file"),
    "trec": (
        "d.trec",
        b"<DOC>\n<DOCNO>d1</DOCNO>\n<TEXT>fine</TEXT>\n</DOC>\n<DOC>\n<DOCNO>d2</DOCNO>\n<TEXT>a\x00b</TEXT>\n</DOC>\n",
        7,
        NUL + " a documents file",
    ),
    "jsonl-escape": (
        "d.jsonl",
        b'{"docno": "d1", "text": "a\\u0000b"}\n',
        1,
        "a NUL character (\\u0000) is not allowed in a documents file",
    ),
}


@pytest.mark.parametrize("layout", list(DOCUMENTS_WITH_NUL))
def test_a_nul_in_documents_is_refused_with_file_and_line(
    api: APIClient, seven: Campaign, tmp_path: Path, layout: str
) -> None:
    name, data, line, message = DOCUMENTS_WITH_NUL[layout]
    done = by_api(api, seven, "documents", name, data)
    assert (done["status"], done["errors"]) == ("failed", [f"{name}:{line}: {message}"])
    assert by_command(tmp_path, seven, "documents", name, data)[0] == f"{name}:{line}: {message}"
    assert stored(seven) == UNTOUCHED


RUNS_WITH_NUL = {
    "in-a-docno": b"7 Q0 d0 1 2.0 tag\n7 Q0 d\x001 2 1.0 tag\n",
    "for-a-space": b"7 Q0 d0 1 2.0 tag\n7\x00Q0 d1 2 1.0 tag\n",
    "at-the-end": b"7 Q0 d0 1 2.0 tag\n7 Q0 d1 2 1.0 tag\x00\n",
}


@pytest.mark.parametrize("where", list(RUNS_WITH_NUL))
def test_a_nul_in_a_run_is_refused_with_file_and_line(
    web: Client, seven: Campaign, tmp_path: Path, where: str
) -> None:
    """Also where the tokenizer reads it as a separator: the run would import as if it were a space."""
    data = RUNS_WITH_NUL[where]
    line = f"r.run:2: error: {NUL} a run file [nul-byte]"
    job = on_page(web, seven, "runs", "r.run", data)
    assert job.status == Job.Status.FAILED and line in job.errors
    storable(job.errors)
    report = by_command(tmp_path, seven, "runs", "r.run", data)
    assert line in report
    storable(report)
    assert stored(seven) == UNTOUCHED


@pytest.mark.parametrize(
    "data", [b"7 0 d0 1\n7 0 d\x001 1\n", b"7 0 d0 1\n7\x000 d1 1\n", b"7 0 d0 1\n7 0 d1 1\x00\n"]
)
def test_a_nul_in_qrels_is_refused_with_file_and_line(
    web: Client, api: APIClient, seven: Campaign, data: bytes
) -> None:
    line = f"q.qrels:2: {NUL} a qrels file"
    assert on_page(web, seven, "qrels", "q.qrels", data).errors == [line]
    assert by_api(api, seven, "qrels", "q.qrels", data)["errors"] == [line]
    assert stored(seven) == UNTOUCHED


# ---------------------------------------------------------------------------------- over-long tokens


def test_a_topic_id_of_100000_digits_is_refused_for_its_length(
    web: Client, seven: Campaign, tmp_path: Path
) -> None:
    """In JSON lines the id was read as a number, past the 4300 digits Python converts."""
    data = b'{"qid": 9, "title": "nine"}\n{"qid": ' + HUGE_ID + b', "title": "huge"}\n'
    line = f"t.jsonl:2: topic id '{'1' * 60}' is longer than 64 characters"
    job = on_page(web, seven, "topics", "t.jsonl", data)
    assert (job.status, job.errors) == (Job.Status.FAILED, [line])
    assert by_command(tmp_path, seven, "topics", "t.jsonl", data) == [line]
    assert stored(seven) == UNTOUCHED


@pytest.mark.parametrize("topic", [HUGE_ID, b"7" + b"0" * 64])
def test_a_run_s_topic_id_over_its_limit_is_refused_with_the_limit(
    web: Client, seven: Campaign, tmp_path: Path, topic: bytes
) -> None:
    data = b"7 Q0 d0 1 2.0 tag\n" + topic + b" Q0 d1 1 1.0 tag\n"
    line = f"r.run:2: error: topic id '{topic[:57].decode()}...' is longer than 64 characters [too-long]"
    job = on_page(web, seven, "runs", "r.run", data)
    assert job.status == Job.Status.FAILED and line in job.errors
    assert line in by_command(tmp_path, seven, "runs", "r.run", data)
    assert stored(seven) == UNTOUCHED


def test_a_rank_of_100000_digits_is_only_a_rank_that_is_not_an_integer(
    api: APIClient, seven: Campaign
) -> None:
    """The rank column is ignored (a warning); converting it was an internal error."""
    data = b"7 Q0 d0 " + HUGE_ID + b" 2.0 tag\n"
    done = by_api(api, seven, "runs", "r.run", data)
    assert done["status"] == "done", done["errors"]
    [warning] = [w for w in done["result"]["reports"][0]["warnings"] if "[rank-not-integer]" in w]
    assert warning.startswith("r.run:1: warning: rank '111")
    assert Run.objects.get().tag == "tag"


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (
            b"7 0 d0 1\n7 0 " + b"d" * 201 + b" 1\n",
            f"q.qrels:2: docno '{'d' * 57}...' is longer than 200 characters",
        ),
        (
            b"7 0 d0 1\n7 0 " + b"d" * 100_000 + b" 1\n",
            f"q.qrels:2: docno '{'d' * 57}...' is longer than 200 characters",
        ),
        (
            b"7 0 d0 1\n" + HUGE_ID + b" 0 d1 1\n",
            f"q.qrels:2: topic id '{'1' * 57}...' is longer than 64 characters",
        ),
    ],
    ids=["docno-201", "docno-100000", "topic-100000"],
)
def test_qrels_tokens_over_their_limits_are_refused(
    web: Client, api: APIClient, seven: Campaign, data: bytes, line: str
) -> None:
    assert on_page(web, seven, "qrels", "q.qrels", data).errors == [line]
    assert by_api(api, seven, "qrels", "q.qrels", data)["errors"] == [line]
    assert stored(seven) == UNTOUCHED


def test_a_document_s_docno_of_100000_digits_is_refused_for_its_length(
    api: APIClient, seven: Campaign, tmp_path: Path
) -> None:
    data = b'{"docno": "d0", "text": "fine"}\n{"docno": ' + HUGE_ID + b', "text": "huge"}\n'
    line = "d.jsonl:2: docno is longer than 200 characters"
    done = by_api(api, seven, "documents", "d.jsonl", data)
    assert (done["status"], done["errors"]) == ("failed", [line])
    assert by_command(tmp_path, seven, "documents", "d.jsonl", data)[0] == line
    assert stored(seven) == UNTOUCHED


# ------------------------------------------------------------------------------ documents' encoding

# UTF-8 'café', then a Latin-1 'é' and 0xff: two byte sequences that are not UTF-8
NOT_UTF8 = "d1\tcafé ".encode() + b"\xe9\xff\nd2\tplain\n"


def test_documents_not_in_utf8_are_stored_with_replacements_counted_through_the_api(
    api: APIClient, web: Client, seven: Campaign
) -> None:
    done = by_api(api, seven, "documents", "docs.tsv", NOT_UTF8)
    assert done["status"] == "done", done["errors"]
    result = done["result"]
    assert (result["stored"], result["not_utf8"], result["replacements"]) == (2, 1, 2)
    assert result["not_utf8_shown"] == ["d1 (docs.tsv:1)"]
    # the UTF-8 around the bad bytes is kept as written (decoded as Latin-1, it was 'cafÃ©')
    assert dict(Document.objects.values_list("docno", "text")) == {"d1": "café \ufffd\ufffd", "d2": "plain"}
    page = web.get(reverse("jobs:job", args=[done["id"]]))
    assert b'id="documents-not-utf8"' in page.content
    assert "1 stored document(s) held bytes that are not UTF-8" in page.content.decode()


def test_documents_not_in_utf8_are_reported_by_the_command(seven: Campaign, tmp_path: Path) -> None:
    path = tmp_path / "docs.tsv"
    path.write_bytes(NOT_UTF8)
    err = io.StringIO()
    call_command("import_documents", seven.slug, str(path), stderr=err, stdout=io.StringIO())
    assert (
        f"import_documents: warning: 1 documents held bytes that are not UTF-8, stored as U+FFFD "
        f"(2 in all): d1 ({path}:1)"
    ) in err.getvalue()
    assert Document.objects.get(docno="d1").text == "café \ufffd\ufffd"


def test_a_lone_surrogate_escape_in_topics_is_refused(web: Client, seven: Campaign, tmp_path: Path) -> None:
    data = b'{"qid": "9", "title": "a\\ud800b"}\n'
    line = "t.jsonl:1: a lone surrogate escape (\\ud800 to \\udfff) is half a character, not text"
    assert on_page(web, seven, "topics", "t.jsonl", data).errors == [line]
    assert by_command(tmp_path, seven, "topics", "t.jsonl", data)[0] == line
    assert stored(seven) == UNTOUCHED
