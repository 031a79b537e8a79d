"""A machine judge's configuration: where to ask, which model, which prompt, how fast.

The API key is never part of it: the configuration names the environment variable that holds
the key (``api_key_env``), which is read when a request is made. Nothing stored, shown, logged
or exported can then contain the key.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, fields
from typing import Any
from urllib.parse import urlsplit

from judging.llm.prompts import PROMPTS

DEFAULT_KEY_ENV = "WORKBENCH_JUDGE_API_KEY"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class ConfigError(ValueError):
    """A configuration that cannot be used: ``problems`` are one sentence each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class JudgeConfig:
    """How a machine judge asks: ``base_url`` is the API root (``…/v1``); the request goes to
    ``{base_url}/chat/completions``."""

    base_url: str
    model: str
    api_key_env: str = DEFAULT_KEY_ENV
    prompt_version: str = "umbrela-1"
    temperature: float = 0.0
    requests_per_minute: int = 60
    concurrency: int = 2
    max_documents: int | None = None  # None: every document given
    timeout: float = 60.0  # seconds per request
    max_retries: int = 4  # attempts after the first, on 429, 5xx, timeouts and lost connections
    max_chars: int = 4000  # document text is cut to this many characters in the prompt

    def problems(self) -> list[str]:
        """Everything wrong with the configuration, one sentence each (empty: usable)."""
        out = []
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            out.append(f"the base URL must be http:// or https:// with a host, found '{self.base_url}'")
        if parts.username or parts.password:
            out.append("the base URL must not carry a user or password: name an environment variable")
        if not self.model.strip():
            out.append("name the model to ask")
        if not _ENV_NAME.match(self.api_key_env):
            out.append(f"'{self.api_key_env}' is not an environment variable name (letters, digits, _)")
        if self.prompt_version not in PROMPTS:
            out.append(f"unknown prompt version '{self.prompt_version}' (one of {', '.join(PROMPTS)})")
        if not 0.0 <= self.temperature <= 2.0:
            out.append(f"the temperature must be between 0 and 2, found {self.temperature}")
        if self.requests_per_minute < 1:
            out.append("requests per minute must be at least 1")
        if not 1 <= self.concurrency <= 64:
            out.append("concurrency must be between 1 and 64")
        if self.max_documents is not None and self.max_documents < 1:
            out.append("the maximum number of documents must be at least 1 (or none)")
        if not 0 < self.timeout <= 600:
            out.append("the timeout must be between 0 and 600 seconds")
        if not 0 <= self.max_retries <= 20:
            out.append("retries must be between 0 and 20")
        if not 200 <= self.max_chars <= 200_000:
            out.append("the document cut must be between 200 and 200000 characters")
        return out

    def validate(self) -> JudgeConfig:
        problems = self.problems()
        if problems:
            raise ConfigError(problems)
        return self

    def api_key(self) -> str:
        """The key, read from the environment now ('' when the variable is unset: no header sent)."""
        return os.environ.get(self.api_key_env, "")

    def key_present(self) -> bool:
        return bool(self.api_key())

    @property
    def endpoint(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; names the key's variable, never the key."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JudgeConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError([f"unknown setting(s): {', '.join(unknown)}"])
        return cls(**data)

    def __repr__(self) -> str:  # the dataclass repr would do too (no key in it); say so plainly
        return (
            f"JudgeConfig(base_url={self.base_url!r}, model={self.model!r}, "
            f"api_key_env={self.api_key_env!r}, prompt_version={self.prompt_version!r})"
        )
