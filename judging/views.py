"""Organizer pages of judging: the people of a campaign, its graded scale and the assignments."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.views.decorators.http import require_http_methods

from campaigns.errors import CampaignDataError
from campaigns.inputs import form_problems
from campaigns.models import Campaign, Membership, Topic
from campaigns.services import member_invite
from campaigns.views import organizer_page
from judging import apis
from judging.inputs import AssignmentsCreateInput, MemberInviteInput, ScaleInput
from judging.models import Assignment
from judging.selectors import campaign_assignments, campaign_grades, campaign_people
from judging.services import assignments_create, scale_set
from pooling.models import Pool


@organizer_page
@require_http_methods(["GET", "POST"])
def people(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    errors: list[str] = []
    if request.method == "POST":
        form = MemberInviteInput(data=request.POST)
        if form.is_valid():
            try:
                user, password = member_invite(
                    campaign=campaign,
                    username=form.validated_data["username"],
                    roles=form.validated_data["roles"],
                    email=form.validated_data.get("email", ""),
                )
            except CampaignDataError as exc:
                errors = exc.problems
            else:
                if password:
                    messages.success(
                        request,
                        f"account '{user.username}' created with password {password} — pass it on now, "
                        "it is not shown again",
                    )
                else:
                    messages.success(
                        request,
                        f"'{user.username}' now has the role(s) {', '.join(form.validated_data['roles'])}",
                    )
                return redirect("judging:people", slug=campaign.slug)
        else:
            errors = form_problems(form)
    return render(
        request,
        "judging/people.html",
        {
            "campaign": campaign,
            "people": campaign_people(campaign=campaign),
            "errors": errors,
            "roles": Membership.Role.values,
        },
    )


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


@organizer_page
@require_http_methods(["GET", "POST"])
def assignments(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    errors: list[str] = []
    if request.method == "POST":
        form = AssignmentsCreateInput(data=request.POST, context={"campaign": campaign})
        if form.is_valid():
            try:
                created = assignments_create(campaign=campaign, **form.validated_data["service_arguments"])
                messages.success(request, f"{len(created)} assignment(s) created")
                return redirect("judging:assignments", slug=campaign.slug)
            except CampaignDataError as exc:
                errors = exc.problems
        else:
            errors = form_problems(form)
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
            "form": request.POST,
        },
    )


page_patterns: list[URLPattern] = [
    path("campaigns/<slug:slug>/people/", people, name="people"),
    path("campaigns/<slug:slug>/scale/", scale, name="scale"),
    path("campaigns/<slug:slug>/assignments/", assignments, name="assignments"),
]
api_patterns: list[URLPattern] = [
    path("campaigns/<slug:slug>/people/", apis.PeopleApi.as_view(), name="people"),
    path("campaigns/<slug:slug>/people/invite/", apis.MemberInviteApi.as_view(), name="member_invite"),
    path("campaigns/<slug:slug>/scale/", apis.ScaleApi.as_view(), name="scale"),
    path("campaigns/<slug:slug>/scale/set/", apis.ScaleSetApi.as_view(), name="scale_set"),
    path("campaigns/<slug:slug>/assignments/", apis.AssignmentListApi.as_view(), name="assignments"),
    path(
        "campaigns/<slug:slug>/assignments/create/",
        apis.AssignmentsCreateApi.as_view(),
        name="assignments_create",
    ),
]
