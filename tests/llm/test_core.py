"""The machine judges' pure core against a real local chat-completions server (tests/llm/fake_llm.py).

No test reaches beyond 127.0.0.1.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from judging.llm.answers import read_answer
from judging.llm.client import ChatClient, RateLimiter
from judging.llm.config import ConfigError, JudgeConfig
from judging.llm.endpoints import Endpoint
from judging.llm.files import JsonlCache, main, parse_scale
from judging.llm.prompts import PROMPTS, TopicText, cut, prompt_hash, spread
from judging.llm.runner import Call, Item, MemoryCache, judge
from tests.llm.fake_llm import FakeLLM, Reply, grade_by_docno

SCALE3 = [(0, "Not relevant", ""), (1, "Relevant", ""), (2, "Highly relevant", "")]
SECRET = "sk-test-DO-NOT-LEAK-7f3a9c"
TOPIC = TopicText(
    "401", "foreign minorities germany", "Find documents", "Relevant documents name a minority."
)


def items(n: int, topic: TopicText = TOPIC) -> list[Item]:
    return [Item(topic, f"doc{i}", f"text of doc{i} about minorities") for i in range(n)]


def config(server: FakeLLM, key_env: str = "", **kw: object) -> JudgeConfig:
    """The fake server's configuration: a loopback endpoint, so one that allows private addresses."""
    base = {
        "endpoint": Endpoint("fake", server.base_url, key_env, allow_private=True),
        "model": "fake-1",
        "requests_per_minute": 6000,
        "concurrency": 2,
        "timeout": 5.0,
    }
    base.update(kw)
    return JudgeConfig(**base)  # type: ignore[arg-type]


