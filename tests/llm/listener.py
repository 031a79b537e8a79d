"""A real TCP listener on loopback that must receive nothing: the target of the network guard's tests.

``with Listener() as ear:`` listens on 127.0.0.1 and, where the machine has IPv6, on ::1 with the
same port, in a thread; every connection it accepts is counted (``ear.connections``) with the
first bytes it got, and closed. :data:`SPELLINGS` are the ways to write "this machine" in a
URL that the guard must see through: decimal, octal, hex, short, IPv6, IPv4-mapped IPv6, a name
and the unspecified address.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from dataclasses import dataclass

# every way of writing this machine's address in a URL, by a name for the test id
SPELLINGS = {
    "dotted": "127.0.0.1",
    "decimal": "2130706433",
    "octal": "0177.0.0.1",
    "octal-short": "0177.1",
    "hex": "0x7f.0.0.1",
    "hex-whole": "0x7f000001",
    "short": "127.1",
    "ipv6": "[::1]",
    "ipv4-mapped": "[::ffff:127.0.0.1]",
    "ipv4-mapped-hex": "[::ffff:7f00:1]",
    "name": "localhost",
    "unspecified": "0.0.0.0",
}


@dataclass
class Connection:
    peer: str
    data: bytes


class Listener:
    def __init__(self) -> None:
        self.connections: list[Connection] = []
        self.lock = threading.Lock()
        self.sockets: list[socket.socket] = []
        v4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        v4.bind(("127.0.0.1", 0))
        self.port = v4.getsockname()[1]
        self.sockets.append(v4)
        try:
            v6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            v6.bind(("::1", self.port))
            self.sockets.append(v6)
        except OSError:  # no IPv6 loopback here: [::1] cannot reach anything either
            self.ipv6 = False
        else:
            self.ipv6 = True
        self.threads = [threading.Thread(target=self._serve, args=(s,), daemon=True) for s in self.sockets]

    def _serve(self, sock: socket.socket) -> None:
        sock.listen(16)
        while True:
            try:
                conn, peer = sock.accept()
            except OSError:  # closed
                return
            with conn:
                conn.settimeout(0.5)
                try:
                    data = conn.recv(4096)
                except OSError:
                    data = b""
                with self.lock:
                    self.connections.append(Connection(str(peer[0]), data))

    def url(self, host: str) -> str:
        return f"http://{host}:{self.port}/v1"

    def __enter__(self) -> Listener:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for s in self.sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
            s.close()
