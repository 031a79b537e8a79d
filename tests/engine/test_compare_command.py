"""``manage.py compare``: significance tests between runs on files, its output formats and its errors."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

TOPICS = ["1", "2", "3", "4", "5", "6"]


def qrels_text(relevant: str, other: str) -> str:
    return "".join(f"{t} 0 {relevant} 1\n{t} 0 {other} 0\n" for t in TOPICS)


def run_text(tag: str, first: dict[str, str]) -> str:
    """Two documents per topic: ``first[topic]`` ranked first, the other one second."""
    lines = []
    for t in TOPICS:
        top = first[t]
        second = "n" if top == "r" else "r"
        lines += [f"{t} Q0 {top} 1 2.0 {tag}", f"{t} Q0 {second} 2 1.0 {tag}"]
    return "\n".join(lines) + "\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    # With 'r' the one relevant document of each topic: A ranks it first (AP 1 everywhere),
    # B second (AP 1/2 everywhere), C first on topics 1-3 only (mean AP 3/4).
    paths = {
        "qrels": tmp_path / "qrels.txt",
        "swapped": tmp_path / "swapped.txt",
        "A": tmp_path / "A.run",
        "B": tmp_path / "B.run",
        "C": tmp_path / "C.run",
    }
    paths["qrels"].write_text(qrels_text("r", "n"))
    paths["swapped"].write_text(qrels_text("n", "r"))  # 'n' relevant instead: the ordering reverses
    paths["A"].write_text(run_text("A", dict.fromkeys(TOPICS, "r")))
    paths["B"].write_text(run_text("B", dict.fromkeys(TOPICS, "n")))
    paths["C"].write_text(run_text("C", {t: "r" if t in "123" else "n" for t in TOPICS}))
    return paths


def compare(files: dict[str, Path], *args: str, runs: Sequence[str] = "ABC") -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "compare", str(files["qrels"]), *(str(files[r]) for r in runs), *args, stdout=out, stderr=err
    )
    return out.getvalue(), err.getvalue()


def compare_json(files: dict[str, Path], *args: str, runs: Sequence[str] = "ABC") -> dict[str, Any]:
    out, _ = compare(files, "--format=json", *args, runs=runs)
    doc: dict[str, Any] = json.loads(out)
    return doc


def failure(files: dict[str, Path], *args: str, runs: Sequence[str] = "ABC") -> CommandError:
    with pytest.raises(CommandError) as info:
        compare(files, *args, runs=runs)
    return info.value


def test_text_output_ranks_runs_by_mean_and_lists_each_pair(files: dict[str, Path]) -> None:
    out, _ = compare(files, "-m", "map")
    lines = [line.split() for line in out.splitlines()]
    assert ["1", "A", "1.0000"] in lines
    assert ["2", "C", f"{(3 * 1 + 3 * 0.5) / 6:.4f}"] in lines
    assert ["3", "B", "0.5000"] in lines
    # A − B is 1/2 on every topic: a t statistic of infinity, p = 0, significant after Holm
    pair = next(line for line in lines if line[:2] == ["A", "B"])
    assert pair[2] == "0.5000" and pair[5:] == ["t", "inf", "0.0000", "0.0000", "*"]
    assert "Tukey HSD" in out and "groups" in out


def test_sign_test_p_values_and_their_holm_correction(files: dict[str, Path]) -> None:
    doc = compare_json(files, "-m", "map", "--test", "sign")
    sign = {(p["a"], p["b"]): p["tests"]["sign"] for p in doc["pairs"]}
    # A−B: 6 wins of 6, p = 2/2^6; A−C and B−C: 3 of 3 untied topics, p = 2/2^3
    assert sign[("A", "B")]["p"] == pytest.approx(2 / 2**6)
    assert sign[("A", "C")]["p"] == pytest.approx(2 / 2**3) and sign[("A", "C")]["n"] == 3
    # Holm: 3 · 1/32 = 0.09375; 2 · 1/4 = 0.5; 1 · 1/4 -> the running max 0.5
    assert [s["p_adjusted"] for s in sign.values()] == pytest.approx([0.09375, 0.5, 0.5])
    assert not any(s["significant"] for s in sign.values())
    assert doc["settings"]["tests"] == ["sign"]


def test_bonferroni_and_no_correction(files: dict[str, Path]) -> None:
    bonf = compare_json(files, "-m", "map", "--test", "sign", "--correction", "bonferroni")
    assert [p["tests"]["sign"]["p_adjusted"] for p in bonf["pairs"]] == pytest.approx([3 / 32, 0.75, 0.75])
    none = compare_json(files, "-m", "map", "--test", "sign", "--correction", "none", "--alpha", "0.05")
    assert none["pairs"][0]["tests"]["sign"]["significant"]  # 1/32 < 0.05 uncorrected


def test_baseline_compares_every_run_with_it(files: dict[str, Path]) -> None:
    doc = compare_json(files, "-m", "map", "--baseline", "B")
    assert [(p["a"], p["b"], p["diff"]) for p in doc["pairs"]] == [
        ("A", "B", pytest.approx(0.5)),
        ("C", "B", pytest.approx(0.25)),
    ]
    by_path = compare_json(files, "-m", "map", "--baseline", str(files["B"]))
    assert [(p["a"], p["b"]) for p in by_path["pairs"]] == [("A", "B"), ("C", "B")]


def test_constant_difference_has_a_point_bootstrap_interval(files: dict[str, Path]) -> None:
    doc = compare_json(files, "-m", "map", "--bootstrap", "500")
    assert doc["pairs"][0]["ci"] == [pytest.approx(0.5), pytest.approx(0.5)]


def test_the_seed_makes_the_random_procedures_reproducible(files: dict[str, Path]) -> None:
    args = ("-m", "map", "--permutations", "300", "--bootstrap", "300", "--seed", "7")
    assert compare(files, *args) == compare(files, *args)


def test_compare_qrels_reports_a_reversed_ordering(files: dict[str, Path]) -> None:
    doc = compare_json(files, "-m", "map", "--compare-qrels", str(files["swapped"]))
    (corr,) = doc["correlations"]
    # A > C > B under the qrels, B > C > A under the swapped ones
    assert (corr["tau_b"], corr["tau_ap"]) == (pytest.approx(-1.0), pytest.approx(-1.0))
    assert corr["truth"].endswith("qrels.txt)") and corr["other"].endswith("swapped.txt)")


def test_compare_measure_prints_both_correlations(files: dict[str, Path]) -> None:
    out, _ = compare(files, "-m", "map", "--compare-measure", "P.1")
    # P@1 is 1, 0 and 1/2 for A, B, C: the same order as MAP
    line = "map vs P_1: Kendall tau-b 1.0000, tau_AP 1.0000, tau_AP,b 1.0000, Spearman rho 1.0000 (3 runs)"
    assert line in out


def test_csv_has_one_tidy_row_per_fact(files: dict[str, Path]) -> None:
    out, _ = compare(files, "-m", "map", "--format", "csv", "--test", "t", "--per-topic", runs="AB")
    rows = list(csv.DictReader(io.StringIO(out)))
    # two runs: no Friedman (it needs three)
    assert {r["section"] for r in rows} == {"mean", "pair", "effect", "anova", "tukey", "score"}
    (pair,) = [r for r in rows if r["section"] == "pair"]
    assert (pair["a"], pair["b"], pair["test"], float(pair["estimate"]), pair["p"]) == (
        "A",
        "B",
        "t",
        0.5,
        "0.0",
    )
    scores = [r for r in rows if r["section"] == "score"]
    assert len(scores) == 2 * len(TOPICS)
    assert {float(r["estimate"]) for r in scores if r["a"] == "B"} == {0.5}


def test_per_topic_prints_the_score_matrix(files: dict[str, Path]) -> None:
    out, _ = compare(files, "-m", "map", "--per-topic")
    lines = out.splitlines()
    header = lines.index("per-topic map:") + 1
    assert lines[header].split() == ["topic", "A", "B", "C"]
    assert lines[header + 4].split() == ["4", "1.0000", "0.5000", "0.5000"]


def test_topics_missing_from_a_run_are_left_out_and_named(files: dict[str, Path]) -> None:
    text = files["C"].read_text().splitlines()
    files["C"].write_text("\n".join(line for line in text if not line.startswith("6 ")) + "\n")
    doc = compare_json(files, "-m", "map")
    assert doc["topics"] == ["1", "2", "3", "4", "5"]
    assert doc["dropped"] == {"6": ["C"]}
    _, err = compare(files, "-m", "map")
    assert "1 topic(s) left out, not evaluated for every run: 6 (no results from C)" in err
    # with -c the missing topic scores 0 for C instead
    complete = compare_json(files, "-m", "map", "-c")
    assert complete["dropped"] == {}
    assert complete["runs"][2]["mean"] == pytest.approx((3 * 1 + 2 * 0.5 + 0) / 6)


def test_unknown_baseline_exits_2_naming_the_runs(files: dict[str, Path]) -> None:
    exc = failure(files, "-m", "map", "--baseline", "bm25")
    assert exc.returncode == 2
    assert str(exc) == "no run named 'bm25'; the runs are: A, B, C"


def test_bad_run_file_exits_2_with_file_and_line(files: dict[str, Path]) -> None:
    files["B"].write_text("1 Q0 r 1 2.0 B\n1 Q0 n 2 high B\n")
    exc = failure(files, "-m", "map")
    assert exc.returncode == 2
    assert str(exc).startswith(f"{files['B']}:2:")


def test_bad_qrels_exits_2_with_file_and_line(files: dict[str, Path]) -> None:
    files["swapped"].write_text("1 0 r 1\n1 0 n\n")
    exc = failure(files, "-m", "map", "--compare-qrels", str(files["swapped"]))
    assert exc.returncode == 2
    assert str(exc).startswith(f"{files['swapped']}:2:")


def test_missing_file_exits_2(files: dict[str, Path]) -> None:
    files["A"].unlink()
    exc = failure(files, "-m", "map")
    assert exc.returncode == 2 and str(files["A"]) in str(exc)


@pytest.mark.parametrize(
    ("measure", "message"),
    [("P", "'P' names"), ("nosuch", "unknown measure 'nosuch'")],
)
def test_measure_must_name_exactly_one_known_measure(
    files: dict[str, Path], measure: str, message: str
) -> None:
    exc = failure(files, "-m", measure)
    assert exc.returncode == 2 and message in str(exc)


def test_one_run_is_not_a_comparison(files: dict[str, Path]) -> None:
    exc = failure(files, "-m", "map", runs="A")
    assert exc.returncode == 2 and "at least two runs" in str(exc)


def test_two_files_with_one_run_name_exit_2(files: dict[str, Path], tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    files["A2"] = tmp_path / "other" / "A.run"
    files["A2"].write_text(files["B"].read_text())
    exc = failure(files, "-m", "map", runs=["A", "A2"])
    assert exc.returncode == 2 and "two runs are named 'A'" in str(exc)


@pytest.mark.parametrize("fmt", ["text", "csv", "json"])
def test_the_pure_command_line_prints_what_the_django_command_prints(
    files: dict[str, Path], fmt: str
) -> None:
    from engine.cli import compare_main

    args = ["-m", "map", "--test", "t", f"--format={fmt}", "--per-topic", str(files["qrels"])]
    args += [str(files[r]) for r in "ABC"]
    out, err = io.StringIO(), io.StringIO()
    assert compare_main(args, out, err) == 0
    assert (out.getvalue(), err.getvalue()) == compare(files, *args[:-4], runs="ABC")
    bad = io.StringIO()
    assert compare_main(["-m", "map", str(files["qrels"]), str(files["A"])], io.StringIO(), bad) == 2
    assert bad.getvalue() == "CommandError: give at least two runs to compare\n"


def test_csv_prints_an_infinite_t_statistic_which_json_leaves_null(files: dict[str, Path]) -> None:
    # A - B is 1/2 on every topic: no variance around a non-zero mean, t = +inf (engine.significance)
    out, _ = compare(files, "-m", "map", "--test", "t", "--format=csv", runs="AB")
    pair = next(r for r in csv.DictReader(io.StringIO(out)) if r["section"] == "pair")
    assert (pair["estimate"], pair["statistic"], pair["p"]) == ("0.5", "inf", "0.0")
    doc = compare_json(files, "-m", "map", "--test", "t", runs="AB")
    assert doc["pairs"][0]["tests"]["t"]["statistic"] is None and doc["pairs"][0]["diff"] == 0.5


def test_manage_py_compare_prints_the_same_with_and_without_django() -> None:
    """`manage.py compare` takes the fast path (no Django set-up) unless WORKBENCH_PURE_CLI=0."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    runs = sorted(str(p) for p in (root / "demo" / "runs").glob("*.run"))
    outputs = []
    for pure in ("1", "0"):
        proc = subprocess.run(
            [sys.executable, "manage.py", "compare", "-m", "map", "--format", "csv", "demo/qrels.txt", *runs],
            capture_output=True,
            text=True,
            cwd=root,
            env={"PATH": "/usr/bin:/bin", "WORKBENCH_PURE_CLI": pure},
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].startswith("section,a,b,topic,test,") and "\nmean,bm25," in outputs[0]


