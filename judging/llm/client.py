"""Asking an OpenAI-compatible chat-completions endpoint, politely and on the record.

One :class:`ChatClient` per judging run. Each request waits for the :class:`RateLimiter`, then is
POSTed to ``{base_url}/chat/completions`` of the operator's endpoint with the model, the messages
and the temperature, through the network guard (judging.llm.network: checked addresses only, no
redirects, no proxy from the environment). The key, when the endpoint's variable is set, goes in
the ``Authorization`` header and nowhere else: every text the client keeps or logs (an error
body, an exception) has it replaced by ``[redacted]`` first, in case a server echoes it.

Retries: 429, 500, 502, 503 and 504 answers, timeouts and lost connections are tried again, up
to ``max_retries`` more times, after ``Retry-After`` seconds when the server says (at most
:data:`MAX_WAIT`), else after an exponential backoff with jitter (``backoff`` s, doubled each
time, +-25%). Any other answer is final. Every attempt is kept (:class:`Attempt`). A refused key
(401, 403), an address the guard refuses and a URL that cannot be asked are *fatal*: asking about
another document would fail the same way, so the runner stops (:attr:`Completion.fatal`). A
failure's reason is the HTTP status and the first line of the answer, redacted.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import httpx

from judging.llm.config import JudgeConfig
from judging.llm.network import AddressRefused, guarded_client

log = logging.getLogger("workbench.llm")

RETRIED = frozenset({429, 500, 502, 503, 504})
FATAL = frozenset({401, 403})  # the key is refused: no other document will get an answer
SHOWN = 200  # characters of an answer's first line kept in a failure's reason
MAX_WAIT = 120.0  # seconds: the longest Retry-After honoured
WINDOW = 60.0  # the rate limit's window, seconds


class RateLimiter:
    """At most ``per_minute`` request starts in any 60 seconds, across threads.

    ``acquire()`` blocks until a start is allowed, then counts it. ``clock`` and ``sleep`` are
    injectable so tests can run minutes of traffic in no time.
    """

    def __init__(
        self,
        per_minute: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self.sleep = sleep
        self.starts: deque[float] = deque()
        self.lock = threading.Lock()

    def acquire(self) -> float:
        """Wait for a slot; the time waited."""
        waited = 0.0
        while True:
            with self.lock:
                now = self.clock()
                while self.starts and self.starts[0] <= now - WINDOW:
                    self.starts.popleft()
                if len(self.starts) < self.per_minute:
                    self.starts.append(now)
                    return waited
                wait = self.starts[0] + WINDOW - now
            self.sleep(wait)
            waited += wait


@dataclass(frozen=True)
class Attempt:
    """One HTTP attempt: its status (None: no answer), the error if any, how long it took and how
    long the client then waited before trying again."""

    status: int | None
    error: str
    latency: float
    retry_after: float = 0.0


@dataclass
class Completion:
    """What the endpoint answered in the end: the text (None when no usable answer came), the
    token counts it reported, every attempt, and the error that ended the tries."""

    text: str | None
    attempts: list[Attempt] = field(default_factory=list)
    error: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    fatal: bool = False  # no other request to this endpoint would do better (see the module's doc)

    @property
    def latency(self) -> float:
        return sum(a.latency for a in self.attempts)

    def attempts_json(self) -> list[dict[str, Any]]:
        return [asdict(a) for a in self.attempts]


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "")
    try:
        seconds = float(value)
    except ValueError:
        return None  # an HTTP date, or nothing: back off instead
    return max(0.0, min(seconds, MAX_WAIT))


def first_line(text: str) -> str:
    """The first non-blank line of an answer's body, cut to :data:`SHOWN` characters."""
    line = next((x.strip() for x in text.splitlines() if x.strip()), "")
    return line if len(line) <= SHOWN else line[: SHOWN - 1] + "…"


def _usage(data: dict[str, Any], key: str) -> int | None:
    usage = data.get("usage")
    value = usage.get(key) if isinstance(usage, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class ChatClient:
    """Chat completions for one configuration (see the module's doc)."""

    def __init__(
        self,
        config: JudgeConfig,
        *,
        limiter: RateLimiter | None = None,
        backoff: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config
        self.limiter = limiter or RateLimiter(config.requests_per_minute)
        self.backoff = backoff
        self.sleep = sleep
        self.http = guarded_client(allow_private=config.endpoint.allow_private, timeout=config.timeout)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def redact(self, text: str) -> str:
        """``text`` with the key (if any) replaced: for everything kept or logged."""
        key = self.config.api_key()
        return text.replace(key, "[redacted]") if key else text

    def complete(self, messages: list[dict[str, str]]) -> Completion:
        config = self.config
        body = {"model": config.model, "messages": messages, "temperature": config.temperature}
        out = Completion(None)
        for attempt in range(config.max_retries + 1):
            self.limiter.acquire()
            key = config.api_key()
            headers = {"Authorization": f"Bearer {key}"} if key else {}
            start = time.monotonic()
            wait: float | None = None
            try:
                response = self.http.post(config.url, json=body, headers=headers)
            except httpx.TimeoutException:
                status, error = None, f"no answer within {config.timeout:g} s"
            except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
                return self._fatal(out, f"the endpoint's URL cannot be asked: {exc}", start)
            except httpx.TransportError as exc:
                if isinstance(exc.__cause__, AddressRefused):
                    return self._fatal(out, str(exc.__cause__), start)
                status, error = None, self.redact(f"connection failed: {type(exc).__name__}: {exc}")
            else:
                status = response.status_code
                if status == 200:
                    text, error = self._read(response, out)
                    out.attempts.append(Attempt(status, error, time.monotonic() - start))
                    if not error:
                        out.text, out.error = text, ""
                        return out
                    out.error = error
                    return out  # a 200 that is not chat-completions: asking again will not help
                error = self.redact(f"HTTP {status}: {first_line(response.text)}")
                wait = _retry_after(response) if status == 429 or status == 503 else None
                if status not in RETRIED:
                    out.attempts.append(Attempt(status, error, time.monotonic() - start))
                    out.error = error
                    out.fatal = status in FATAL
                    log.warning("judge %s: %s (not retried)", config.model, error)
                    return out
            latency = time.monotonic() - start
            out.error = error
            if attempt == config.max_retries:
                out.attempts.append(Attempt(status, error, latency))
                log.warning("judge %s: %s; giving up after %d attempts", config.model, error, attempt + 1)
                return out
            if wait is None:
                wait = self.backoff * (2**attempt) * random.uniform(0.75, 1.25)
            out.attempts.append(Attempt(status, error, latency, wait))
            log.info("judge %s: %s; trying again in %.1f s", config.model, error, wait)
            self.sleep(wait)
        return out  # pragma: no cover - the loop returns

    def _fatal(self, out: Completion, reason: str, start: float) -> Completion:
        """End the tries: ``reason`` holds for every request to this endpoint."""
        out.error = self.redact(reason)
        out.fatal = True
        out.attempts.append(Attempt(None, out.error, time.monotonic() - start))
        log.warning("judge %s: %s (not retried)", self.config.model, out.error)
        return out

    def _read(self, response: httpx.Response, out: Completion) -> tuple[str, str]:
        """The answer's text, or the reason it has none."""
        try:
            data = response.json()
            text = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return "", self.redact(f"the answer is not a chat completion: {response.text[:300]}")
        if not isinstance(text, str):
            return "", "the answer's message has no text content"
        out.prompt_tokens = _usage(data, "prompt_tokens")
        out.completion_tokens = _usage(data, "completion_tokens")
        out.total_tokens = _usage(data, "total_tokens")
        return self.redact(text), ""
