"""Judging API for organizers: people, the graded scale, assignments (one view per operation)."""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns.apis import CampaignApi, documented
from campaigns.services import member_invite
from judging.inputs import AssignmentsCreateInput, MemberInviteInput, ScaleInput
from judging.selectors import (
    AssignmentProgress,
    campaign_assignments,
    campaign_grades,
    campaign_people,
    grades_json,
)
from judging.services import assignments_create, scale_set


def _assignment_json(row: AssignmentProgress) -> dict[str, Any]:
    a = row.assignment
    return {
        "id": a.pk,
        "pool": a.pool_id,
        "topic": a.topic.number,
        "assessor": a.assessor.username,
        "order": a.order,
        "documents": row.total,
        "judged": row.judged,
        "shared": row.shared,
        "active_seconds": round(row.active_seconds, 3),
    }


class PeopleApi(CampaignApi):
    @documented(operation_id="judging_people")
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        people = campaign_people(campaign=campaign)
        return Response({role: [u.username for u in users] for role, users in people.items()})


class MemberInviteApi(CampaignApi):
    @documented(request=MemberInviteInput, status_code=201, operation_id="judging_member_invite")
    def post(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        form = MemberInviteInput(data=request.data)
        form.is_valid(raise_exception=True)
        user, password = member_invite(
            campaign=campaign,
            username=form.validated_data["username"],
            roles=form.validated_data["roles"],
            email=form.validated_data.get("email", ""),
        )
        body = {"username": user.username, "roles": form.validated_data["roles"], "password": password}
        return Response(body, status=status.HTTP_201_CREATED if password else status.HTTP_200_OK)


class ScaleApi(CampaignApi):
    @documented(operation_id="judging_scale")
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        return Response(grades_json(campaign_grades(campaign=campaign)))


class ScaleSetApi(CampaignApi):
    @documented(request=ScaleInput, operation_id="judging_scale_set")
    def post(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        form = ScaleInput(data=request.data)
        form.is_valid(raise_exception=True)
        grades = scale_set(campaign=campaign, **form.validated_data["service_arguments"])
        return Response([{"value": g.value, "label": g.label, "key": g.key} for g in grades])


class AssignmentListApi(CampaignApi):
    @documented(operation_id="judging_assignments")
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        return Response([_assignment_json(r) for r in campaign_assignments(campaign=campaign)])


class AssignmentsCreateApi(CampaignApi):
    @documented(request=AssignmentsCreateInput, status_code=201, operation_id="judging_assignments_create")
    def post(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        form = AssignmentsCreateInput(data=request.data, context={"campaign": campaign})
        form.is_valid(raise_exception=True)
        created = assignments_create(campaign=campaign, **form.validated_data["service_arguments"])
        ids = [a.pk for a in created]
        rows = [r for r in campaign_assignments(campaign=campaign) if r.assignment.pk in set(ids)]
        return Response([_assignment_json(r) for r in rows], status=status.HTTP_201_CREATED)
