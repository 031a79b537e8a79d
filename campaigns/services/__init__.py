"""Writes of the campaign kernel: the campaign, its imports (topics, runs, documents, qrels) and its members.

Every service is atomic and keyword-only.
"""

from campaigns.services.campaigns import campaign_create
from campaigns.services.import_jobs import IMPORTS, campaign_import_enqueue
from campaigns.services.imports import (
    DOCUMENT_BATCH,
    DocumentImportResult,
    RunImportResult,
    TopicImportResult,
    documents_import,
    run_import,
    runs_import,
    topics_import,
)
from campaigns.services.invitations import (
    invitation_accept,
    invitation_create,
    invitation_decline,
    invitation_withdraw,
    member_add,
)
from campaigns.services.members import member_invite, membership_add, membership_remove
from campaigns.services.qrels import qrels_set_import

__all__ = [
    "DOCUMENT_BATCH",
    "IMPORTS",
    "DocumentImportResult",
    "RunImportResult",
    "TopicImportResult",
    "campaign_create",
    "campaign_import_enqueue",
    "documents_import",
    "invitation_accept",
    "invitation_create",
    "invitation_decline",
    "invitation_withdraw",
    "member_add",
    "member_invite",
    "membership_add",
    "membership_remove",
    "qrels_set_import",
    "run_import",
    "runs_import",
    "topics_import",
]
