"""The API's one error shape, ``{"errors": [...]}``, for every kind of refusal, and what its schema says."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.test import Client

from campaigns.api_errors import error_lines
from tests.metrics.test_leaderboard_pages import login

pytestmark = pytest.mark.django_db


def _errors(response: Any, status: int) -> list[str]:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert list(body) == ["errors"] and body["errors"] and all(isinstance(e, str) for e in body["errors"])
    return body["errors"]


def test_a_serializer_refusal_names_each_field_in_a_line(campaign: Any, organizer: Any) -> None:
    bad = login(organizer).post(
        "/api/campaigns/create/", {"slug": "not a slug!", "name": "x" * 300}, content_type="application/json"
    )
    lines = _errors(bad, 400)
    assert any(line.startswith("slug: ") for line in lines)
    assert any(line.startswith("name: ") for line in lines)


def test_error_lines_flatten_drf_details() -> None:
    detail = {"non_field_errors": ["both given"], "spec": {"depth": ["too deep"]}, "runs": [["bad tag"]]}
    assert error_lines(detail) == ["both given", "spec.depth: too deep", "runs: bad tag"]
    assert error_lines({"detail": "Not found."}) == ["Not found."]


def test_a_role_that_does_not_allow_it_is_403_in_the_errors_shape(campaign: Any, assessor: Any) -> None:
    _errors(login(assessor).get(f"/api/campaigns/{campaign.slug}/runs/"), 403)


def test_no_role_in_the_campaign_is_404_in_the_errors_shape(campaign: Any, outsider: Any) -> None:
    _errors(login(outsider).get(f"/api/campaigns/{campaign.slug}/"), 404)


def test_an_unmatched_api_path_is_a_json_404_not_the_html_page(organizer: Any) -> None:
    client = login(organizer)
    lines = _errors(client.get("/api/no/such/thing/"), 404)
    assert "/api/no/such/thing/" in lines[0]
    _errors(client.post("/api/campaigns/trec-demo/nothing-here/", {}), 404)
    _errors(Client().get("/api/nothing/"), 404)
    # a script's POST without a CSRF token: the 404 too, not the CSRF failure page
    _errors(Client(enforce_csrf_checks=True).post("/api/nothing/", {}), 404)


def test_a_method_the_endpoint_does_not_have_is_405_in_the_errors_shape(organizer: Any) -> None:
    _errors(login(organizer).delete("/api/campaigns/"), 405)


def test_an_unsupported_body_is_415_in_the_errors_shape(organizer: Any) -> None:
    _errors(login(organizer).post("/api/campaigns/create/", "x", content_type="text/csv"), 415)


def test_unauthenticated_and_bad_credentials_are_refused_in_the_errors_shape(campaign: Any) -> None:
    _errors(Client().get("/api/campaigns/"), 403)
    _errors(Client().get("/api/campaigns/", HTTP_AUTHORIZATION="Basic bm9ib2R5Om5vcGU="), 403)


def _schema(client: Client) -> dict[str, Any]:
    from drf_spectacular.drainage import GENERATOR_STATS

    with GENERATOR_STATS.silence():
        return yaml.safe_load(client.get("/api/schema/").content)


def _answer(schema: dict[str, Any], path: str, method: str, code: str) -> dict[str, Any]:
    content = schema["paths"][path][method]["responses"][code]["content"]["application/json"]["schema"]
    return _resolve(schema, content)


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in node:
        return schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


LIST_ENDPOINTS = [
    ("/api/campaigns/", "get", "200"),
    ("/api/campaigns/{slug}/runs/", "get", "200"),
    ("/api/campaigns/{slug}/pools/", "get", "200"),
    ("/api/judging/campaigns/{slug}/assignments/", "get", "200"),
    ("/api/judging/campaigns/{slug}/assignments/create/", "post", "201"),
    ("/api/judging/campaigns/{slug}/scale/", "get", "200"),
    ("/api/judging/campaigns/{slug}/scale/set/", "post", "200"),
    ("/api/metrics/campaigns/{slug}/evaluations/", "get", "200"),
]


def test_the_schema_says_array_of_items_for_list_endpoints(client: Client) -> None:
    schema = _schema(client)
    for path, method, code in LIST_ENDPOINTS:
        answer = _answer(schema, path, method, code)
        assert answer["type"] == "array", path
        item = _resolve(schema, answer["items"])
        assert item["type"] == "object" and item["properties"], path


def test_every_operation_documents_its_refusals_in_the_errors_shape(client: Client) -> None:
    schema = _schema(client)
    operations = [
        (path, method)
        for path, item in schema["paths"].items()
        if path.startswith("/api/") and path != "/api/schema/"
        for method in item
    ]
    assert len(operations) > 40
    for path, method in operations:
        for code in ("400", "403", "404"):
            errors = _answer(schema, path, method, code)
            assert errors["properties"]["errors"]["type"] == "array", (path, method, code)
    for path in ("/api/campaigns/{slug}/topics/import/", "/api/campaigns/{slug}/runs/import/"):
        body = schema["paths"][path]["post"]["requestBody"]["content"]
        assert list(body) == ["multipart/form-data"]


def test_a_number_too_large_for_the_database_is_refused_not_a_server_error(
    campaign: Any, organizer: Any
) -> None:
    levels = [{"value": 2**31, "label": "huge", "key": "h"}, {"value": 0, "label": "no", "key": "0"}]
    response = login(organizer).post(
        f"/api/judging/campaigns/{campaign.slug}/scale/set/",
        {"levels": levels},
        content_type="application/json",
    )
    assert _errors(response, 400)[0].startswith("levels")


def test_a_machine_assessors_endpoint_is_a_choice_among_the_declared_and_nothing_names_a_url(
    client: Client, settings: Any
) -> None:
    settings.WORKBENCH_JUDGE_ENDPOINTS = {
        "openai": {"base_url": "https://api.openai.com/v1", "key_env": "OPENAI_API_KEY"},
        "local-vllm": {"base_url": "http://127.0.0.1:8000/v1", "allow_private": True},
    }
    schema = _schema(client)
    schemas = schema["components"]["schemas"]
    assert schemas["EndpointEnum"]["enum"] == ["local-vllm", "openai"]
    for name in ("MachineJudgeCreateInputRequest", "MachineJudgeInputRequest", "MachineOut"):
        assert not {"base_url", "api_key_env", "key_env"} & set(schemas[name]["properties"]), name
    assert "https://api.openai.com" not in str(schema) and "OPENAI_API_KEY" not in str(schema)
