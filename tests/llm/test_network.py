"""The network guard, through the judges' own client: a listener on loopback receives nothing,
however its address is spelled, unless the endpoint allows private addresses; the address checked
is the address connected to; no redirect is followed and no proxy from the environment is used."""

from __future__ import annotations

import socket
import time
from typing import Any

import httpcore
import pytest

from judging.llm.client import ChatClient
from judging.llm.config import JudgeConfig
from judging.llm.endpoints import Endpoint
from judging.llm.network import address_problem, guarded_client
from judging.llm.runner import FAILED, Item, MemoryCache, judge
from tests.llm.fake_llm import FakeLLM, Reply
from tests.llm.listener import SPELLINGS, Listener
from tests.llm.test_core import SCALE3, TOPIC

ASK = [{"role": "user", "content": "is this relevant?"}]


def _config(base_url: str, *, allow_private: bool = False) -> JudgeConfig:
    return JudgeConfig(Endpoint("e", base_url, allow_private=allow_private), "m", max_retries=2, timeout=2.0)


def _settle() -> None:
    time.sleep(0.2)  # a connection that did get through is accepted and counted by now


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_the_client_never_reaches_loopback_however_it_is_spelled(spelling: str) -> None:
    with Listener() as ear:
        with ChatClient(_config(ear.url(SPELLINGS[spelling])), sleep=lambda s: None) as client:
            done = client.complete(ASK)
        _settle()
        assert ear.connections == []
    assert done.text is None and done.fatal and len(done.attempts) == 1  # refused once, never retried
    assert "refused to connect" in done.error or "cannot be asked" in done.error


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"), ("10.1.2.3", "private"), ("172.16.0.1", "private"),
        ("192.168.1.1", "private"), ("169.254.169.254", "link-local"), ("100.64.0.1", "shared"),
        ("224.0.0.1", "multicast"), ("240.0.0.1", "reserved"), ("0.0.0.0", "unspecified"),
        ("::1", "loopback"), ("::", "unspecified"), ("fe80::1%1", "link-local"), ("fd00::1", "private"),
        ("ff02::1", "multicast"), ("::ffff:10.0.0.1", "private"), ("2002:7f00:1::", "loopback"),
        ("64:ff9b::a9fe:a9fe", "link-local"), ("192.0.2.1", "private"),
    ],
)  # fmt: skip
def test_addresses_a_judge_may_not_reach_are_named(address: str, kind: str) -> None:
    assert address_problem(address).startswith(kind)


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"])
def test_public_addresses_pass(address: str) -> None:
    assert address_problem(address) == ""


def test_an_endpoint_that_allows_private_addresses_does_reach_loopback() -> None:
    with FakeLLM(lambda req, n: Reply("##final score: 2")) as server:
        endpoint_url = server.base_url.replace("127.0.0.1", "localhost")
        with ChatClient(_config(endpoint_url, allow_private=True)) as client:
            done = client.complete(ASK)
    assert done.text == "##final score: 2" and len(server.seen) == 1
    assert server.seen[0].headers["Host"] == endpoint_url.split("/")[2]  # the name, not the address


def test_the_address_checked_is_the_address_connected_to(monkeypatch: pytest.MonkeyPatch) -> None:
    """DNS rebinding: a name that resolves to a public address when checked and to loopback on any
    later lookup. The guard resolves once per connection and connects to the literal address it
    checked, so the second answer is never asked for."""
    lookups: list[str] = []
    real = socket.getaddrinfo

    def rebinding(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "judge.example":
            lookups.append(host)
            address = "93.184.215.14" if len(lookups) == 1 else "127.0.0.1"
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]
        return real(host, port, *args, **kwargs)

    connected: list[str] = []

    def connect_tcp(self: Any, host: str, port: int, *args: Any, **kwargs: Any) -> Any:
        connected.append(host)
        raise httpcore.ConnectError("no network in this test")

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", connect_tcp)
    with Listener() as ear:
        config = JudgeConfig(Endpoint("e", f"http://judge.example:{ear.port}/v1"), "m", max_retries=1)
        with ChatClient(config, sleep=lambda s: None) as client:
            done = client.complete(ASK)
        _settle()
        assert ear.connections == []
    # two attempts: each resolved once, the first connected to the checked public address, the
    # second saw loopback and was refused before connecting
    assert connected == ["93.184.215.14"] and lookups == ["judge.example", "judge.example"]
    assert done.fatal and "refused to connect to judge.example (127.0.0.1): a loopback" in done.error


def test_redirects_are_not_followed() -> None:
    with (
        Listener() as ear,
        FakeLLM(
            lambda req, n: Reply(status=307, headers={"Location": ear.url("127.0.0.1") + "/chat/completions"})
        ) as server,
    ):
        with ChatClient(_config(server.base_url, allow_private=True)) as client:
            done = client.complete(ASK)
        _settle()
        assert ear.connections == [] and len(server.seen) == 1
    assert done.error.startswith("HTTP 307")


def test_no_proxy_from_the_environment_carries_a_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy connects on the client's behalf, past the guard: the environment's is never used."""
    with Listener() as ear:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            monkeypatch.setenv(name, ear.url("127.0.0.1").removesuffix("/v1"))
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        with guarded_client(allow_private=False, timeout=2.0) as http:
            assert http._mounts == {}  # what httpx builds from the environment's proxies, when it may
        with ChatClient(_config("http://judge.invalid/v1"), sleep=lambda s: None) as client:
            done = client.complete(ASK)
        _settle()
        assert ear.connections == []
    assert "cannot resolve the host 'judge.invalid'" in done.error


def test_a_run_against_a_refused_address_fails_at_once_with_the_reason() -> None:
    with Listener() as ear:
        items = [Item(TOPIC, f"doc{i}", "text") for i in range(6)]
        summary = judge(items, _config(ear.url("2130706433")), SCALE3, cache=MemoryCache())
        _settle()
        assert ear.connections == []
    assert summary.state == FAILED and summary.stopped_early and summary.asked <= 2  # two in flight at most
    assert "refused to connect to 2130706433 (127.0.0.1): a loopback address" in summary.reason