def test_one_sided_alternative_and_zero_method_reach_every_test(files: dict[str, Path]) -> None:
    # A beats C on topics 4-6 (AP 1 vs 1/2) and ties on 1-3: d = (0, 0, 0, .5, .5, .5)
    two = compare_json(files, "-m", "map", "--baseline", "C", runs="AC")["pairs"][0]["tests"]
    greater = compare_json(files, "-m", "map", "--baseline", "C", "--alternative", "greater", runs="AC")
    less = compare_json(files, "-m", "map", "--baseline", "C", "--alternative", "less", runs="AC")
    assert greater["settings"]["alternative"] == "greater"
    g, ls = greater["pairs"][0]["tests"], less["pairs"][0]["tests"]
    assert g["sign"]["p"] == 1 / 8 and ls["sign"]["p"] == 1.0  # 3 wins of 3: (1/2)^3 one-sided
    assert two["sign"]["p"] == 2 / 8
    assert g["wilcoxon"]["p"] == 1 / 8  # three tied positive ranks, zeros dropped: exact
    pratt = compare_json(files, "-m", "map", "--baseline", "C", "--zero-method", "pratt", runs="AC")
    assert pratt["settings"]["zero_method"] == "pratt"
    assert pratt["pairs"][0]["tests"]["wilcoxon"]["n"] == 6  # pratt keeps the zeros' ranks
    assert any("Pratt" in c for c in pratt["conventions"])


