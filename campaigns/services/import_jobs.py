"""Starting the imports that run in the background: topics, runs (or only their validation),
documents and qrels. The import page and the API's import endpoints both call
:func:`campaign_import_enqueue`; the jobs themselves are in :mod:`campaigns.jobs` (documents:
:mod:`pooling.jobs`, which knows the documents the pools need).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile

from campaigns.errors import CampaignDataError, ImportRefused
from campaigns.models import Campaign
from jobs.models import Job
from jobs.services import job_enqueue


@dataclass(frozen=True)
class ImportKind:
    job: str  # the job kind that runs it
    noun: str  # what its files hold, for the job's title
    options: tuple[str, ...]  # the job parameters it reads
    one_file: bool = False


IMPORTS = {
    "topics": ImportKind("topics_import", "topics", ("format",)),
    "runs": ImportKind("runs_import", "run", ("group", "priority", "validate_only")),
    "documents": ImportKind("documents_import", "documents", ("format", "only_needed")),
    "qrels": ImportKind("qrels_import", "judgments", ("name",), one_file=True),
}


def campaign_import_enqueue(
    *,
    campaign: Campaign,
    user: User,
    what: str,
    files: Sequence[UploadedFile],
    fmt: str = "auto",
    group: str = "",
    priority: int | None = None,
    validate_only: bool = False,
    only_needed: bool = False,
    name: str = "",
) -> Job:
    """Keep the uploaded ``files`` with a new job importing them into ``campaign`` as ``what``
    (one of :data:`IMPORTS`); the options it does not read are ignored.

    ``fmt``: the topics' or documents' format. ``group``, ``priority``: of runs, and
    ``validate_only`` reports on them without storing them. ``only_needed``: store only the
    documents some pool needs. ``name``: of the judgments (default: the file's name).
    """
    kind = IMPORTS.get(what)
    if kind is None:
        raise CampaignDataError(f"unknown import '{what}' (one of {', '.join(IMPORTS)})")
    if not files:
        raise ImportRefused("no file was uploaded")
    if kind.one_file and len(files) > 1:
        raise ImportRefused(f"{kind.noun} are imported one file at a time")
    given: dict[str, Any] = {
        "format": fmt,
        "group": group,
        "priority": priority,
        "validate_only": validate_only,
        "only_needed": only_needed,
        "name": name,
    }
    verb = "validate" if validate_only and "validate_only" in kind.options else "import"
    return job_enqueue(
        kind=kind.job,
        title=f"{verb} {len(files)} {kind.noun} file(s) into {campaign.slug}",
        campaign=campaign,
        user=user,
        params={option: given[option] for option in kind.options},
        files=files,
    )
