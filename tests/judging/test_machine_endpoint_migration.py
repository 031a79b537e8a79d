"""Migrations judging 0005-0006: machine assessors made with a free base URL and key variable get
the declared endpoint they match, or none and the reason they cannot judge, shown on their page
and in the API, and starting them is refused with it.

The database is put back at judging 0004, filled through that schema's historical models, then
migrated forward with endpoints declared in the settings.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from judging.models import MachineJudge
from tests.campaigns.conftest import latest_migrations, migrate_to

BEFORE = [("judging", "0004_assignment_order_machine")]
OLD = {
    # username: (base_url, api_key_env)
    "matches": ("https://api.openai.com/v1/", "OPENAI_API_KEY"),
    "local": ("http://127.0.0.1:8000/v1", "WORKBENCH_JUDGE_API_KEY"),
    "thief": ("https://api.openai.com/v1", "WORKBENCH_SECRET_KEY"),
    "own-server": ("http://2130706433:9999/v1?#", "DATABASE_URL"),
}


@pytest.mark.django_db(transaction=True)
def test_old_machine_assessors_get_the_endpoint_they_match_or_the_reason_they_cannot_judge(
    settings: Any,
) -> None:
    settings.WORKBENCH_JUDGE_ENDPOINTS = {
        "openai": {"base_url": "https://api.openai.com/v1", "key_env": "OPENAI_API_KEY"},
        "local": {
            "base_url": "http://127.0.0.1:8000/v1",
            "key_env": "WORKBENCH_JUDGE_API_KEY",
            "allow_private": True,
        },
    }
    latest = latest_migrations()
    try:
        old = migrate_to(BEFORE).loader.project_state(BEFORE).apps
        camp = old.get_model("campaigns", "Campaign").objects.create(
            name="C", slug="c", max_docs_per_topic=1000
        )
        User_ = old.get_model("auth", "User")
        Membership_ = old.get_model("campaigns", "Membership")
        organizer = User_.objects.create(username="olga", password="!")
        Membership_.objects.create(campaign=camp, user=organizer, role="organizer")
        for username, (base_url, key_env) in OLD.items():
            user = User_.objects.create(username=username, password="!")
            Membership_.objects.create(campaign=camp, user=user, role="assessor")
            old.get_model("judging", "MachineJudge").objects.create(
                campaign=camp, user=user, base_url=base_url, api_key_env=key_env, model="m"
            )
        migrate_to(latest)

        judges = {j.user.username: j for j in MachineJudge.objects.select_related("user")}
        assert (judges["matches"].endpoint, judges["matches"].unusable_reason) == ("openai", "")
        assert (judges["local"].endpoint, judges["local"].unusable_reason) == ("local", "")
        assert judges["thief"].endpoint == "" and judges["thief"].unusable_reason.startswith(
            "its key's variable WORKBENCH_SECRET_KEY is not the one the endpoint 'openai' at its base URL"
        )
        reason = (
            "its base URL http://2130706433:9999/v1?# is not an endpoint the server's operator declared; "
            "choose one"
        )
        assert (judges["own-server"].endpoint, judges["own-server"].unusable_reason) == ("", reason)

        from django.contrib.auth.models import User

        olga = User.objects.get(username="olga")
        api = APIClient()
        api.force_authenticate(olga)
        base = f"/api/judging/campaigns/c/machines/{judges['own-server'].pk}/"
        shown = api.get(base).data
        assert (shown["usable"], shown["unusable_reason"], shown["endpoint"]) == (False, reason, None)
        refused = api.post(f"{base}start/")
        assert refused.status_code == 400 and reason in str(refused.data)
        web = Client()
        web.force_login(olga)
        page = web.get(reverse("judging:machine", args=["c", judges["own-server"].pk])).content.decode()
        assert "It cannot judge: its base URL http://2130706433:9999/v1?# is not an endpoint" in page
        assert api.get(f"/api/judging/campaigns/c/machines/{judges['matches'].pk}/").data["usable"] is True
    finally:
        migrate_to(latest)
