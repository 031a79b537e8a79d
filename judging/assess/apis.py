"""The assessor's API: an assignment's state, one document to read, one judgment to save.

One view per operation, each one selector or service, the same the page calls. Someone else's
assignment is 404 (judging is personal), a refused judgment 400 with ``{"errors": [...]}``. The
save answers with what the page needs to move on (the judgment, the next document, the progress,
and the text of the document the client reads ahead, when it asks) in a few queries, so that
save-and-next is one request and stays fast with many assessors at once.
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from campaigns.apis import CampaignApi, documented
from campaigns.errors import InputRefused
from campaigns.inputs import form_problems
from judging.assess.inputs import JudgmentInput
from judging.assess.selectors import (
    assessor_assignment,
    assignment_item,
    assignment_state,
    item_document,
    item_json,
)
from judging.models import Assignment
from judging.selectors import campaign_grades
from judging.services import JudgmentSaved, NextDocument, assignment_deal, judgment_save


def next_json(answer: NextDocument) -> dict[str, Any]:
    """Where to go next: the following document (``None`` at the end), whether all is judged, progress."""
    following = answer.following
    return {
        "next": None if following is None else {"position": following.position, "docno": following.docno},
        "done": answer.done,
        "progress": answer.progress.as_dict(),
    }


def saved_json(saved: JudgmentSaved) -> dict[str, Any]:
    judgment = saved.judgment
    mine = item_json(saved.item, judgment) | {"revision": judgment.revision, "active_ms": judgment.active_ms}
    carried = saved.document
    # what the client's next read needs (the judgment of it, if any, is in the assignment's state)
    document = (
        None if carried is None else {"position": carried[0].position, "docno": carried[0].docno} | carried[1]
    )
    return {"judgment": mine} | next_json(saved) | {"document": document}


class AssessApi(CampaignApi):
    """The assignment from the URL's ``pk``, the user's own or 404."""

    def assignment(self, request: Request, pk: int) -> Assignment:
        return assessor_assignment(user=request.user, pk=pk)


class AssignmentStateApi(AssessApi):
    @documented(operation_id="assess_state")
    def get(self, request: Request, pk: int) -> Response:
        assignment = self.assignment(request, pk)
        grades = campaign_grades(campaign=assignment.campaign)
        return Response(assignment_state(assignment=assignment, grades=grades))


class AssignmentDocumentApi(AssessApi):
    @documented(operation_id="assess_document")
    def get(self, request: Request, pk: int, position: int) -> Response:
        assignment = self.assignment(request, pk)
        item = assignment_item(assignment=assignment, position=position)
        return Response(item_document(assignment=assignment, item=item))


class JudgmentSaveApi(AssessApi):
    @documented(request=JudgmentInput, operation_id="assess_judge")
    def post(self, request: Request, pk: int) -> Response:
        assignment = self.assignment(request, pk)
        form = JudgmentInput(data=request.data)
        if not form.is_valid():
            raise InputRefused(form_problems(form))
        saved = judgment_save(assessor=request.user, assignment=assignment, **form.validated_data)  # type: ignore[arg-type]
        return Response(saved_json(saved))


class AssignmentDealApi(AssessApi):
    """``POST``: a queue assignment asks its queue for the next document (400 for other assignments)."""

    @documented(operation_id="assess_next")
    def post(self, request: Request, pk: int) -> Response:
        assignment = self.assignment(request, pk)
        answer = assignment_deal(assessor=request.user, assignment=assignment)  # type: ignore[arg-type]
        return Response(next_json(answer))
