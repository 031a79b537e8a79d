"""The operator's judge endpoints: parsed and refused with the endpoint and field named, the key's
variable never one of the server's own settings, and the settings module refusing to start on a
bad declaration."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judging.llm.endpoints import (
    Endpoint,
    EndpointError,
    endpoint_matching,
    endpoints_from_environment,
    key_env_problem,
    parse_endpoints,
)

ROOT = Path(__file__).resolve().parents[2]


def test_declared_endpoints_are_read_with_their_fields() -> None:
    parsed = parse_endpoints(
        {
            "local-vllm": {"base_url": "http://127.0.0.1:8000/v1", "allow_private": True},
            "openai": {"base_url": "https://api.openai.com/v1", "key_env": "OPENAI_API_KEY"},
        }
    )
    assert parsed == {
        "local-vllm": Endpoint("local-vllm", "http://127.0.0.1:8000/v1", "", True),
        "openai": Endpoint("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", False),
    }
    assert parsed["openai"].url == "https://api.openai.com/v1/chat/completions"
    assert parse_endpoints(None) == {} and parse_endpoints({}) == {}


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ({"base_url": "http://h/v1?x=1"}, "base_url must not carry a query"),
        ({"base_url": "http://h/v1?"}, "base_url must not carry a query"),
        ({"base_url": "http://h/v1#"}, "base_url must not carry a fragment"),
        ({"base_url": "http://u:p@h/v1"}, "base_url must not carry a user or password"),
        ({"base_url": "http://@h/v1"}, "base_url must not carry a user or password"),
        ({"base_url": "ftp://h/v1"}, "base_url must be http:// or https:// with a host"),
        ({"base_url": "http:///v1"}, "base_url must be http:// or https:// with a host"),
        ({"base_url": "http://h:port/v1"}, "is not a URL"),
        ({"base_url": 7}, "base_url must be a string"),
        ({}, "base_url must be a string"),
        ({"base_url": "http://h/v1", "key_env": "WORKBENCH_SECRET_KEY"}, "key_env 'WORKBENCH_SECRET_KEY' is"),
        (
            {"base_url": "http://h/v1", "key_env": "DATABASE_URL"},
            "key_env 'DATABASE_URL' is one of the server",
        ),
        ({"base_url": "http://h/v1", "key_env": "1BAD"}, "key_env '1BAD' is not an environment variable"),
        ({"base_url": "http://h/v1", "allow_private": "yes"}, "allow_private must be true or false"),
        ({"base_url": "http://h/v1", "api_key_env": "X"}, "unknown field(s) api_key_env"),
    ],
)
def test_a_bad_declaration_names_the_endpoint_and_the_field(spec: dict[str, object], said: str) -> None:
    with pytest.raises(EndpointError) as err:
        parse_endpoints({"judge-1": spec})
    assert str(err.value).startswith("WORKBENCH_JUDGE_ENDPOINTS: endpoint 'judge-1'") and said in str(
        err.value
    )


def test_a_bad_name_or_shape_is_refused() -> None:
    with pytest.raises(EndpointError, match="the name 'has space' must be"):
        parse_endpoints({"has space": {"base_url": "http://h/v1"}})
    with pytest.raises(EndpointError, match="must be a JSON object of endpoints by name, found list"):
        parse_endpoints([{"base_url": "http://h/v1"}])


@pytest.mark.parametrize(
    "name",
    [
        "WORKBENCH_SECRET_KEY", "DATABASE_URL", "WORKBENCH_JUDGE_ENDPOINTS", "WORKBENCH_ENV",
        "DJANGO_SECRET_KEY", "SECRET_KEY", "EMAIL_HOST_PASSWORD", "PGPASSWORD", "REDIS_URL",
        "workbench_secret_key",
    ],
)  # fmt: skip
def test_the_servers_own_settings_never_hold_a_judges_key(name: str) -> None:
    assert "one of the server's own settings" in key_env_problem(name)


@pytest.mark.parametrize(
    "name", ["WORKBENCH_JUDGE_API_KEY", "WORKBENCH_JUDGE_API_KEY_OPENAI", "OPENAI_API_KEY"]
)
def test_a_judges_own_variable_may_hold_its_key(name: str) -> None:
    assert key_env_problem(name) == ""


def test_endpoints_come_from_the_variable_or_the_file_not_both(tmp_path: Path) -> None:
    declared = {"local": {"base_url": "http://127.0.0.1:8000/v1", "allow_private": True}}
    assert endpoints_from_environment({}) == {}
    assert endpoints_from_environment({"WORKBENCH_JUDGE_ENDPOINTS": json.dumps(declared)}) == declared
    path = tmp_path / "endpoints.json"
    path.write_text(json.dumps(declared))
    assert endpoints_from_environment({"WORKBENCH_JUDGE_ENDPOINTS_FILE": str(path)}) == declared
    with pytest.raises(EndpointError, match="not both"):
        endpoints_from_environment(
            {"WORKBENCH_JUDGE_ENDPOINTS": "{}", "WORKBENCH_JUDGE_ENDPOINTS_FILE": str(path)}
        )
    with pytest.raises(EndpointError, match="WORKBENCH_JUDGE_ENDPOINTS is not JSON"):
        endpoints_from_environment({"WORKBENCH_JUDGE_ENDPOINTS": "{local: 1}"})
    with pytest.raises(EndpointError, match="cannot read"):
        endpoints_from_environment({"WORKBENCH_JUDGE_ENDPOINTS_FILE": str(tmp_path / "none.json")})
    path.write_text(json.dumps({"x": {"base_url": "http://h/v1#"}}))
    with pytest.raises(EndpointError, match=r"WORKBENCH_JUDGE_ENDPOINTS_FILE \(.*\): endpoint 'x': base_url"):
        endpoints_from_environment({"WORKBENCH_JUDGE_ENDPOINTS_FILE": str(path)})


def test_the_server_does_not_start_with_a_bad_declaration() -> None:
    env = {
        **os.environ,
        "WORKBENCH_JUDGE_ENDPOINTS": json.dumps(
            {"mine": {"base_url": "http://h/v1", "key_env": "DATABASE_URL"}}
        ),
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0
    assert (
        "ImproperlyConfigured: WORKBENCH_JUDGE_ENDPOINTS: endpoint 'mine': key_env 'DATABASE_URL'"
        in done.stderr
    )


def test_an_old_free_url_maps_to_the_declared_endpoint_it_matches() -> None:
    declared = parse_endpoints(
        {
            "openai": {"base_url": "https://api.openai.com/v1", "key_env": "OPENAI_API_KEY"},
            "local": {"base_url": "http://127.0.0.1:8000/v1/", "allow_private": True},
        }
    )
    assert endpoint_matching("https://api.openai.com/v1/", "OPENAI_API_KEY", declared) == ("openai", "")
    assert endpoint_matching("http://127.0.0.1:8000/v1", "", declared) == ("local", "")
    name, reason = endpoint_matching("https://api.openai.com/v1", "WORKBENCH_SECRET_KEY", declared)
    assert (
        name == ""
        and "its key's variable WORKBENCH_SECRET_KEY is not the one the endpoint 'openai'" in reason
    )
    name, reason = endpoint_matching("http://10.0.0.5/v1", "OPENAI_API_KEY", declared)
    assert (name, reason) == (
        "",
        "its base URL http://10.0.0.5/v1 is not an endpoint the server's operator declared; choose one",
    )
    assert "none is declared yet" in endpoint_matching("http://x/v1", "K", {})[1]
