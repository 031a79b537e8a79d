"""The file mode of ``manage.py machine_judge``: a pool file, topics and documents in, qrels out,
with no database.

``--cache FILE`` keeps every answered call as one JSON line, flushed and synced before the next
is counted, so a run killed at any point resumes where it stopped (``--cache`` again): the last
line, if the kill cut it short, is ignored and that item asked again. ``--log FILE`` keeps every
call, failed ones included. The qrels are written to a temporary file and renamed into place at
the end, so a killed run never leaves half a qrels file.

The file mode is run by whoever owns the shell, not by a campaign's organizer: it names its own
endpoint (``--base-url``, ``--api-key-env``) and may reach a private address such as a local vLLM
server. The key's variable is still never one of the server's own settings
(judging.llm.endpoints.key_env_problem). A run where calls were made and none got an answer
exits with status 1.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from judging.llm.config import DEFAULT_KEY_ENV, ConfigError, JudgeConfig
from judging.llm.endpoints import Endpoint
from judging.llm.prompts import DEFAULT_PROMPT_VERSION, PROMPTS, Scale, TopicText
from judging.llm.runner import FAILED, Call, Item, Key, Summary, judge
from trec import FormatError, read_qrels
from trec.cli import UsageError, run_command
from trec.documents import DocumentReader
from trec.progress import Progress, TextOut
from trec.topics import read_topics


class JsonlCache:
    """Answered calls in a JSON-lines file (see the module's doc); thread-safe."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.calls: dict[Key, Call] = {}
        self.lock = threading.Lock()
        if self.path.exists():
            self._load()
        self.fh = self.path.open("a", encoding="utf-8")

    def _load(self) -> None:
        raw = self.path.read_bytes()
        lines = raw.split(b"\n")
        complete = len(lines) - 1  # the part after the last newline is a line cut short (or empty)
        for number, line in enumerate(lines[:complete], start=1):
            if not line.strip():
                continue
            try:
                call = Call.from_dict(json.loads(line))
            except (ValueError, TypeError) as exc:
                raise FormatError(str(self.path), number, f"expected a judged call as JSON ({exc})") from exc
            self.calls[call.key] = call
        if lines[-1].strip():  # a kill cut the last record short: drop it, its item is asked again
            with self.path.open("r+b") as fh:
                fh.truncate(len(raw) - len(lines[-1]))

    def get(self, key: Key) -> Call | None:
        return self.calls.get(key)

    def put(self, call: Call) -> None:
        line = json.dumps(call.to_dict(), ensure_ascii=False)
        with self.lock:
            self.fh.write(line + "\n")
            self.fh.flush()
            os.fsync(self.fh.fileno())
            self.calls[call.key] = call

    def close(self) -> None:
        self.fh.close()


def parse_scale(spec: str) -> Scale:
    """``0,1,2`` or ``0:Not relevant,1:Relevant,2:Highly relevant`` -> ascending (value, label, "")."""
    out = []
    for part in spec.split(","):
        value, _, label = part.strip().partition(":")
        try:
            number = int(value)
        except ValueError:
            raise UsageError(f"--scale: '{part.strip()}' is not a grade (expected N or N:label)") from None
        out.append((number, label.strip() or str(number), ""))
    values = [v for v, _, _ in out]
    if len(out) < 2 or len(set(values)) != len(values) or min(values) < 0:
        raise UsageError("--scale needs two or more distinct grades of 0 or more, e.g. 0,1,2")
    return sorted(out)


def pool_items(pool: str, topics_path: str, documents_path: str) -> list[Item]:
    """The pool's (topic, docno) pairs in (topic, docno) order, with their topic and document
    text; a topic or document the files lack is an error naming it."""
    try:
        qrels = read_qrels(pool)
        topics = {t.number: t for t in read_topics(topics_path)}
    except FormatError as exc:
        raise UsageError(str(exc)) from exc
    wanted = {d.decode() for d in qrels.docnos.tolist()}
    texts: dict[str, str] = {}
    try:
        for doc in DocumentReader(documents_path):
            if doc.docno in wanted:
                texts[doc.docno] = f"{doc.title}\n{doc.text}".strip() if doc.title else doc.text
    except FormatError as exc:
        raise UsageError(str(exc)) from exc
    missing_topics = [t for t in qrels.topics if t not in topics]
    if missing_topics:
        raise UsageError(f"{topics_path}: no topic {', '.join(missing_topics[:5])} (the pool has it)")
    items = []
    missing_docs = []
    for i, number in enumerate(qrels.topics):
        topic = topics[number]
        text = TopicText(number, topic.title, topic.description, topic.narrative)
        for raw in qrels.docnos[int(qrels.offsets[i]) : int(qrels.offsets[i + 1])].tolist():
            docno = raw.decode()
            if docno not in texts:
                missing_docs.append(docno)
            else:
                items.append(Item(text, docno, texts[docno]))
    if missing_docs:
        raise UsageError(
            f"{documents_path}: no text for {len(missing_docs)} pooled document(s), e.g. "
            + ", ".join(missing_docs[:5])
        )
    return items


def write_qrels_atomically(path: str, calls: list[Call]) -> int:
    """The graded calls as qrels (topic, then docno in byte order), renamed into place; the count."""
    graded = sorted(
        (c for c in calls if c.grade is not None), key=lambda c: (c.topic.encode(), c.docno.encode())
    )
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".part", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for c in graded:
                fh.write(f"{c.topic} 0 {c.docno} {c.grade}\n")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(graded)


FILE_MODE_REQUIRED = ("pool", "topics", "documents", "qrels_out", "base_url", "model")
# the file mode's own options, refused by the campaign mode (which asks the operator's endpoint)
FILE_MODE_ONLY = ("pool", "topics", "documents", "qrels_out", "base_url", "api_key_env", "cache", "log")


def add_arguments(parser: ArgumentParser, *, required: bool = True) -> None:
    """The file mode's options; ``required=False`` when another mode shares the parser (the
    command then checks :data:`FILE_MODE_REQUIRED` itself)."""
    add = parser.add_argument
    add(
        "--pool",
        required=required,
        help="the pooled documents: qrels lines 'topic iter docno rel' (build_pool's output)",
    )
    add("--topics", required=required, help="the topics (TREC <top> blocks, TSV or JSON lines)")
    add("--documents", required=required, help="the documents' text (TREC <DOC>, JSON lines or TSV)")
    add("--qrels-out", required=required, help="file mode: where to write the machine's grades as qrels")
    add("--base-url", required=required, help="the endpoint's API root, e.g. http://127.0.0.1:8000/v1")
    add("--model", required=required, help="the model to ask")
    add(
        "--api-key-env",
        default=None,
        help=f"the environment variable holding the key (default {DEFAULT_KEY_ENV})",
    )
    add("--prompt", default=DEFAULT_PROMPT_VERSION, choices=sorted(PROMPTS), help="the prompt version")
    add("--temperature", type=float, default=0.0)
    add("--rpm", type=int, default=60, help="requests per minute at most (default 60)")
    add("--concurrency", type=int, default=2, help="requests in flight at most (default 2)")
    add("--max-documents", type=int, default=None, help="judge at most the first N pooled documents")
    add("--timeout", type=float, default=60.0, help="seconds per request (default 60)")
    add("--retries", type=int, default=4, help="tries again after 429, 5xx, timeouts (default 4)")
    add(
        "--scale",
        default="0,1,2",
        help="the grades: '0,1,2' or '0:Not relevant,1:Relevant,2:Highly relevant'",
    )
    add("--cache", default=None, help="JSON lines of answered calls: a rerun with it judges nothing twice")
    add("--log", default=None, help="JSON lines of every call, failed ones included")
    add("--progress", choices=("auto", "on", "off"), default="auto")


def run_file_mode(opts: dict[str, Any], stdout: TextOut, stderr: TextOut) -> Summary:
    # the shell's owner names the endpoint, private addresses included (see the module's doc)
    key_env = opts["api_key_env"] or DEFAULT_KEY_ENV
    endpoint = Endpoint("command-line", opts["base_url"], key_env, allow_private=True)
    config = JudgeConfig(
        endpoint=endpoint,
        model=opts["model"],
        prompt_version=opts["prompt"],
        temperature=opts["temperature"],
        requests_per_minute=opts["rpm"],
        concurrency=opts["concurrency"],
        max_documents=opts["max_documents"],
        timeout=opts["timeout"],
        max_retries=opts["retries"],
    )
    try:
        config.validate()
    except ConfigError as exc:
        raise UsageError("; ".join(exc.problems)) from exc
    scale = parse_scale(opts["scale"])
    items = pool_items(opts["pool"], opts["topics"], opts["documents"])
    try:
        cache = JsonlCache(opts["cache"]) if opts["cache"] else None
    except FormatError as exc:
        raise UsageError(str(exc)) from exc
    log_fh = open(opts["log"], "a", encoding="utf-8") if opts["log"] else None  # noqa: SIM115
    from judging.llm.runner import MemoryCache

    store = cache or MemoryCache()
    enabled = None if opts["progress"] == "auto" else opts["progress"] == "on"
    try:
        with Progress(len(items), "judging", stream=stderr, enabled=enabled) as bar:

            def on_call(call: Call) -> None:
                if log_fh is not None:
                    log_fh.write(json.dumps(call.to_dict(), ensure_ascii=False) + "\n")
                    log_fh.flush()
                bar.advance(f"{call.topic} {call.docno}")

            summary = judge(items, config, scale, cache=store, on_call=on_call)
    finally:
        if log_fh is not None:
            log_fh.close()
        if cache is not None:
            cache.close()
    taken = items if config.max_documents is None else items[: config.max_documents]
    calls = [
        c
        for c in (store.get((config.prompt_version, config.model, i.topic.number, i.docno)) for i in taken)
        if c
    ]
    written = write_qrels_atomically(opts["qrels_out"], calls)
    stderr.write(
        f"{summary.items} documents: {summary.cached} already judged, {summary.asked} asked "
        f"({summary.graded} graded, {summary.cant_judge} can't judge, {summary.failed} without an answer); "
        f"tokens {summary.prompt_tokens} in, {summary.completion_tokens} out\n"
    )
    stdout.write(f"wrote {written} judgments to {opts['qrels_out']}\n")
    if summary.reason:
        stderr.write(f"{summary.state}: {summary.reason}\n")
    if summary.failed:
        stderr.write(
            f"{summary.failed} document(s) got no answer: run again with the same --cache to retry them\n"
        )
    return summary


def main(
    argv: list[str], stdout: TextOut | None = None, stderr: TextOut | None = None, prog: str = "machine_judge"
) -> int:
    failed = False

    def run(opts: dict[str, Any], out: TextOut, err: TextOut) -> None:
        nonlocal failed
        failed = run_file_mode(opts, out, err).state == FAILED

    code = run_command(
        argv,
        stdout or sys.stdout,
        stderr or sys.stderr,
        prog=prog,
        description=(
            "Judge a pool with an LLM over an OpenAI-compatible chat-completions endpoint, with no "
            "database: the pool's documents against the topics, the grades written as qrels. The API "
            "key is read from the environment variable --api-key-env names, never from the command line."
        ),
        add_arguments=add_arguments,
        run=run,
    )
    return 1 if code == 0 and failed else code
