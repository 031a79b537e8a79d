"""Writes of campaign data (imports, pools, judging queues, memberships). Every service is atomic."""

from pooling.services.imports import (
    DOCUMENT_BATCH,
    INSERT_BATCH,
    DocumentImportResult,
    ProgressCallback,
    RunImportResult,
    TopicImportResult,
    campaign_create,
    documents_import,
    run_import,
    runs_import,
    topics_import,
)
from pooling.services.pools import (
    member_invite,
    membership_add,
    membership_remove,
    pool_build,
    pool_commit,
    pool_discard,
    qrels_set_import,
)
from pooling.services.queues import queue_next, queue_record

__all__ = [
    "DOCUMENT_BATCH",
    "INSERT_BATCH",
    "DocumentImportResult",
    "ProgressCallback",
    "RunImportResult",
    "TopicImportResult",
    "campaign_create",
    "documents_import",
    "member_invite",
    "membership_add",
    "membership_remove",
    "pool_build",
    "pool_commit",
    "pool_discard",
    "qrels_set_import",
    "queue_next",
    "queue_record",
    "run_import",
    "runs_import",
    "topics_import",
]
