"""``manage.py login_address_reset ADDRESS``: unlock an address the per-address login throttle locked."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from campaigns.accounts.services import login_failures_forget


class Command(BaseCommand):
    help = (
        "Forget the failed logins and API token attempts counted for one address (any usernames), "
        "which unlocks it at once. Per-account locks are django-axes' (axes_reset_username)."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("address", help="the client's address, as on the locked-out page")

    def handle(self, *args: Any, **opts: Any) -> None:
        count = login_failures_forget(address=opts["address"])
        self.stdout.write(f"{opts['address']}: {count} failed attempts forgotten, the address is unlocked")
