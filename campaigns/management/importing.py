"""What the import commands share: the campaign argument, progress bars, and refusals as exit code 2."""

from __future__ import annotations

from argparse import ArgumentParser
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management.base import CommandError

from campaigns.errors import CampaignDataError, CampaignNotFound
from campaigns.models import Campaign
from campaigns.selectors import campaign_get
from campaigns.services import campaign_create
from trec.progress import Progress, TextOut


def add_campaign_arguments(parser: ArgumentParser) -> None:
    parser.add_argument("campaign", metavar="CAMPAIGN", help="the campaign's slug")
    parser.add_argument("--create", action="store_true", help="create the campaign if it does not exist")
    parser.add_argument(
        "--name", default="", help="the new campaign's name (with --create; default: the slug)"
    )


def add_progress_argument(parser: ArgumentParser) -> None:
    parser.add_argument(
        "--progress",
        choices=["auto", "on", "off"],
        default="auto",
        help="progress bar on stderr (auto: when stderr is a terminal)",
    )


def campaign_for(opts: dict[str, Any]) -> Campaign:
    """The named campaign, created first with ``--create``; call inside the import's transaction."""
    try:
        return campaign_get(slug=opts["campaign"])
    except CampaignNotFound:
        if not opts["create"]:
            raise
    return campaign_create(slug=opts["campaign"], name=opts["name"])


def refusal(exc: CampaignDataError, stderr: TextOut, command: str) -> CommandError:
    """Write every problem on stderr; the returned error exits with code 2 and a one-line summary."""
    for line in exc.problems:
        stderr.write(line + "\n")
    errors = sum(1 for line in exc.problems if ": warning: " not in line)
    return CommandError(f"{command}: refused, nothing was imported ({errors} problem(s) above)", returncode=2)


class ProgressBars:
    """A services.ProgressCallback drawing one trec.progress bar per phase on stderr."""

    def __init__(self, stream: TextOut, setting: str) -> None:
        self.stream = stream
        self.enabled = None if setting == "auto" else setting == "on"
        self.bar: Progress | None = None
        self.phase = ""

    def __call__(self, phase: str, done: int, total: int, /) -> None:
        if self.bar is None or phase != self.phase:
            self.close()
            self.phase = phase
            self.bar = Progress(total, phase, stream=self.stream, enabled=self.enabled).__enter__()
        self.bar.advance(step=done - self.bar.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


@contextmanager
def progress_bars(stream: TextOut, setting: str) -> Iterator[ProgressBars]:
    bars = ProgressBars(stream, setting)
    try:
        yield bars
    finally:
        bars.close()
