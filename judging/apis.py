"""Judging API for organizers: people, the graded scale, assignments (one view per operation)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns.accounts.models import Invitation
from campaigns.accounts.selectors import campaign_invitations_pending
from campaigns.apis import CampaignApi, documented
from campaigns.errors import CampaignNotFound
from campaigns.models import Campaign
from campaigns.services import invitation_withdraw, member_add, membership_remove
from campaigns.services.members import (
    member_active_set,
    member_login_link,
    member_password_reset,
    member_sessions_end,
    members_create,
)
from judging.inputs import (
    AssignmentReassignInput,
    AssignmentsCreateInput,
    MemberActiveInput,
    MemberInviteInput,
    MemberRoleInput,
    MembersCreateInput,
    ScaleInput,
)
from judging.models import Assignment
from judging.selectors import (
    AssignmentProgress,
    assignment_get,
    campaign_assignments,
    campaign_grades,
    campaign_people,
    grades_json,
    member_get,
)
from judging.services import assignment_delete, assignment_reassign, assignments_create, scale_set


class PeopleOut(serializers.Serializer):
    organizer = serializers.ListField(child=serializers.CharField(), help_text="usernames")
    assessor = serializers.ListField(child=serializers.CharField(), help_text="usernames")
    adjudicator = serializers.ListField(child=serializers.CharField(), help_text="usernames")


class InvitedOut(serializers.Serializer):
    username = serializers.CharField()
    roles = serializers.ListField(child=serializers.CharField())
    password = serializers.CharField(
        required=False,
        help_text="the new account's password, given this once (only its hash is stored); with login "
        "password or both",
    )
    login_link = serializers.URLField(
        required=False,
        help_text="the one-time login link, given this once (only its digest is stored); with login link "
        "or both",
    )
    link_expires = serializers.DateTimeField(required=False)


class LoginLinkOut(serializers.Serializer):
    username = serializers.CharField()
    email = serializers.CharField(allow_blank=True)
    roles = serializers.ListField(child=serializers.CharField())
    login_link = serializers.URLField(
        help_text="opens a page whose button logs the account in, once; given this once (only its digest "
        "is stored)"
    )
    link_expires = serializers.DateTimeField()


class SessionsEndedOut(serializers.Serializer):
    username = serializers.CharField()
    sessions_ended = serializers.IntegerField()
    links_revoked = serializers.IntegerField(help_text="1 when an unused login link stopped working")


class GradeOut(serializers.Serializer):
    value = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]  # a field, popped by the metaclass
    description = serializers.CharField(allow_blank=True, required=False)
    key = serializers.CharField(allow_blank=True)


class AssignmentOut(serializers.Serializer):
    id = serializers.IntegerField()
    pool = serializers.IntegerField()
    topic = serializers.CharField()
    assessor = serializers.CharField()
    order = serializers.CharField()
    documents = serializers.IntegerField()
    judged = serializers.IntegerField()
    shared = serializers.IntegerField()
    active_seconds = serializers.FloatField()


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


def login_link_url(request: Any, token: str) -> str:
    """The login link to pass on: this site's address, as the organizer reached it, and the secret."""
    return str(request.build_absolute_uri(reverse("login_link", args=[token])))


def _member(campaign: Campaign, user_id: int) -> User:
    """The member of the URL, or 404 (never a word about accounts outside the campaign)."""
    try:
        return member_get(campaign=campaign, user_id=user_id)
    except CampaignNotFound as exc:
        raise exceptions.NotFound(str(exc)) from exc


def _assignment(campaign: Campaign, pk: int) -> Assignment:
    try:
        return assignment_get(campaign=campaign, pk=pk)
    except CampaignNotFound as exc:
        raise exceptions.NotFound(str(exc)) from exc


class PeopleApi(CampaignApi):
    @documented(ok=PeopleOut, operation_id="judging_people")
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        people = campaign_people(campaign=campaign)
        return Response({role: [u.username for u in users] for role, users in people.items()})


