"""The evaluation REST API, and the OpenAPI schema of every API endpoint of the project."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
import yaml
from django.core.management import call_command
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from openapi_spec_validator import validate

from campaigns.models import Campaign
from jobs.models import Job
from metrics.models import Evaluation, EvaluationRun
from tests.metrics.test_leaderboard_pages import evaluate_reference, login, reference_set

pytestmark = pytest.mark.django_db


def api(client: Client, name: str, *args: Any, query: str = "", data: Any = None) -> Any:
    url = reverse(f"metrics_api:{name}", args=args) + query
    if data is None:
        return client.get(url)
    return client.post(url, data, content_type="application/json")


def test_evaluate_then_read_the_leaderboard_through_the_api(loaded: Campaign, organizer: Any) -> None:
    client = login(organizer)
    qset = reference_set(loaded)
    accepted = api(client, "evaluate", loaded.slug, data={"kind": "qrels", "qrels_set": qset.pk})
    assert accepted.status_code == 202
    job = Job.objects.get(pk=accepted.json()["job"])
    assert accepted.json()["url"] == f"/api/jobs/{job.id}/" and job.status == Job.Status.DONE
    polled = client.get(accepted.json()["url"]).json()
    evaluation = Evaluation.objects.get()
    assert polled["result"]["evaluation"] == evaluation.pk

    listed = api(client, "evaluations", loaded.slug).json()
    assert [e["id"] for e in listed] == [evaluation.pk]
    assert listed[0]["source"] == {
        "kind": "qrels",
        "rule": "majority",
        "assessor": None,
        "qrels_set": qset.pk,
        "pool": None,
    }

    latest = api(client, "latest", loaded.slug, query=f"?kind=qrels&qrels_set={qset.pk}&sort=bpref").json()
    assert latest["pending_job"] is None and latest["evaluation"]["id"] == evaluation.pk
    rows = latest["evaluation"]["rows"]
    assert latest["evaluation"]["sort"] == "bpref" and latest["evaluation"]["unavailable"] == [
        "xinfAP",
        "xinfNDCG",
        "statAP",
    ]
    bprefs = [r["values"]["bpref"] for r in rows]
    assert bprefs == sorted(bprefs, reverse=True)
    stored = {r.tag: r for r in EvaluationRun.objects.filter(evaluation=evaluation)}
    for row in rows:
        assert row["values"] == {k: stored[row["run"]].summary[k] for k in row["values"]}

    detail = api(client, "evaluation", loaded.slug, evaluation.pk).json()
    assert detail["sort"] == "map" and len(detail["rows"]) == 4 and detail["topics"] == 5

    bm25 = stored["bm25"]
    run = api(client, "run", loaded.slug, evaluation.pk, bm25.pk, query="?measure=ndcg_cut_10").json()
    assert run["run"] == "bm25" and run["measure"] == "ndcg_cut_10" and run["runs"] == 4
    for i, topic in enumerate(run["topics"]):
        everyone = [r.per_topic["ndcg_cut_10"][r.topics.index(topic["topic"])] for r in stored.values()]
        assert topic["value"] == bm25.per_topic["ndcg_cut_10"][i]
        assert topic["best"] == max(everyone)
        assert topic["median"] == pytest.approx(sorted(everyone)[1] / 2 + sorted(everyone)[2] / 2)
    assert run["recall"] == [i / 10 for i in range(11)] and len(run["precision"]) == 11
    assert run["precision"] == [bm25.summary[f"iprec_at_recall_{r / 10:.2f}"] for r in range(11)]

    text = api(client, "export", loaded.slug, evaluation.pk, query="?format=json")
    assert text["Content-Type"] == "application/json" and len(text.json()["runs"]) == 4
    assert api(client, "export", loaded.slug, evaluation.pk, query="?format=xml").status_code == 400
    assert api(client, "evaluation", loaded.slug, 999).status_code == 404
    assert api(client, "run", loaded.slug, evaluation.pk, 999).status_code == 404


def test_bad_sources_are_400_with_the_reasons(loaded: Campaign, organizer: Any) -> None:
    client = login(organizer)
    bad = api(client, "evaluate", loaded.slug, data={"kind": "assessor"})
    assert bad.status_code == 400 and bad.json() == {"errors": ["name the assessor whose judgments count"]}
    bad = api(client, "evaluate", loaded.slug, data={"kind": "guess"})
    assert bad.status_code == 400 and bad.json()["errors"][0].startswith("kind:")
    # a source with nothing judged: the job fails with the reason
    failed = api(client, "evaluate", loaded.slug, data={"kind": "consensus"})
    assert failed.status_code == 202
    assert "no graded document yet" in client.get(failed.json()["url"]).json()["errors"][0]


def test_significance_through_the_api(loaded: Campaign, organizer: Any, settings: Any) -> None:
    evaluation = evaluate_reference(loaded, organizer)
    client = login(organizer)
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}  # queued for a worker
    queued = api(
        client, "significance", loaded.slug, evaluation.pk, data={"measure": "map", "test": "wilcoxon"}
    )
    assert queued.status_code == 202
    again = api(
        client, "significance", loaded.slug, evaluation.pk, data={"measure": "map", "test": "wilcoxon"}
    )
    assert again.status_code == 202 and again.json()["job"] == queued.json()["job"]
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    done = api(client, "significance", loaded.slug, evaluation.pk, data={"measure": "P_10", "test": "t"})
    assert done.status_code == 200
    body = done.json()
    assert body["status"] == "done" and len(body["result"]["comparison"]["pairs"]) == 6
    assert body["result"]["params"]["correction"] == "holm"
    cached = api(client, "significance", loaded.slug, evaluation.pk, data={"measure": "P_10", "test": "t"})
    assert cached.status_code == 200 and cached.json()["job"] == body["job"]
    bad = api(client, "significance", loaded.slug, evaluation.pk, data={"measure": "nDCG", "test": "t"})
    assert bad.status_code == 400 and "not in this evaluation" in bad.json()["errors"][0]


# ------------------------------------------------------------------------------------ the schema


def _routes(patterns: list[Any], prefix: str = "", namespace: str = "") -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for p in patterns:
        if isinstance(p, URLResolver):
            ns = p.namespace or namespace
            out += _routes(p.url_patterns, prefix + str(p.pattern), ns)
        elif isinstance(p, URLPattern):
            out.append((namespace, prefix + str(p.pattern)))
    return out


def _openapi_path(route: str) -> str:
    # drf-spectacular names a ``pk`` parameter ``id`` (SCHEMA_COERCE_PATH_PK)
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route).replace("{pk}", "{id}")


def test_the_openapi_schema_is_served_valid_and_lists_every_api_endpoint(client: Client) -> None:
    from drf_spectacular.drainage import GENERATOR_STATS

    with GENERATOR_STATS.silence():
        response = client.get("/api/schema/")
        as_json = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    validate(schema)  # OpenAPI 3 structure and references (openapi-spec-validator)
    assert as_json.json()["paths"].keys() == schema["paths"].keys()
    api_routes = {
        _openapi_path(route)
        for namespace, route in _routes(get_resolver().url_patterns)
        if namespace in ("api", "judging_api", "metrics_api")
    }
    assert len(api_routes) > 30
    assert api_routes - set(schema["paths"]) == set()
    evaluate = schema["paths"]["/api/metrics/campaigns/{slug}/evaluations/evaluate/"]["post"]
    assert {"202", "400"} <= set(evaluate["responses"])
    run = schema["paths"]["/api/metrics/campaigns/{slug}/evaluations/{id}/runs/{result}/"]["get"]
    ref = run["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert "topics" in schema["components"]["schemas"][ref.rsplit("/", 1)[1]]["properties"]


def test_no_api_view_gives_the_schema_generator_anything_to_warn_about() -> None:
    from drf_spectacular.drainage import GENERATOR_STATS

    GENERATOR_STATS.reset()
    err = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stderr", err)
        call_command("spectacular", "--validate", "--file", "/dev/null")
    messages = list(GENERATOR_STATS._warn_cache) + list(GENERATOR_STATS._error_cache)
    # every operation documents its input and answers (pooling, jobs, judging, metrics)
    assert messages == []
