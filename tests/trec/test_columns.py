"""The vectorized tokenizer: column counts per line, and integers and doubles parsed like C."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from trec import FormatError
from trec.columns import Columns, split_columns

NAMES = ("qid", "docno", "value")


def column(values: list[str]) -> Columns:
    raw = "".join(f"q d{i} {v}\n" for i, v in enumerate(values)).encode()
    return split_columns(raw, 1, "f", NAMES)


def bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


@pytest.mark.parametrize(
    "token",
    [
        "0",
        "-0",
        "-0.0",
        "+1.5",
        "1.",
        ".5",
        "007.25",
        "-.5",
        # the fast path's limits: mantissa 2**53 is exact, 2**53 + 1 is not representable
        "9007199254740992",
        "9007199254740993",
        "900719925474099.3",
        # 18 digits is the most the int64 Horner pass takes; 19 and more go to float()
        "123456789012345678",
        "1234567890123456789",
        "0.123456789012345678",
        "0.1234567890123456789",
        # 22 fraction digits is the last exactly representable power of ten
        "0.0000000000000000000001",
        "0.00000000000000000000001",
        "0.1",
        "0.30000000000000004",
        "2.2250738585072014e-308",
        "5e-324",
        "1.7976931348623157e308",
        "4.9406564584124654e-324",
        "1e-400",
        "-1E+10",
        "3.14159265358979323846264338327950288",
    ],
)
def test_float_column_is_bit_identical_to_python_float(token: str) -> None:
    got = column([token]).floats(2, "a value")
    assert bits(float(got[0])) == bits(float(token))


def test_float_column_mixes_fast_and_slow_tokens_in_place() -> None:
    tokens = ["1.5", "1e3", "0.1234567890123456789", "-2", "9007199254740993"]
    assert column(tokens).floats(2, "v").tolist() == [float(t) for t in tokens]


@pytest.mark.parametrize(
    "token", ["1_0", "0x10", "1e", "e5", "--1", "+-1", "1.2.3", "1,5", "-", "+", ".", "½", "١", "1e5x", "0b1"]
)
def test_float_column_rejects_what_strtod_would_not_consume_whole(token: str) -> None:
    with pytest.raises(FormatError) as info:
        column(["1", token]).floats(2, "a value")
    assert info.value.line == 2
    assert info.value.message == f"expected a value (a number), found '{token}'"


@pytest.mark.parametrize("token", ["nan", "NaN", "-nan", "inf", "+Infinity", "-INF", "1e309", "-1e999"])
def test_float_column_rejects_non_finite_values(token: str) -> None:
    with pytest.raises(FormatError) as info:
        column([token]).floats(2, "a value")
    assert info.value.line == 1
    assert info.value.message == f"a value '{token}' is not finite"


@pytest.mark.parametrize(
    ("token", "value"),
    [("0", 0), ("-0", 0), ("+3", 3), ("-1", -1), ("007", 7), ("-2", -2), ("999999999999999999", 10**18 - 1)],
)
def test_integer_column_accepts_signed_decimal_integers(token: str, value: int) -> None:
    assert column([token]).integers(2, "a grade").tolist() == [value]


@pytest.mark.parametrize("token", ["1.5", "1.", "-3.", "1.0", ".0", "x", "1e2", "-", "+", "1_0", "0x1", "٣"])
def test_integer_column_rejects_non_integers(token: str) -> None:
    with pytest.raises(FormatError) as info:
        column(["0", "1", token]).integers(2, "a grade")
    assert info.value.line == 3
    assert info.value.message == f"expected a grade (an integer), found '{token}'"


def test_integer_column_reports_too_many_digits_as_out_of_range() -> None:
    with pytest.raises(FormatError, match="a grade '12345678901234567890' is out of range"):
        column(["12345678901234567890"]).integers(2, "a grade")


def test_split_columns_counts_lines_including_blank_and_comment_lines() -> None:
    raw = b"# header\n\nq a 1\n  \n# q b 2 3 4\nq c 3\n"
    cols = split_columns(raw, 10, "f", NAMES)
    assert cols.line_numbers.tolist() == [12, 15]
    assert cols.strings(1).tolist() == [b"a", b"c"]


def test_split_columns_reports_the_first_line_with_a_wrong_column_count() -> None:
    raw = b"q a 1\nq b\nq c 3 4\n"
    with pytest.raises(FormatError) as info:
        split_columns(raw, 1, "f", NAMES)
    assert str(info.value) == "f:2: expected 3 columns (qid docno value), found 2: 'q b'"


def test_split_columns_treats_vertical_tab_and_form_feed_as_separators_like_isspace() -> None:
    cols = split_columns(b"q\x0ba\x0c1\n", 1, "f", NAMES)
    assert cols.strings(1).tolist() == [b"a"]


def test_split_columns_of_a_block_without_data_lines_is_empty() -> None:
    assert len(split_columns(b"", 1, "f", NAMES)) == 0
    assert len(split_columns(b"\n# only\n\n", 1, "f", NAMES)) == 0


def test_string_column_keeps_long_and_multibyte_tokens_whole() -> None:
    long_docno = "é" * 60  # 120 bytes: wider than the n x width matrix path
    cols = split_columns(f"q {long_docno} 1\nq short 2\n".encode(), 1, "f", NAMES)
    assert cols.strings(1).tolist() == [long_docno.encode(), b"short"]


def test_float_column_is_a_float64_array_even_when_empty() -> None:
    cols = split_columns(b"# nothing\n", 1, "f", NAMES)
    assert cols.floats(2, "v").dtype == np.float64
    assert cols.integers(2, "v").dtype == np.int64


def test_numbers_wider_than_the_vectorized_window_still_parse_or_fail_cleanly() -> None:
    tiny = "0." + "0" * 120 + "1"  # 123 characters: parsed by float(), exactly
    assert column([tiny, "2"]).floats(2, "v").tolist() == [1e-121, 2.0]
    with pytest.raises(FormatError, match=r"^f:2: expected v \(a number\), found 'xxx"):
        column(["1", "x" * 120]).floats(2, "v")
    with pytest.raises(FormatError, match=r"^f:1: v '1111.*' is out of range"):
        column(["1" * 120]).integers(2, "v")
