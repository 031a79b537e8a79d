"""Reading, ordering and writing runs (``qid Q0 docno rank score tag``)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tests.trec.conftest import WriteFile
from trec import FormatError, read_run, run_name_from_path, write_run
from trec.runs import run_from_arrays


def rankings(run) -> dict[str, list[tuple[str, float]]]:
    return {t: run.ranking(t) for t in run.topics}


def bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


def test_blank_and_comment_lines_are_skipped(write_file: WriteFile) -> None:
    path = write_file(
        "r.run",
        "# produced by bm25\n\n301 Q0 a 1 2.0 t\n   \n  # indented comment\n301 Q0 b 2 1.0 t\n\n",
    )
    assert rankings(read_run(path)) == {"301": [("a", 2.0), ("b", 1.0)]}


def test_error_after_skipped_lines_names_its_physical_line(write_file: WriteFile) -> None:
    # lines: 1 comment, 2 blank, 3 data, 4 blank, 5 comment, 6 data, 7 bad
    path = write_file("r.run", "# c\n\n301 Q0 a 1 2.0 t\n\n# c\n301 Q0 b 2 1.0 t\n301 Q0 c 3 x t\n")
    with pytest.raises(FormatError) as info:
        read_run(path)
    assert info.value.line == 7


def test_crlf_line_endings_are_read_like_lf(write_file: WriteFile) -> None:
    text = "301 Q0 a 1 2.5 t\n301 Q0 b 2 1.5 t\n302 Q0 c 1 0.5 t\n"
    lf = read_run(write_file("lf.run", text))
    crlf = read_run(write_file("crlf.run", text.replace("\n", "\r\n")))
    assert rankings(crlf) == rankings(lf)
    assert crlf.tag == "t"


def test_crlf_error_line_numbers_match_lf(write_file: WriteFile) -> None:
    path = write_file("r.run", "301 Q0 a 1 2.5 t\r\n\r\n301 Q0 b 2 t\r\n")
    with pytest.raises(FormatError) as info:
        read_run(path)
    assert info.value.line == 3
    assert "'301 Q0 b 2 t'" in info.value.message  # the CR is not part of the quoted line


def test_tabs_and_runs_of_spaces_separate_columns(write_file: WriteFile) -> None:
    path = write_file("r.run", "301\tQ0\ta\t1\t2.0\tt\n  301   Q0 \t b  2   1.0\t\tt  \n")
    assert rankings(read_run(path)) == {"301": [("a", 2.0), ("b", 1.0)]}


def test_last_line_without_newline_is_read(write_file: WriteFile) -> None:
    path = write_file("r.run", "301 Q0 a 1 2.0 t\n301 Q0 b 2 3.0 t")
    assert rankings(read_run(path)) == {"301": [("b", 3.0), ("a", 2.0)]}


def test_gzip_run_reads_like_the_plain_file(write_file: WriteFile) -> None:
    text = "301 Q0 a 1 2.0 t\n302 Q0 b 1 1.0 t\n"
    plain = read_run(write_file("r.run", text))
    gz = read_run(write_file("r.run.gz", text))
    assert rankings(gz) == rankings(plain)
    assert gz.name == "r"


def test_gzip_is_detected_by_content_not_by_suffix(write_file: WriteFile, tmp_path) -> None:
    gz = write_file("r.run.gz", "301 Q0 a 1 2.0 t\n")
    renamed = tmp_path / "misnamed.txt"
    renamed.write_bytes(gz.read_bytes())
    assert rankings(read_run(renamed)) == {"301": [("a", 2.0)]}


def test_scientific_notation_and_negative_scores(write_file: WriteFile) -> None:
    path = write_file(
        "r.run",
        "1 Q0 a 1 1e-3 t\n1 Q0 b 2 -2.5E+2 t\n1 Q0 c 3 -0.5 t\n"
        "1 Q0 d 4 3.25e1 t\n1 Q0 e 5 +7 t\n1 Q0 f 6 .5e0 t\n",
    )
    assert rankings(read_run(path))["1"] == [
        ("d", 32.5),
        ("e", 7.0),
        ("f", 0.5),
        ("a", 0.001),
        ("c", -0.5),
        ("b", -250.0),
    ]


def test_repr_scores_with_17_significant_digits_are_bit_identical_to_float(write_file: WriteFile) -> None:
    rng = np.random.default_rng(20240611)
    values = np.concatenate([rng.random(300), rng.normal(0, 1e6, 300), -rng.random(100) * 1e-5])
    tokens = [repr(float(v)) for v in values]
    assert max(len(t.lstrip("-").replace(".", "")) for t in tokens) >= 17
    text = "".join(f"1 Q0 d{i} {i} {tok} t\n" for i, tok in enumerate(tokens))
    run = read_run(write_file("r.run", text))
    got = {d.decode(): s for d, s in zip(run.docnos.tolist(), run.scores.tolist(), strict=True)}
    for i, tok in enumerate(tokens):
        assert bits(got[f"d{i}"]) == bits(float(tok)), tok


def test_topic_ids_are_strings_so_051_and_51_differ(write_file: WriteFile) -> None:
    path = write_file("r.run", "051 Q0 a 1 1.0 t\n51 Q0 b 1 1.0 t\n0051 Q0 c 1 1.0 t\n")
    run = read_run(path)
    # byte order: "0051" < "051" < "51"
    assert run.topics == ("0051", "051", "51")
    assert rankings(run) == {"0051": [("c", 1.0)], "051": [("a", 1.0)], "51": [("b", 1.0)]}


def test_rank_column_is_ignored_in_favour_of_score(write_file: WriteFile) -> None:
    path = write_file("r.run", "1 Q0 low 1 0.1 t\n1 Q0 mid 2 0.5 t\n1 Q0 high 3 0.9 t\n")
    assert [d for d, _ in read_run(path).ranking("1")] == ["high", "mid", "low"]


def test_rank_column_need_not_be_a_number(write_file: WriteFile) -> None:
    path = write_file("r.run", "1 Q0 a rank-one 0.1 t\n")
    assert read_run(path).ranking("1") == [("a", 0.1)]


def test_ties_are_ordered_by_docno_descending_in_byte_order(write_file: WriteFile) -> None:
    # strcmp order: "D" (0x44) < "d" (0x64); "d10" < "d9" since '1' < '9'; "d1" < "d10" (prefix first)
    path = write_file("r.run", "".join(f"1 Q0 {d} 1 5.0 t\n" for d in ["d9", "D", "d10", "d1", "d"]))
    assert [d for d, _ in read_run(path).ranking("1")] == ["d9", "d10", "d1", "d", "D"]


def test_ties_with_non_ascii_docnos_compare_bytes_unsigned(write_file: WriteFile) -> None:
    # "é" is b"\xc3\xa9": as unsigned bytes it sorts after every ASCII character
    path = write_file("r.run", "1 Q0 z 1 1.0 t\n1 Q0 é 1 1.0 t\n1 Q0 ~ 1 1.0 t\n")
    assert [d for d, _ in read_run(path).ranking("1")] == ["é", "~", "z"]


def test_zero_and_negative_zero_scores_tie(write_file: WriteFile) -> None:
    path = write_file("r.run", "1 Q0 a 1 -0.0 t\n1 Q0 b 2 0 t\n")
    assert [d for d, _ in read_run(path).ranking("1")] == ["b", "a"]


def test_interleaved_topics_are_grouped_and_sorted_by_topic_id(write_file: WriteFile) -> None:
    path = write_file("r.run", "2 Q0 a 1 1.0 t\n10 Q0 b 1 3.0 t\n2 Q0 c 2 2.0 t\n10 Q0 d 2 4.0 t\n")
    run = read_run(path)
    assert run.topics == ("10", "2")
    assert rankings(run) == {"10": [("d", 4.0), ("b", 3.0)], "2": [("c", 2.0), ("a", 1.0)]}
    assert run.offsets.tolist() == [0, 2, 4]


def test_same_docno_in_two_topics_is_allowed(write_file: WriteFile) -> None:
    run = read_run(write_file("r.run", "1 Q0 a 1 1.0 t\n2 Q0 a 1 1.0 t\n"))
    assert len(run) == 2


def test_run_tag_comes_from_the_first_line(write_file: WriteFile) -> None:
    run = read_run(write_file("r.run", "1 Q0 a 1 1.0 first\n1 Q0 b 2 0.5 other\n"))
    assert run.tag == "first"


def test_run_name_can_be_given_explicitly(write_file: WriteFile) -> None:
    assert read_run(write_file("r.run", "1 Q0 a 1 1.0 t\n"), name="mine").name == "mine"


def test_duplicate_docno_from_arrays_names_the_run(tmp_path) -> None:
    with pytest.raises(FormatError) as info:
        run_from_arrays("bm25", np.array([b"1", b"1"]), np.array([b"a", b"a"]), np.array([2.0, 1.0]))
    assert str(info.value) == "bm25: duplicate docno 'a' in topic '1': a document may appear once per topic"


@pytest.mark.parametrize("suffix", [".run", ".run.gz"])
def test_write_run_round_trips(write_file: WriteFile, tmp_path, suffix: str) -> None:
    scores = ["0.1", "1e-300", "-2.5", "0.30000000000000004", "123456789.12345679", "5", "5"]
    text = "".join(f"{q} Q0 doc{i} 99 {s} orig\n" for i, s in enumerate(scores) for q in ("051", "51"))
    run = read_run(write_file("in.run", text))
    out = tmp_path / f"out{suffix}"
    write_run(run, out)
    again = read_run(out)
    assert again.topics == run.topics
    assert again.tag == "orig"
    assert again.docnos.tolist() == run.docnos.tolist()
    assert [bits(s) for s in again.scores.tolist()] == [bits(s) for s in run.scores.tolist()]


def test_write_run_numbers_ranks_from_one_in_canonical_order(write_file: WriteFile, tmp_path) -> None:
    run = read_run(write_file("in.run", "1 Q0 a 7 1.0 t\n1 Q0 b 3 2.0 t\n2 Q0 c 9 1.0 t\n"))
    out = tmp_path / "out.run"
    write_run(run, out, tag="new")
    assert out.read_text() == "1 Q0 b 1 2.0 new\n1 Q0 a 2 1.0 new\n2 Q0 c 1 1.0 new\n"


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("runs/bm25.run.gz", "bm25"),
        ("bm25", "bm25"),
        ("/abs/dir.run/input.bm25.gz", "input.bm25"),
        ("a.b.c", "a.b.c"),
        ("a.b.c.run", "a.b.c"),
        ("a.b.txt.gz", "a.b"),
        ("UPPER.RUN.GZ", "UPPER"),
        ("run.res", "run"),
        (".run", ".run"),
        ("x.tsv.bz2", "x"),
        ("x.xz", "x"),
    ],
)
def test_run_name_from_path(path: str, name: str) -> None:
    assert run_name_from_path(path) == name
