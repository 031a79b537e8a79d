"""Password hashing: Argon2id at OWASP's recommended cost, and password checks that wait in line.

A login storm (a class of assessors starting at nine) must neither time out nor take the cores the
saves need. Two things see to it:

- **Argon2id** (RFC 9106; OWASP's first choice for password storage) at OWASP's first recommended
  configuration, 19 MiB of memory, 2 passes, 1 lane: about 20 ms of one core per login on the
  project's machine, where Django's default PBKDF2 (1,500,000 iterations of SHA-256) took 0.3-0.7 s.
  Memory-hard, so a guessing rig gains far less from GPUs than against PBKDF2. Hashes of the other
  hashers listed in ``PASSWORD_HASHERS`` are still checked, and Django rewrites each as Argon2id at
  that account's next successful login (a hash at another Argon2 cost too).
- **A queue per process**: at most ``WORKBENCH_PASSWORD_CHECKS`` hashes are computed at once in one
  process (default 1); a login beyond that waits its turn (first come, first served) instead of
  adding one more CPU-bound thread, so the other threads of the worker keep answering saves.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.contrib.auth.hashers import Argon2PasswordHasher, PBKDF2PasswordHasher

_slots_lock = threading.Lock()
_slots: tuple[int, threading.Semaphore] | None = None


def _semaphore() -> threading.Semaphore:
    """The process's semaphore, sized from the setting (read when first needed: tests change it)."""
    global _slots
    size = int(getattr(settings, "WORKBENCH_PASSWORD_CHECKS", 1))
    with _slots_lock:
        if _slots is None or _slots[0] != size:
            _slots = (size, threading.Semaphore(size))
        return _slots[1]


_held = threading.local()


@contextmanager
def password_check_slot() -> Iterator[None]:
    """Hold one of the process's password-hashing slots for the duration (waiting in line for it);
    a thread that holds one already (PBKDF2's verify encodes) goes on with it."""
    if getattr(_held, "slot", False):
        yield
        return
    slots = _semaphore()
    with slots:
        _held.slot = True
        try:
            yield
        finally:
            _held.slot = False


class Argon2idPasswordHasher(Argon2PasswordHasher):
    """Django's Argon2 hasher (Argon2id) at OWASP's recommended m=19 MiB, t=2, p=1, queued."""

    time_cost = 2
    memory_cost = 19456  # KiB
    parallelism = 1

    def encode(self, password: str, salt: str) -> str:
        with password_check_slot():
            return str(super().encode(password, salt))

    def verify(self, password: str, encoded: str) -> bool:
        with password_check_slot():
            return bool(super().verify(password, encoded))


class QueuedPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """Django's PBKDF2 (the hashes made before Argon2id), checked in the same line."""

    def encode(self, password: str, salt: str, iterations: int | None = None) -> str:
        with password_check_slot():
            return str(super().encode(password, salt, iterations))

    def verify(self, password: str, encoded: str) -> bool:
        with password_check_slot():
            return bool(super().verify(password, encoded))

    def harden_runtime(self, password: str, encoded: str) -> None:
        with password_check_slot():
            super().harden_runtime(password, encoded)
