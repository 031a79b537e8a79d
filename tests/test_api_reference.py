"""The interactive API reference (/api/reference/): Swagger UI from the installed package's files,
served as static files (no CDN), started by a static script under the site's policy, for people
logged in; linked from My account next to the API tokens."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def _logged_in(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_anonymous_visitors_are_sent_to_log_in(db: None) -> None:
    answer = Client().get(reverse("api_reference"))
    assert answer.status_code == 302 and answer["Location"].startswith(reverse("login"))


def test_the_page_loads_swagger_ui_from_the_sites_static_files_and_no_inline_script(assessor: Any) -> None:
    answer = _logged_in(assessor).get(reverse("api_reference"))
    assert answer.status_code == 200
    page = answer.content.decode()
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, re.S)
    assert scripts and all('src="/static/' in attrs and not body.strip() for attrs, body in scripts)
    sources = [re.search(r'src="([^"]+)"', attrs).group(1) for attrs, _ in scripts]  # type: ignore[union-attr]
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in sources
    assert "/static/workbench/api_reference.js" in sources
    assert "<style" not in page and " style=" not in page
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing from another host
    for url in [*sources, "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui.css"]:
        assert finders.find(url.removeprefix("/static/")), url  # installed, served as static files
    # what the static script reads: the schema, and the session's CSRF header for "Try it out"
    assert f'data-schema-url="{reverse("schema")}"' in page and 'data-csrf-header="X-CSRFTOKEN"' in page


def test_the_policy_adds_only_data_images(assessor: Any) -> None:
    answer = _logged_in(assessor).get(reverse("api_reference"))
    policy = dict(d.strip().split(" ", 1) for d in answer["Content-Security-Policy"].split(";"))
    assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'"
    assert policy["img-src"] == "'self' data:" and policy["default-src"] == "'self'"
    assert "unsafe" not in answer["Content-Security-Policy"]
    assert answer["Cross-Origin-Opener-Policy"] == "same-origin"  # the site's, not drf-spectacular's


def test_my_account_links_to_it_beside_the_tokens(assessor: Any) -> None:
    page = _logged_in(assessor).get(reverse("accounts:account")).content.decode()
    tokens = page[page.index('<section id="api-tokens">') :]
    assert f'<a href="{reverse("api_reference")}">API reference</a>' in tokens[: tokens.index("</section>")]


def test_the_schema_offers_the_token_scheme_to_authorize_with(db: None) -> None:
    schema = Client().get(reverse("schema"), HTTP_ACCEPT="application/json").json()
    token = schema["components"]["securitySchemes"]["tokenAuth"]
    assert (token["type"], token["in"], token["name"]) == ("apiKey", "header", "Authorization")
    assert "Token wbt_" in token["description"]


def test_the_reference_is_no_operation_of_the_schema(db: None) -> None:
    schema = Client().get(reverse("schema"), HTTP_ACCEPT="application/json").json()
    assert reverse("api_reference") not in schema["paths"]
