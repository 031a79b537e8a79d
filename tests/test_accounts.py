"""The "My account" page and API tokens: created (shown once), used by scripts, revoked."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns.accounts.models import ApiToken
from campaigns.accounts.services import api_token_create, api_token_revoke
from campaigns.models import Campaign
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

# read by tests/test_access.py: every route is in an access table
ACCESS_TESTED = [
    ("accounts:account", "get"),
    ("accounts:token_create", "post"),
    ("accounts:token_revoke", "post"),
    ("accounts:sessions_end_others", "post"),
    ("accounts:invitation_accept", "post"),
    ("accounts:invitation_decline", "post"),
    ("accounts:password_change", "get"),
    ("accounts:password_change", "post"),
    ("accounts:password_set", "get"),
    ("accounts:password_set", "post"),
    ("api_reference", "get"),  # linked from My account: tests/test_api_reference.py
]


def _client(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def _token_api(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_anonymous_visitors_are_sent_to_log_in(campaign: Campaign, organizer: Any) -> None:
    row, _ = api_token_create(user=organizer, name="ci")
    client = Client()
    answers = [
        client.get(reverse("accounts:account")),
        client.post(reverse("accounts:token_create")),
        client.post(reverse("accounts:token_revoke", args=[row.pk])),
        client.post(reverse("accounts:sessions_end_others")),
        client.post(reverse("accounts:invitation_accept", args=[1])),
        client.post(reverse("accounts:invitation_decline", args=[1])),
        client.get(reverse("accounts:password_change")),
        client.post(reverse("accounts:password_change")),
        client.get(reverse("accounts:password_set")),
        client.post(reverse("accounts:password_set")),
    ]
    for answer in answers:
        assert answer.status_code == 302 and answer["Location"].startswith(reverse("login"))
    assert ApiToken.objects.filter(pk=row.pk).exists()


def test_the_header_links_to_my_account(campaign: Campaign, organizer: Any) -> None:
    page = _client(organizer).get(reverse("campaigns:campaigns"))
    assert f'href="{reverse("accounts:account")}"' in page.content.decode()


def test_a_token_is_shown_once_then_only_its_prefix(campaign: Campaign, organizer: Any) -> None:
    client = _client(organizer)
    created = client.post(reverse("accounts:token_create"), {"name": "nightly upload"})
    assert created.status_code == 302
    row = ApiToken.objects.get(user=organizer)
    first = client.get(reverse("accounts:account")).content.decode()
    shown = first.split('id="new-token-value" value="')[1].split('"')[0]
    assert shown.startswith("wbt_") and shown.startswith(row.prefix) and len(shown) > 40
    assert "nightly upload" in first and 'id="copy-token"' in first
    # the database keeps a digest, never the token
    assert shown not in {row.digest, row.prefix, row.name}
    again = client.get(reverse("accounts:account")).content.decode()
    assert shown not in again and "nightly upload" in again and f"{row.prefix}…" in again


def test_a_token_needs_a_name(campaign: Campaign, organizer: Any) -> None:
    client = _client(organizer)
    answer = client.post(reverse("accounts:token_create"), {"name": "  "}, follow=True)
    assert "give the token a name" in answer.content.decode()
    assert not ApiToken.objects.exists()


def test_a_token_authenticates_api_calls_and_a_revoked_one_does_not(
    campaign: Campaign, organizer: Any
) -> None:
    row, token = api_token_create(user=organizer, name="script")
    api = _token_api(token)
    listed = api.get(reverse("api:campaigns"))
    assert listed.status_code == 200, listed.content
    assert [c["slug"] for c in listed.json()] == ["trec-demo"]
    # writes too, without a CSRF token: browsers never send this header on their own
    created = APIClient(enforce_csrf_checks=True)
    created.credentials(HTTP_AUTHORIZATION=f"Token {token}", HTTP_ORIGIN="https://elsewhere.example")
    assert (
        created.post(reverse("api:campaign_create"), {"slug": "scripted"}, format="json").status_code == 201
    )
    row.refresh_from_db()
    assert row.last_used is not None

    client = _client(organizer)
    assert client.post(reverse("accounts:token_revoke", args=[row.pk])).status_code == 302
    assert not ApiToken.objects.filter(pk=row.pk).exists()
    refused = api.get(reverse("api:campaigns"))
    assert refused.status_code in (401, 403)
    assert "invalid or revoked API token" in str(refused.json())


def test_a_wrong_token_is_refused(campaign: Campaign, organizer: Any) -> None:
    api_token_create(user=organizer, name="script")
    assert _token_api("wbt_not-a-token").get(reverse("api:campaigns")).status_code in (401, 403)


def test_the_token_of_an_inactive_account_is_refused(campaign: Campaign, organizer: Any) -> None:
    _, token = api_token_create(user=organizer, name="script")
    organizer.is_active = False
    organizer.save()
    assert _token_api(token).get(reverse("api:campaigns")).status_code in (401, 403)


def test_nobody_sees_or_revokes_anyone_elses_tokens(
    campaign: Campaign, organizer: Any, assessor: Any
) -> None:
    row, _ = api_token_create(user=organizer, name="olga's script")
    client = _client(assessor)
    assert "olga&#x27;s script" not in client.get(reverse("accounts:account")).content.decode()
    assert client.post(reverse("accounts:token_revoke", args=[row.pk])).status_code == 404
    assert ApiToken.objects.filter(pk=row.pk).exists()
    with pytest.raises(Exception, match="no API token"):
        api_token_revoke(user=assessor, token_id=row.pk)


def test_the_page_refuses_get_writes(campaign: Campaign, organizer: Any) -> None:
    row, _ = api_token_create(user=organizer, name="ci")
    client = _client(organizer)
    assert client.get(reverse("accounts:token_create")).status_code == 405
    assert client.get(reverse("accounts:token_revoke", args=[row.pk])).status_code == 405
    assert ApiToken.objects.count() == 1
