"""``manage.py agreement``: text and JSON reports from qrels files, errors, and the system-ranking table."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from judging.cli import assessor_name, main, split_measures

MANAGE = Path(__file__).resolve().parents[2] / "manage.py"
# the two-topic example of docs/agreement.md#worked-examples, relevant first: topic 1 the IIR
# table, topic 2 [[5, 5], [5, 85]]
TABLES = {"1": [[300, 20], [10, 70]], "2": [[5, 5], [5, 85]]}


def qrels_pair(tmp_path: Path) -> tuple[Path, Path]:
    a_lines, b_lines = [], []
    for topic, table in TABLES.items():
        k = 0
        for i, row in enumerate(table):
            for j, count in enumerate(row):
                for _ in range(count):
                    a_lines.append(f"{topic} 0 doc{k} {1 - i}")
                    b_lines.append(f"{topic} 0 doc{k} {1 - j}")
                    k += 1
    a, b = tmp_path / "alice.qrels", tmp_path / "bob.qrels"
    a.write_text("\n".join(a_lines) + "\n")
    b.write_text("# bob's judgments\n" + "\n".join(b_lines) + "\n")
    return a, b


def agreement(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("agreement", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def agreement_json(*args: str) -> dict[str, Any]:
    out, _ = agreement(*args, "--format", "json")
    data: dict[str, Any] = json.loads(out)
    return data


def test_json_report_reproduces_the_two_topic_example(tmp_path: Path) -> None:
    a, b = qrels_pair(tmp_path)
    data = agreement_json(str(a), str(b))
    assert data["assessors"] == ["alice", "bob"]
    pair = data["pairs"][0]
    assert (pair["a"], pair["b"], pair["items"]) == ("alice", "bob", 500)
    cohen = pair["pooled"]["cohen"]
    assert cohen["mean_per_topic"] == pytest.approx(0.6102819, abs=5e-8)
    assert cohen["de_vries"] == pytest.approx(0.6601942, abs=5e-8)
    assert cohen["concatenated"] == pytest.approx(0.8242531, abs=5e-8)
    assert pair["pooled"]["overlap"]["mean_per_topic"] == pytest.approx(0.6212121, abs=5e-8)
    assert pair["pooled"]["overlap"]["concatenated"] == pytest.approx(0.8840580, abs=5e-8)
    assert "per_topic" not in pair
    assert data["files"] == {"alice": str(a), "bob": str(b)}


def test_json_per_topic_has_the_iir_vectors_and_nulls_for_undefined_values(tmp_path: Path) -> None:
    a, b = qrels_pair(tmp_path)
    with a.open("a") as fh:
        fh.write("3 0 lonely 0\n")
    with b.open("a") as fh:
        fh.write("3 0 lonely 0\n")
    data = agreement_json(str(a), str(b), "--per-topic")
    topics = data["pairs"][0]["per_topic"]
    iir = topics["1"]
    assert iir["cohen"]["value"] == pytest.approx(0.7761194, abs=5e-8)
    assert iir["cohen"]["se"] == pytest.approx(0.0388880, abs=5e-8)
    assert iir["pooled"]["value"] == pytest.approx(0.7759104, abs=5e-8)
    assert iir["alpha_nominal"] == pytest.approx(0.7761905, abs=5e-8)
    assert topics["3"]["items"] == 1 and topics["3"]["cohen"]["value"] is None  # one shared item, P_e = 1
    assert topics["3"]["overlap"]["value"] is None  # neither found it relevant


def test_text_report_names_the_three_pooled_readings(tmp_path: Path) -> None:
    a, b = qrels_pair(tmp_path)
    out, _ = agreement(str(a), str(b), "--digits", "7")
    assert "agreement of 2 assessors over 2 topics: alice (500 judged), bob (500 judged)" in out
    assert "concatenated" in out and "De Vries 2008" in out and "mean per topic" in out
    cohen_row = next(line for line in out.splitlines() if line.strip().startswith("Cohen kappa"))
    assert cohen_row.split()[2:5] == ["0.8242531", "0.6601942", "0.6102819"]
    assert "confusion matrix (rows alice, columns bob):" in out
    assert "per topic (" not in out


def test_text_per_topic_and_bootstrap_columns(tmp_path: Path) -> None:
    a, b = qrels_pair(tmp_path)
    out, _ = agreement(str(a), str(b), "--per-topic", "--bootstrap", "200", "--seed", "3")
    assert "bootstrap: 200 resamples of the topics, seed 3, percentile 95% CIs" in out
    assert "per topic (alice vs bob):" in out
    per_topic = out.split("per topic (alice vs bob):")[1].splitlines()
    assert per_topic[1].split()[:4] == ["topic", "items", "P_o", "kappa"]
    rows = {line.split()[0]: line.split() for line in per_topic[2:4]}
    assert rows["1"][1:4] == ["400", "0.9250", "0.7761"]
    assert rows["2"][1:4] == ["100", "0.9000", "0.4444"]  # (0.9 − 0.82)/(1 − 0.82)


def test_bootstrap_output_is_reproducible_with_the_seed(tmp_path: Path) -> None:
    a, b = qrels_pair(tmp_path)
    first = agreement_json(str(a), str(b), "--bootstrap", "100", "--seed", "4")
    again = agreement_json(str(a), str(b), "--bootstrap", "100", "--seed", "4")
    assert first["pairs"][0]["pooled"] == again["pairs"][0]["pooled"]
    assert first["bootstrap"] == {"resamples": 100, "seed": 4}


def test_three_assessors_add_fleiss_and_krippendorff_over_all(tmp_path: Path) -> None:
    a, b = qrels_pair(tmp_path)
    c = tmp_path / "carol.qrels.gz"
    import gzip

    with gzip.open(c, "wt") as fh:
        fh.write(a.read_text())
    out, _ = agreement(str(a), str(b), str(c))
    assert "all 3 assessors: Fleiss kappa on the 500 items judged by all" in out
    assert "Krippendorff alpha, ordinal" in out
    data = agreement_json(str(a), str(b), str(c))
    assert data["assessors"] == ["alice", "bob", "carol"]
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [
        ("alice", "bob"),
        ("alice", "carol"),
        ("bob", "carol"),
    ]
    assert data["group"]["items"] == 500


def test_system_ranking_table_with_two_tiny_runs(tmp_path: Path) -> None:
    a, b = tmp_path / "a.qrels", tmp_path / "b.qrels"
    a.write_text("1 0 r 1\n1 0 n 0\n2 0 r 1\n2 0 n 0\n")
    b.write_text("1 0 r 0\n1 0 n 1\n2 0 r 0\n2 0 n 1\n")  # the other document is relevant
    good, bad = tmp_path / "good.run", tmp_path / "bad.run"
    good.write_text("1 Q0 r 1 2 g\n1 Q0 n 2 1 g\n2 Q0 r 1 2 g\n2 Q0 n 2 1 g\n")
    bad.write_text("1 Q0 n 1 2 b\n1 Q0 r 2 1 b\n2 Q0 n 1 2 b\n2 Q0 r 2 1 b\n")
    out, _ = agreement(str(a), str(b), "--runs", str(good), str(bad), "--measures", "map,P.1")
    assert "system rankings: 2 runs" in out
    rows = [line.split() for line in out.splitlines() if line.startswith(("map ", "P_1 "))]
    # two runs in reverse order: every correlation -1; RBO (p = 0.9) of "good bad" against "bad good":
    # A_1 = 0, A_2 = 1, so ext = 0.1/0.9 · 0.81 + 0.81 = 0.9; min = 0.1/0.9 · (-2 · 0.9 - 2 ln 0.1);
    # the one pair is swapped: both swap rates 1
    rbo_min = 0.1 / 0.9 * (-2 * 0.9 - 2 * math.log(0.1))
    expected = ["map", "a", "b", "2", *["-1.0000"] * 5, "0.9000", f"{rbo_min:.4f}", f"{0.9 - rbo_min:.4f}"]
    assert [*expected, "1.0000", "1.0000"] in rows
    assert ["map", "good", "1.0000", "0.5000"] in rows  # AP under a, under b
    data = agreement_json(str(a), str(b), "--runs", str(good), str(bad))
    assert data["systems"]["measures"] == ["map", "ndcg", "P_10", "bpref"]
    assert data["systems"]["correlations"][0]["tau_b"] == pytest.approx(-1.0)
    first = data["systems"]["correlations"][0]
    assert (first["tau_ap_b"], first["spearman"], first["swap_rate_min"]) == (-1.0, -1.0, 1.0)
    assert first["rbo"] == pytest.approx(0.9, abs=1e-12)
    assert first["rbo_min"] + first["rbo_residual"] == pytest.approx(first["rbo"], abs=1e-12)


def test_malformed_qrels_exits_2_naming_file_and_line(tmp_path: Path) -> None:
    a, _ = qrels_pair(tmp_path)
    bad = tmp_path / "bad.qrels"
    bad.write_text("1 0 d1 1\n1 0 d2 yes\n")
    with pytest.raises(CommandError) as info:
        agreement(str(a), str(bad))
    assert info.value.returncode == 2
    assert str(info.value).startswith(f"{bad}:2:")


def test_pure_entry_point_prints_one_line_and_returns_2(tmp_path: Path) -> None:
    a, _ = qrels_pair(tmp_path)
    bad = tmp_path / "bad.qrels"
    bad.write_text("1 0 d1\n")
    out, err = io.StringIO(), io.StringIO()
    assert main([str(a), str(bad)], out, err) == 2
    assert err.getvalue().count("\n") == 1 and err.getvalue().startswith(f"CommandError: {bad}:1:")


def test_manage_py_runs_agreement_on_its_fast_path(tmp_path: Path) -> None:
    a, b = qrels_pair(tmp_path)
    done = subprocess.run(
        [sys.executable, str(MANAGE), "agreement", str(a), str(b), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "", "DJANGO_SETTINGS_MODULE": "no.such.settings"},  # proves Django is not set up
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["pairs"][0]["items"] == 500


def test_fewer_than_two_files_is_a_usage_error(tmp_path: Path) -> None:
    a, _ = qrels_pair(tmp_path)
    with pytest.raises(CommandError, match="at least two qrels files") as info:
        agreement(str(a))
    assert info.value.returncode == 2


def test_missing_file_and_bad_options_are_usage_errors(tmp_path: Path) -> None:
    a, b = qrels_pair(tmp_path)
    for args, message in (
        ((str(a), str(tmp_path / "nope.qrels")), "nope.qrels"),
        ((str(a), str(b), "--names", "x"), "--names gives 1 name"),
        ((str(a), str(b), "--scale", "0,one"), "--scale takes integers"),
        ((str(a), str(b), "--scale", "0"), "not on the scale"),
        ((str(a), str(b), "--runs", "never-read.run", "--measures", "nope"), "unknown measure"),
        ((str(a), str(b), "--bootstrap", "-1"), "--bootstrap"),
    ):
        with pytest.raises(CommandError, match=message) as info:
            agreement(*args)
        assert info.value.returncode == 2


def test_names_and_negative_grade_options(tmp_path: Path) -> None:
    a, b = tmp_path / "x" / "j.qrels", tmp_path / "y" / "j.qrels"
    a.parent.mkdir()
    b.parent.mkdir()
    a.write_text("1 0 d1 1\n1 0 d2 -2\n")
    b.write_text("1 0 d1 1\n1 0 d2 0\n")
    data = agreement_json(str(a), str(b))
    assert data["assessors"] == [str(a), str(b)]  # same stem: the paths tell them apart
    assert data["pairs"][0]["items"] == 1
    data = agreement_json(str(a), str(b), "--names", "ann,ben", "--negative", "category")
    assert data["assessors"] == ["ann", "ben"]
    assert data["pairs"][0]["labels"] == [-2, 0, 1]


def test_assessor_names_and_measure_lists_split_as_documented() -> None:
    assert assessor_name("judges/alice.qrels.gz") == "alice"
    assert assessor_name("bob.txt") == "bob"
    assert assessor_name("carol") == "carol"
    assert split_measures("map,P.5,10,bpref") == ["map", "P.5,10", "bpref"]
    assert split_measures("nDCG@10,P(rel=2)@5") == ["nDCG@10", "P(rel=2)@5"]


def test_the_agreement_core_and_cli_never_import_django() -> None:
    code = (
        "import sys, judging.agreement, judging.cli; print(any(m.startswith('django') for m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=MANAGE.parent
    )
    assert done.stdout.strip() == "False"
