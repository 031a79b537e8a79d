"""trec_eval 10.0's -R prefs / qrels_prefs / qrels_jg, byte for byte against trec_eval's own output.

Data: tests/data/trec_eval_prefs (see its PROVENANCE.md). ``cases.txt`` lists trec_eval command
lines: the five quicktest cases of trec_eval's Makefile (expected output from trec_eval's test/
folder) and more option combinations whose expected output trec_eval 10.0 produced.
"""

from __future__ import annotations

import dataclasses
import gzip
import io
from pathlib import Path

import numpy as np
import pytest

from engine.evaluate import RunResult
from engine.measures.base import EvalOptions
from engine.name_parts import MeasureError
from engine.output import trec_lines
from engine.prefs import evaluate_prefs_files, parse_prefs_measures
from engine.prefs.counts import RankPool, build_topic, docid_ranks, group_counts, topic_rows
from engine.prefs.names import rprec_mult_avgjg_name
from tests.conftest import refdata_dir
from trec.errors import FormatError
from trec.prefs_files import read_prefs, read_qrels_jg

DATA = Path(__file__).resolve().parent.parent / "data" / "trec_eval_prefs"
# trec_eval's own test files are kept once, with the quicktest suite's (tests/data/trec_eval/test)
NIST = DATA.parent / "trec_eval" / "test"


def _data_file(root: Path, name: str) -> Path:
    """``test/X`` or ``test/X.gz`` names trec_eval's file X when the quicktest folder holds it."""
    if root == DATA and name.startswith("test/"):
        nist = NIST / name.removeprefix("test/").removesuffix(".gz")
        if nist.exists():
            return nist
    return root / name


# ------------------------------------------------------------------ a trec_eval-like driver


def _parse_args(argv: list[str]) -> tuple[list[str], EvalOptions, str, bool, list[str]]:
    """trec_eval's options as used in cases.txt: -q -c -J -M<n> -l<n> -m <spec> -R <format>."""
    specs: list[str] = []
    per_topic = judged = complete = False
    level, max_docs, rel_format = 1, None, "qrels"
    files: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg == "-q":
            per_topic = True
        elif arg == "-c":
            complete = True
        elif arg == "-J":
            judged = True
        elif arg.startswith("-M"):
            max_docs = int(arg[2:])
        elif arg.startswith("-l"):
            level = int(arg[2:])
        elif arg == "-m":
            specs.append(next(it))
        elif arg == "-R":
            rel_format = next(it)
        else:
            files.append(arg)
    options = EvalOptions(level=level, max_docs=max_docs, judged_only=judged, complete=complete)
    return specs, options, rel_format, per_topic, files


def _render(result: RunResult, per_topic: bool) -> str:
    # with_run=False: the run name is never printed; runid prints the run's tag
    result = dataclasses.replace(result, run=result.runid)
    lines = trec_lines(result, per_topic=per_topic, digits=4, with_run=False, trec_eval_layout=True)
    return "".join(line + "\n" for line in lines)


def _evaluate(argv: list[str], root: Path = DATA) -> str:
    specs, options, rel_format, per_topic, files = _parse_args(argv)
    paths = [str(_data_file(root, f)) for f in files]
    results = evaluate_prefs_files(
        paths[0], paths[1:], specs, options, rel_format, ["run"] * (len(paths) - 1)
    )
    return "".join(_render(r, per_topic) for r in results)


def _cases() -> list[tuple[str, list[str], Path]]:
    out = []
    for line in (DATA / "cases.txt").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        name, args, *expected = line.split("\t")
        path = _data_file(DATA, expected[0]) if expected else DATA / "generated" / f"{name}.out.gz"
        out.append((name, args.split(), path))
    return out


def _read_expected(path: Path) -> str:
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return data.decode()


CASES = _cases()


def test_cases_cover_the_quicktest_and_the_options() -> None:
    names = [c[0] for c in CASES]
    assert sum(n.startswith("quicktest") for n in names) == 5
    assert len(names) >= 30


@pytest.mark.parametrize(("name", "argv", "expected"), CASES, ids=[c[0] for c in CASES])
def test_byte_identical_to_trec_eval(name: str, argv: list[str], expected: Path) -> None:
    assert _evaluate(argv) == _read_expected(expected)


QUICKTEST = [c for c in CASES if c[0].startswith("quicktest")]


@pytest.mark.parametrize(("name", "argv", "expected"), QUICKTEST, ids=[c[0] for c in QUICKTEST])
def test_quicktest_through_the_command_line(
    name: str, argv: list[str], expected: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine import cli

    monkeypatch.chdir(DATA)
    files = [str(_data_file(DATA, a)) if a.startswith("test/") else a for a in argv]
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["--trec-eval-layout", *files], out, err)
    assert code == 0, err.getvalue()
    assert out.getvalue() == _read_expected(expected)


