"""``manage.py workbench_demo``: make the demo organizer account (the demo collection ships in demo/)."""

from __future__ import annotations

import os
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create (or reset) the demo organizer account used to explore the demo collection."

    def handle(self, *args: Any, **opts: Any) -> None:
        username = os.environ.get("WORKBENCH_DEMO_USER", "organizer")
        password = os.environ.get("WORKBENCH_DEMO_PASSWORD", "organizer-demo")
        user, created = get_user_model().objects.get_or_create(username=username)
        user.is_staff = True
        user.set_password(password)
        user.save()
        verb = "created" if created else "reset"
        self.stdout.write(f"demo organizer {verb}: log in as '{username}' with password '{password}'")