class Sleeps:
    """A sleep that records and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


# ------------------------------------------------------------------------------ answers and prompts


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("##final score: 2", 2),
        ("M: 2\nT: 1\n##final score: 3", 3),
        ("Final Score = 1.", 1),
        ("M: 2\nT: 1\nO: 0", 0),
        ('{"score": 3}', 3),
        ('Here: {"final_score": 1, "why": "x"}', 1),
        ("2", 2),
        (" **3** ", 3),
        ("M score: 1\n##final score: 2", 2),
        ("##final score: 2\nso again ##final score: 2", 2),
    ],
)
def test_answers_that_carry_a_score(text: str, answer: int) -> None:
    reading = read_answer(text, (0, 1, 2, 3))
    assert (reading.answer, reading.reason) == (answer, "")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("I think it is relevant", "no score"),
        ("##final score: 2 ... ##final score: 3", "several final scores"),
        ("##final score: 7", "not one of 0, 1, 2, 3"),
        ("##final score: 2.5", "not an integer"),
        ('{"score": true}', "not a number"),
        ("##final score: -1", "not one of"),
    ],
)
def test_answers_that_cannot_be_read_say_why(text: str, reason: str) -> None:
    reading = read_answer(text, (0, 1, 2, 3))
    assert reading.answer is None and reason in reading.reason


def test_the_0_to_3_answer_spreads_onto_the_campaigns_scale() -> None:
    two = [(0, "n", ""), (1, "r", "")]
    five = [(v, str(v), "") for v in (0, 1, 2, 3, 4)]
    assert [spread(a, 3, two) for a in range(4)] == [0, 0, 1, 1]
    assert [spread(a, 3, SCALE3) for a in range(4)] == [0, 1, 1, 2]
    assert [spread(a, 3, [(v, "", "") for v in (0, 1, 2, 3)]) for a in range(4)] == [0, 1, 2, 3]
    assert [spread(a, 3, five) for a in range(4)] == [0, 1, 3, 4]
    # the scale's own values, not positions: a scale 0, 5, 10
    assert [spread(a, 3, [(0, "", ""), (5, "", ""), (10, "", "")]) for a in range(4)] == [0, 5, 5, 10]


def test_prompts_render_the_topic_and_the_cut_document() -> None:
    text = "word " * 3000
    umbrela = PROMPTS["umbrela-1"].messages(TOPIC, text, SCALE3, 500)
    content = umbrela[-1]["content"]
    assert "Query: foreign minorities germany" in content and "##final score: N" in content
    assert "What counts as relevant: Relevant documents name a minority." in content
    assert len(content) < 2500 and "…" in content
    own = PROMPTS["scale-1"].messages(TOPIC, "short", SCALE3, 500)
    assert "2 = Highly relevant" in own[-1]["content"] and PROMPTS["scale-1"].answers(SCALE3) == (0, 1, 2)
    assert prompt_hash(umbrela) == prompt_hash(list(json.loads(json.dumps(umbrela))))
    assert prompt_hash(umbrela) != prompt_hash(own)
    assert cut("a b c", 10) == "a b c"


def test_a_configuration_names_every_problem_and_never_holds_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    bad = JudgeConfig(
        Endpoint("x", "ftp://x", "1BAD"), model=" ", prompt_version="nope", temperature=3,
        requests_per_minute=0, concurrency=0,
    )  # fmt: skip
    with pytest.raises(ConfigError) as err:
        bad.validate()
    assert len(err.value.problems) == 7
    assert "user or password" in " ".join(JudgeConfig(Endpoint("x", "https://u:p@h/v1"), "m").problems())
    monkeypatch.setenv("JUDGE_KEY", SECRET)
    good = JudgeConfig(Endpoint("x", "http://127.0.0.1:1/v1", "JUDGE_KEY"), "m")
    assert good.api_key() == SECRET and good.url == "http://127.0.0.1:1/v1/chat/completions"
    assert SECRET not in repr(good) and SECRET not in json.dumps(good.chosen())
    assert set(good.chosen()) == {
        "model", "prompt_version", "temperature", "requests_per_minute", "concurrency", "max_documents",
        "timeout", "max_retries",
    }  # fmt: skip


# ------------------------------------------------------------------------------ the client


def test_a_grade_its_tokens_and_the_key_in_the_header_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_KEY", SECRET)
    with FakeLLM() as server:
        cache = MemoryCache()
        summary = judge(items(4), config(server, key_env="JUDGE_KEY"), SCALE3, cache=cache)
        assert summary.graded == 4 and summary.total_tokens == 4 * 107
        assert all(s.headers["Authorization"] == f"Bearer {SECRET}" for s in server.seen)
        assert all(s.path == "/v1/chat/completions" and s.body["model"] == "fake-1" for s in server.seen)
        assert all(s.body["temperature"] == 0.0 for s in server.seen)
        call = cache.get(("umbrela-1", "fake-1", "401", "doc3"))
        assert call is not None and (call.answer, call.grade, call.raw.endswith("score: 3")) == (3, 2, True)
        assert SECRET not in json.dumps(call.to_dict())
    monkeypatch.delenv("JUDGE_KEY")
    with FakeLLM() as server:
        judge(items(1), config(server, key_env="JUDGE_KEY"), SCALE3, cache=MemoryCache())
        assert "Authorization" not in server.seen[0].headers


def test_429_waits_as_told_then_5xx_backs_off_and_every_attempt_is_kept() -> None:
    replies = [
        Reply("slow down", status=429, headers={"Retry-After": "7"}),
        Reply("oops", status=500),
        Reply("busy", status=503),
        Reply("##final score: 1"),
    ]
    with FakeLLM(lambda req, n: replies[n - 1]) as server:
        sleeps = Sleeps()
        client = ChatClient(config(server), backoff=0.5, sleep=sleeps)
        cache = MemoryCache()
        summary = judge(items(1), config(server), SCALE3, cache=cache, client=client)
        client.close()
    assert summary.graded == 1 and len(server.seen) == 4
    assert sleeps.waits[0] == 7.0
    # backoff 0.5 s doubled at each attempt (the 500 was the second, the 503 the third), +-25%
    assert 1.0 * 0.75 <= sleeps.waits[1] <= 1.0 * 1.25 and 2.0 * 0.75 <= sleeps.waits[2] <= 2.0 * 1.25
    call = cache.get(("umbrela-1", "fake-1", "401", "doc0"))
    assert call is not None
    assert [a["status"] for a in call.attempts] == [429, 500, 503, 200]
    assert call.attempts[0]["retry_after"] == 7.0 and call.attempts[-1]["retry_after"] == 0.0


def test_a_timeout_is_tried_again_and_other_4xx_are_not() -> None:
    replies = [Reply(delay=1.0), Reply("##final score: 3")]
    with FakeLLM(lambda req, n: replies[n - 1]) as server:
        cfg = config(server, timeout=0.3)
        client = ChatClient(cfg, sleep=Sleeps())
        cache = MemoryCache()
        judge(items(1), cfg, SCALE3, cache=cache, client=client)
        call = cache.get(("umbrela-1", "fake-1", "401", "doc0"))
        assert call is not None and call.grade == 2
        assert call.attempts[0]["status"] is None and "no answer within 0.3 s" in call.attempts[0]["error"]
    with FakeLLM(lambda req, n: Reply("bad request", status=400)) as server:
        cache = MemoryCache()
        summary = judge(
            items(1), config(server), SCALE3, cache=cache, client=ChatClient(config(server), sleep=Sleeps())
        )
        assert len(server.seen) == 1 and summary.failed == 1
        assert cache.get(("umbrela-1", "fake-1", "401", "doc0")) is None  # not final: asked again next time


def test_retries_run_out_and_the_item_stays_unjudged() -> None:
    with FakeLLM(lambda req, n: Reply("down", status=502)) as server:
        cfg = config(server, max_retries=2)
        cache = MemoryCache()
        calls: list[Call] = []
        summary = judge(
            items(1), cfg, SCALE3, cache=cache, on_call=calls.append, client=ChatClient(cfg, sleep=Sleeps())
        )
    assert len(server.seen) == 3 and summary.failed == 1 and not cache.calls
    assert calls[0].error.startswith("HTTP 502") and len(calls[0].attempts) == 3


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply("This passage is quite relevant."), "no score found"),
        (Reply("##final score: 9"), "not one of"),
    ],
)
def test_an_unreadable_answer_is_cant_judge_with_its_raw_text(reply: Reply, reason: str) -> None:
    with FakeLLM(lambda req, n: reply) as server:
        cache = MemoryCache()
        summary = judge(items(1), config(server), SCALE3, cache=cache)
    call = cache.get(("umbrela-1", "fake-1", "401", "doc0"))
    assert summary.cant_judge == 1 and call is not None
    assert call.grade is None and reason in call.reason and call.raw == reply.content


def test_a_200_that_is_not_a_chat_completion_fails_without_retrying() -> None:
    with FakeLLM(lambda req, n: Reply(body=b"<html>proxy error</html>")) as server:
        calls: list[Call] = []
        judge(items(1), config(server), SCALE3, cache=MemoryCache(), on_call=calls.append)
    assert len(server.seen) == 1 and "not a chat completion" in calls[0].error


def test_the_key_never_appears_in_records_errors_or_logs(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """A server that echoes the key back in an error and in an answer: the key is redacted
    from everything kept, logged or written."""
    monkeypatch.setenv("JUDGE_KEY", SECRET)
    replies = [Reply(f"invalid key {SECRET}", status=500), Reply(f"##final score: 2 (key {SECRET})")]
    caplog.set_level(logging.DEBUG)
    with FakeLLM(lambda req, n: replies[min(n, 2) - 1]) as server:
        cfg = config(server, key_env="JUDGE_KEY")
        cache = JsonlCache(tmp_path / "cache.jsonl")
        calls: list[Call] = []
        judge(
            items(1), cfg, SCALE3, cache=cache, on_call=calls.append, client=ChatClient(cfg, sleep=Sleeps())
        )
        cache.close()
    everything = (
        json.dumps([c.to_dict() for c in calls]) + caplog.text + (tmp_path / "cache.jsonl").read_text()
    )
    assert SECRET not in everything
    assert "[redacted]" in calls[0].attempts[0]["error"] and "[redacted]" in calls[0].raw
    assert calls[0].grade == 1  # the answer still read: score 2 of 0-3 on a three-grade scale


# ------------------------------------------------------------------------------ limits, stop, resume


def test_the_rate_limit_holds_in_every_window() -> None:
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    limiter = RateLimiter(120, clock=lambda: now[0], sleep=sleep)
    starts = []
    for _ in range(500):
        limiter.acquire()
        starts.append(now[0])
    assert all(sum(1 for s in starts if a <= s < a + 60) <= 120 for a in starts)
    assert starts[-1] >= 60 * (500 // 120) - 1e-9  # it did wait: 500 starts need four more windows


def test_the_runner_keeps_to_the_rate_limit_against_the_server() -> None:
    now = [0.0]
    with FakeLLM() as server:
        cfg = config(server, requests_per_minute=30, concurrency=3)
        limiter = RateLimiter(30, clock=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s))
        stamps: list[float] = []
        original = limiter.acquire

        def acquire() -> float:
            waited = original()
            stamps.append(now[0])
            return waited

        limiter.acquire = acquire  # type: ignore[method-assign]
        judge(items(70), cfg, SCALE3, cache=MemoryCache(), client=ChatClient(cfg, limiter=limiter))
    assert len(server.seen) == 70
    assert all(sum(1 for s in stamps if a <= s < a + 60) <= 30 for a in stamps)
    assert max(stamps) >= 120  # 70 requests at 30 a minute take three windows


def test_concurrency_is_bounded_and_used() -> None:
    with FakeLLM(lambda req, n: Reply(delay=0.15)) as server:
        judge(items(12), config(server, concurrency=3), SCALE3, cache=MemoryCache())
    assert server.max_in_flight == 3


def test_a_stopped_run_resumes_without_asking_twice(tmp_path: Path) -> None:
    with FakeLLM() as server:
        cfg = config(server, concurrency=2)
        cache = JsonlCache(tmp_path / "c.jsonl")
        first = judge(items(20), cfg, SCALE3, cache=cache, should_stop=lambda: len(server.seen) >= 6)
        cache.close()
        assert first.stopped and 6 <= first.asked <= 7
        again = JsonlCache(tmp_path / "c.jsonl")
        second = judge(items(20), cfg, SCALE3, cache=again)
        again.close()
    assert not second.stopped and second.cached == first.asked and second.asked == 20 - first.asked
    assert sorted(Counter(server.docnos_asked()).values()) == [1] * 20


def test_max_documents_takes_the_first_n() -> None:
    with FakeLLM() as server:
        summary = judge(items(10), config(server, max_documents=4), SCALE3, cache=MemoryCache())
    assert summary.items == 4 and sorted(server.docnos_asked()) == ["doc0", "doc1", "doc2", "doc3"]


def test_a_cache_cut_short_by_a_kill_drops_the_partial_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    with FakeLLM() as server:
        cache = JsonlCache(path)
        judge(items(3), config(server), SCALE3, cache=cache)
        cache.close()
    whole = path.read_text()
    path.write_text(whole + whole.splitlines()[0][:40])  # half a record, as a kill leaves it
    reread = JsonlCache(path)
    reread.close()
    assert len(reread.calls) == 3 and path.read_text() == whole
    path.write_text("not json\n" + whole)
    with pytest.raises(Exception, match=r"c.jsonl:1: expected a judged call"):
        JsonlCache(path)


# ------------------------------------------------------------------------------ the file mode


def write_inputs(tmp_path: Path, n: int) -> dict[str, Path]:
    topics = tmp_path / "topics.tsv"
    topics.write_text("401\tforeign minorities germany\tFind documents\n402\tpolice deaths\n")
    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        "".join(json.dumps({"id": f"doc{i}", "contents": f"text of doc{i}"}) + "\n" for i in range(n))
    )
    pool = tmp_path / "pool.qrels"
    pool.write_text("".join(f"{401 + i % 2} 0 doc{i} -1\n" for i in range(n)))
    return {"topics": topics, "docs": docs, "pool": pool}


def file_args(paths: dict[str, Path], server_url: str, out: Path, *extra: str) -> list[str]:
    return [
        "--pool", str(paths["pool"]), "--topics", str(paths["topics"]), "--documents", str(paths["docs"]),
        "--base-url", server_url, "--model", "fake-1", "--qrels-out", str(out), "--progress", "off",
        "--rpm", "6000", *extra,
    ]  # fmt: skip


def test_the_file_mode_writes_the_machines_qrels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = write_inputs(tmp_path, 10)
    out = tmp_path / "machine.qrels"
    replies = {"doc7": Reply("no idea")}
    with FakeLLM(
        lambda req, n: replies.get(
            next(iter([w for w in req["messages"][-1]["content"].split() if w.startswith("doc")]), ""),
            grade_by_docno(req, n),
        )
    ) as server:
        code = main(
            file_args(paths, server.base_url, out, "--log", str(tmp_path / "log.jsonl"), "--scale", "0,1,2,3")
        )
    assert code == 0
    lines = out.read_text().splitlines()
    expected = sorted(
        (f"{401 + i % 2} 0 doc{i} {i % 4}" for i in range(10) if i != 7),
        key=lambda s: (s.split()[0], s.split()[2]),
    )
    assert lines == expected
    err = capsys.readouterr().err
    assert "9 graded, 1 can't judge" in err
    logged = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert len(logged) == 10 and {c["docno"] for c in logged if c["grade"] is None} == {"doc7"}


def test_the_file_mode_refuses_missing_inputs_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = write_inputs(tmp_path, 4)
    paths["docs"].write_text(json.dumps({"id": "doc0", "contents": "x"}) + "\n")
    assert main(file_args(paths, "http://127.0.0.1:9/v1", tmp_path / "o.qrels")) == 2
    err = capsys.readouterr().err
    assert "no text for 3 pooled document(s)" in err and err.count("\n") == 1
    assert not (tmp_path / "o.qrels").exists()
    assert main(file_args(paths, "ftp://nowhere", tmp_path / "o.qrels")) == 2
    assert "http:// or https://" in capsys.readouterr().err
    with pytest.raises(Exception, match="two or more distinct grades"):
        parse_scale("1")


def test_a_killed_file_run_resumes_and_judges_nothing_twice(tmp_path: Path) -> None:
    """The command in a subprocess, SIGKILLed mid-run, then run again with the same cache: every
    document is asked once, but for at most the one in flight when the kill came (its answer
    was never recorded), and none recorded before the kill is asked again."""
    n = 24
    paths = write_inputs(tmp_path, n)
    cache = tmp_path / "cache.jsonl"
    out = tmp_path / "m.qrels"
    with FakeLLM(lambda req, n_: Reply(grade_by_docno(req, n_).content, delay=0.05)) as server:
        args = file_args(paths, server.base_url, out, "--cache", str(cache), "--concurrency", "1")
        code = "import sys; from judging.llm.files import main; sys.exit(main(sys.argv[1:]))"
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        proc = subprocess.Popen(
            [sys.executable, "-c", code, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and (not cache.exists() or cache.read_text().count("\n") < 8):
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        recorded = {json.loads(x)["docno"] for x in cache.read_text().splitlines() if x.strip().endswith("}")}
        asked_before = len(server.seen)
        assert 8 <= len(recorded) < n and not out.exists()  # killed mid-run, no half qrels
        assert (
            subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True).returncode == 0
        )
    counts = Counter(server.docnos_asked())
    assert set(counts) == {f"doc{i}" for i in range(n)}
    twice = {d for d, c in counts.items() if c > 1}
    assert len(twice) <= 1 and not (twice & recorded)
    assert all(counts[d] == 1 for d in recorded)
    assert asked_before - len(recorded) <= 1
    assert len(out.read_text().splitlines()) == n


# ------------------------------------------------------------------------------ how a run ends


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_stops_the_run_at_once_with_the_status_and_the_answers_first_line(
    status: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_KEY", SECRET)
    body = f'{{"error": "bad key {SECRET}"}}\nsecond line never shown'.encode()
    with FakeLLM(lambda req, n: Reply(status=status, body=body)) as server:
        cfg = config(server, key_env="JUDGE_KEY", concurrency=1)
        summary = judge(items(10), cfg, SCALE3, cache=MemoryCache(), client=ChatClient(cfg, sleep=Sleeps()))
    assert len(server.seen) == 1 and summary.asked == 1  # no point asking again
    assert summary.state == "failed" and summary.stopped_early
    assert summary.reason.startswith(f'stopped early: HTTP {status}: {{"error": "bad key [redacted]"}}')
    assert "second line" not in summary.reason and SECRET not in summary.reason


def test_failures_in_a_row_stop_the_run_early_and_answers_before_them_keep_it_not_failed() -> None:
    from judging.llm.runner import MAX_CONSECUTIVE_FAILURES

    with FakeLLM(
        lambda req, n: Reply() if n <= 2 else Reply(status=500, body=b"\n overloaded \nmore")
    ) as server:
        cfg = config(server, concurrency=1, max_retries=0)
        summary = judge(items(20), cfg, SCALE3, cache=MemoryCache())
    assert summary.answered == 2 and summary.failed == MAX_CONSECUTIVE_FAILURES == 5
    assert len(server.seen) == 2 + MAX_CONSECUTIVE_FAILURES  # nothing asked after the fifth failure
    assert summary.state == "stopped early"
    assert (
        summary.reason
        == "stopped early: 5 documents in a row got no answer; the last failure: HTTP 500: overloaded"
    )


def test_failures_scattered_between_answers_never_stop_the_run() -> None:
    """The limit counts failures in a row: an answer starts the count again, so an endpoint that
    fails every other request is asked every document, however many fail in all."""
    from judging.llm.runner import MAX_CONSECUTIVE_FAILURES

    n = 4 * MAX_CONSECUTIVE_FAILURES
    with FakeLLM(lambda req, k: Reply() if k % 2 else Reply(status=500, body=b"flaky")) as server:
        cfg = config(server, concurrency=1, max_retries=0)
        summary = judge(items(n), cfg, SCALE3, cache=MemoryCache())
    assert len(server.seen) == n and summary.failed == n // 2 > MAX_CONSECUTIVE_FAILURES
    assert (summary.state, summary.stopped_early, summary.answered) == ("done", False, n // 2)


def test_a_run_where_nothing_answers_fails_and_a_run_with_a_few_failures_is_done_with_the_reason() -> None:
    with FakeLLM(lambda req, n: Reply("down", status=404)) as server:
        summary = judge(items(3), config(server, concurrency=1), SCALE3, cache=MemoryCache())
    assert (summary.state, summary.asked, summary.answered) == ("failed", 3, 0)
    assert summary.reason.startswith("no document got an answer; the last failure: HTTP 404")
    with FakeLLM(lambda req, n: Reply("gone", status=404) if n == 2 else Reply()) as server:
        summary = judge(items(4), config(server, concurrency=1), SCALE3, cache=MemoryCache())
    assert (summary.state, summary.failed) == ("done", 1)
    assert summary.reason.startswith("1 document(s) got no answer and will be asked again next time")


def test_the_file_mode_exits_1_when_no_document_got_an_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = write_inputs(tmp_path, 4)
    with FakeLLM(lambda req, n: Reply("no such model", status=404)) as server:
        code = main(file_args(paths, server.base_url, tmp_path / "o.qrels", "--concurrency", "1"))
    assert code == 1
    assert "failed: no document got an answer; the last failure: HTTP 404" in capsys.readouterr().err
