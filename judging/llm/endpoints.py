"""The judge endpoints the server's operator declares: the only places a machine assessor may ask.

An organizer picks an endpoint by its name; the URL, the environment variable holding its key and
whether it may be a private address are the operator's, declared in ``WORKBENCH_JUDGE_ENDPOINTS``
(a JSON object) or in the JSON file ``WORKBENCH_JUDGE_ENDPOINTS_FILE`` names::

    {"local-vllm": {"base_url": "http://127.0.0.1:8000/v1", "allow_private": true},
     "openai": {"base_url": "https://api.openai.com/v1", "key_env": "OPENAI_API_KEY"}}

A key's variable holds a judge's key and nothing else: the server's own settings (its secret key,
its database URL, every other ``WORKBENCH_…`` setting, ``DJANGO_…``, ``EMAIL_…``, ``PG…``) are
refused, so a judge can never carry them to an endpoint (:func:`key_env_problem`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

SETTING = "WORKBENCH_JUDGE_ENDPOINTS"
FILE_SETTING = "WORKBENCH_JUDGE_ENDPOINTS_FILE"
# the one WORKBENCH_ family a judge's key may live in: WORKBENCH_JUDGE_API_KEY, WORKBENCH_JUDGE_API_KEY_2 …
KEY_PREFIX = "WORKBENCH_JUDGE_API_KEY"
# the server's own configuration: a key's variable is never one of these
SERVER_NAMES = frozenset({"DATABASE_URL", "REDIS_URL", "CACHE_URL", "SECRET_KEY"})
SERVER_PREFIXES = ("WORKBENCH_", "DJANGO_", "EMAIL_", "PG")
FIELDS = ("base_url", "key_env", "allow_private")

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,49}\Z")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class EndpointError(ValueError):
    """Declared endpoints that cannot be used: one sentence naming the endpoint and its field."""


def key_env_problem(name: str) -> str:
    """Why ``name`` cannot hold a judge's key ('' when it can)."""
    if not _ENV_NAME.match(name):
        return f"'{name}' is not an environment variable name (letters, digits and _)"
    upper = name.upper()
    own = upper in SERVER_NAMES or (upper.startswith(SERVER_PREFIXES) and not upper.startswith(KEY_PREFIX))
    if own:
        return (
            f"'{name}' is one of the server's own settings, which a judge never sends: name a variable "
            f"that holds only the judge's key, such as {KEY_PREFIX} or OPENAI_API_KEY"
        )
    return ""


