"""The conventions legend (weights by grade position, missing labels, bootstrap unit) and the new
SE / test / PABAK blocks in ``manage.py agreement``'s text and JSON output."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from judging.agreement import agreement_report, report_as_dict
from judging.cli import main

# docs/agreement.md#weighted-kappa: grades {0, 1, 3}, rows alice, columns bob
GRADES = (0, 1, 3)
TABLE = [[10, 3, 1], [2, 6, 2], [1, 2, 5]]


def _triples() -> tuple[list[tuple[str, str, int]], list[tuple[str, str, int]]]:
    a, b, k = [], [], 0
    for i, row in enumerate(TABLE):
        for j, count in enumerate(row):
            for _ in range(count):
                a.append(("1", f"d{k}", GRADES[i]))
                b.append(("1", f"d{k}", GRADES[j]))
                k += 1
    return a, b


def _files(tmp_path: Path) -> list[str]:
    paths = []
    for name, rows in zip(("alice", "bob"), _triples(), strict=True):
        path = tmp_path / f"{name}.qrels"
        path.write_text("".join(f"{t} 0 {d} {g}\n" for t, d, g in rows))
        paths.append(str(path))
    return paths


def _run(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert main(list(argv), out, err) == 0, err.getvalue()
    return out.getvalue()


def test_weighted_kappa_depends_on_scale_as_the_legend_says() -> None:
    a, b = _triples()
    seen = agreement_report({"alice": a, "bob": b})
    scaled = agreement_report({"alice": a, "bob": b}, scale=[0, 1, 2, 3])
    # positions 0, 1, 2: linear weights 1, 1/2, 0; on 0..3: 1 − |i − j|/3 with grade 3 at position 3
    assert seen.pairs[0].overall.linear.value == pytest.approx(0.5294117647058824, abs=1e-12)
    assert scaled.pairs[0].overall.linear.value == pytest.approx(0.5205047318611988, abs=1e-12)
    legend = report_as_dict(seen)["conventions"]["weights"]
    assert "POSITION" in legend and "0.5294" in legend and "0.5205" in legend
    assert "scale 0,1,2,3" in report_as_dict(scaled)["conventions"]["weights"]


def test_legend_names_the_bootstrap_unit_and_missing_label_rule() -> None:
    a, b = _triples()
    legend = report_as_dict(agreement_report({"alice": a, "bob": b}, bootstrap=20))["conventions"]
    assert "TOPIC" in legend["bootstrap"] and "20 resamples" in legend["bootstrap"]
    assert "not judged" in legend["missing"]
    category = report_as_dict(agreement_report({"alice": a, "bob": b}, negative="category"))
    assert "ordinary labels" in category["conventions"]["missing"]


def test_help_states_the_position_weights(capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    with pytest.raises(SystemExit):
        main(["--help"], out, io.StringIO())
    text = out.getvalue() + capsys.readouterr().out
    assert "POSITION" in " ".join(text.split())
    assert "resamples topics" in " ".join(text.split())


def test_text_output_prints_conventions_and_inference_blocks(tmp_path: Path) -> None:
    text = _run(*_files(tmp_path))
    assert "conventions:\n  weights:" in text
    assert "Gwet 2014 linearisation" in text
    assert "PABAK" in text and "prevalence" in text


def test_json_output_has_conventions_and_pair_inference(tmp_path: Path) -> None:
    data: dict[str, Any] = json.loads(_run(*_files(tmp_path), "--format", "json"))
    assert set(data["conventions"]) >= {"weights", "missing", "bootstrap", "asymptotic", "tests"}
    inference = data["pairs"][0]["inference"]
    assert inference["pabak"] == pytest.approx((3 * 21 / 32 - 1) / 2, abs=1e-12)
    assert inference["ac1"]["method"].startswith("Gwet 2014")
    assert inference["cohen_test"]["z"] == pytest.approx(
        inference["cohen_test"]["value"] / inference["cohen_test"]["se0"], abs=1e-12
    )
    assert inference["binary"]["paradox"] is False


def test_rare_relevant_documents_print_the_paradox_note(tmp_path: Path) -> None:
    rows_a, rows_b = [], []
    for k, (x, y) in enumerate([(0, 0)] * 85 + [(0, 1)] * 5 + [(1, 0)] * 5 + [(1, 1)] * 5):
        rows_a.append(f"1 0 d{k} {x}\n")
        rows_b.append(f"1 0 d{k} {y}\n")
    (tmp_path / "a.qrels").write_text("".join(rows_a))
    (tmp_path / "b.qrels").write_text("".join(rows_b))
    text = _run(str(tmp_path / "a.qrels"), str(tmp_path / "b.qrels"))
    assert "kappa paradox: rare class depresses kappa" in text


def test_python_api_gives_the_inference_rows(tmp_path: Path) -> None:
    import relevance_workbench as rw

    got = rw.agreement(_files(tmp_path))
    rows = {(a, b, t, s): v for a, b, t, s, v in got.inference_rows()}
    data = got.to_dict()["pairs"][0]["inference"]
    assert rows["alice", "bob", "all", "pabak"] == data["pabak"]
    assert rows["alice", "bob", "all", "ac1_se"] == data["ac1"]["se"]
    assert rows["alice", "bob", "all", "cohen_z"] == data["cohen_test"]["z"]
    assert len(got.inference_frame()) == len(rows)
