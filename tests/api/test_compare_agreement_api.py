"""``rw.compare`` and ``rw.agreement`` return what ``manage.py compare`` / ``manage.py agreement``
print with ``--format json``, and the same from in-memory inputs."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import relevance_workbench as rw
from engine.cli import compare_main
from judging.cli import main as agreement_main
from tests.api.conftest import Collection

FAST = ["--permutations", "500", "--bootstrap", "400", "--seed", "3"]


def compare_command(c: Collection, *args: str) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    argv = [str(c.qrels), *(str(p) for p in c.runs.values()), "--format", "json", *FAST, *args]
    assert compare_main(argv, out, err) == 0, err.getvalue()
    data: dict[str, Any] = json.loads(out.getvalue())
    return data


def api_compare(c: Collection, measure: str, **kw: Any) -> rw.ComparisonResults:
    return rw.compare(c.qrels, list(c.runs.values()), measure, permutations=500, bootstrap=400, seed=3, **kw)


def test_compare_equals_the_command_json(collection: Collection) -> None:
    got = api_compare(collection, "map")
    assert json.loads(json.dumps(got.to_dict())) == compare_command(collection, "-m", "map")
    assert got.to_dict(per_topic=True) == compare_command(collection, "-m", "map", "--per-topic")


def test_compare_options_baseline_correlations_and_names(collection: Collection) -> None:
    got = api_compare(
        collection,
        "nDCG@10",
        baseline="bm25",
        tests=["t", "sign"],
        correction="bonferroni",
        compare_measure="P_5",
        level=2,
    )
    want = compare_command(
        collection, "-m", "nDCG@10", "--baseline", "bm25", "--test", "t", "--correction", "bonferroni",
        "--compare-measure", "P_5", "-l", "2",
    )  # fmt: skip
    want["settings"]["tests"] = ["t", "sign"]  # the command runs one test or all: run sign there too
    sign = compare_command(
        collection, "-m", "nDCG@10", "--baseline", "bm25", "--test", "sign", "--correction", "bonferroni",
        "--compare-measure", "P_5", "-l", "2",
    )  # fmt: skip
    for mine, theirs in zip(want["pairs"], sign["pairs"], strict=True):
        mine["tests"].update(theirs["tests"])
    assert json.loads(json.dumps(got.to_dict())) == want


def test_compare_frame_and_dicts(collection: Collection) -> None:
    pytest.importorskip("pandas")
    got = api_compare(collection, "map")
    data = got.to_dict()
    assert got.means() == {r["run"]: r["mean"] for r in data["runs"]}
    df = got.to_frame()
    assert len(df) == 3 * 4  # three pairs x four tests
    row = df[(df.a == "bm25") & (df.b == "dense") & (df.test == "t")].iloc[0]
    pair = next(p for p in data["pairs"] if (p["a"], p["b"]) == ("bm25", "dense"))
    assert row["p"] == pair["tests"]["t"]["p"] and row["diff"] == pair["diff"]
    assert got.pairs()[("bm25", "dense")]["t"]["p"] == pair["tests"]["t"]["p"]


def test_compare_from_dicts_equals_files(collection: Collection) -> None:
    runs = {r: {} for r in collection.run_rows}  # type: dict[str, dict[str, dict[str, float]]]
    for r, rows in collection.run_rows.items():
        for t, d, s in rows:
            runs[r].setdefault(t, {})[d] = s
    qrels: dict[str, dict[str, int]] = {}
    for t, d, g in collection.qrels_rows:
        qrels.setdefault(t, {})[d] = g
    mem = rw.compare(qrels, runs, "map", permutations=500, bootstrap=400, seed=3).to_dict()
    files = api_compare(collection, "map").to_dict()
    mem.pop("qrels"), files.pop("qrels")
    assert mem == files


def test_compare_errors(collection: Collection) -> None:
    with pytest.raises(rw.MeasureError, match="compare one at a time"):
        api_compare(collection, "P")
    with pytest.raises(rw.ComparisonError, match="no run named"):
        api_compare(collection, "map", baseline="nope")


# --------------------------------------------------------------------------- agreement


@pytest.fixture(scope="module")
def assessors(tmp_path_factory: pytest.TempPathFactory, collection: Collection) -> dict[str, Path]:
    """Three assessors: the collection's qrels and two perturbed copies."""
    import random

    folder = tmp_path_factory.mktemp("assessors")
    rng = random.Random(5)
    paths = {}
    for name in ("alice", "bob", "carol"):
        lines = []
        for t, d, g in collection.qrels_rows:
            if name != "alice" and rng.random() < 0.3:
                g = rng.choice([0, 1, 2, 3])
            if name == "carol" and rng.random() < 0.1:
                continue
            lines.append(f"{t} 0 {d} {g}\n")
        paths[name] = folder / f"{name}.qrels"
        paths[name].write_text("".join(lines))
    return paths


