"""The 403 and 404 pages, as a logged-in person and as an anonymous visitor, with DEBUG off (as
served): the roles named are the campaign roles that exist, the page says who is logged in and
offers the log-out form (a POST, as the header's), and a way back."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Membership
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

LOGOUT_FORM = re.compile(
    r'<form class="inline" method="post" action="/accounts/logout/">'
    r'<input type="hidden" name="csrfmiddlewaretoken" value="[^"]+">'
    r'<button class="link" type="submit">Log out</button></form>'
)


def _logged_in(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def _refused(client: Client, campaign: Campaign) -> str:
    answer = client.get(reverse("campaigns:import", args=[campaign.slug]))
    assert answer.status_code == 403
    return answer.content.decode()


def _not_found(client: Client) -> str:
    answer = client.get("/campaigns/no-such-campaign/deeper/")
    assert answer.status_code == 404
    return answer.content.decode()


def test_debug_is_off_as_served() -> None:
    assert settings.DEBUG is False


def test_the_403_names_the_roles_that_exist(campaign: Campaign, assessor: Any) -> None:
    body = _refused(_logged_in(assessor), campaign)
    assert "viewer" not in body
    roles = re.search(r"roles \(([^)]*)\)", body)
    assert roles is not None
    assert [r.strip() for r in re.split(r",| and ", roles.group(1)) if r.strip()] == list(
        Membership.Role.values
    )


@pytest.mark.parametrize("page", ["403", "404"])
def test_a_logged_in_person_sees_who_they_are_a_log_out_form_and_a_way_back(
    page: str, campaign: Campaign, assessor: Any
) -> None:
    client = _logged_in(assessor)
    body = _refused(client, campaign) if page == "403" else _not_found(client)
    assert re.search(rf'id="who">You are logged in as <strong>{assessor.username}</strong>: <form', body)
    # the header's log-out form and the one that offers to log in as someone else
    assert len(LOGOUT_FORM.findall(body)) == 2
    assert re.search(r'<a href="/" data-back>Back</a>', body) and "workbench/back.js" in body
    assert (
        f'href="{reverse("judging:assess_home")}"' in body
        and f'href="{reverse("campaigns:campaigns")}"' in body
    )
    # and the form logs out
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body)
    assert token is not None
    out = Client(enforce_csrf_checks=True)
    out.cookies = client.cookies
    answer = out.post(reverse("logout"), {"csrfmiddlewaretoken": token.group(1)})
    assert answer.status_code == 302 and answer["Location"] == reverse("login")
    assert out.get(reverse("accounts:account")).status_code == 302  # logged out


def test_an_anonymous_visitor_gets_a_404_with_log_in_and_back(db: None) -> None:
    body = _not_found(Client())
    assert "Page not found" in body and "logged in as" not in body and "Log out" not in body
    assert 'id="who">You are not logged in.' in body
    assert f'href="{reverse("login")}"' in body and re.search(r'<a href="/" data-back>Back</a>', body)


def test_an_anonymous_visitor_gets_a_403_with_log_in_and_back(db: None) -> None:
    """Pages send anonymous visitors to log in before any role check, so the 403 is rendered as
    Django's handler renders it (the same template, the same context)."""
    from django.contrib.auth.models import AnonymousUser
    from django.core.exceptions import PermissionDenied
    from django.test import RequestFactory
    from django.views.defaults import permission_denied

    request = RequestFactory().get("/campaigns/x/import/")
    request.user = AnonymousUser()
    answer = permission_denied(request, PermissionDenied("log in first"))
    body = answer.content.decode()
    assert answer.status_code == 403 and "Log in first." in body
    assert 'id="who">You are not logged in.' in body and "Log out" not in body
    assert f'href="{reverse("login")}?next=/campaigns/x/import/"' in body
    assert re.search(r'<a href="/" data-back>Back</a>', body)
