"""The leaderboard's numbers are the engine's: stored values, downloads, sampled designs, significance.

Each expected value is computed independently through the public engine API (``evaluate_run`` on
the demo files, ``manage.py evaluate``, ``engine.significance``) and compared exactly.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import numpy as np
import pytest
from django.core.management import call_command
from django.template.defaultfilters import floatformat
from django.test import Client
from django.urls import reverse

from campaigns.errors import CampaignDataError
from campaigns.models import Campaign
from engine.effects import friedman_test
from engine.evaluate import Judgments, evaluate_run
from engine.names import parse_measures
from engine.significance import CompareSettings, compare_pairs, score_matrix
from judging.services import assignments_create, judgment_record
from metrics.comparisons import SignificanceParams
from metrics.evaluations import BASE_SPECS, JUDGED, evaluation_measures
from metrics.leaderboards import COLUMNS, leaderboard
from metrics.models import EvaluationRun
from metrics.services import evaluation_run, significance_enqueue
from metrics.sources import JudgmentSource, source_judgments
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import demo_dir, demo_run_paths, demo_runs
from tests.metrics.test_leaderboard_pages import evaluate_reference, login

pytestmark = pytest.mark.django_db


def demo_judgments() -> Judgments:
    from trec import read_qrels

    return Judgments(read_qrels(demo_dir() / "qrels.txt"))


def judge(campaign: Campaign, pool: Any, assessor: Any, per_topic: int = 4) -> None:
    """The assessor grades the first ``per_topic`` documents of each topic: 1 when the docno ends in
    an even digit, else 0 (a fixed, reproducible pattern)."""
    for a in assignments_create(campaign=campaign, pool=pool, assessors=[assessor]):
        for docno in a.items.order_by("position").values_list("docno", flat=True)[:per_topic]:
            judgment_record(assessor=assessor, assignment=a, docno=docno, grade=int(int(docno[-1]) % 2 == 0))


def test_stored_values_equal_evaluate_run_on_the_demo_files(loaded: Campaign, organizer: Any) -> None:
    evaluation = evaluate_reference(loaded, organizer)
    judgments = demo_judgments()
    measures, specs = evaluation_measures(sampled=False)
    assert specs == list(BASE_SPECS) and evaluation.design == "qrels"
    rows = {r.tag: r for r in EvaluationRun.objects.filter(evaluation=evaluation)}
    assert sorted(rows) == sorted(r.name for r in demo_runs())
    for run in demo_runs():
        expected = evaluate_run(judgments, run, measures)
        row = rows[run.name]
        assert row.summary == expected.summary  # exactly: the same engine on the same numbers
        assert row.topics == expected.topics
        assert row.per_topic == {n: v.tolist() for n, v in expected.per_topic.items()}
    board = leaderboard(evaluation=evaluation)
    assert [c.name for c in board.columns] == ["bpref", "infAP", "map", "ndcg_cut_10", "P_10", "judged_10"]
    maps = [v or 0.0 for v in board.values_of("map")]
    assert None not in board.values_of("map") and maps == sorted(maps, reverse=True)  # best AP first
    assert board.rows[-1].tag == "random_baseline"
    by_bpref = [v or 0.0 for v in leaderboard(evaluation=evaluation, sort="bpref").values_of("bpref")]
    assert by_bpref == sorted(by_bpref, reverse=True)


def test_the_page_prints_the_engine_values(loaded: Campaign, organizer: Any) -> None:
    evaluation = evaluate_reference(loaded, organizer)
    body = login(organizer).get(reverse("evaluation:leaderboard", args=[loaded.slug])).content.decode()
    judgments = demo_judgments()
    measures = parse_measures([s for s in BASE_SPECS if s != "iprec_at_recall"])
    for run in demo_runs():
        summary = evaluate_run(judgments, run, measures).summary
        row = body[body.index(f">{run.name}</a>") :].split("</tr>")[0]
        cells = [c.split(">")[1].split("<")[0] for c in row.split("<td")[1:]]
        assert cells == [f"{summary[n]:.4f}" for n in COLUMNS if n in summary]
    assert evaluation.run_count == 4 and evaluation.topic_count == 5


def test_trec_download_is_byte_identical_to_manage_py_evaluate(loaded: Campaign, organizer: Any) -> None:
    evaluation = evaluate_reference(loaded, organizer)
    out = io.StringIO()
    args = [a for spec in evaluation.specs for a in ("-m", spec)]
    call_command(
        "evaluate", "-q", *args, str(demo_dir() / "qrels.txt"), *map(str, demo_run_paths()), stdout=out
    )
    expected = out.getvalue()
    client = login(organizer)
    page = client.get(reverse("evaluation:download", args=[loaded.slug, evaluation.pk]) + "?format=trec")
    assert page["Content-Type"].startswith("text/plain")
    assert page.content.decode() == expected
    api = client.get(reverse("metrics_api:export", args=[loaded.slug, evaluation.pk]) + "?format=trec")
    assert api.content.decode() == expected
    # one run alone: no run column, exactly as the command prints a single run
    one = io.StringIO()
    call_command("evaluate", "-q", *args, str(demo_dir() / "qrels.txt"), str(demo_run_paths()[0]), stdout=one)
    single = client.get(
        reverse("evaluation:download", args=[loaded.slug, evaluation.pk]) + "?format=trec&run=bm25"
    )
    assert single.content.decode() == one.getvalue()


def test_csv_and_json_downloads_carry_the_same_numbers(loaded: Campaign, organizer: Any) -> None:
    evaluation = evaluate_reference(loaded, organizer)
    client = login(organizer)
    url = reverse("evaluation:download", args=[loaded.slug, evaluation.pk])
    rows = list(csv.reader(io.StringIO(client.get(url + "?format=csv").content.decode())))
    assert rows[0] == ["run", "measure", "topic", "value"]
    trec = client.get(url + "?format=trec").content.decode().splitlines()
    assert [r for r in rows[1:]] == [line.split("\t") for line in trec]
    data = json.loads(client.get(url + "?format=json").content)
    assert data["evaluation"] == evaluation.pk and data["source"]["kind"] == "qrels"
    stored = {r.tag: r for r in EvaluationRun.objects.filter(evaluation=evaluation)}
    for run in data["runs"]:
        assert run["all"] == stored[run["run"]].summary
        first = stored[run["run"]].topics[0]
        assert run["per_topic"][first]["map"] == stored[run["run"]].per_topic["map"][0]


def test_a_sampled_pool_brings_xinfap_xinfndcg_and_statap(
    loaded: Campaign, organizer: Any, assessor: Any
) -> None:
    spec = PoolSpec("stratified", strata=(5, 20), rates=(1.0, 0.5), seed=1)
    pool = pool_commit(pool=pool_build(campaign=loaded, name="strat", spec=spec))
    judge(loaded, pool, assessor, per_topic=12)
    source = JudgmentSource(pool=pool.pk)
    evaluation = evaluation_run(campaign=loaded, source=source, user=organizer)
    assert evaluation.design == "sampled"
    sourced = source_judgments(campaign=loaded, source=source)
    measures, _ = evaluation_measures(sampled=True)
    labelled = Judgments(source_judgments(campaign=loaded, source=JudgmentSource()).judgments.qrels)
    rows = {r.tag: r for r in EvaluationRun.objects.filter(evaluation=evaluation)}
    for run in demo_runs():
        expected = evaluate_run(sourced.judgments, run, measures)
        row = rows[run.name]
        for name in ("xinfAP", "xinfNDCG", "statAP", "map", "bpref", "infAP"):
            assert row.summary[name] == expected.summary[name], name
            assert row.per_topic[name] == expected.per_topic[name].tolist(), name
        # judged@10 counts labelled documents only: the engine's judged_10 against the labels alone
        judged = evaluate_run(labelled, run, parse_measures(["judged.10"]))
        assert row.topics == judged.topics
        assert row.summary[JUDGED] == judged.summary[JUDGED]
    board = leaderboard(evaluation=evaluation)
    assert [c.name for c in board.columns] == list(COLUMNS)
    body = login(organizer).get(
        reverse("evaluation:leaderboard", args=[loaded.slug]) + f"?kind=consensus&pool={pool.pk}"
    )
    text = body.content.decode()
    assert ">statAP<" in text and ">xinfAP<" in text and "The pool is a sampling design" in text


def test_judged_at_10_counts_pooled_but_unjudged_documents_as_unjudged(
    loaded: Campaign, organizer: Any, assessor: Any
) -> None:
    pool = pool_commit(pool=pool_build(campaign=loaded, name="d10", spec=PoolSpec("depth", depth=10)))
    judge(loaded, pool, assessor, per_topic=3)
    with_pool = evaluation_run(campaign=loaded, source=JudgmentSource(pool=pool.pk), user=organizer)
    assert with_pool.unjudged_count > 0 and with_pool.judged_count == 3 * 5
    labels = source_judgments(campaign=loaded, source=JudgmentSource()).judgments
    merged = source_judgments(campaign=loaded, source=JudgmentSource(pool=pool.pk)).judgments
    judged = parse_measures(["judged.10"])
    for run in demo_runs():
        row = EvaluationRun.objects.get(evaluation=with_pool, tag=run.name)
        assert row.summary[JUDGED] == evaluate_run(labels, run, judged).summary[JUDGED]
        # ir_measures' convention on the merged qrels would count the pool's -1 lines as judged
        assert evaluate_run(merged, run, judged).summary[JUDGED] == 1.0
        assert row.summary[JUDGED] < 1.0
        # every other measure is the engine's on the merged judgments
        assert row.summary["infAP"] == evaluate_run(merged, run, parse_measures(["infAP"])).summary["infAP"]


@pytest.mark.parametrize(
    ("test", "correction"),
    [("t", "none"), ("wilcoxon", "holm"), ("sign", "bonferroni"), ("randomization", "bh")],
)
def test_significance_matrix_equals_metrics_significance(
    loaded: Campaign, organizer: Any, test: str, correction: str
) -> None:
    evaluation = evaluate_reference(loaded, organizer)
    params = SignificanceParams(
        evaluation=evaluation.pk, measure="map", test=test, correction=correction, seed=7, permutations=2000
    )
    job = significance_enqueue(evaluation=evaluation, params=params, user=organizer)
    assert job.status == "done" and job.result is not None
    # independently: the demo files through the engine, the runs in tag order as the store keeps them
    measures, _ = evaluation_measures(sampled=False)
    results = [evaluate_run(demo_judgments(), run, measures) for run in demo_runs()]
    settings = CompareSettings(
        tests=(test,), correction=correction, permutations=2000, resamples=10_000, seed=7, alpha=0.05
    )
    expected = compare_pairs(score_matrix(results, "map"), settings)
    got = {(p["a"], p["b"]): p for p in job.result["comparison"]["pairs"]}
    assert len(got) == len(expected) == 6
    for pair in expected:
        mine = got[(pair.a, pair.b)]
        assert mine["tests"][test]["p"] == pair.tests[test].p
        assert mine["tests"][test]["p_adjusted"] == pair.adjusted[test]
        assert mine["diff"] == pair.diff and tuple(mine["ci"]) == pair.ci
    # the page: one cell per ordered pair, each with its adjusted p-value and direction
    url = reverse("evaluation:significance", args=[loaded.slug, evaluation.pk])
    query = f"?measure=map&test={test}&correction={correction}&seed=7&permutations=2000&alpha=0.05"
    body = login(organizer).get(url + query).content.decode()
    assert body.count("data-direction=") == 12
    for pair in expected:
        direction = "better" if pair.diff > 0 else "worse"
        assert f'data-p="{pair.adjusted[test]:.6g}" data-direction="{direction}"' in body
    # and below it the effect sizes, the ANOVA table, Friedman/Nemenyi and the conventions
    for section in ('id="effect-sizes"', 'id="anova"', 'id="nemenyi"', 'id="conventions"'):
        assert section in body
    for pair in expected:
        e = pair.effect
        assert e is not None
        assert f"<td>{e.wins}/{e.ties}/{e.losses}</td>" in body
    # the standardized mean differences by their names, and Kendall's W beside Friedman
    standardized = body.split('id="standardized-effects"')[1].split("</table>")[0]
    for label in ("d<sub>z</sub>", "d<sub>av</sub>", "Hedges' g<sub>av</sub>"):
        assert f"<th>{label}</th>" in standardized
    for pair in expected:
        e = pair.effect
        assert e is not None and np.isfinite(e.d_av)
        assert f"<td>{floatformat(e.d_av, 3)}</td>" in standardized
        assert f"<td>{floatformat(e.g_av, 3)}</td>" in standardized
        assert f"[{floatformat(e.d_av_ci[0], 3)}, {floatformat(e.d_av_ci[1], 3)}]" in standardized
    w = friedman_test(score_matrix(results, "map").scores, ("",) * len(results)).kendall_w
    assert f'<span id="kendall-w">{floatformat(w, 3)}</span>' in body
    assert "every paired test is two-sided" in body


def test_significance_form_enqueues_once_and_downloads(loaded: Campaign, organizer: Any) -> None:
    evaluation = evaluate_reference(loaded, organizer)
    client: Client = login(organizer)
    url = reverse("evaluation:significance", args=[loaded.slug, evaluation.pk])
    form = {"measure": "P_10", "test": "randomization", "correction": "holm", "seed": 3, "permutations": 500}
    first = client.post(url, form)
    assert first.status_code == 302 and "measure=P_10" in first["Location"]
    client.post(url, form)  # the same parameters again: the finished comparison is reused
    from jobs.models import Job

    job = Job.objects.get(kind="metrics_significance")
    job_page = client.get(reverse("jobs:job", args=[job.id])).content.decode()
    assert "6 pairs of runs on P_10" in job_page and 'id="significance-link"' in job_page
    page = client.get(first["Location"]).content.decode()
    assert 'id="significance"' in page and "pairs differ significantly" in page
    rows = list(csv.reader(io.StringIO(client.get(first["Location"] + "&format=csv").content.decode())))
    assert rows[0][:3] == ["section", "a", "b"]
    assert sum(1 for r in rows if r[0] == "pair") == 6 and sum(1 for r in rows if r[0] == "mean") == 4
    data = json.loads(client.get(first["Location"] + "&format=json").content)
    assert data["params"]["measure"] == "P_10" and data["comparison"]["settings"]["tests"] == [
        "randomization"
    ]
    means = {r["run"]: r["mean"] for r in data["comparison"]["runs"]}
    stored = {r.tag: r.per_topic["P_10"] for r in EvaluationRun.objects.filter(evaluation=evaluation)}
    assert means == pytest.approx({tag: float(np.mean(v)) for tag, v in stored.items()})


def test_significance_refuses_bad_parameters(loaded: Campaign, organizer: Any) -> None:
    evaluation = evaluate_reference(loaded, organizer)
    url = reverse("evaluation:significance", args=[loaded.slug, evaluation.pk])
    body = login(organizer).post(url, {"measure": "nope", "test": "t"}).content.decode()
    assert "measure &#x27;nope&#x27; is not in this evaluation" in body
    body = login(organizer).post(url, {"measure": "map", "test": "z-test"}).content.decode()
    assert "test:" in body


def test_the_matrix_is_what_manage_py_compare_prints_for_the_same_runs(
    loaded: Campaign, organizer: Any
) -> None:
    evaluation = evaluate_reference(loaded, organizer)
    params = SignificanceParams(
        evaluation=evaluation.pk,
        measure="map",
        test="randomization",
        correction="holm",
        seed=5,
        permutations=3000,
    )
    job = significance_enqueue(evaluation=evaluation, params=params, user=organizer)
    out = io.StringIO()
    call_command(
        "compare",
        *("-m", "map", "--test", "randomization", "--correction", "holm", "--seed", "5"),
        *("--permutations", "3000", "--format", "json"),
        str(demo_dir() / "qrels.txt"),
        *map(str, demo_run_paths()),  # in tag order, as the store keeps the runs
        stdout=out,
    )
    printed = json.loads(out.getvalue())
    assert job.result is not None
    assert job.result["comparison"]["pairs"] == printed["pairs"]
    assert job.result["comparison"]["runs"] == printed["runs"]


def test_the_page_csv_is_what_manage_py_compare_writes_for_the_same_comparison(
    loaded: Campaign, organizer: Any
) -> None:
    evaluation = evaluate_reference(loaded, organizer)
    params = SignificanceParams(
        evaluation=evaluation.pk,
        measure="map",
        test="randomization",
        correction="holm",
        seed=5,
        permutations=3000,
    )
    significance_enqueue(evaluation=evaluation, params=params, user=organizer)
    url = reverse("evaluation:significance", args=[loaded.slug, evaluation.pk])
    query = "?measure=map&test=randomization&correction=holm&seed=5&permutations=3000&alpha=0.05&format=csv"
    page = login(organizer).get(url + query).content.decode()
    out = io.StringIO()
    call_command(
        "compare",
        *("-m", "map", "--test", "randomization", "--correction", "holm", "--seed", "5"),
        *("--permutations", "3000", "--format", "csv"),
        str(demo_dir() / "qrels.txt"),
        *map(str, demo_run_paths()),  # in tag order, as the store keeps the runs
        stdout=out,
    )
    # the page has the pairs with their effect sizes, the ANOVA table and Friedman's test: the
    # command's Tukey HSD rows are the one thing it adds
    lines = out.getvalue().splitlines(keepends=True)
    printed = "".join(line for line in lines if line.split(",")[0] not in ("tukey", "correlation"))
    assert any(line.startswith("tukey,") for line in lines)
    # effect rows per pair: mean_t, d_z, d_av, g_av, superiority, wins, ties, losses
    assert page.count("\npair,") == 6 and page.count("\neffect,") == 6 * 8 and page == printed
    assert "\nanova,,,,systems," in page and "\nfriedman,,,,friedman," in page
    assert "\nfriedman,,,,kendall_w," in page


def test_the_page_takes_the_zero_method_the_interval_and_by_as_the_command_does(
    loaded: Campaign, organizer: Any
) -> None:
    evaluation = evaluate_reference(loaded, organizer)
    client = login(organizer)
    url = reverse("evaluation:significance", args=[loaded.slug, evaluation.pk])
    form = {"measure": "map", "test": "wilcoxon", "correction": "by", "seed": 2, "permutations": 500}
    first = client.post(url, {**form, "zero_method": "zsplit", "ci": "bca"})
    assert (
        first.status_code == 302
        and "zero_method=zsplit" in first["Location"]
        and "ci=bca" in first["Location"]
    )
    page = client.get(first["Location"]).content.decode()
    assert "--zero-method zsplit --ci bca" in page  # the equivalent command line, on the page
    csv_page = client.get(first["Location"] + "&format=csv").content.decode()
    out = io.StringIO()
    call_command(
        "compare",
        *("-m", "map", "--test", "wilcoxon", "--correction", "by", "--seed", "2", "--permutations", "500"),
        *("--zero-method", "zsplit", "--ci", "bca", "--format", "csv"),
        str(demo_dir() / "qrels.txt"),
        *map(str, demo_run_paths()),
        stdout=out,
    )
    lines = out.getvalue().splitlines(keepends=True)
    printed = "".join(line for line in lines if line.split(",")[0] not in ("tukey", "correlation"))
    assert csv_page == printed
    # the default choices keep the key a comparison had before they existed
    plain = SignificanceParams(evaluation=evaluation.pk, measure="map")
    assert plain.key() == f"{evaluation.pk}|map|t|holm|0|10000|0.05"


def test_the_exact_randomization_test_on_the_page_and_its_topic_limit(
    loaded: Campaign, organizer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    evaluation = evaluate_reference(loaded, organizer)
    params = SignificanceParams(evaluation=evaluation.pk, measure="map", test="exact")
    job = significance_enqueue(evaluation=evaluation, params=params, user=organizer)
    assert job.result is not None
    pairs = job.result["comparison"]["pairs"]
    # 5 demo topics: p is a multiple of 1/32, the exact count of the 2^5 sign flips
    assert all((p["tests"]["exact"]["p"] * 32) == round(p["tests"]["exact"]["p"] * 32) for p in pairs)
    import metrics.comparisons as comparisons

    monkeypatch.setattr(comparisons, "EXACT_MAX_TOPICS", 4)
    with pytest.raises(CampaignDataError, match="this evaluation has 5: choose the"):
        comparisons.significance_check(evaluation=evaluation, params=params)
