"""Organizer pages of judging: the people of a campaign, its graded scale and the assignments."""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.views.decorators.http import require_http_methods, require_POST

from campaigns.accounts.models import Invitation
from campaigns.accounts.selectors import campaign_invitations_pending
from campaigns.errors import CampaignDataError, CampaignNotFound
from campaigns.inputs import form_problems, validated
from campaigns.models import Campaign, Membership, Topic
from campaigns.services import invitation_withdraw, member_add, membership_remove
from campaigns.services.members import (
    MAX_NEW_ACCOUNTS,
    member_active_set,
    member_login_link,
    member_password_reset,
    member_sessions_end,
    members_create,
)
from campaigns.views import organizer_page, refusals_as_messages
from judging import apis, machines
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
    assignment_get,
    campaign_assignments,
    campaign_grades,
    campaign_members,
    campaign_people,
    member_get,
)
from judging.services import assignment_delete, assignment_reassign, assignments_create, scale_set
from pooling.models import Pool
from trec.csvout import SafeWriter

REVEALED = "judging_revealed_password"
LINKS_REVEALED = "judging_revealed_links"


def _reveal(request: HttpRequest, username: str, password: str) -> None:
    """Keep a generated password for the next page only: shown once, with a copy button."""
    request.session[REVEALED] = {"username": username, "password": password}


def _reveal_links(request: HttpRequest, rows: list[dict[str, Any]]) -> None:
    """Keep new login links (username, email, link, expires) for the next page only: shown once, in
    a table and as CSV. Only their digests are stored; the session holds them until that page pops them."""
    request.session[LINKS_REVEALED] = rows


def _link_row(request: HttpRequest, user: User, token: str, expires: datetime) -> dict[str, Any]:
    return {
        "username": user.username,
        "email": user.email,
        "link": apis.login_link_url(request, token),
        "expires": expires.isoformat(timespec="seconds"),
    }


def links_csv(rows: list[dict[str, Any]]) -> str:
    """The revealed links as CSV (username, email, login_link, expires), cells safe for spreadsheets."""
    out = io.StringIO()
    writer = SafeWriter(out)
    writer.writerow(["username", "email", "login_link", "expires"])
    writer.writerows([r["username"], r["email"], r["link"], r["expires"]] for r in rows)
    return out.getvalue()


def _links_shown(request: HttpRequest, campaign: Campaign) -> dict[str, Any] | None:
    rows = request.session.pop(LINKS_REVEALED, None)
    if not rows:
        return None
    for r in rows:
        r["expires_at"] = datetime.fromisoformat(r["expires"])
    return {"rows": rows, "csv": links_csv(rows), "filename": f"{campaign.slug}-login-links.csv"}


