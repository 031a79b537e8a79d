"""Every HTML page is served with the Content-Security-Policy: scripts from the workbench only
(``script-src 'self'``, no 'unsafe-inline', no nonce needed), and the pages carry no inline script,
event handler or style for the policy to refuse."""

from __future__ import annotations

import io
import re
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import path, reverse

from campaigns.models import Campaign, Membership
from campaigns.services import membership_add
from judging.services import assignments_create
from pooling.models import Pool
from workbench import urls as workbench_urls

pytestmark = pytest.mark.django_db

EVENT_HANDLER = re.compile(r"^on[a-z]+$")


def _directives(policy: str) -> dict[str, list[str]]:
    out = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


class _Page(HTMLParser):
    """A page's links, and what the policy would refuse in it."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.refused: list[str] = []
        self._script_type: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name, value in attrs:
            if EVENT_HANDLER.match(name):
                self.refused.append(f"<{tag} {name}=...>")
            if name == "style":
                self.refused.append(f'<{tag} style="{value}">')
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith("javascript:"):
                self.refused.append(f"<{tag} {name}={value}>")
        if tag == "a" and values.get("href"):
            self.links.append(values["href"] or "")
        if tag == "style":
            self.refused.append("<style> element")
        if tag == "script" and not values.get("src") and values.get("type") != "application/json":
            self.refused.append("inline <script>")


def _check(answer: Any, where: str) -> _Page:
    policy = answer.headers.get("Content-Security-Policy")
    assert policy, f"{where}: no Content-Security-Policy header"
    directives = _directives(policy)
    assert directives["script-src"] == ["'self'"], (where, policy)
    assert directives["style-src"] == ["'self'"], (where, policy)
    assert directives["object-src"] == ["'none'"] and directives["frame-ancestors"] == ["'none'"], policy
    assert directives["base-uri"] == ["'none'"] and directives["form-action"] == ["'self'"], policy
    page = _Page()
    page.feed(answer.content.decode())
    assert not page.refused, f"{where}: {page.refused}"
    return page


def _crawl(client: Client, starts: list[str], limit: int = 400) -> dict[str, int]:
    """GET every page reachable by links from ``starts`` (each path once); the status of each HTML page."""
    seen: dict[str, int] = {}
    queue, queued = list(starts), {urlsplit(start).path for start in starts}
    while queue and len(seen) < limit:
        url = queue.pop(0)
        answer = client.get(url)
        if not answer.get("Content-Type", "").startswith("text/html"):
            continue
        page = _check(answer, url)
        seen[url] = answer.status_code
        for href in page.links:
            parts = urlsplit(urljoin(url, href))._replace(fragment="")
            if parts.scheme or parts.netloc or parts.path in queued:
                continue  # another site, or a path already taken (with other query parameters)
            queued.add(parts.path)
            queue.append(parts.geturl())
    return seen


@pytest.fixture
def demo_organizer() -> Any:
    call_command("workbench_demo", stdout=io.StringIO())
    user = get_user_model().objects.get(username="organizer")
    campaign = Campaign.objects.get()
    # every role, and topics to judge, so the assessor's and adjudicator's pages show too
    membership_add(campaign=campaign, user=user, roles=list(Membership.Role))
    assignments_create(campaign=campaign, pool=Pool.objects.get(campaign=campaign), assessors=[user])
    return user


def test_every_page_an_organizer_reaches_carries_the_policy_and_breaks_none_of_it(
    demo_organizer: Any,
) -> None:
    client = Client()
    client.force_login(demo_organizer)
    pages = _crawl(client, ["/"])
    # the crawl went deep: the campaign, its pools, judging, reports and evaluations
    assert len(pages) >= 25, " ".join(sorted(pages))
    for part in ("/pools/", "/judging/assignments/", "/adjudication/", "/evaluation/", "/live/"):
        assert any(part in url for url in pages), (part, " ".join(sorted(pages)))
    assert set(pages.values()) == {200}, {u: s for u, s in pages.items() if s != 200}


def test_pages_for_visitors_and_refusals_carry_the_policy(campaign: Campaign, assessor: Any) -> None:
    anonymous = Client()
    _check(anonymous.get(reverse("login")), "login")
    _check(anonymous.get("/admin/login/"), "admin login")
    _check(anonymous.get("/no-such-page/"), "404")
    client = Client()
    client.force_login(assessor)
    refused = client.get(reverse("campaigns:import", args=[campaign.slug]))
    assert refused.status_code == 403
    _check(refused, "403")
    forged = Client(enforce_csrf_checks=True)
    forged.force_login(assessor)
    csrf = forged.post(reverse("accounts:token_create"), {"name": "forged"})
    assert csrf.status_code == 403 and "This form could not be accepted" in csrf.content.decode()
    page = _check(csrf, "CSRF refusal")
    assert "javascript:" not in " ".join(page.links)


def test_the_admin_carries_the_policy() -> None:
    root = get_user_model().objects.create_superuser("root", "root@example.org", "root-password-1")
    client = Client()
    client.force_login(root)
    for url in (
        "/admin/",
        "/admin/campaigns/campaign/",
        "/admin/campaigns/campaign/add/",
        "/admin/auth/user/",
    ):
        answer = client.get(url)
        assert answer.status_code == 200, url
        directives = _directives(answer.headers["Content-Security-Policy"])
        assert directives["script-src"] == ["'self'"] and directives["style-src"] == ["'self'"], url


def test_the_apis_browsable_pages_allow_style_attributes_only(campaign: Campaign, assessor: Any) -> None:
    client = Client()
    client.force_login(assessor)
    answer = client.get(reverse("api:campaigns"), HTTP_ACCEPT="text/html")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/html")
    directives = _directives(answer.headers["Content-Security-Policy"])
    assert directives["script-src"] == ["'self'"] and directives["style-src"] == ["'self'"]
    assert directives["style-src-attr"] == ["'unsafe-inline'"]  # DRF's templates' style="" attributes
    assert "<style>" not in answer.content.decode()  # no inline stylesheet (pygments' is left out)
    json = client.get(reverse("api:campaigns"))
    assert json["Content-Type"] == "application/json"


def _boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug")


urlpatterns = [path("boom/", _boom), *workbench_urls.urlpatterns]
handler500 = workbench_urls.handler500


def test_the_server_error_page_carries_the_policy(settings: Any) -> None:
    settings.ROOT_URLCONF = __name__
    answer = Client(raise_request_exception=False).get("/boom/")
    assert answer.status_code == 500 and "Something went wrong on the server" in answer.content.decode()
    _check(answer, "500")
