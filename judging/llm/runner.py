"""Judging many (topic, document) items: concurrently, within the rate limit, resumable.

Every answered item becomes a :class:`Call` (the prompt, the raw answer, the grade or why there is
none, latency, attempts, tokens) handed to the cache before the next item is counted, so a run
that is stopped (``should_stop``) or killed resumes where it was: an item whose call is in the
cache is never asked again. The cache key is (prompt version, model, topic, document): the same
prompt asked of another model is another judgment, and so is a new prompt version.

An item the endpoint never answered (every attempt failed) is reported (``on_call``) but not
cached: the next run asks again. ``max_documents`` takes the first that many items of the list
(cached ones included): the judge never judges more than that many documents of it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from judging.llm.answers import read_answer
from judging.llm.config import JudgeConfig
from judging.llm.prompts import PROMPTS, Scale, TopicText, prompt_hash
from trec.progress import ProgressCallback, quiet_progress

if TYPE_CHECKING:  # httpx (behind the client) costs 0.1 s to import: only a run that asks needs it
    from judging.llm.client import ChatClient, Completion

Key = tuple[str, str, str, str]  # (prompt version, model, topic, docno)

MAX_CONSECUTIVE_FAILURES = 5  # calls in a row without an answer before a run stops early
DONE, STOPPED, STOPPED_EARLY, FAILED = "done", "stopped", "stopped early", "failed"


@dataclass(frozen=True)
class Item:
    topic: TopicText
    docno: str
    text: str


@dataclass
class Call:
    """One item judged (or tried): what was asked, what came back, what it means."""

    topic: str
    docno: str
    prompt_version: str
    prompt_hash: str
    model: str
    messages: list[dict[str, str]]
    raw: str  # the answer's text ('' when none came)
    answer: int | None  # on the prompt's scale
    grade: int | None  # on the campaign's scale; None: can't judge (reason) or failed (error)
    reason: str = ""
    error: str = ""
    latency: float = 0.0
    attempts: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    at: float = 0.0  # when it was asked (seconds since the epoch)
    fatal: bool = False  # failed so that no other call to the endpoint would get an answer

    @property
    def answered(self) -> bool:
        """The endpoint answered (a grade or a can't-judge reason): the call is final."""
        return not self.error

    @property
    def key(self) -> Key:
        return (self.prompt_version, self.model, self.topic, self.docno)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Call:
        return cls(**data)


class Cache(Protocol):
    def get(self, key: Key) -> Call | None: ...

    def put(self, call: Call) -> None: ...


class MemoryCache:
    def __init__(self) -> None:
        self.calls: dict[Key, Call] = {}

    def get(self, key: Key) -> Call | None:
        return self.calls.get(key)

    def put(self, call: Call) -> None:
        self.calls[call.key] = call


@dataclass
class Summary:
    """What a judging run did."""

    items: int = 0  # items taken (after max_documents)
    cached: int = 0  # already judged: not asked again
    asked: int = 0
    graded: int = 0
    cant_judge: int = 0
    failed: int = 0  # no answer after every retry: asked again next time
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    stopped: bool = False  # on request (should_stop)
    stopped_early: bool = False  # a fatal failure, or MAX_CONSECUTIVE_FAILURES in a row
    state: str = DONE  # done, stopped, stopped early or failed (see the module's doc)
    reason: str = ""  # why it ended so, or what went wrong ('' when all went well)
    seconds: float = 0.0

    @property
    def answered(self) -> int:
        return self.graded + self.cant_judge

    def conclude(self, early: str, last_error: str) -> None:
        """Set :attr:`state` and :attr:`reason` once the run has ended (``early``: why it stopped
        early, '' when it did not; ``last_error``: the last failure's reason)."""
        self.stopped_early = bool(early)
        if self.asked and not self.answered:
            self.state = FAILED
            self.reason = early or f"no document got an answer; the last failure: {last_error}"
        elif early:
            self.state, self.reason = STOPPED_EARLY, early
        elif self.stopped:
            self.state, self.reason = STOPPED, "stopped on request: start it again to go on"
        else:
            self.state = DONE
            if self.failed:
                self.reason = (
                    f"{self.failed} document(s) got no answer and will be asked again next time; "
                    f"the last failure: {last_error}"
                )

    def add(self, call: Call) -> None:
        self.asked += 1
        if call.error:
            self.failed += 1
        elif call.grade is None:
            self.cant_judge += 1
        else:
            self.graded += 1
        self.prompt_tokens += call.prompt_tokens or 0
        self.completion_tokens += call.completion_tokens or 0
        self.total_tokens += call.total_tokens or 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def make_call(
    item: Item, config: JudgeConfig, scale: Scale, completion: Completion, messages: list[Any]
) -> Call:
    """The :class:`Call` of ``item`` from the endpoint's ``completion``."""
    prompt = PROMPTS[config.prompt_version]
    call = Call(
        topic=item.topic.number,
        docno=item.docno,
        prompt_version=config.prompt_version,
        prompt_hash=prompt_hash(messages),
        model=config.model,
        messages=messages,
        raw=completion.text or "",
        answer=None,
        grade=None,
        error=completion.error if completion.text is None else "",
        latency=completion.latency,
        attempts=completion.attempts_json(),
        prompt_tokens=completion.prompt_tokens,
        completion_tokens=completion.completion_tokens,
        total_tokens=completion.total_tokens,
        at=time.time(),
        fatal=completion.fatal and completion.text is None,
    )
    if completion.text is not None:
        reading = read_answer(completion.text, prompt.answers(scale))
        call.answer = reading.answer
        call.reason = reading.reason
        if reading.answer is not None:
            call.grade = prompt.to_grade(reading.answer, scale)
    return call


def judge(
    items: Iterable[Item],
    config: JudgeConfig,
    scale: Scale,
    *,
    cache: Cache,
    on_call: Callable[[Call], None] | None = None,
    progress: ProgressCallback | None = None,
    should_stop: Callable[[], bool] | None = None,
    client: ChatClient | None = None,
) -> Summary:
    """Judge ``items`` (see the module's doc); ``on_call`` sees every call made, in the order
    they finish, after the cache has it."""
    config.validate()
    if not scale:
        raise ValueError("the scale has no grades")
    prompt = PROMPTS[config.prompt_version]
    todo: Sequence[Item] = list(items)
    if config.max_documents is not None:
        todo = todo[: config.max_documents]
    progress = progress or quiet_progress
    should_stop = should_stop or (lambda: False)
    summary = Summary(items=len(todo))
    started = time.monotonic()
    pending: list[Item] = []
    for item in todo:
        if cache.get((config.prompt_version, config.model, item.topic.number, item.docno)) is not None:
            summary.cached += 1
        else:
            pending.append(item)
    progress("judging", summary.cached, len(todo))
    own = client is None
    if client is None:
        from judging.llm.client import ChatClient

        client = ChatClient(config)
    lock = threading.Lock()
    in_a_row = 0  # calls without an answer since the last answered one
    early = ""  # why the run stopped early
    last_error = ""

    def ask(item: Item) -> Call:
        messages = prompt.messages(item.topic, item.text, scale, config.max_chars)
        return make_call(item, config, scale, client.complete(messages), messages)

    try:
        with ThreadPoolExecutor(max_workers=config.concurrency) as pool:
            running: set[Future[Call]] = set()
            queue = iter(pending)
            exhausted = False
            while True:
                while not exhausted and len(running) < config.concurrency:
                    if early:
                        exhausted = True
                        break
                    if should_stop():
                        summary.stopped = True
                        exhausted = True
                        break
                    following = next(queue, None)
                    if following is None:
                        exhausted = True
                        break
                    running.add(pool.submit(ask, following))
                if not running:
                    break
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    call = future.result()
                    with lock:
                        if call.answered:
                            cache.put(call)
                        summary.add(call)
                        in_a_row = 0 if call.answered else in_a_row + 1
                        last_error = call.error or last_error
                        if not early and call.fatal:
                            early = f"stopped early: {call.error}; no other document would get an answer"
                        elif not early and in_a_row >= MAX_CONSECUTIVE_FAILURES:
                            early = (
                                f"stopped early: {in_a_row} documents in a row got no answer; "
                                f"the last failure: {call.error}"
                            )
                    if on_call is not None:
                        on_call(call)
                    progress("judging", summary.cached + summary.graded + summary.cant_judge, len(todo))
    finally:
        if own:
            client.close()
    summary.seconds = time.monotonic() - started
    summary.conclude(early, last_error)
    return summary
