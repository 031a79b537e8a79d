"""``manage.py machine_judge``: a machine assessor judges, from the command line.

Two modes:

* ``machine_judge CAMPAIGN --assessor NAME``: the campaign's machine assessor judges its
  assignments here and now, exactly as its "Judge now" button does in the background (same
  service, same cache: what it judged is not asked again), at the endpoint the server's operator
  declared for it (no option here names another). Ctrl-C stops it before the next request; run
  it again to go on.
* ``machine_judge --pool POOL --topics TOPICS --documents DOCS --qrels-out OUT --base-url URL
  --model M``: no database; the pool's documents judged against the files, the grades written
  as qrels (judging/llm/files.py; ``--cache`` makes it resumable). Run by whoever owns the shell,
  it names its own endpoint.

Either exits with status 1 when documents were asked and none got an answer (the reason printed).
"""

from __future__ import annotations

import threading
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from judging.llm.files import FILE_MODE_ONLY, FILE_MODE_REQUIRED, add_arguments, run_file_mode
from judging.llm.runner import FAILED
from trec.cli import UsageError
from trec.progress import Progress


class Command(BaseCommand):
    help = (
        "A machine assessor (an LLM over an OpenAI-compatible chat-completions endpoint) judges: "
        "CAMPAIGN --assessor NAME judges that machine assessor's assignments; --qrels-out with "
        "--pool, --topics, --documents, --base-url and --model judges a pool file with no database. "
        "The campaign mode asks the endpoint the server's operator declared for the assessor; the file "
        "mode reads its key from the environment variable --api-key-env names."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("campaign", nargs="?", help="the campaign's slug (campaign mode)")
        parser.add_argument("--assessor", help="the machine assessor's username (campaign mode)")
        add_arguments(parser, required=False)

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            if opts["qrels_out"] or opts["pool"]:
                missing = [f"--{name.replace('_', '-')}" for name in FILE_MODE_REQUIRED if not opts[name]]
                if missing:
                    raise UsageError(f"the file mode needs {', '.join(missing)}")
                if opts["campaign"]:
                    raise UsageError("give a campaign (campaign mode) or --qrels-out (file mode), not both")
                if run_file_mode(opts, self.stdout, self.stderr).state == FAILED:
                    raise CommandError("no document got an answer", returncode=1)
                return
            if not opts["campaign"] or not opts["assessor"]:
                raise UsageError(
                    "give CAMPAIGN --assessor NAME, or the file mode's --qrels-out and its inputs"
                )
            given = [f"--{name.replace('_', '-')}" for name in FILE_MODE_ONLY if opts[name]]
            if given:
                raise UsageError(
                    f"{', '.join(given)} belong to the file mode: the campaign mode asks the endpoint the "
                    "server's operator declared for the assessor"
                )
            self._campaign_mode(opts)
        except UsageError as exc:
            raise CommandError(str(exc), returncode=2) from exc

    def _campaign_mode(self, opts: dict[str, Any]) -> None:
        from campaigns.models import Campaign
        from judging.errors import JudgingRefused
        from judging.models import MachineJudge
        from judging.services.machine import machine_judging_run

        campaign = Campaign.objects.filter(slug=opts["campaign"]).first()
        if campaign is None:
            raise UsageError(f"no campaign '{opts['campaign']}'")
        judge = (
            MachineJudge.objects.filter(campaign=campaign, user__username=opts["assessor"])
            .select_related("user", "campaign")
            .first()
        )
        if judge is None:
            raise UsageError(f"'{opts['assessor']}' is not a machine assessor of {campaign.slug}")
        stop = threading.Event()
        enabled = None if opts["progress"] == "auto" else opts["progress"] == "on"
        with Progress(0, "judging", stream=self.stderr, enabled=enabled) as bar:

            def progress(phase: str, done: int, total: int) -> None:
                bar.update(done, total, phase)

            try:
                result = machine_judging_run(judge=judge, progress=progress, should_stop=stop.is_set)
            except KeyboardInterrupt:  # pragma: no cover - interactive
                stop.set()
                raise CommandError("stopped: run it again to go on (nothing judged is asked twice)") from None
            except JudgingRefused as exc:
                raise UsageError("; ".join(exc.problems)) from exc
        self.stdout.write(
            f"{result['username']}: {result['items']} documents, {result['cached']} already judged, "
            f"{result['graded']} graded, {result['cant_judge']} can't judge, "
            f"{result['failed']} without an answer; "
            f"tokens {result['prompt_tokens']} in, {result['completion_tokens']} out"
            + (f"; cost {result['cost']}" if result["cost"] else "")
        )
        if result["missing_count"]:
            self.stderr.write(f"{result['missing_count']} document(s) have no stored text and were not asked")
        if result["reason"]:
            self.stderr.write(f"{result['state']}: {result['reason']}")
        if result["state"] == FAILED:
            raise CommandError(f"{result['username']} got no answer: {result['reason']}", returncode=1)
