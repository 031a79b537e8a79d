"""A machine judge's configuration: which endpoint to ask, which model, which prompt, how fast.

The endpoint (judging.llm.endpoints) is the operator's: its URL, the environment variable holding
its key (read when a request is made, so nothing stored, shown, logged or exported can contain the
key) and whether it may be a private address. The rest is the organizer's to choose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judging.llm.endpoints import Endpoint
from judging.llm.prompts import PROMPTS

DEFAULT_KEY_ENV = "WORKBENCH_JUDGE_API_KEY"


class ConfigError(ValueError):
    """A configuration that cannot be used: ``problems`` are one sentence each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


# what an organizer chooses (the endpoint aside): the fields a machine assessor stores
CHOSEN = (
    "model", "prompt_version", "temperature", "requests_per_minute", "concurrency", "max_documents",
    "timeout", "max_retries",
)  # fmt: skip


@dataclass(frozen=True)
class JudgeConfig:
    """How a machine judge asks: at ``endpoint``, ``model`` with ``prompt_version``."""

    endpoint: Endpoint
    model: str
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
        out = [f"the endpoint's {p}" for p in self.endpoint.problems()]
        if not self.model.strip():
            out.append("name the model to ask")
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
        """The endpoint's key, read from the environment now ('' when none: no header sent)."""
        return self.endpoint.api_key()

    @property
    def url(self) -> str:
        return self.endpoint.url

    def chosen(self) -> dict[str, Any]:
        """The organizer's choices (JSON-safe; no URL, no variable name, no key)."""
        return {f: getattr(self, f) for f in CHOSEN}

    def __repr__(self) -> str:  # names the endpoint and its key's variable, never the key
        return (
            f"JudgeConfig(endpoint={self.endpoint.name!r} ({self.endpoint.base_url}), model={self.model!r}, "
            f"prompt_version={self.prompt_version!r})"
        )
