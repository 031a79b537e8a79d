"""Basic authentication is for scripts: a browser carrying cached basic credentials needs the CSRF token."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns.models import Campaign
from tests.conftest import PASSWORD


def _basic(user: Any) -> str:
    return "Basic " + base64.b64encode(f"{user.username}:{PASSWORD}".encode()).decode()


@pytest.mark.parametrize(
    "mark",
    [
        {"HTTP_ORIGIN": "https://evil.example"},
        {"HTTP_REFERER": "https://evil.example/form.html"},  # no Origin: older browsers, privacy settings
        {"HTTP_SEC_FETCH_SITE": "cross-site"},
    ],
    ids=["origin", "referer", "sec-fetch-site"],
)
def test_a_post_with_a_browser_mark_and_no_csrf_token_is_refused(
    campaign: Campaign, organizer: Any, mark: dict[str, Any]
) -> None:
    url = reverse("api:campaign_create")
    client = APIClient(enforce_csrf_checks=True)
    auth = _basic(organizer)
    refused = client.post(url, {"slug": "forged"}, HTTP_AUTHORIZATION=auth, format="json", **mark)
    assert refused.status_code == 403
    assert not Campaign.objects.filter(slug="forged").exists()


def test_a_script_without_browser_marks_posts_with_basic_auth(campaign: Campaign, organizer: Any) -> None:
    client = APIClient(enforce_csrf_checks=True)
    url, auth = reverse("api:campaign_create"), _basic(organizer)
    done = client.post(url, {"slug": "scripted"}, HTTP_AUTHORIZATION=auth, format="json")
    assert done.status_code == 201, done.content
    assert Campaign.objects.filter(slug="scripted").exists()


def test_reads_with_basic_auth_need_no_token_whatever_the_headers(campaign: Campaign, organizer: Any) -> None:
    client = APIClient(enforce_csrf_checks=True)
    answer = client.get(
        reverse("api:campaigns"), HTTP_AUTHORIZATION=_basic(organizer), HTTP_REFERER="https://evil.example/"
    )
    assert answer.status_code == 200