def test_overrun_into_the_next_group_as_trec_eval() -> None:
    """Rnonrel reads the R non-relevant docs past the group's last class into the next group's
    entries (trec_eval's shared rank pool); expected output from trec_eval 10.0."""
    got = _evaluate(["-q", "-m", "all_prefs", "-R", "prefs", "test/overrun.prefs", "test/overrun.run"])
    assert got == (DATA / "test" / "overrun.expected").read_text()


# ------------------------------------------------------------------ reference collection (robust05)

ROBUST05 = [
    ("ASUBE.all_prefs.txt.gz", ["-q", "-m", "all_prefs", "-R", "qrels_prefs"], "ASUBE.run"),
    ("HKPU2CT.all_prefs.txt.gz", ["-q", "-m", "all_prefs", "-R", "qrels_prefs"], "HKPU2CT.run"),
    (
        "terrier_bm25_b0.50.c.all_prefs.txt.gz",
        ["-q", "-c", "-m", "all_prefs", "-R", "qrels_prefs"],
        "terrier_bm25_b0.50.run",
    ),
    ("ASUBE.qrels_jg.txt.gz", ["-q", "-m", "qrels_jg", "-R", "qrels_jg"], "ASUBE.run"),
]


@pytest.mark.parametrize(("expected", "argv", "run"), ROBUST05, ids=[c[0] for c in ROBUST05])
def test_robust05_byte_identical(expected: str, argv: list[str], run: str) -> None:
    root = refdata_dir()
    if root is None:
        pytest.skip("reference data absent: set WORKBENCH_REFDATA to ../shared/refdata")
    data = root / "data" / "robust05"
    got = _evaluate([*argv, str(data / "qrels.robust05.txt"), str(data / "runs" / run)], root=Path("/"))
    assert got == _read_expected(DATA / "robust05" / expected)


# ------------------------------------------------------------------ semantics on small files


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _values(tmp_path: Path, prefs: str, run: str, specs: list[str], **options: object) -> RunResult:
    p = _write(tmp_path, "j.prefs", prefs)
    r = _write(tmp_path, "r.run", run)
    return next(iter(evaluate_prefs_files(p, [r], specs, EvalOptions(**options), "prefs", ["r"])))  # type: ignore[arg-type]


RUN_ABCD = "q1 Q0 A 1 4 R\nq1 Q0 B 2 3 R\nq1 Q0 C 3 2 R\nq1 Q0 D 4 1 R\n"


def test_thirteen_preferences_of_the_get_prefs_example(tmp_path: Path) -> None:
    """get_prefs.c: six docs at levels 3, 2, 0, 6, 0, 2 in one sub-group make 13 preferences."""
    prefs = "".join(
        f"q1 u1 s1 d{i} {v}\n" for i, v in enumerate(["3.0", "2.0", "0.0", "6.0", "0.0", "2.0"], start=1)
    )
    r = _values(tmp_path, prefs, "q1 Q0 d4 1 9 R\n", ["prefs_num_prefs_poss", "prefs_num_prefs_ful"])
    assert r.summary["prefs_num_prefs_poss"] == 13
    assert r.summary["prefs_num_prefs_ful"] == 5  # d4 retrieved: its 5 preferences are fulfilled


def test_transitive_preferences_across_sub_groups(tmp_path: Path) -> None:
    """get_prefs.c: 1>2>3 in sub1 and 2>4 in sub2 also give 1>4: five preferences, not 3>4."""
    prefs = "q1 u s1 A 3\nq1 u s1 B 2\nq1 u s1 C 1\nq1 u s2 B 5\nq1 u s2 D 4\n"
    r = _values(tmp_path, prefs, RUN_ABCD, ["all_prefs"])
    assert r.summary["prefs_num_prefs_poss"] == 5
    assert r.summary["prefs_simp"] == 1.0  # A B C D in that order fulfils all five
    r = _values(
        tmp_path, prefs, "q1 Q0 D 1 9 R\nq1 Q0 A 2 8 R\n", ["prefs_simp_ret", "prefs_num_prefs_ful_ret"]
    )
    assert r.summary["prefs_num_prefs_ful_ret"] == 0  # only A > D among retrieved docs, and D is first
    assert r.summary["prefs_simp_ret"] == 0.0


