"""Document collections (``trec.documents``): TREC SGML, JSON lines and TSV, streamed."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

import trec.documents
from trec import FormatError
from trec.documents import Document, DocumentReader, read_documents

from .conftest import WriteFile

SGML = """\
<DOC>
<DOCNO> LA010189-0001 </DOCNO>
<HEADLINE>
<P>Storm &amp; flood</P>
</HEADLINE>
<TEXT>
<P>First   paragraph
of the story.</P>
<P>Second paragraph.</P>
</TEXT>
</DOC>
<DOC>
<DOCNO>FT911-3</DOCNO>
<TEXT>Part one.</TEXT>
<TEXT>Part two.</TEXT>
</DOC>
<doc>
<docno>WSJ870324-0001</docno>
<HL> A headline </HL>
</doc>
"""


def test_trec_sgml_gives_docno_title_and_paragraphs(write_file: WriteFile) -> None:
    docs = read_documents(write_file("la.sgml", SGML))
    assert docs[0] == Document(
        "LA010189-0001", "First paragraph\nof the story.\n\nSecond paragraph.", "Storm & flood", 1
    )
    # several TEXT sections are joined; a lower-case document with no TEXT has empty text
    assert docs[1] == Document("FT911-3", "Part one.\n\nPart two.", "", 12)
    assert docs[2] == Document("WSJ870324-0001", "", "A headline", 17)


def test_documents_spanning_read_chunks_are_whole(
    write_file: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trec.documents, "CHUNK_SIZE", 7)
    body = "".join(f"<DOC>\n<DOCNO>d{i}</DOCNO>\n<TEXT>text {i}</TEXT>\n</DOC>\n" for i in range(50))
    docs = read_documents(write_file("c.trec", body))
    assert [(d.docno, d.text, d.line) for d in docs] == [(f"d{i}", f"text {i}", 1 + 4 * i) for i in range(50)]


def test_gzip_collections_are_read_and_progress_counts_file_bytes(write_file: WriteFile) -> None:
    path = write_file("c.trec.gz", SGML)
    reader = DocumentReader(path)
    assert [d.docno for d in reader] == ["LA010189-0001", "FT911-3", "WSJ870324-0001"]
    assert reader.position == reader.size == path.stat().st_size


@pytest.mark.parametrize(
    ("name", "layout"),
    [
        ("l1.trec", b"<DOC><DOCNO>d1</DOCNO><TEXT>%s</TEXT></DOC>\n"),
        ("l1.tsv", b"d1\t%s\n"),
        ("l1.jsonl", b'{"docno": "d1", "text": "%s"}\n'),
    ],
)
def test_bytes_that_are_not_utf8_are_read_as_replacement_characters_and_counted(
    write_file: WriteFile, name: str, layout: bytes
) -> None:
    """Each byte sequence that is not UTF-8 is one U+FFFD; the UTF-8 around it stays as written
    (decoding the whole document as Latin-1 garbled 'café' into 'cafÃ©'). U+FFFD written in the
    file is text, not counted."""
    # UTF-8, a Latin-1 'é', two bytes no UTF-8 character starts with, then U+FFFD in UTF-8
    text = "café déjà ".encode() + b"\xe9 \xff\xfe " + "\ufffd".encode()
    [doc] = read_documents(write_file(name, layout % text))
    assert doc.text == "café déjà \ufffd \ufffd\ufffd \ufffd"
    assert doc.replaced == 3


def test_a_json_lone_surrogate_escape_is_a_replacement_character_too(write_file: WriteFile) -> None:
    [doc] = read_documents(write_file("s.jsonl", b'{"docno": "d1", "text": "a\\ud800b \\ud83d\\ude00"}\n'))
    assert (doc.text, doc.replaced) == ("a\ufffdb \U0001f600", 1)  # a whole pair is one character


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ("<DOC>\n<TEXT>no docno</TEXT>\n</DOC>\n", 1, "<DOC> without a <DOCNO>"),
        ("<DOC><DOCNO>a</DOCNO></DOC>\n\n<DOC>\n<DOCNO>b</DOCNO>\n", 3, "never closed"),
        ("<DOC><DOCNO>a</DOCNO></DOC>\nstray words\n<DOC><DOCNO>b</DOCNO></DOC>\n", 2, "outside a <DOC>"),
        ("<DOC><DOCNO>a</DOCNO></DOC>\n\ntrailing junk\n", 3, "outside a <DOC>"),
        ("<DOC><DOCNO>two words</DOCNO></DOC>\n", 1, "contains whitespace"),
    ],
)
def test_malformed_sgml_names_the_line(write_file: WriteFile, content: str, line: int, message: str) -> None:
    with pytest.raises(FormatError) as exc:
        read_documents(write_file("bad.trec", content))
    assert exc.value.line == line
    assert message in exc.value.message


def test_jsonl_takes_the_usual_field_names(write_file: WriteFile) -> None:
    content = (
        '{"docno": "a", "text": "alpha", "title": "A"}\n'
        "\n"
        '{"id": "b", "contents": "beta"}\n'  # pyserini's names
        '{"doc_id": "c", "body": "gamma", "headline": "C"}\n'
        '{"_id": 4}\n'  # numbers become strings; no text is empty text
    )
    docs = read_documents(write_file("docs.jsonl", content))
    assert [(d.docno, d.text, d.title, d.line) for d in docs] == [
        ("a", "alpha", "A", 1),
        ("b", "beta", "", 3),
        ("c", "gamma", "C", 4),
        ("4", "", "", 5),
    ]


@pytest.mark.parametrize(
    ("content", "line"),
    [
        ('{"docno": "a", "text": "x"}\n{"text": "no id"}\n', 2),
        ('{"docno": "a"}\n[1, 2]\n', 2),
        ("{bad json\n", 1),
    ],
)
def test_malformed_jsonl_names_the_line(write_file: WriteFile, content: str, line: int) -> None:
    with pytest.raises(FormatError) as exc:
        read_documents(write_file("bad.jsonl", content))
    assert exc.value.line == line


def test_tsv_has_text_or_title_and_text(write_file: WriteFile) -> None:
    content = "a\talpha text\nb\tBeta\tbeta text\n# comment\nc\n"
    docs = read_documents(write_file("docs.tsv", content))
    assert [(d.docno, d.title, d.text, d.line) for d in docs] == [
        ("a", "", "alpha text", 1),
        ("b", "Beta", "beta text", 2),
        ("c", "", "", 4),
    ]
    with pytest.raises(FormatError) as exc:
        read_documents(write_file("bad.tsv", "a\tb\tc\td\n"))
    assert exc.value.line == 1


def test_the_format_is_detected_from_the_name_then_the_content(tmp_path: Path) -> None:
    (tmp_path / "x.gz").write_bytes(gzip.compress(b'{"docno": "j", "text": "t"}\n'))
    (tmp_path / "plain").write_text("t1\tsome text\n")
    assert read_documents(tmp_path / "x.gz")[0].docno == "j"
    assert read_documents(tmp_path / "plain")[0].text == "some text"
    # declared formats win over sniffing
    with pytest.raises(FormatError):
        read_documents(tmp_path / "plain", "jsonl")
