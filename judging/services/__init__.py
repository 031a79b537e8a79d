"""Writes of judging: the scale, assignments, judgments (with history), adjudication, the agreement job.

Every write of the app is here, one service per operation, called alike by the pages, the API and
the commands.
"""

from judging.errors import JudgingRefused
from judging.services.adjudication import AdjudicationDecided, adjudication_decide, adjudication_withdraw
from judging.services.adjudication_settings import adjudication_settings_set
from judging.services.agreement import agreement_report_start
from judging.services.assignments import (
    assignment_delete,
    assignment_next_item,
    assignment_reassign,
    assignments_create,
)
from judging.services.judgments import (
    JudgmentSaved,
    NextDocument,
    assignment_deal,
    judgment_record,
    judgment_save,
)
from judging.services.scale import grade_check, scale_ensure, scale_set, scale_values

__all__ = [
    "AdjudicationDecided",
    "JudgingRefused",
    "JudgmentSaved",
    "NextDocument",
    "adjudication_decide",
    "adjudication_settings_set",
    "adjudication_withdraw",
    "agreement_report_start",
    "assignment_deal",
    "assignment_delete",
    "assignment_next_item",
    "assignment_reassign",
    "assignments_create",
    "grade_check",
    "judgment_record",
    "judgment_save",
    "scale_ensure",
    "scale_set",
    "scale_values",
]
