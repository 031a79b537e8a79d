"""The network guard: a judge's requests reach only public addresses, unless its endpoint allows more.

Every connection resolves the host itself (``getaddrinfo``), checks each address it gets and then
connects to the very address it checked, so a name that resolves elsewhere a second time (DNS
rebinding) gains nothing; TLS still names the host (SNI and certificate), as does the ``Host``
header. Resolving takes every spelling of an address to one form, so the decimal
``2130706433``, the octal ``0177.1``, the hex ``0x7f.1``, ``[::1]``, ``[::ffff:127.0.0.1]``,
``localhost`` and ``0.0.0.0`` are all seen as what they are. Refused, unless the endpoint declares
``allow_private``: loopback, private, link-local (169.254.169.254, the cloud metadata address),
shared (100.64.0.0/10), multicast, reserved and unspecified addresses, and IPv6 addresses that carry
such an IPv4 address (IPv4-mapped, 6to4, Teredo, NAT64).

The client (judging.llm.client) builds its HTTP client on :func:`guarded_transport`, with
redirects off and no proxy taken from the environment (a proxy would connect on our behalf, past
the guard).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable

import httpcore
import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_SHARED = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class AddressRefused(httpcore.ConnectError):
    """A connection the guard refused: the host resolves to an address the endpoint may not reach."""


def _embedded(ip: IPAddress) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (and routes to)."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    out = [a for a in (ip.ipv4_mapped, ip.sixtofour) if a is not None]
    if ip.teredo is not None:
        out.extend(ip.teredo)
    if ip in _NAT64:
        out.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return out


def address_problem(address: str) -> str:
    """What kind of address ``address`` is when a judge may not reach it ('' when public)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 scope (fe80::1%eth0) is not part of it
    for inner in _embedded(ip):
        problem = address_problem(str(inner))
        if problem:
            return f"{problem} (inside {ip})"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if ip in _SHARED:
        return "shared (carrier-grade NAT)"
    if ip.is_reserved:
        return "reserved"
    if ip.is_private:
        return "private"
    if not ip.is_global:
        return "not globally reachable"
    return ""


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to, in the resolver's order, without repeats."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise httpcore.ConnectError(f"cannot resolve the host '{host}': {exc}") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in found))


def checked_addresses(host: str, port: int, *, allow_private: bool) -> list[str]:
    """The addresses to connect to for ``host``; :class:`AddressRefused` when any is refused
    (a name that points inside the network is refused as a whole)."""
    addresses = resolve(host, port)
    if not addresses:
        raise httpcore.ConnectError(f"the host '{host}' resolves to no address")
    if not allow_private:
        for address in addresses:
            problem = address_problem(address)
            if problem:
                shown = host if host == address else f"{host} ({address})"
                article = "an" if problem[0] in "aeiou" else "a"
                raise AddressRefused(
                    f"refused to connect to {shown}: {article} {problem} address, which the server's "
                    "operator has not allowed this endpoint to reach (allow_private)"
                )
    return addresses


class GuardedBackend(httpcore.NetworkBackend):
    """httpcore's own synchronous backend, connecting only to checked addresses (see the module)."""

    def __init__(self, *, allow_private: bool) -> None:
        self.allow_private = allow_private
        self.inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        last: Exception | None = None
        for address in checked_addresses(host.strip("[]"), port, allow_private=self.allow_private):
            try:  # a literal address: create_connection connects to it without resolving anything
                return self.inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
        assert last is not None  # checked_addresses returns at least one
        raise last

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        raise AddressRefused("a judge never connects to a Unix socket")

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


def guarded_transport(*, allow_private: bool) -> httpx.HTTPTransport:
    """An httpx transport whose every connection goes through :class:`GuardedBackend`."""
    transport = httpx.HTTPTransport(trust_env=False, retries=0)
    transport._pool = httpcore.ConnectionPool(  # the same pool httpx builds, on the guarded backend
        ssl_context=httpx.create_ssl_context(),
        http1=True,
        http2=False,
        retries=0,
        network_backend=GuardedBackend(allow_private=allow_private),
    )
    return transport


def guarded_client(*, allow_private: bool, timeout: float) -> httpx.Client:
    """The HTTP client a judge asks with: guarded, no redirects, nothing taken from the environment."""
    return httpx.Client(
        transport=guarded_transport(allow_private=allow_private),
        timeout=timeout,
        follow_redirects=False,
        trust_env=False,
    )