@organizer_page
@require_http_methods(["GET", "POST"])
def people(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    errors: list[str] = []
    if request.method == "POST":
        try:
            data = validated(MemberInviteInput(data=request.POST))
            made = member_add(
                campaign=campaign,
                username=data["username"],
                roles=data["roles"],
                by=request.user,  # type: ignore[arg-type]
                existing=data["account"] == "existing",
                email=data.get("email", ""),
                login=data["login"],
            )
        except CampaignDataError as exc:
            errors = exc.problems
        else:
            if isinstance(made, Invitation):
                # the same sentence whether or not such an account exists
                messages.success(
                    request,
                    f"'{made.username}' is invited as {', '.join(made.roles)}: if an account of "
                    "exactly that name exists, its owner sees the invitation when logged in, and takes the "
                    "roles by accepting it",
                )
            else:
                user = made.user
                if made.password is not None:
                    _reveal(request, user.username, made.password)
                if made.link is not None and made.link_expires is not None:
                    _reveal_links(request, [_link_row(request, user, made.link, made.link_expires)])
                given = " and ".join(
                    w
                    for w in (
                        f"password {made.password}" if made.password else "",
                        "a one-time login link" if made.link else "",
                    )
                    if w
                )
                messages.success(
                    request,
                    f"account '{user.username}' created with {given} — pass it on now, it is not shown again",
                )
            return redirect("judging:people", slug=campaign.slug)
    return render(
        request,
        "judging/people.html",
        {
            "campaign": campaign,
            "people": campaign_people(campaign=campaign),
            "members": campaign_members(campaign=campaign, viewer=request.user),  # type: ignore[arg-type]
            "invitations": campaign_invitations_pending(campaign=campaign),
            "revealed": request.session.pop(REVEALED, None),
            "links": _links_shown(request, campaign),
            "many_form": request.session.pop("people_many_form", {}),
            "max_new_accounts": MAX_NEW_ACCOUNTS,
            "session_days": settings.SESSION_COOKIE_AGE // (24 * 3600),
            "errors": errors,
            "roles": Membership.Role.values,
            "form": request.POST,
            "machines": [machines.machine_json(j) for j in machines.machine_judges(campaign)],
            "machine_form": request.session.pop("machine_form", {}),
            "prompts": machines.PROMPTS,
            "endpoints": sorted(machines.declared_endpoints()),
            "no_endpoint": machines.NO_ENDPOINT,
        },
    )


@organizer_page
@require_POST
def people_create_many(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    """Many new accounts at once from the People page's box, each with a one-time login link."""
    try:
        data = validated(MembersCreateInput(data=request.POST))
        made = members_create(
            campaign=campaign,
            accounts=data["accounts"],
            roles=data["roles"],
            by=request.user,  # type: ignore[arg-type]
            password=False,
            link=True,
        )
    except CampaignDataError as exc:
        for problem in exc.problems:
            messages.error(request, problem)
        # the box keeps what was typed, to correct it
        request.session["people_many_form"] = {
            "lines": request.POST.get("lines", ""),
            "roles": request.POST.getlist("roles"),
        }
        return redirect("judging:people", slug=campaign.slug)
    _reveal_links(
        request,
        [_link_row(request, m.user, m.link, m.link_expires) for m in made if m.link and m.link_expires],
    )
    n = len(made)
    messages.success(
        request,
        f"{n} account{'' if n == 1 else 's'} created, each with a one-time login link — pass them on now "
        "(below, or as CSV), they are not shown again",
    )
    return redirect("judging:people", slug=campaign.slug)


def _act_and_return[T](
    request: HttpRequest, find: Callable[[], T], act: Callable[[T], str], back: HttpResponseBase
) -> HttpResponseBase:
    """One action of an organizer page on one object: 404 when ``find`` finds none; the action's
    sentence, or its refusal, is the next page's message; then back to the page."""
    try:
        target = find()
    except CampaignDataError as exc:
        raise Http404(str(exc)) from exc
    with refusals_as_messages(request):
        messages.success(request, act(target))
    return back


def _member_action(
    request: HttpRequest, campaign: Campaign, user_id: int, act: Callable[[User], str]
) -> HttpResponseBase:
    """Run one action on a member from the people page."""
    return _act_and_return(
        request,
        lambda: member_get(campaign=campaign, user_id=user_id),
        act,
        redirect("judging:people", slug=campaign.slug),
    )


@organizer_page
@require_POST
def member_role_remove(request: HttpRequest, campaign: Campaign, user_id: int) -> HttpResponseBase:
    def act(user: User) -> str:
        role = validated(MemberRoleInput(data=request.POST))["role"]
        membership_remove(campaign=campaign, user=user, role=role)
        return f"'{user.username}' is no longer {role}"

    return _member_action(request, campaign, user_id, act)


@organizer_page
@require_POST
def member_password_reset_page(request: HttpRequest, campaign: Campaign, user_id: int) -> HttpResponseBase:
    def act(user: User) -> str:
        password = member_password_reset(campaign=campaign, user=user, by=request.user)  # type: ignore[arg-type]
        _reveal(request, user.username, password)
        return f"new password for '{user.username}': pass it on now, it is not shown again"

    return _member_action(request, campaign, user_id, act)


@organizer_page
@require_POST
def member_login_link_page(request: HttpRequest, campaign: Campaign, user_id: int) -> HttpResponseBase:
    def act(user: User) -> str:
        link, token = member_login_link(campaign=campaign, user=user, by=request.user)  # type: ignore[arg-type]
        _reveal_links(request, [_link_row(request, user, token, link.expires)])
        return (
            f"new login link for '{user.username}' (any earlier one no longer works): pass it on now, "
            "it is not shown again"
        )

    return _member_action(request, campaign, user_id, act)


@organizer_page
@require_POST
def member_sessions_end_page(request: HttpRequest, campaign: Campaign, user_id: int) -> HttpResponseBase:
    def act(user: User) -> str:
        ended, links = member_sessions_end(campaign=campaign, user=user, by=request.user)  # type: ignore[arg-type]
        sessions = f"{ended} session{'' if ended == 1 else 's'} ended" if ended else "no session was open"
        revoked = "; its unused login link no longer works" if links else ""
        return f"'{user.username}' must log in again: {sessions}{revoked}"

    return _member_action(request, campaign, user_id, act)


@organizer_page
@require_POST
def member_active(request: HttpRequest, campaign: Campaign, user_id: int) -> HttpResponseBase:
    def act(user: User) -> str:
        active = validated(MemberActiveInput(data=request.POST))["active"]
        member_active_set(campaign=campaign, user=user, by=request.user, active=active)  # type: ignore[arg-type]
        what = "can log in again" if active else "is deactivated: they can no longer log in"
        return f"'{user.username}' {what}"

    return _member_action(request, campaign, user_id, act)


@organizer_page
@require_POST
def invitation_withdraw_page(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponseBase:
    try:
        invitation = invitation_withdraw(campaign=campaign, invitation_id=pk)
    except CampaignNotFound as exc:
        raise Http404(str(exc)) from exc
    messages.success(request, f"the invitation of '{invitation.username}' is withdrawn")
    return redirect("judging:people", slug=campaign.slug)


@organizer_page
@require_http_methods(["GET", "POST"])
def scale(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    errors: list[str] = []
    if request.method == "POST":
        levels = [
            {
                "value": request.POST.get(f"value-{i}", ""),
                "label": request.POST.get(f"label-{i}", ""),
                "description": request.POST.get(f"description-{i}", ""),
                "key": request.POST.get(f"key-{i}", ""),
            }
            for i in range(10)
            if request.POST.get(f"label-{i}", "").strip()
        ]
        form = ScaleInput(data={"levels": levels})
        if form.is_valid():
            try:
                scale_set(campaign=campaign, **form.validated_data["service_arguments"])
                messages.success(request, "scale saved")
                return redirect("judging:scale", slug=campaign.slug)
            except CampaignDataError as exc:
                errors = exc.problems
        else:
            errors = form_problems(form) or ["check the grades"]
    grades = campaign_grades(campaign=campaign)
    rows: list[Any] = list(grades) + [None] * max(0, 6 - len(grades))
    return render(request, "judging/scale.html", {"campaign": campaign, "rows": rows, "errors": errors})


# The assignments form as last sent, per campaign in the session: it comes back filled in after
# assignments are created (the next topics are often dealt with the same settings) and after a
# refusal, as typed. Values are the form's strings; lists for the checkable lists.
ASSIGNMENT_FORM = "judging_assignment_form"
ASSIGNMENT_FORM_DEFAULTS: dict[str, Any] = {
    "pool": "",
    "assessors": [],
    "topics": [],
    "overlap": "k",
    "k": "1",
    "sample_percent": "10",
    "min_pair": "0",
    "order": Assignment.Order.RANDOM,
    "seed": "0",
    "budget": "",
}


def _assignment_form(data: Any) -> dict[str, Any]:
    """The form's fields out of a POST (or what the session kept), each as the form shows it."""
    out: dict[str, Any] = {}
    for key, default in ASSIGNMENT_FORM_DEFAULTS.items():
        if isinstance(default, list):
            chosen = data.getlist(key) if hasattr(data, "getlist") else data.get(key, [])
            out[key] = [str(v) for v in chosen]
        else:
            out[key] = str(data.get(key, default))
    return out


@organizer_page
@require_http_methods(["GET", "POST"])
def assignments(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    errors: list[str] = []
    kept = f"{ASSIGNMENT_FORM}:{campaign.pk}"
    if request.method == "POST":
        values = _assignment_form(request.POST)
        form = AssignmentsCreateInput(data=request.POST, context={"campaign": campaign})
        if form.is_valid():
            try:
                created = assignments_create(campaign=campaign, **form.validated_data["service_arguments"])
                messages.success(request, f"{len(created)} assignment(s) created")
                request.session[kept] = values
                return redirect("judging:assignments", slug=campaign.slug)
            except CampaignDataError as exc:
                errors = exc.problems
        else:
            errors = form_problems(form)
    else:
        values = _assignment_form(request.session.get(kept, {}))
    return render(
        request,
        "judging/assignments.html",
        {
            "campaign": campaign,
            "rows": campaign_assignments(campaign=campaign),
            "pools": Pool.objects.filter(campaign=campaign, status=Pool.Status.COMMITTED).order_by("name"),
            "assessors": campaign_people(campaign=campaign)[Membership.Role.ASSESSOR],
            "topics": Topic.objects.filter(campaign=campaign).order_by("number"),
            "orders": Assignment.Order.values,
            "errors": errors,
            "form": values,
        },
    )


def _assignment_action(
    request: HttpRequest, campaign: Campaign, pk: int, act: Callable[[Assignment], str]
) -> HttpResponseBase:
    """Run one action on an assignment from the assignments page."""
    return _act_and_return(
        request,
        lambda: assignment_get(campaign=campaign, pk=pk),
        act,
        redirect("judging:assignments", slug=campaign.slug),
    )


@organizer_page
@require_POST
def assignment_reassign_page(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponseBase:
    def act(assignment: Assignment) -> str:
        data = validated(AssignmentReassignInput(data=request.POST, context={"campaign": campaign}))
        moved = assignment_reassign(campaign=campaign, assignment=assignment, assessor=data["assessor"])
        who, topic = assignment.assessor.username, assignment.topic.number
        return f"topic {topic}: what {who} had not judged is now {moved.assessor.username}'s"

    return _assignment_action(request, campaign, pk, act)


@organizer_page
@require_POST
def assignment_delete_page(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponseBase:
    def act(assignment: Assignment) -> str:
        assignment_delete(campaign=campaign, assignment=assignment)
        who, topic = assignment.assessor.username, assignment.topic.number
        return f"assignment of topic {topic} to {who} released (its judgments are kept)"

    return _assignment_action(request, campaign, pk, act)


page_patterns: list[URLPattern] = [
    path("campaigns/<slug:slug>/people/", people, name="people"),
    path("campaigns/<slug:slug>/scale/", scale, name="scale"),
    path("campaigns/<slug:slug>/assignments/", assignments, name="assignments"),
    path(
        "campaigns/<slug:slug>/people/<int:user_id>/remove-role/",
        member_role_remove,
        name="member_role_remove",
    ),
    path(
        "campaigns/<slug:slug>/people/<int:user_id>/password/",
        member_password_reset_page,
        name="member_password_reset",
    ),
    path("campaigns/<slug:slug>/people/<int:user_id>/active/", member_active, name="member_active"),
    path("campaigns/<slug:slug>/people/create/", people_create_many, name="people_create_many"),
    path(
        "campaigns/<slug:slug>/people/<int:user_id>/login-link/",
        member_login_link_page,
        name="member_login_link",
    ),
    path(
        "campaigns/<slug:slug>/people/<int:user_id>/end-sessions/",
        member_sessions_end_page,
        name="member_sessions_end",
    ),
    path(
        "campaigns/<slug:slug>/invitations/<int:pk>/withdraw/",
        invitation_withdraw_page,
        name="invitation_withdraw",
    ),
    path(
        "campaigns/<slug:slug>/assignments/<int:pk>/reassign/",
        assignment_reassign_page,
        name="assignment_reassign",
    ),
    path(
        "campaigns/<slug:slug>/assignments/<int:pk>/delete/", assignment_delete_page, name="assignment_delete"
    ),
]
api_patterns: list[URLPattern] = [
    path(
        "campaigns/<slug:slug>/people/<int:user_id>/remove-role/",
        apis.MemberRoleRemoveApi.as_view(),
        name="member_role_remove",
    ),
    path(
        "campaigns/<slug:slug>/people/<int:user_id>/password/",
        apis.MemberPasswordResetApi.as_view(),
        name="member_password_reset",
    ),
    path(
        "campaigns/<slug:slug>/people/<int:user_id>/active/",
        apis.MemberActiveApi.as_view(),
        name="member_active",
    ),
    path(
        "campaigns/<slug:slug>/people/<int:user_id>/login-link/",
        apis.MemberLoginLinkApi.as_view(),
        name="member_login_link",
    ),
    path(
        "campaigns/<slug:slug>/people/<int:user_id>/end-sessions/",
        apis.MemberSessionsEndApi.as_view(),
        name="member_sessions_end",
    ),
    path("campaigns/<slug:slug>/people/create/", apis.MembersCreateApi.as_view(), name="people_create"),
    path(
        "campaigns/<slug:slug>/assignments/<int:pk>/reassign/",
        apis.AssignmentReassignApi.as_view(),
        name="assignment_reassign",
    ),
    path(
        "campaigns/<slug:slug>/assignments/<int:pk>/delete/",
        apis.AssignmentDeleteApi.as_view(),
        name="assignment_delete",
    ),
    path("campaigns/<slug:slug>/people/", apis.PeopleApi.as_view(), name="people"),
    path("campaigns/<slug:slug>/people/invite/", apis.MemberInviteApi.as_view(), name="member_invite"),
    path("campaigns/<slug:slug>/invitations/", apis.InvitationListApi.as_view(), name="invitations"),
    path(
        "campaigns/<slug:slug>/invitations/<int:pk>/withdraw/",
        apis.InvitationWithdrawApi.as_view(),
        name="invitation_withdraw",
    ),
    path("campaigns/<slug:slug>/scale/", apis.ScaleApi.as_view(), name="scale"),
    path("campaigns/<slug:slug>/scale/set/", apis.ScaleSetApi.as_view(), name="scale_set"),
    path("campaigns/<slug:slug>/assignments/", apis.AssignmentListApi.as_view(), name="assignments"),
    path(
        "campaigns/<slug:slug>/assignments/create/",
        apis.AssignmentsCreateApi.as_view(),
        name="assignments_create",
    ),
]
