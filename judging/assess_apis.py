"""The assessor's API: an assignment's state, one document to read, one judgment to save.

One view per operation. Someone else's assignment is 404 (judging is personal), a refused
judgment 400 with ``{"errors": [...]}``. The save answers with what the page needs to move on
(the judgment, the progress, and for a queue assignment the next document) in a few queries, so
save-and-next stays fast with many assessors at once.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns.apis import CampaignApi, documented
from campaigns.inputs import form_problems
from campaigns.validation import DOCNO_MAX_LENGTH
from judging.assess_selectors import (
    assessor_assignment,
    assignment_item,
    assignment_progress,
    assignment_state,
    item_document,
    item_json,
    judgment_target,
)
from judging.models import Assignment, AssignmentItem, Judgment
from judging.services import JudgingRefused, assignment_next_item, campaign_scale, judgment_record

COMMENT_MAX = 10_000


class JudgmentInput(serializers.Serializer):
    """A judgment as the page's form or the API's JSON gives it: the document, then a grade or
    "can't judge", an optional comment and the active (not idle) milliseconds spent on it."""

    position = serializers.IntegerField(required=False, min_value=1)
    docno = serializers.CharField(required=False, max_length=DOCNO_MAX_LENGTH, trim_whitespace=False)
    grade = serializers.IntegerField(required=False, allow_null=True)
    cant_judge = serializers.BooleanField(required=False, default=False)
    comment = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=COMMENT_MAX, trim_whitespace=False
    )
    active_ms = serializers.IntegerField(required=False, min_value=0, default=0)

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if data.get("position") is None and not data.get("docno"):
            raise serializers.ValidationError("say which document: its position or its docno")
        return data


def judgment_json(item: AssignmentItem, judgment: Judgment) -> dict[str, Any]:
    return item_json(item, judgment) | {"revision": judgment.revision, "active_ms": judgment.active_ms}


def queue_top_up(assignment: Assignment) -> tuple[bool, AssignmentItem | None]:
    """For a queue assignment whose items are all judged, ask the queue for its next document.

    Asking is idempotent (the queue hands out the same document until it is graded). Returns
    whether the queue is done, and the item it wants judged (new, or one judged "can't judge",
    which the queue does not count as graded).
    """
    if assignment.order != Assignment.Order.QUEUE:
        return False, None
    progress = assignment_progress(assignment=assignment)
    if progress.judged < progress.items:
        return False, None
    item = assignment_next_item(assignment=assignment)
    return item is None, item


class AssessApi(CampaignApi):
    """The assignment from the URL's ``pk``, the user's own or 404."""

    def assignment(self, request: Request, pk: int) -> Assignment:
        return assessor_assignment(user=request.user, pk=pk)


class AssignmentStateApi(AssessApi):
    @documented(operation_id="assess_state")
    def get(self, request: Request, pk: int) -> Response:
        assignment = self.assignment(request, pk)
        done, _ = queue_top_up(assignment)
        grades = campaign_scale(campaign=assignment.campaign)
        return Response(assignment_state(assignment=assignment, grades=grades, done=done))


class AssignmentDocumentApi(AssessApi):
    @documented(operation_id="assess_document")
    def get(self, request: Request, pk: int, position: int) -> Response:
        assignment = self.assignment(request, pk)
        item = assignment_item(assignment=assignment, position=position)
        return Response(item_document(assignment=assignment, item=item))


class JudgmentRecordApi(AssessApi):
    @documented(request=JudgmentInput, operation_id="assess_judge")
    def post(self, request: Request, pk: int) -> Response:
        assignment = self.assignment(request, pk)
        form = JudgmentInput(data=request.data)
        if not form.is_valid():
            raise JudgingRefused(form_problems(form))
        data = form.validated_data
        item = judgment_target(assignment, data)
        cant_judge = data["cant_judge"]
        judgment = judgment_record(
            assessor=request.user,  # type: ignore[arg-type]
            assignment=assignment,
            docno=item.docno,
            grade=data.get("grade"),
            cant_judge=cant_judge,
            comment=data["comment"],
            active_ms=data["active_ms"],
            item=item,
        )
        out: dict[str, Any] = {"judgment": judgment_json(item, judgment), "next": None, "done": False}
        if assignment.order == Assignment.Order.QUEUE:
            following = assignment_next_item(assignment=assignment)
            out["done"] = following is None
            if following is not None:
                out["next"] = {"position": following.position, "docno": following.docno}
        out["progress"] = assignment_progress(assignment=assignment).as_dict()
        return Response(out)