def agreement_command(paths: list[Path], *args: str) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    assert agreement_main([*map(str, paths), "--format", "json", *args], out, err) == 0, err.getvalue()
    data: dict[str, Any] = json.loads(out.getvalue())
    data.pop("files")
    return data


def test_agreement_equals_the_command_json(assessors: dict[str, Path], collection: Collection) -> None:
    paths = list(assessors.values())
    got = rw.agreement(paths)
    assert got.to_dict() == agreement_command(paths)
    runs = [str(p) for p in collection.runs.values()]
    full = rw.agreement(
        paths,
        threshold=2,
        bootstrap=50,
        seed=4,
        runs=runs,
        measures=["map,P.5", "nDCG@10"],
        scale=[0, 1, 2, 3],
    )
    want = agreement_command(
        paths, "--per-topic", "--threshold", "2", "--bootstrap", "50", "--seed", "4", "--runs", *runs,
        "--measures", "map,P.5", "--measures", "nDCG@10", "--scale", "0,1,2,3",
    )  # fmt: skip
    assert full.to_dict(per_topic=True) == want


def test_agreement_from_dicts_and_frames(assessors: dict[str, Path]) -> None:
    pd = pytest.importorskip("pandas")
    frames = {
        n: pd.read_csv(p, sep=" ", header=None, names=["qid", "iter", "docno", "rel"], dtype={"qid": str})
        for n, p in assessors.items()
    }
    got = rw.agreement(frames)
    assert got.to_dict() == agreement_command(list(assessors.values()))
    df = got.to_frame()
    assert list(df.columns) == ["a", "b", "topic", "statistic", "value"]
    cohen = df[(df.a == "alice") & (df.b == "bob") & (df.topic == "all") & (df.statistic == "cohen")]
    assert cohen.value.item() == got.to_dict()["pairs"][0]["overall"]["cohen"]["value"]
    assert got.overall()[("alice", "bob")]["cohen"] == cohen.value.item()
    fleiss = df[(df.a == "all") & (df.topic == "all")]
    assert fleiss.value.item() == got.to_dict()["group"]["fleiss"]["value"]


def test_agreement_errors(assessors: dict[str, Path]) -> None:
    with pytest.raises(rw.InputError, match="at least two"):
        rw.agreement({"alice": assessors["alice"]})
    with pytest.raises(rw.MeasureError):
        rw.agreement(list(assessors.values()), runs=[str(assessors["alice"])], measures=["nope"])


def test_compare_one_sided_exact_and_effect_sizes_equal_the_command(collection: Collection) -> None:
    got = api_compare(
        collection,
        "map",
        alternative="greater",
        zero_method="zsplit",
        tests=["wilcoxon", "t"],
        correction="by",
    )
    want = compare_command(
        collection,
        *("-m", "map", "--alternative", "greater", "--zero-method", "zsplit"),
        *("--test", "wilcoxon,t", "--correction", "by"),
    )
    assert json.loads(json.dumps(got.to_dict())) == want
    assert want["settings"]["alternative"] == "greater"
    effects = got.effects()
    assert set(effects) == {(p["a"], p["b"]) for p in want["pairs"]}
    first = want["pairs"][0]
    assert effects[(first["a"], first["b"])] == first["effect"]
    assert [r["source"] for r in got.anova()] == ["systems", "topics", "residual", "total"]
    assert got.conventions() == want["conventions"]
    assert (got.friedman() is None) == (len(collection.runs) < 3)