def test_exact_randomization_and_a_list_of_tests(files: dict[str, Path]) -> None:
    doc = compare_json(files, "-m", "map", "--test", "t,exact", "--baseline", "C", runs="AC")
    tests = doc["pairs"][0]["tests"]
    assert set(tests) == {"t", "exact"}
    # d = (0, 0, 0, .5, .5, .5): of the 2^6 sign vectors, |Σ| >= 1.5 needs the three .5 equal
    # in sign (2 of 8), whatever the zeros do (8): 16 / 64
    assert tests["exact"]["p"] == 16 / 64
    with pytest.raises(CommandError, match="unknown test"):
        compare(files, "-m", "map", "--test", "t,bogus")


def test_effect_sizes_anova_friedman_and_conventions_are_printed(files: dict[str, Path]) -> None:
    doc = compare_json(files, "-m", "map", "--correction", "by")
    assert doc["settings"]["correction"] == "by"
    ab = next(p for p in doc["pairs"] if (p["a"], p["b"]) == ("A", "B"))
    # A's AP is 1 and B's 1/2 on every topic: 6 wins, mean 0.5 with no spread
    assert (ab["effect"]["wins"], ab["effect"]["ties"], ab["effect"]["losses"]) == (6, 0, 0)
    assert ab["effect"]["mean_ci"] == [0.5, 0.5] and ab["effect"]["superiority"] == 1.0
    assert ab["effect"]["d_z"] is None  # no spread: d_z undefined
    assert [r["source"] for r in doc["anova"]] == ["systems", "topics", "residual", "total"]
    assert doc["friedman"]["df"] == 2 and len(doc["friedman"]["nemenyi"]) == 3
    assert any("two-sided" in c for c in doc["conventions"])
    assert any("scipy.stats.wilcoxon(a, b)" in c for c in doc["conventions"])
    text, _ = compare(files, "-m", "map")
    assert "conventions:" in text and "effect sizes" in text and "two-way ANOVA (systems x topics" in text
    assert "Friedman's test" in text and "Nemenyi post-hoc" in text