def test_pair_measure_averages_conflicting_groups(tmp_path: Path) -> None:
    """prefs_pair: user 1 prefers A to B, users 2 and 3 B to A: the pair scores 1/3 or 2/3."""
    prefs = "q1 u1 s A 2\nq1 u1 s B 1\nq1 u2 s A 1\nq1 u2 s B 2\nq1 u3 s A 1\nq1 u3 s B 2\n"
    r = _values(tmp_path, prefs, RUN_ABCD, ["prefs_pair", "prefs_simp", "prefs_avgjg"])
    assert r.summary["prefs_pair"] == pytest.approx(1 / 3, abs=1e-15)
    assert r.summary["prefs_simp"] == pytest.approx(1 / 3, abs=1e-15)
    assert r.names == ["prefs_simp", "prefs_pair", "prefs_avgjg"]  # trec_eval's table order
    r = _values(tmp_path, prefs, "q1 Q0 B 1 9 R\nq1 Q0 A 2 8 R\n", ["prefs_pair"])
    assert r.summary["prefs_pair"] == pytest.approx(2 / 3, abs=1e-15)


def test_ties_broken_by_docno_ascending(tmp_path: Path) -> None:
    """form_prefs_counts.c orders equal scores by docno ascending (other measures: descending)."""
    r = _values(tmp_path, "q1 u s A 2\nq1 u s B 1\n", "q1 Q0 B 1 5 R\nq1 Q0 A 2 5 R\n", ["prefs_simp"])
    assert r.summary["prefs_simp"] == 1.0


def test_max_docs_cuts_before_judgments(tmp_path: Path) -> None:
    run = "q1 Q0 X 1 9 R\nq1 Q0 B 2 8 R\nq1 Q0 A 3 7 R\n"
    prefs = "q1 u s B 2\nq1 u s A 1\n"
    full = _values(tmp_path, prefs, run, ["prefs_simp_ret", "prefs_simp"])
    cut = _values(tmp_path, prefs, run, ["prefs_simp_ret", "prefs_simp"], max_docs=2)
    assert full.summary["prefs_simp_ret"] == 1.0 and full.summary["prefs_simp"] == 1.0
    assert cut.summary["prefs_simp_ret"] == 0.0  # the unjudged X uses up a slot: only B retrieved
    assert cut.summary["prefs_simp"] == 1.0  # B > A with only B retrieved: implied success


def test_missing_topic_is_skipped_and_reported_unless_complete(tmp_path: Path) -> None:
    prefs = "q1 u s A 2\nq1 u s B 1\nq2 u s A 2\nq2 u s B 1\n"
    r = _values(tmp_path, prefs, RUN_ABCD, ["num_q", "prefs_simp"])
    assert r.topics == ["q1"] and r.missing_topics == ["q2"] and r.summary["num_q"] == 1
    r = _values(tmp_path, prefs, RUN_ABCD, ["num_q", "prefs_simp"], complete=True)
    assert r.topics == ["q1", "q2"] and r.summary["num_q"] == 2
    assert r.summary["prefs_simp"] == 0.5  # q2 ranked by trec_eval's stand-in document only


def test_runid_is_the_run_tag(tmp_path: Path) -> None:
    r = _values(tmp_path, "q1 u s A 2\nq1 u s B 1\n", RUN_ABCD, ["prefs"])
    assert r.runid == "R" and r.run == "r"
    assert r.names[:2] == ["runid", "num_q"] and r.summary_only == {"runid", "num_q"}


@pytest.mark.parametrize(
    ("prefs", "line", "words"),
    [
        ("q1 u s1 A 2\nq1 u s1 B 1\nq1 u s2 B 2\nq1 u s2 A 1\n", 1, "each preferred to the other"),
        ("q1 u s1 A 2\nq1 u s1 B 0\nq1 u s2 B 2\nq1 u s2 C 1\n", 3, "both 0 and non-0"),
        ("q1 u s1 A 2\nq1 u s1 B 0\nq1 u s1 A 1\n", 3, "two relevance levels"),
    ],
    ids=["cycle", "zero-and-nonzero", "two-levels"],
)
def test_inconsistent_judgments_are_format_errors(tmp_path: Path, prefs: str, line: int, words: str) -> None:
    with pytest.raises(FormatError) as info:
        _values(tmp_path, prefs, RUN_ABCD, ["prefs_simp"])
    assert info.value.line == line and words in str(info.value)


def test_malformed_lines_name_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"j\.prefs:2: expected 5 columns"):
        read_prefs(_write(tmp_path, "j.prefs", "q1 u s A 2\nq1 u s B\n"))
    with pytest.raises(FormatError, match=r"j\.prefs:1: expected a relevance level"):
        read_prefs(_write(tmp_path, "j.prefs", "q1 u s A high\n"))
    with pytest.raises(FormatError, match=r"jg:3: duplicate docno 'A'.*first on line 1"):
        read_qrels_jg(_write(tmp_path, "jg", "1 u A 1\n1 v A 0\n1 u A 0\n"))
    with pytest.raises(FormatError, match="no judgments"):
        read_prefs(_write(tmp_path, "empty", "# only a comment\n"))


def test_comment_lines_are_skipped(tmp_path: Path) -> None:
    p = read_prefs(_write(tmp_path, "j.prefs", "# c\nq1 u s A#1 2\n# c2\nq1 u s B 1\n"))
    assert p.docno.tolist() == [b"A#1", b"B"] and p.line.tolist() == [2, 4]


