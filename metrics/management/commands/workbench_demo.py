"""``manage.py workbench_demo``: the demo organizer account and the demo campaign (from demo/).

Idempotent: the account's password is reset each time; the campaign is loaded once, through the
same services as the pages and commands (topics, runs, documents, reference judgments, and a
committed depth-10 pool).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand
from django.db import transaction

from campaigns.models import Campaign, Membership
from campaigns.services import (
    campaign_create,
    documents_import,
    membership_add,
    qrels_set_import,
    runs_import,
    topics_import,
)
from metrics.services import evaluation_run
from metrics.sources import JudgmentSource
from pooling.selectors import pools_needed_docnos
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec

DEMO_SLUG = "demo"


class Command(BaseCommand):
    help = "Create (or reset) the demo organizer account and load the demo campaign once."

    def handle(self, *args: Any, **opts: Any) -> None:
        username = os.environ.get("WORKBENCH_DEMO_USER", "organizer")
        password = os.environ.get("WORKBENCH_DEMO_PASSWORD", "organizer-demo")
        user, created = get_user_model().objects.get_or_create(username=username)
        # an organizer of the demo campaign, not a site administrator: /admin/ is for a superuser
        # created on purpose (`manage.py createsuperuser`)
        user.is_staff = False
        user.is_superuser = False
        user.set_password(password)
        user.save()
        user.user_permissions.add(
            Permission.objects.get(codename="add_campaign", content_type__app_label="campaigns")
        )
        verb = "created" if created else "reset"
        self.stdout.write(f"demo organizer {verb}: log in as '{username}' with password '{password}'")
        if Campaign.objects.filter(slug=DEMO_SLUG).exists():
            campaign = Campaign.objects.get(slug=DEMO_SLUG)
            membership_add(campaign=campaign, user=user, roles=[Membership.Role.ORGANIZER])
            return
        self._load(user)

    @transaction.atomic
    def _load(self, user: Any) -> None:
        demo = Path(settings.WORKBENCH_DEMO_DIR)
        campaign = campaign_create(
            slug=DEMO_SLUG,
            name="Demo collection",
            description="Five topics, four runs and graded judgments to explore the workbench.",
        )
        membership_add(campaign=campaign, user=user, roles=[Membership.Role.ORGANIZER])
        topics_import(campaign=campaign, path=demo / "topics.txt")
        runs_import(campaign=campaign, paths=sorted((demo / "runs").glob("*.run")), group="demo")
        reference = qrels_set_import(campaign=campaign, path=demo / "qrels.txt", name="reference")
        pool = pool_build(campaign=campaign, name="depth-10", spec=PoolSpec("depth", depth=10), user=user)
        pool_commit(pool=pool)
        documents_import(
            campaign=campaign, paths=[demo / "documents.tsv"], needed=pools_needed_docnos(campaign=campaign)
        )
        # a stored evaluation against the reference judgments: the leaderboard, run pages and
        # significance are there from the first visit
        evaluation_run(
            campaign=campaign, source=JudgmentSource(kind="qrels", qrels_set=reference.pk), user=user
        )
        self.stdout.write(
            f"demo campaign '{DEMO_SLUG}' loaded with a committed depth-10 pool and an evaluation"
        )