def test_help_states_the_conventions(capsys: pytest.CaptureFixture[str]) -> None:
    from engine.cli import compare_main

    with pytest.raises(SystemExit) as exit_:
        compare_main(["--help"], io.StringIO(), io.StringIO())
    assert exit_.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "conventions (also printed with every result)" in text
    assert "t = 0, p = 1 (scipy: nan)" in text
    assert "--alternative" in text and "--zero-method" in text and "exact" in text


def test_ci_bca_is_chosen_on_the_command_line(files: dict[str, Path]) -> None:
    # C's AP is 1 on topics 1-3 and 1/2 on 4-6; B's 1/2 everywhere: d = (.5, .5, .5, 0, 0, 0)
    pct = compare_json(files, "-m", "map", "--baseline", "B", runs="BC")
    bca = compare_json(files, "-m", "map", "--baseline", "B", "--ci", "bca", runs="BC")
    assert (pct["settings"]["ci"], bca["settings"]["ci"]) == ("percentile", "bca")
    # a symmetric two-point distribution: z0 = a = 0, so BCa is the percentile interval here
    # (tests/engine/test_significance_effects.py shows them part on skewed differences)
    assert bca["pairs"][0]["ci"] == pct["pairs"][0]["ci"]
    assert any("bootstrap BCa" in c for c in bca["conventions"])
    text, _ = compare(files, "-m", "map", "--ci", "bca", runs="BC")
    assert "CI: bootstrap BCa 95%" in text


