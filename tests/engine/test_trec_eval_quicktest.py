"""trec_eval 10.0's own test suite as ours: every ``make quicktest`` case, byte for byte.

Each case runs ``manage.py evaluate --trec-eval-layout`` (in-process, :func:`engine.cli.main`) with
trec_eval's exact command line, from a folder holding trec_eval's ``test/`` files, and compares
stdout with trec_eval's expected output byte for byte. ``extra_cases.txt`` adds option
combinations (-J, -l2, -M10, -c, -Z, -n, -N, -D, long options, parameters) whose expected outputs
trec_eval 10.0 itself produced (tests/data/trec_eval/gen_extra.sh; PROVENANCE.md).
"""

from __future__ import annotations

import gzip
import importlib.util
import io
import shutil
from pathlib import Path

import pytest

from engine.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
PREFS_FORMATS = ("-R prefs", "-R qrels_prefs", "-R qrels_jg")


def _cases(name: str) -> list[tuple[str, str]]:
    rows = []
    for line in (DATA / name).read_text().splitlines():
        if line and not line.startswith("#"):
            expected, args = line.split("\t")
            rows.append((expected, args))
    return rows


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with trec_eval's ``test/`` files (and ``extra/``'s own inputs), so the command lines
    name them exactly as trec_eval's."""
    root = tmp_path_factory.mktemp("trec_eval")
    shutil.copytree(DATA / "test", root / "test")
    shutil.copytree(DATA / "extra", root / "extra")
    packed = root / "test" / "results.comment.test.gz"
    (root / "test" / "results.comment.test").write_bytes(gzip.decompress(packed.read_bytes()))
    return root


def _evaluate(workdir: Path, args: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    monkeypatch.chdir(workdir)
    out, err = io.StringIO(), io.StringIO()
    code = main(["--trec-eval-layout", *args.split()], out, err)
    return code, out.getvalue(), err.getvalue()


def _needs_prefs(args: str) -> None:
    if any(flag in args for flag in PREFS_FORMATS) and importlib.util.find_spec("engine.prefs") is None:
        pytest.xfail("H2: engine.prefs (-R prefs, qrels_prefs, qrels_jg) is not in this build yet")


@pytest.mark.parametrize(("expected", "args"), _cases("quicktest_cases.txt"))
def test_quicktest_case_is_byte_identical(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, expected: str, args: str
) -> None:
    _needs_prefs(args)
    code, out, err = _evaluate(workdir, args, monkeypatch)
    assert code == 0, err
    assert out == (DATA / "test" / expected).read_text()


def test_every_quicktest_case_is_listed() -> None:
    # the 15 command lines of trec_eval's Makefile quicktest target
    assert len(_cases("quicktest_cases.txt")) == 15


@pytest.mark.parametrize(("expected", "args"), _cases("extra_cases.txt"))
def test_extra_option_combination_is_byte_identical(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, expected: str, args: str
) -> None:
    code, out, err = _evaluate(workdir, args, monkeypatch)
    assert code == 0, err
    want = (DATA / expected).read_text()
    assert want, "an empty expected output would prove nothing"
    assert out == want