@pytest.mark.parametrize(
    ("specs", "rel_format", "words"),
    [
        ([], "prefs", "default measures"),
        (["official"], "qrels_prefs", "needs ordinary qrels"),
        (["map"], "prefs", "cannot be computed with -R prefs"),
        (["prefs_simp"], "qrels_jg", "needs -R prefs or -R qrels_prefs"),
        (["map_avgjg"], "prefs", "needs -R qrels_jg"),
        (["all_prefs"], "qrels_jg", "cannot be computed"),
        (["prefs_simp.5"], "prefs", "takes no parameters"),
        (["P_avgjg.0,5"], "qrels_jg", "positive"),
        (["P_avgjg.5,5"], "qrels_jg", "duplicate"),
        (["Rprec_mult_avgjg.1,1.0"], "qrels_jg", "duplicate"),
        (["P_avgjg."], "qrels_jg", "empty parameter"),
        (["prefs_simp"], "qrels", "unknown judgments format"),
    ],
)
def test_measure_errors(specs: list[str], rel_format: str, words: str) -> None:
    with pytest.raises(MeasureError, match=words):
        parse_prefs_measures(specs, rel_format)


def test_measure_parameters_as_trec_eval_reads_them() -> None:
    req = parse_prefs_measures(["P_avgjg.20,5.9", "P_avgjg.7", "qrels_jg"], "qrels_jg")
    assert req.p_cutoffs == (5, 20)  # atol, sorted; the first -m with parameters wins
    assert req.names == ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
    req = parse_prefs_measures(["Rprec_mult_avgjg.2,0.5"], "qrels_jg")
    assert req.rprec_cutoffs == (0.5, 2.0)
    assert rprec_mult_avgjg_name(0.5) == "Rprec_mult_avgjg_0.50"
    assert rprec_mult_avgjg_name(12345.5) == "Rprec_mult_avgjg_12345.50"[:25]  # trec_eval's buffer


def test_pair_shortcut_equals_the_counts_array(tmp_path: Path) -> None:
    """One group without repeated lines: prefs_pair is computed as prefs_simp; with the same group
    split into two identical users it goes through the counts array, and must agree."""
    rng = np.random.default_rng(7)
    docs = [f"D{i}" for i in range(12)]
    levels = rng.integers(0, 4, size=len(docs))
    one = "".join(f"q1 u1 s {d} {v}\n" for d, v in zip(docs, levels, strict=True))
    two = one + one.replace(" u1 ", " u2 ")
    run = "".join(f"q1 Q0 {d} {k} {100 - k} R\n" for k, d in enumerate(rng.permutation(docs)[:7]))
    names = [
        "prefs_pair",
        "prefs_pair_ret",
        "prefs_pair_imp",
        "prefs_simp",
        "prefs_simp_ret",
        "prefs_simp_imp",
    ]
    a = _values(tmp_path, one, run, names)
    b = _values(tmp_path, two, run, names)
    for n in names:
        assert a.summary[n] == pytest.approx(b.summary[n], abs=1e-15)
    assert a.summary["prefs_pair"] == a.summary["prefs_simp"]


def test_rank_pool_keeps_earlier_topics_entries() -> None:
    pool = RankPool()
    first = pool.fill(5, np.array([4, 3, 2, 1]))
    assert first.tolist() == [4, 3, 2, 1, 0]
    second = pool.fill(3, np.array([9]))
    assert second.tolist() == [9, 3, 2, 1, 0]  # stale entries stay, as in trec_eval's buffer
    assert len(pool.fill(6, np.array([1]))) == 11  # te_chk_and_malloc grows by what is needed


def test_docid_ranks_put_unretrieved_judged_docs_after_in_docno_order(tmp_path: Path) -> None:
    prefs = read_prefs(_write(tmp_path, "j", "q1 u s C 1\nq1 u s A 2\nq1 u s B 0\nq1 u s E 0\n"))
    topic = build_topic(prefs, "q1", topic_rows(prefs)["q1"])
    assert topic.docnos.tolist() == [b"A", b"B", b"C", b"E"]
    rank, njr = docid_ranks(topic, np.array([b"Z", b"C", b"B"]), np.array([3.0, 2.0, 1.0]), None)
    assert njr == 2 and rank.tolist() == [2, 1, 0, 3]
    counts = group_counts(topic.groups[0], rank, njr)
    # A(2) > C(1) > B, E: A>C, A>B, A>E unretrieved A; C>B, C>E fulfilled
    assert (counts.ful_ret, counts.ful_imp, counts.poss_ret, counts.poss_imp, counts.notoccur) == (
        1,
        1,
        1,
        3,
        1,
    )