def test_rank_correlations_carry_spearman_tau_ap_b_rbo_and_swap_rates(files: dict[str, Path]) -> None:
    # map orders A (1) > C (3/4) > B (1/2); under the swapped qrels B (1) > C (3/4) > A (1/2)
    doc = compare_json(files, "-m", "map", "--compare-qrels", str(files["swapped"]))
    (c,) = doc["correlations"]
    assert (c["tau_b"], c["spearman"], c["tau_ap_b"]) == (-1.0, -1.0, -1.0)
    assert c["swaps"] == {"pairs": 3, "swapped": 3, "half_tied": 0, "min_rate": 1.0, "mean_rate": 1.0}
    # RBO, p = 0.9, of A C B against B C A: X_d = 0, 1, 3 -> A_d = 0, 1/2, 1
    ext = 0.1 / 0.9 * (0.5 * 0.81 + 0.729) + 0.729
    assert c["rbo"]["ext"] == pytest.approx(ext, abs=1e-12)
    assert c["rbo"]["min"] + c["rbo"]["residual"] == pytest.approx(ext, abs=1e-12)
    text, _ = compare(files, "-m", "map", "--compare-qrels", str(files["swapped"]))
    assert "tau_AP,b -1.0000, Spearman rho -1.0000" in text and "swap rate min 1.0000" in text


