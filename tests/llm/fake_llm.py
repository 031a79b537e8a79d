"""A real local HTTP server speaking the chat-completions protocol, answering from a script.

``with FakeLLM(script) as server:`` serves on 127.0.0.1 (a free port) in a thread;
``server.base_url`` is its API root. ``script(request, n)`` gets the request's JSON body and its
1-based arrival number and returns a :class:`Reply` (status, content, headers, delay, usage, or
a raw body). Every request is recorded with its arrival time, headers and body; the most requests
in flight at once is kept too. Nothing here reaches beyond this machine.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str = "##final score: 2"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    usage: dict[str, int] | None = field(
        default_factory=lambda: {"prompt_tokens": 100, "completion_tokens": 7, "total_tokens": 107}
    )
    body: bytes | None = None  # sent as is instead of a chat completion


@dataclass
class Seen:
    at: float
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


Script = Callable[[dict[str, Any], int], Reply]


def grade_by_docno(request: dict[str, Any], n: int) -> Reply:
    """Answers from the passage: a docno ending in digit d gets score d % 4 (deterministic)."""
    text = request["messages"][-1]["content"]
    found = re.search(r"doc(\d+)", text)
    return Reply(f"M: 2\nT: 2\n##final score: {int(found.group(1)) % 4 if found else 0}")


class FakeLLM:
    def __init__(self, script: Script = grade_by_docno) -> None:
        self.script = script
        self.seen: list[Seen] = []
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                if len(raw) < length:  # the client died mid-request (a kill test): nothing was asked
                    self.close_connection = True
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {}
                with owner.lock:
                    owner.seen.append(Seen(time.monotonic(), self.path, dict(self.headers.items()), body))
                    n = len(owner.seen)
                    owner.in_flight += 1
                    owner.max_in_flight = max(owner.max_in_flight, owner.in_flight)
                try:
                    reply = owner.script(body, n)
                    if reply.delay:
                        time.sleep(reply.delay)
                    if reply.body is not None:
                        payload = reply.body
                    else:
                        answer: dict[str, Any] = {
                            "id": f"cmpl-{n}",
                            "object": "chat.completion",
                            "model": body.get("model", ""),
                            "choices": [
                                {
                                    "index": 0,
                                    "message": {"role": "assistant", "content": reply.content},
                                    "finish_reason": "stop",
                                }
                            ],
                        }
                        if reply.usage is not None:
                            answer["usage"] = reply.usage
                        payload = (
                            json.dumps(answer).encode()
                            if reply.status == 200
                            else json.dumps({"error": {"message": reply.content}}).encode()
                        )
                    try:
                        self.send_response(reply.status)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(payload)))
                        for k, v in reply.headers.items():
                            self.send_header(k, v)
                        self.end_headers()
                        self.wfile.write(payload)
                    except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                        pass
                finally:
                    with owner.lock:
                        owner.in_flight -= 1

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> FakeLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def docnos_asked(self) -> list[str]:
        out = []
        for s in self.seen:
            found = re.search(r"(doc\d+)", s.body.get("messages", [{}])[-1].get("content", ""))
            out.append(found.group(1) if found else "")
        return out


def serve_forever_main() -> None:  # pragma: no cover - run as a subprocess by the kill test
    """``python -m tests.llm.fake_llm PORTFILE [DELAY]``: serve grade_by_docno until killed,
    writing the base URL to PORTFILE and each request's docno to PORTFILE.log."""
    import sys

    port_file = sys.argv[1]
    delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    log = open(port_file + ".log", "a", encoding="utf-8")  # noqa: SIM115

    def script(request: dict[str, Any], n: int) -> Reply:
        found = re.search(r"(doc\d+)", request["messages"][-1]["content"])
        log.write((found.group(1) if found else "?") + "\n")
        log.flush()
        reply = grade_by_docno(request, n)
        reply.delay = delay
        return reply

    server = FakeLLM(script)
    with open(port_file + ".tmp", "w") as fh:
        fh.write(server.base_url)
    import os

    os.replace(port_file + ".tmp", port_file)
    server.server.serve_forever()


if __name__ == "__main__":  # pragma: no cover
    serve_forever_main()