class InvitationOut(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    roles = serializers.ListField(child=serializers.CharField())
    status = serializers.CharField(
        help_text="pending: the roles are given when the account's owner, logged in, accepts"
    )
    created = serializers.DateTimeField()


def invitation_json(invitation: Invitation) -> dict[str, Any]:
    """An invitation as the organizer sees it: never whether an account of that username exists."""
    return {
        "id": invitation.pk,
        "username": invitation.username,
        "roles": invitation.roles,
        "status": "pending",
        "created": invitation.created,
    }


class MemberInviteApi(CampaignApi):
    # a new account: 201 with its password; an existing one: 202 with an invitation, the same answer
    # whether or not an account of that username exists (it joins only if its owner accepts)
    @extend_schema(
        request=MemberInviteInput,
        responses={201: InvitedOut, 202: InvitationOut},
        operation_id="judging_member_invite",
    )
    def post(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        form = MemberInviteInput(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        made = member_add(
            campaign=campaign,
            username=data["username"],
            roles=data["roles"],
            by=request.user,  # type: ignore[arg-type]
            existing=data["account"] == "existing",
            email=data.get("email", ""),
            login=data["login"],
        )
        if isinstance(made, Invitation):
            return Response(invitation_json(made), status=status.HTTP_202_ACCEPTED)
        body: dict[str, Any] = {"username": made.user.username, "roles": data["roles"]}
        if made.password is not None:
            body["password"] = made.password
        if made.link is not None:
            body["login_link"] = login_link_url(request, made.link)
            body["link_expires"] = made.link_expires
        return Response(body, status=status.HTTP_201_CREATED)


class MembersCreateApi(CampaignApi):
    """Many new accounts at once, each with a one-time login link (no password: none is hashed)."""

    @documented(
        request=MembersCreateInput,
        ok=LoginLinkOut(many=True),
        status_code=201,
        operation_id="judging_people_create",
    )
    def post(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        form = MembersCreateInput(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        made = members_create(
            campaign=campaign,
            accounts=data["accounts"],
            roles=data["roles"],
            by=request.user,  # type: ignore[arg-type]
            password=False,
            link=True,
        )
        roles = sorted(set(data["roles"]))
        body = [
            {
                "username": m.user.username,
                "email": m.user.email,
                "roles": roles,
                "login_link": login_link_url(request, m.link or ""),
                "link_expires": m.link_expires,
            }
            for m in made
        ]
        return Response(body, status=status.HTTP_201_CREATED)


class InvitationListApi(CampaignApi):
    @documented(ok=InvitationOut(many=True), operation_id="judging_invitations")
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        return Response([invitation_json(i) for i in campaign_invitations_pending(campaign=campaign)])


class InvitationWithdrawApi(CampaignApi):
    @documented(request=None, ok=None, status_code=204, operation_id="judging_invitation_withdraw")
    def post(self, request: Request, slug: str, pk: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        try:
            invitation_withdraw(campaign=campaign, invitation_id=pk)
        except CampaignNotFound as exc:
            raise exceptions.NotFound(str(exc)) from exc
        return Response(status=status.HTTP_204_NO_CONTENT)


class MemberRoleRemoveApi(CampaignApi):
    @documented(request=MemberRoleInput, ok=PeopleOut, operation_id="judging_member_role_remove")
    def post(self, request: Request, slug: str, user_id: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        user = _member(campaign, user_id)
        form = MemberRoleInput(data=request.data)
        form.is_valid(raise_exception=True)
        membership_remove(campaign=campaign, user=user, role=form.validated_data["role"])
        people = campaign_people(campaign=campaign)
        return Response({role: [u.username for u in users] for role, users in people.items()})


class PasswordOut(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(help_text="the new password, given this once (only its hash is stored)")


class MemberPasswordResetApi(CampaignApi):
    @documented(ok=PasswordOut, operation_id="judging_member_password_reset")
    def post(self, request: Request, slug: str, user_id: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        user = _member(campaign, user_id)
        password = member_password_reset(campaign=campaign, user=user, by=request.user)  # type: ignore[arg-type]
        return Response({"username": user.username, "password": password})


class MemberLoginLinkApi(CampaignApi):
    @documented(request=None, ok=LoginLinkOut, operation_id="judging_member_login_link")
    def post(self, request: Request, slug: str, user_id: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        user = _member(campaign, user_id)
        link, token = member_login_link(campaign=campaign, user=user, by=request.user)  # type: ignore[arg-type]
        roles = sorted(set(user.memberships.filter(campaign=campaign).values_list("role", flat=True)))
        return Response(
            {
                "username": user.username,
                "email": user.email,
                "roles": roles,
                "login_link": login_link_url(request, token),
                "link_expires": link.expires,
            }
        )


class MemberSessionsEndApi(CampaignApi):
    @documented(request=None, ok=SessionsEndedOut, operation_id="judging_member_sessions_end")
    def post(self, request: Request, slug: str, user_id: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        user = _member(campaign, user_id)
        ended, links = member_sessions_end(campaign=campaign, user=user, by=request.user)  # type: ignore[arg-type]
        return Response({"username": user.username, "sessions_ended": ended, "links_revoked": links})


class MemberActiveOut(serializers.Serializer):
    username = serializers.CharField()
    active = serializers.BooleanField()


class MemberActiveApi(CampaignApi):
    @documented(request=MemberActiveInput, ok=MemberActiveOut, operation_id="judging_member_active")
    def post(self, request: Request, slug: str, user_id: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        user = _member(campaign, user_id)
        form = MemberActiveInput(data=request.data)
        form.is_valid(raise_exception=True)
        user = member_active_set(
            campaign=campaign,
            user=user,
            by=request.user,  # type: ignore[arg-type]
            active=form.validated_data["active"],
        )
        return Response({"username": user.username, "active": user.is_active})


class ScaleApi(CampaignApi):
    @documented(ok=GradeOut(many=True), operation_id="judging_scale")
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        return Response(grades_json(campaign_grades(campaign=campaign)))


class ScaleSetApi(CampaignApi):
    @documented(request=ScaleInput, ok=GradeOut(many=True), operation_id="judging_scale_set")
    def post(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        form = ScaleInput(data=request.data)
        form.is_valid(raise_exception=True)
        grades = scale_set(campaign=campaign, **form.validated_data["service_arguments"])
        return Response([{"value": g.value, "label": g.label, "key": g.key} for g in grades])


class AssignmentListApi(CampaignApi):
    @documented(ok=AssignmentOut(many=True), operation_id="judging_assignments")
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        return Response([_assignment_json(r) for r in campaign_assignments(campaign=campaign)])


class AssignmentsCreateApi(CampaignApi):
    @documented(
        request=AssignmentsCreateInput,
        ok=AssignmentOut(many=True),
        status_code=201,
        operation_id="judging_assignments_create",
    )
    def post(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        form = AssignmentsCreateInput(data=request.data, context={"campaign": campaign})
        form.is_valid(raise_exception=True)
        created = assignments_create(campaign=campaign, **form.validated_data["service_arguments"])
        ids = [a.pk for a in created]
        rows = [r for r in campaign_assignments(campaign=campaign) if r.assignment.pk in set(ids)]
        return Response([_assignment_json(r) for r in rows], status=status.HTTP_201_CREATED)


class AssignmentReassignApi(CampaignApi):
    @documented(request=AssignmentReassignInput, ok=AssignmentOut, operation_id="judging_assignment_reassign")
    def post(self, request: Request, slug: str, pk: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        assignment = _assignment(campaign, pk)
        form = AssignmentReassignInput(data=request.data, context={"campaign": campaign})
        form.is_valid(raise_exception=True)
        moved = assignment_reassign(
            campaign=campaign, assignment=assignment, assessor=form.validated_data["assessor"]
        )
        (row,) = [r for r in campaign_assignments(campaign=campaign) if r.assignment.pk == moved.pk]
        return Response(_assignment_json(row))


class AssignmentDeleteApi(CampaignApi):
    @documented(ok=None, status_code=204, operation_id="judging_assignment_delete")
    def post(self, request: Request, slug: str, pk: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        assignment_delete(campaign=campaign, assignment=_assignment(campaign, pk))
        return Response(status=status.HTTP_204_NO_CONTENT)