def test_a_constant_non_zero_difference_prints_d_z_undefined_and_every_other_pair(
    files: dict[str, Path], tmp_path: Path
) -> None:
    # E ranks the relevant document fifth everywhere: AP 1/5, so A - E = 0.8 on every topic
    files["E"] = tmp_path / "E.run"
    ranking = ["n", "x", "y", "z", "r"]
    lines = [f"{t} Q0 {d} {k + 1} {9 - k} E\n" for t in TOPICS for k, d in enumerate(ranking)]
    files["E"].write_text("".join(lines))
    out, _ = compare(files, "-m", "map", "--permutations", "200", "--bootstrap", "200", runs="ACE")
    effects = out.split("effect sizes")[1].split("\n\n")[0].splitlines()
    rows = {tuple(line.split()[:2]): line.split() for line in effects[3:]}
    assert set(rows) == {("A", "C"), ("A", "E"), ("C", "E")}
    assert rows[("A", "E")][3] == "0.8000"  # columns: a b W/T/L mean ...
    standardized = out.split("standardized mean differences")[1].split("\n\n")[0].splitlines()
    rows = {tuple(line.split()[:2]): line.split() for line in standardized[4:]}
    assert set(rows) == {("A", "C"), ("A", "E"), ("C", "E")}
    # columns: a b d_z CI d_av CI g_av CI: d_z and its CI undefined, as for sd = 0, and so is d_av
    # (A and E are constant over the topics)
    assert rows[("A", "E")][2:] == ["—"] * 6
    assert rows[("C", "E")][2] == "2.0083"
    data = compare_json(files, "-m", "map", "--permutations", "200", "--bootstrap", "200", runs="ACE")
    effect = {(p["a"], p["b"]): p["effect"] for p in data["pairs"]}
    assert effect[("A", "E")]["d_z"] is None and effect[("A", "E")]["d_z_ci"] == [None, None]
    assert effect[("A", "C")]["d_z"] is not None


def test_named_effect_sizes_tukey_intervals_and_kendalls_w_in_json_csv_and_text(
    files: dict[str, Path],
) -> None:
    from scipy import stats

    doc = compare_json(files, "-m", "map", "--permutations", "200", "--bootstrap", "200")
    effect = {(p["a"], p["b"]): p["effect"] for p in doc["pairs"]}
    # A − C = (0, 0, 0, .5, .5, .5): mean .25, sd(d) = √(6 · .25²/5) = √.075; A is constant (sd 0)
    # and C spreads as d does, so sd_av = √.075 / 2 and d_av = 2 d_z
    ac = effect[("A", "C")]
    assert ac["d_z"] == pytest.approx(0.25 / 0.075**0.5, abs=1e-12)
    assert (ac["sd_a"], ac["sd_b"]) == (0.0, pytest.approx(0.075**0.5, abs=1e-15))
    assert ac["d_av"] == pytest.approx(2 * ac["d_z"], abs=1e-12)
    # Hedges' J(5) = Γ(5/2) / (√(5/2) · Γ(2)) = (3√π/4) / √2.5 = 0.8408, 6 topics
    assert ac["g_av"] == pytest.approx(ac["d_av"] * (3 * math.sqrt(math.pi) / 4) / math.sqrt(2.5), abs=1e-12)
    assert ac["d_av_ci"] == pytest.approx([2 * x for x in ac["d_z_ci"]], abs=1e-12)
    assert effect[("A", "B")]["d_av"] is None  # A and B both constant: nothing to standardize by
    # Kendall's W: rank sums A 7.5, B 16.5, C 12 around 12: S = 40.5; each topic ties two runs
    # (Σ(t³ − t) = 6 per topic): W = 12 · 40.5 / (6² · 24 − 6 · 36) = 0.75
    assert doc["friedman"]["kendall_w"] == pytest.approx(0.75, abs=1e-12)
    anova = next(t for t in doc["tukey"] if t["method"] == "two-way ANOVA")
    assert anova["q_crit"] == pytest.approx(stats.studentized_range.ppf(0.95, 3, 10), abs=1e-8)
    half = anova["q_crit"] * (anova["mse"] / 6) ** 0.5
    for q in anova["pairs"]:
        assert q["ci"] == pytest.approx([q["diff"] - half, q["diff"] + half], abs=1e-12)
    assert all("ci" not in q for t in doc["tukey"] if t["method"] == "randomised" for q in t["pairs"])

    out, _ = compare(files, "-m", "map", "--format=csv", "--permutations", "200", "--bootstrap", "200")
    rows = list(csv.DictReader(io.StringIO(out)))
    d_av = next(r for r in rows if r["section"] == "effect" and r["test"] == "d_av" and r["b"] == "C")
    assert float(d_av["estimate"]) == pytest.approx(ac["d_av"], abs=1e-12)
    assert float(d_av["ci_low"]) == pytest.approx(ac["d_av_ci"][0], abs=1e-12)
    assert {r["test"] for r in rows if r["section"] == "effect"} >= {"d_z", "d_av", "g_av", "mean_t"}
    w = next(r for r in rows if r["section"] == "friedman" and r["test"] == "kendall_w")
    assert float(w["estimate"]) == pytest.approx(0.75)
    tukey = [r for r in rows if r["test"] == "tukey_anova"]
    assert len(tukey) == 3 and all(r["ci_low"] and r["ci_high"] for r in tukey)

    text, _ = compare(files, "-m", "map", "--permutations", "200", "--bootstrap", "200")
    assert "standardized mean differences" in text and "Hedges' g_av" in text and "d_av" in text
    assert "Kendall's W 0.7500" in text
    assert "simultaneous 95% CIs" in text and f"q_crit {anova['q_crit']:.4f}" in text
    assert "Cohen's d for paired data" not in text


