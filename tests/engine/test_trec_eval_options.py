"""trec_eval's command-line behaviour around the numbers: runid, stdin, extra run fields, options,
JSON/CSV output of NaN and relstring, and one-line errors for bad parameters."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.catalog import measure_help
from engine.cli import main
from engine.names import parse_measures, parse_trec_eval_measures

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval" / "test"
QRELS = str(DATA / "qrels.test")
RESULTS = str(DATA / "results.test")
TRUNC = str(DATA / "results.trunc")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


QRELS_TEXT = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 1\n"


def test_runid_is_the_tag_of_the_last_result_line_not_the_file_name(tmp_path: Path) -> None:
    # trec_eval keeps the run id of the last line it parsed (get_trec_results.c)
    run_file = _write(tmp_path, "mine.run", "1 Q0 a 1 3.0 first\n1 Q0 b 2 2.0 middle\n2 Q0 a 1 1.0 last\n")
    code, out, _ = run("--trec-eval-layout", "-m", "runid", _write(tmp_path, "q", QRELS_TEXT), run_file)
    assert code == 0
    assert out == "runid                 \tall\tlast\n"


def test_several_runs_keep_file_names_as_prefix_and_tags_as_runid(tmp_path: Path) -> None:
    qrels = _write(tmp_path, "q", QRELS_TEXT)
    a = _write(tmp_path, "a.run", "1 Q0 a 1 3.0 tagA\n")
    b = _write(tmp_path, "b.run", "1 Q0 b 1 3.0 tagB\n")
    code, out, _ = run("-m", "runid", "--threads", "1", qrels, a, b)
    assert code == 0
    assert out.splitlines() == ["a\trunid\tall\ttagA", "b\trunid\tall\ttagB"]


def test_fields_after_the_tag_are_ignored_and_fewer_than_six_refused(tmp_path: Path) -> None:
    qrels = _write(tmp_path, "q", QRELS_TEXT)
    extra = _write(tmp_path, "x.run", "1 Q0 a 1 3.0 T more junk here\n1 Q0 b 2 2.0 T\n")
    plain = _write(tmp_path, "p.run", "1 Q0 a 1 3.0 T\n1 Q0 b 2 2.0 T\n")
    assert run("-m", "P.1,2", extra, qrels)[0] == 2  # (arguments swapped: the qrels is not a run)
    assert run("-q", "-m", "P.1,2", qrels, extra)[1] == run("-q", "-m", "P.1,2", qrels, plain)[1]
    short = _write(tmp_path, "s.run", "1 Q0 a 1 3.0\n")
    code, _, err = run(qrels, short)
    assert code == 2
    assert f"{short}:1: expected 6 columns" in err
    assert "Traceback" not in err


def test_the_run_file_dash_is_read_from_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(buffer=io.BytesIO(Path(RESULTS).read_bytes())))
    code, out, _ = run("--trec-eval-layout", QRELS, "-")
    assert code == 0
    assert out == (DATA / "out.test").read_text()


def test_long_options_mean_what_the_short_ones_mean() -> None:
    short = run("--trec-eval-layout", "-q", "-c", "-J", "-l", "1", "-M", "50", "-m", "P.5", QRELS, TRUNC)
    long = run(
        "--trec-eval-layout",
        "--query_eval_wanted",
        "--complete_rel_info_wanted",
        "--Judged_docs_only",
        "--level_for_rel=1",
        "--Max_retrieved_per_topic",
        "50",
        "--measure",
        "P.5",
        "--Rel_info_format",
        "qrels",
        "--Results_format",
        "trec_results",
        "--Output_old_results_format",
        QRELS,
        TRUNC,
    )
    assert short[0] == long[0] == 0
    assert short[1] == long[1]
    assert "P_5                   \t301\t" in long[1]


def test_nosummary_prints_per_topic_lines_only() -> None:
    code, out, _ = run("--trec-eval-layout", "-n", "-q", "-m", "map", QRELS, RESULTS)
    assert code == 0
    assert [line.split("\t")[1] for line in out.splitlines()] == ["301", "302", "303"]
    assert run("-n", "-m", "map", QRELS, RESULTS)[1] == ""


def test_debug_level_with_a_topic_evaluates_that_topic_only() -> None:
    code, out, _ = run("--trec-eval-layout", "-q", "-D", "0.302", "-m", "num_q", "-m", "map", QRELS, RESULTS)
    assert code == 0
    assert {line.split("\t")[1] for line in out.splitlines()} == {"302", "all"}
    assert "num_q                 \tall\t1\n" in out
    code, _, err = run("-D", "0.999", QRELS, RESULTS)
    assert code == 2 and "topic '999' is not in the qrels" in err


def test_num_docs_in_coll_feeds_utility() -> None:
    # utility's 4th coefficient multiplies the unretrieved non-relevant docs: N + a - num_ret - R
    base = run("-m", "utility.0,0,0,1", QRELS, RESULTS)[1]
    more = run("-N", "1000000", "-m", "utility.0,0,0,1", QRELS, RESULTS)[1]
    assert float(more.split("\t")[2]) - float(base.split("\t")[2]) == pytest.approx(1000000)


def test_version_goes_to_stderr_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        run("-v")
    assert info.value.code == 0
    assert "trec_eval version 10.0" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        run("--version")
    assert info.value.code == 0


def test_help_lists_trec_eval_options_and_every_measure(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        run("--help")
    assert info.value.code == 0
    text = capsys.readouterr().out
    for option in ("--query_eval_wanted", "--Judged_docs_only", "--Zscore", "--nosummary", "-N", "-D"):
        assert option in text
    listing = measure_help()
    if listing:  # engine.catalog's list, printed as written (raw formatter) after the options
        assert listing.strip().splitlines()[0] in text
        assert listing.strip().splitlines()[-1] in text


@pytest.mark.parametrize(
    ("measure", "phrase"),
    [
        ("P.0", "cutoffs must be positive"),
        ("P.-3", "cutoffs must be positive"),
        ("P.abc", "'abc' is not a number"),
        ("P.5,5", "duplicate cutoffs"),
        ("P.", "empty parameter list"),
        ("ndcg_cut.0", "cutoffs must be positive"),
        ("iprec_at_recall.1.5", "recall levels must lie in [0, 1]"),
        ("utility.1,2", "utility takes 4 coefficients"),
        ("ndcg.1=3,2", "malformed pair parameters"),
        ("rbp.p=1.2", "p must lie in (0, 1)"),
        ("relstring.x", "'x' is not a number"),
        ("map.5", "takes no parameters"),
        ("official.5", "takes no parameters"),
        ("P.inf", "not a number"),
        ("prefs_simp", "needs judgments given with -R prefs"),
        ("all_prefs", "needs judgments given with -R prefs"),
        ("map_avgjg", "needs judgments given with -R qrels_jg"),
    ],
)
@pytest.mark.parametrize("layout", [True, False])
def test_bad_parameters_are_one_line_errors_with_exit_2(measure: str, phrase: str, layout: bool) -> None:
    args = ["--trec-eval-layout"] if layout else []
    code, out, err = run(*args, "-m", measure, QRELS, RESULTS)
    assert code == 2
    assert out == ""
    assert phrase in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(("option", "value"), [("-R", "trec"), ("-T", "csv")])
def test_unknown_formats_are_refused(option: str, value: str) -> None:
    code, _, err = run(option, value, QRELS, RESULTS)
    assert code == 2 and "illegal" in err


def test_parameters_are_read_and_named_as_trec_eval_does() -> None:
    names = [m.measure_name() for m in parse_measures(["P.23.4", "set_F.2.0", "11pt_avg..25,.5,.75"])]
    assert names == ["P_23", "set_F_2.0", "11pt_avg_.25,.5,.75"]
    names = [m.measure_name() for m in parse_measures(["Rprec_mult.10", "iprec_at_recall..5", "P.7,3"])]
    assert names == ["Rprec_mult_10.00", "iprec_at_recall_0.50", "P_3", "P_7"]


def test_trec_eval_semantics_first_parameters_win_and_its_order_prints() -> None:
    names = [m.measure_name() for m in parse_trec_eval_measures(["P", "ndcg", "P.10", "map", "P.5"])]
    assert names == ["map", "P_10", "ndcg"]
    assert "gm_map" in [m.measure_name() for m in parse_trec_eval_measures(["official"])]
    group = [m.measure_name() for m in parse_trec_eval_measures(["set"])]
    assert group == [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_relative_P",
        "set_recall",
        "set_map",
        "set_F",
    ]


def test_json_writes_null_for_nan_and_relstring_as_a_string() -> None:
    # -J -c: topic 302 is missing and its bogus ranking is emptied, so iprec_at_recall_0.00 is 0/0
    code, out, _ = run("--format", "json", "-q", "-J", "-c", "-m", "all_trec", QRELS, TRUNC)
    assert code == 0
    assert "NaN" not in out
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    result = data["runs"][0]
    assert result["runid"] == "STANDARD"
    assert result["per_topic"]["302"]["iprec_at_recall_0.00"] is None
    assert result["per_topic"]["301"]["relstring"] == "0000011000"
    assert "relstring" not in result["all"]
    text = run("--trec-eval-layout", "-q", "-J", "-c", "-m", "iprec_at_recall", QRELS, TRUNC)[1]
    assert "iprec_at_recall_0.00  \t302\t  -nan\n" in text


def test_csv_writes_relstring_without_quotes() -> None:
    code, out, _ = run("--format", "csv", "-q", "-m", "relstring.4", QRELS, RESULTS)
    assert code == 0
    assert "results.test,relstring_4,301,0000\n" in out.replace("\r\n", "\n")


def test_zscores_prefix_names_and_leave_runid_and_relstring_alone() -> None:
    code, out, _ = run("--trec-eval-layout", "-q", "-Z", str(DATA / "zscores_file"), QRELS, RESULTS)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("Z" + "num_ret".ljust(22) + "\t301\t")
    assert "runid                 \tall\tSTANDARD" in lines
    assert "Znum_q                 \tall\t3.0000" in lines


def test_zscore_conversion_rules(tmp_path: Path) -> None:
    import numpy as np

    from engine.zscores import MISSING_ZSCORE_VALUE, read_zscores

    path = _write(tmp_path, "z", "1 map 0.5 0.25\n2 map 0.3 0\n3 map 0.3 0\n")
    z = read_zscores(path)
    got = z.convert("map", ["1", "2", "3", "4"], np.array([1.0, 0.3, 0.4, 0.2]))
    # (v - mean) / sd; sd 0: 0 if v == mean else missing; a topic absent from the file: missing
    assert got.tolist() == [2.0, 0.0, MISSING_ZSCORE_VALUE, MISSING_ZSCORE_VALUE]
    assert z.convert("P_5", ["1"], np.array([0.1])).tolist() == [MISSING_ZSCORE_VALUE]
