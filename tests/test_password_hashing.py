"""Passwords are hashed with Argon2id at OWASP's cost, older hashes upgrade at login, and password
checks wait in line, a bounded number at once per process (workbench/hashers.py)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.hashers import (
    Argon2PasswordHasher,
    PBKDF2PasswordHasher,
    check_password,
    get_hasher,
    make_password,
)
from django.contrib.auth.models import User
from django.test import Client

from workbench.hashers import Argon2idPasswordHasher

pytestmark = pytest.mark.django_db

# the project's list, as workbench/settings.py has it (conftest.py swaps in MD5 for speed)
PRODUCTION_HASHERS = list(django_settings.PASSWORD_HASHERS)


@pytest.fixture
def real_hashers(settings: Any) -> None:
    settings.PASSWORD_HASHERS = PRODUCTION_HASHERS


def test_the_settings_prefer_argon2id_at_owasps_cost_and_keep_pbkdf2() -> None:
    assert PRODUCTION_HASHERS[0] == "workbench.hashers.Argon2idPasswordHasher"
    assert "workbench.hashers.QueuedPBKDF2PasswordHasher" in PRODUCTION_HASHERS
    # OWASP Password Storage Cheat Sheet, Argon2id: m=19456 (19 MiB), t=2, p=1
    h = Argon2idPasswordHasher()
    assert (h.memory_cost, h.time_cost, h.parallelism) == (19456, 2, 1)


def test_a_new_password_is_stored_as_argon2id(real_hashers: None) -> None:
    encoded = make_password("a-long-passphrase")
    assert encoded.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$"), encoded
    assert check_password("a-long-passphrase", encoded)
    assert not check_password("another-passphrase", encoded)


@pytest.mark.parametrize(
    "old",
    [PBKDF2PasswordHasher, Argon2PasswordHasher],  # Django's PBKDF2, and Argon2 at Django's cost
    ids=["pbkdf2", "argon2-django-cost"],
)
def test_an_older_hash_becomes_argon2id_at_the_next_login(real_hashers: None, old: Any) -> None:
    hasher = old()
    user = User.objects.create(username="early", password=hasher.encode("early-bird-pass", hasher.salt()))
    assert not user.password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")
    client = Client()
    answer = client.post("/accounts/login/", {"username": "early", "password": "early-bird-pass"})
    assert answer.status_code == 302, answer.content[:300]
    user.refresh_from_db()
    assert user.password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$"), user.password[:40]
    assert (
        Client().post("/accounts/login/", {"username": "early", "password": "early-bird-pass"}).status_code
        == 302
    )


@pytest.mark.parametrize("slots", [1, 2])
def test_password_checks_wait_in_line_at_most_the_setting_at_once(
    settings: Any, monkeypatch: pytest.MonkeyPatch, slots: int
) -> None:
    settings.PASSWORD_HASHERS = PRODUCTION_HASHERS
    settings.WORKBENCH_PASSWORD_CHECKS = slots
    encoded = make_password("in-line-password")
    running, most = 0, 0
    lock = threading.Lock()
    real = Argon2PasswordHasher.verify

    def slow_verify(self: Any, password: str, encoded: str) -> bool:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.05)  # a hash's time, long enough for the others to pile up
        with lock:
            running -= 1
        return bool(real(self, password, encoded))

    monkeypatch.setattr(Argon2PasswordHasher, "verify", slow_verify)
    answers: list[bool] = []
    threads = [
        threading.Thread(target=lambda: answers.append(check_password("in-line-password", encoded)))
        for _ in range(6)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [True] * 6  # every login got its turn
    assert most == slots
    assert get_hasher("default").algorithm == "argon2"