def test_rank_correlations_carry_seeded_bootstrap_intervals(files: dict[str, Path]) -> None:
    args = ("-m", "map", "--compare-qrels", str(files["swapped"]), "--bootstrap", "300")
    doc = compare_json(files, *args, "--seed", "4")
    (c,) = doc["correlations"]
    # every resample of the topics keeps the two orderings reversed (or tied alike in both)
    assert c["tau_b_ci"] == [-1.0, -1.0]
    assert c["bootstrap"] == {
        "method": "percentile",
        "resamples": 300,
        "confidence": 0.95,
        "paired": True,
        "undefined": 0,
    }
    assert compare_json(files, *args, "--seed", "4")["correlations"] == doc["correlations"]
    out, _ = compare(files, *args, "--format=csv")
    rows = [r for r in csv.DictReader(io.StringIO(out)) if r["section"] == "correlation"]
    tau_b = next(r for r in rows if r["test"] == "tau_b")
    assert (float(tau_b["ci_low"]), float(tau_b["ci_high"])) == (-1.0, -1.0)
    text, _ = compare(files, *args)
    assert "bootstrap 95% CIs over topics (percentile, 300 resamples, topics paired, seed 0)" in text
    assert "tau-b [-1.0000, -1.0000]" in text


def test_a_comparison_stored_before_the_named_effect_sizes_still_renders_as_csv(
    files: dict[str, Path],
) -> None:
    from engine.output import comparison_csv

    doc = compare_json(files, "-m", "map", "--permutations", "200", "--bootstrap", "200")
    for p in doc["pairs"]:
        for key in ("d_av", "d_av_ci", "g_av", "g_av_ci", "sd_a", "sd_b"):
            del p["effect"][key]
    del doc["friedman"]["kendall_w"]
    for t in doc["tukey"]:
        for q in t["pairs"]:
            q.pop("ci", None)
    rows = list(csv.DictReader(io.StringIO(comparison_csv(doc))))
    tests = {r["test"] for r in rows if r["section"] == "effect"}
    assert tests == {"mean_t", "d_z", "superiority", "wins", "ties", "losses"}
    assert not any(r["test"] == "kendall_w" for r in rows)
    assert all(r["ci_low"] == "" for r in rows if r["test"] == "tukey_anova")