def base_url_problem(url: str) -> str:
    """Why ``url`` cannot be an endpoint's API root ('' when it can)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        return f"'{url}' is not a URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"must be http:// or https:// with a host, found '{url}'"
    if "@" in parts.netloc:
        return "must not carry a user or password: put the key in the variable key_env names"
    if parts.query or "?" in url:
        return f"must not carry a query ('?'), found '{url}'"
    if parts.fragment or "#" in url:
        return f"must not carry a fragment ('#'), found '{url}'"
    return ""


@dataclass(frozen=True)
class Endpoint:
    """Where a judge asks: ``base_url`` is the API root (``…/v1``), the request goes to
    ``{base_url}/chat/completions``; ``key_env`` names the variable holding the key ('' sends no
    key); ``allow_private`` lets it be a loopback or private address (a local vLLM or Ollama)."""

    name: str
    base_url: str
    key_env: str = ""
    allow_private: bool = False

    def problems(self) -> list[str]:
        """Everything wrong, one sentence each, each naming its field (empty: usable)."""
        out = []
        if not _NAME.match(self.name):
            out.append(f"the name '{self.name}' must be 1 to 50 letters, digits, '-' or '_'")
        problem = base_url_problem(self.base_url)
        if problem:
            out.append(f"base_url {problem}")
        if self.key_env:
            problem = key_env_problem(self.key_env)
            if problem:
                out.append(f"key_env {problem}")
        return out

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def api_key(self) -> str:
        """The key, read from the environment now ('' when none is declared or it is unset)."""
        return os.environ.get(self.key_env, "") if self.key_env else ""

    def key_present(self) -> bool:
        return bool(self.api_key())


def parse_endpoints(data: Any, *, source: str = SETTING) -> dict[str, Endpoint]:
    """The endpoints of ``data`` (the JSON object the operator wrote), validated; an
    :class:`EndpointError` naming the endpoint and its field otherwise."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        found = type(data).__name__
        raise EndpointError(f"{source} must be a JSON object of endpoints by name, found {found}")
    out = {}
    for name, spec in data.items():
        where = f"{source}: endpoint '{name}'"
        if isinstance(spec, Endpoint):  # already parsed (a test's settings may hold them)
            spec = {"base_url": spec.base_url, "key_env": spec.key_env, "allow_private": spec.allow_private}
        if not isinstance(spec, Mapping):
            raise EndpointError(f"{where} must be an object with base_url (and key_env, allow_private)")
        unknown = sorted(set(spec) - set(FIELDS))
        if unknown:
            known = ", ".join(FIELDS)
            raise EndpointError(f"{where}: unknown field(s) {', '.join(unknown)} (known: {known})")
        base_url, key_env = spec.get("base_url"), spec.get("key_env", "")
        allow_private = spec.get("allow_private", False)
        if not isinstance(base_url, str):
            raise EndpointError(f'{where}: base_url must be a string such as "https://api.openai.com/v1"')
        if not isinstance(key_env, str):
            raise EndpointError(f"{where}: key_env must be the name of an environment variable, a string")
        if not isinstance(allow_private, bool):
            raise EndpointError(f"{where}: allow_private must be true or false")
        endpoint = Endpoint(str(name), base_url, key_env, allow_private)
        problems = endpoint.problems()
        if problems:
            raise EndpointError(f"{where}: {'; '.join(problems)}")
        out[endpoint.name] = endpoint
    return out


def endpoints_from_environment(environ: Mapping[str, str]) -> dict[str, Any]:
    """The declared endpoints as JSON data (what the setting holds), from ``WORKBENCH_JUDGE_ENDPOINTS``
    or the file ``WORKBENCH_JUDGE_ENDPOINTS_FILE`` names; checked with :func:`parse_endpoints`.
    Neither set: none declared."""
    inline, path = environ.get(SETTING, "").strip(), environ.get(FILE_SETTING, "").strip()
    if inline and path:
        raise EndpointError(f"set {SETTING} or {FILE_SETTING}, not both")
    if path:
        try:
            text, source = Path(path).read_text(encoding="utf-8"), f"{FILE_SETTING} ({path})"
        except (OSError, UnicodeDecodeError) as exc:
            raise EndpointError(f"{FILE_SETTING}: cannot read '{path}' ({exc})") from exc
    elif inline:
        text, source = inline, SETTING
    else:
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise EndpointError(f"{source} is not JSON: {exc}") from exc
    parse_endpoints(data, source=source)
    return dict(data)


def endpoint_matching(base_url: str, key_env: str, endpoints: Mapping[str, Endpoint]) -> tuple[str, str]:
    """The declared endpoint a free ``base_url`` and key variable (a machine assessor's before
    endpoints were the operator's) stand for: (its name, '') or ('', why none does)."""
    url = base_url.rstrip("/")
    same_url = [e for _, e in sorted(endpoints.items()) if e.base_url.rstrip("/") == url]
    for endpoint in same_url:
        if endpoint.key_env == key_env:
            return endpoint.name, ""
    if same_url:
        first = same_url[0]
        return "", (
            f"its key's variable {key_env or '(none)'} is not the one the endpoint '{first.name}' at its "
            f"base URL declares ({first.key_env or 'none'}); choose an endpoint the operator declared"
        )
    return "", (
        f"its base URL {base_url} is not an endpoint the server's operator declared; choose one"
        + ("" if endpoints else " (none is declared yet: the operator sets WORKBENCH_JUDGE_ENDPOINTS)")
    )
