"""``manage.py workbench_demo`` (run by every ``./workbench.sh serve``) sets the demo organizer's
password when it creates the account and never again: a password the organizer changed, and the
sessions they have, survive a restart."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


def _demo(*args: str) -> str:
    out = io.StringIO()
    call_command("workbench_demo", *args, stdout=out)
    return out.getvalue()


def test_the_first_run_creates_the_organizer_with_the_demo_password() -> None:
    said = _demo()
    user = get_user_model().objects.get(username="organizer")
    assert user.check_password("organizer-demo") and not user.is_staff and not user.is_superuser
    assert "created" in said and "organizer-demo" in said


def test_a_second_run_keeps_a_changed_password_and_the_session() -> None:
    _demo()
    user = get_user_model().objects.get(username="organizer")
    user.set_password("my-own-password-7")
    user.save()
    browser = Client()
    assert browser.login(username="organizer", password="my-own-password-7")
    assert browser.get(reverse("accounts:account")).status_code == 200

    said = _demo()  # what every ./workbench.sh serve runs

    user.refresh_from_db()
    assert user.check_password("my-own-password-7") and not user.check_password("organizer-demo")
    assert browser.get(reverse("accounts:account")).status_code == 200  # still logged in
    assert "organizer-demo" not in said and "kept" in said


def test_a_second_run_keeps_the_password_whatever_the_environment_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _demo()
    monkeypatch.setenv("WORKBENCH_DEMO_PASSWORD", "another-one-9")
    _demo()
    assert get_user_model().objects.get(username="organizer").check_password("organizer-demo")


def test_reset_password_sets_it_on_purpose() -> None:
    _demo()
    user = get_user_model().objects.get(username="organizer")
    user.set_password("forgotten-8")
    user.save()
    said = _demo("--reset-password")
    user.refresh_from_db()
    assert user.check_password("organizer-demo") and "reset" in said
