"""``manage.py workbench_demo``: the demo organizer account and the demo campaign (from demo/).

Idempotent, and run by every ``./workbench.sh serve``: the account gets its password when it is
created and keeps whatever its owner changed it to afterwards (and its sessions); ``--reset-password``
sets it again on purpose. The campaign is loaded once, through the same services as the pages and
commands (topics, runs, documents, reference judgments, and a committed depth-10 pool).
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
    help = "Create the demo organizer account (its password only then) and load the demo campaign once."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--reset-password",
            action="store_true",
            help="set the demo organizer's password again (WORKBENCH_DEMO_PASSWORD, default "
            "organizer-demo), which logs the account out everywhere",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        username = os.environ.get("WORKBENCH_DEMO_USER", "organizer")
        password = os.environ.get("WORKBENCH_DEMO_PASSWORD", "organizer-demo")
        user, created = get_user_model().objects.get_or_create(username=username)
        # an organizer of the demo campaign, not a site administrator (older demos made it staff):
        # /admin/ is for a superuser created on purpose (`manage.py createsuperuser`)
        if user.is_staff or user.is_superuser:
            user.is_staff = user.is_superuser = False
            user.save(update_fields=["is_staff", "is_superuser"])
        if created or opts.get("reset_password"):
            # a new password changes the session hash: every session of the account ends, which
            # is why an existing account keeps its own on every start
            user.set_password(password)
            user.save(update_fields=["password"])
            verb = "created" if created else "password reset"
            self.stdout.write(f"demo organizer {verb}: log in as '{username}' with password '{password}'")
        else:
            self.stdout.write(
                f"demo organizer '{username}' kept with its own password "
                "(manage.py workbench_demo --reset-password sets the demo one again)"
            )
        user.user_permissions.add(
            Permission.objects.get(codename="add_campaign", content_type__app_label="campaigns")
        )
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
