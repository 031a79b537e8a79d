"""Pages of adjudication, the agreement report and the exports (inputs and services shared with the API).

Adjudicators and organizers read disagreements and agreement; assessors are refused (403), so
they never see another assessor's labels; people with no role in the campaign get 404.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns import access
from campaigns.errors import CampaignDataError
from campaigns.inputs import form_problems, validated
from campaigns.models import Campaign
from campaigns.selectors import campaign_runs
from campaigns.views import campaign_page, organizer_page, page_campaign, refusals_as_messages
from judging.agreement import DEFAULT_MEASURES
from judging.consensus import MACHINE_RULES, RULES
from judging.exports import ADJUDICATOR_KINDS, EXPORT_KINDS, export_roles
from judging.reports.adjudication import machine_names, page_state
from judging.reports.downloads import WITHHELD_HEADER, export_download
from judging.reports.inputs import (
    AdjudicationQueueInput,
    AdjudicationSettingsInput,
    AgreementInput,
    DecisionInput,
    ExportInput,
    WithdrawInput,
)
from judging.reports.selectors import (
    KIND_NAMES,
    READERS,
    adjudication_queue,
    agreement_jobs,
    machine_rule_counts,
    machine_rule_get,
    topic_numbers_judged,
    withheld_count,
)
from judging.selectors import campaign_assessors, campaign_grades
from judging.services import (
    adjudication_decide,
    adjudication_settings_set,
    adjudication_withdraw,
    agreement_report_start,
)
from pooling.selectors import campaign_pools

reader_page = campaign_page(*READERS)


# ------------------------------------------------------------------------------- adjudication


def _queue_url(campaign: Campaign, show: str, topic: str, kind: str, item: int | None = None) -> str:
    """The adjudication page of a view (``show``, ``topic``, ``kind``), at its ``item``-th
    disagreement."""
    query = (
        {"show": show}
        | ({"kind": kind} if kind != "all" else {})
        | ({"topic": topic} if topic else {})
        | ({"item": item} if item else {})
    )
    return f"{reverse('judging:adjudication', args=[campaign.slug])}?{urlencode(query)}"


@reader_page
@require_GET
def adjudication(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """One disagreement at a time (``?item=``), with a form per decision; adjudicate.js makes it a
    keyboard page that saves through the API and never reloads."""
    form = AdjudicationQueueInput(data=request.GET)
    data: dict[str, Any] = (
        form.validated_data if form.is_valid() else {"show": "open", "kind": "all", "topic": "", "item": 1}
    )
    show, topic, kind = data["show"], data["topic"], data["kind"]
    queue = adjudication_queue(campaign=campaign, show=show, kind=kind, viewer=request.user)
    shown = [r for r in queue.rows if not topic or r.topic == topic]
    index = min(data["item"], len(shown) + 1) - 1  # past the last: the end of the list
    state = page_state(
        campaign=campaign,
        queue=queue,
        shown=shown,
        index=index,
        viewer=request.user,
        show=show,
        topic=topic,
        kind=kind,
        urls={
            "page": reverse("judging:adjudication", args=[campaign.slug]),
            "item": reverse("judging_api:adjudication_item", args=[campaign.slug]),
            "decide": reverse("judging_api:adjudication_decide", args=[campaign.slug]),
            "withdraw": reverse("judging_api:adjudication_withdraw", args=[campaign.slug]),
        },
    )
    current = state["current"]
    position = index + 1
    # the form's way on: in the open view a decided disagreement leaves it, so the next one takes
    # its place; in the others it stays, and the next one is one further
    after = position if show == "open" else position + 1
    grades = campaign_grades(campaign=campaign)
    return render(
        request,
        "judging/adjudicate.html",
        {
            "campaign": campaign,
            "queue": queue,
            "current": current,
            "decision": current["decision"] if current else None,
            "position": position,
            "count": len(shown),
            "previous_url": _queue_url(campaign, show, topic, kind, position - 1) if position > 1 else "",
            "next_url": _queue_url(campaign, show, topic, kind, position + 1)
            if position <= len(shown)
            else "",
            "after_url": _queue_url(campaign, show, topic, kind, after),
            "grades": grades,
            "show": show,
            "kind": kind,
            "kind_names": KIND_NAMES,
            "kind_name": KIND_NAMES[kind],
            "kind_counts": [(k, KIND_NAMES[k], c) for k, c in queue.by_kind.items()],
            "machine_rule": MACHINE_RULES[queue.machine_rule],
            # the kinds, their counts and the rule mean something only with machine assessors
            "has_machines": bool(machine_names(campaign=campaign)) or kind != "all",
            "topic": topic,
            "topics": topic_numbers_judged(campaign=campaign),
            "is_organizer": access.has_role(request.user, campaign, access.Role.ORGANIZER),
            "state": state,
        },
    )


def _back(request: HttpRequest, campaign: Campaign) -> str:
    """Where to go after a decision: the queue page the form was on, never somewhere else."""
    back = reverse("judging:adjudication", args=[campaign.slug])
    target = request.POST.get("next", "")
    if target.startswith(back) and url_has_allowed_host_and_scheme(target, allowed_hosts=None):
        return target
    return back


@reader_page
@require_POST
def adjudication_decide_page(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    with refusals_as_messages(request):
        data = validated(DecisionInput(data=request.POST))
        decided = adjudication_decide(adjudicator=request.user, campaign=campaign, **data)  # type: ignore[arg-type]
        d = decided.decision
        messages.success(request, f"topic {data['topic']}, {d.docno}: final grade {d.grade}")
    return redirect(_back(request, campaign))


@reader_page
@require_POST
def adjudication_withdraw_page(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    with refusals_as_messages(request):
        data = validated(WithdrawInput(data=request.POST))
        adjudication_withdraw(adjudicator=request.user, campaign=campaign, **data)  # type: ignore[arg-type]
        messages.success(request, f"topic {data['topic']}, {data['docno']}: decision withdrawn, open again")
    return redirect(_back(request, campaign))


# ---------------------------------------------------------------------------------- agreement


@reader_page
@require_http_methods(["GET", "POST"])
def agreement(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    errors: list[str] = []
    organizer = access.has_role(request.user, campaign, access.Role.ORGANIZER)
    if request.method == "POST":
        form = AgreementInput(data=request.POST)
        if form.is_valid():
            data = form.validated_data
            try:
                job = agreement_report_start(
                    campaign=campaign,
                    user=request.user,  # type: ignore[arg-type]
                    params=data["params"],
                    decimals=data["decimals"],
                )
            except CampaignDataError as exc:
                errors = exc.problems
            else:
                return redirect("jobs:job", job_id=job.id)
        else:
            errors = form_problems(form)
    return render(
        request,
        "judging/report.html",
        {
            "campaign": campaign,
            "errors": errors,
            "form": request.POST if request.method == "POST" else {},
            "assessors": campaign_assessors(campaign=campaign),
            # run names and scores are the organizers' (an adjudicator may be a participant)
            "is_organizer": organizer,
            "run_count": campaign_runs(campaign=campaign).count() if organizer else 0,
            "default_measures": " ".join(DEFAULT_MEASURES),
            "jobs": agreement_jobs(campaign=campaign, user=request.user),
        },
        status=400 if errors else 200,
    )


# ------------------------------------------------------------------------------------ exports


@reader_page
@require_GET
def exports(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    organizer = access.has_role(request.user, campaign, access.Role.ORGANIZER)
    kinds = EXPORT_KINDS if organizer else tuple(k for k in EXPORT_KINDS if k in ADJUDICATOR_KINDS)
    return render(
        request,
        "judging/report_exports.html",
        {
            "campaign": campaign,
            "kinds": kinds,
            "organizer": organizer,
            "assessors": campaign_assessors(campaign=campaign) if organizer else [],
            "pools": list(campaign_pools(campaign=campaign)) if organizer else [],
            "rules": RULES,
            "withheld": withheld_count(campaign=campaign, user=request.user),
            "withheld_header": WITHHELD_HEADER,
        },
    )


@login_required
@require_GET
def export(request: HttpRequest, slug: str, kind: str) -> HttpResponseBase:
    campaign = page_campaign(request, slug, *export_roles(kind))
    try:
        data = validated(ExportInput(data=request.GET))
        return export_download(campaign=campaign, kind=kind, data=data, user=request.user)
    except CampaignDataError as exc:
        return HttpResponse("\n".join(exc.problems), status=400, content_type="text/plain")


# ------------------------------------------------------------------------ adjudication settings


@organizer_page
@require_http_methods(["GET", "POST"])
def adjudication_settings(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    """Which disagreements only a machine causes go to people: each rule with what it would send."""
    if request.method == "POST":
        with refusals_as_messages(request):
            data = validated(AdjudicationSettingsInput(data=request.POST))
            adjudication_settings_set(campaign=campaign, machine_rule=data["machine_rule"])
            messages.success(
                request, f"machine disagreements that go to people: {MACHINE_RULES[data['machine_rule']]}"
            )
        return redirect("judging:adjudication_settings", slug=campaign.slug)
    counts = machine_rule_counts(campaign=campaign)
    queue = adjudication_queue(campaign=campaign, viewer=request.user)
    return render(
        request,
        "judging/adjudication_settings.html",
        {
            "campaign": campaign,
            "rule": machine_rule_get(campaign=campaign),
            "rules": [(name, text, counts[name]) for name, text in MACHINE_RULES.items()],
            "queue": queue,
            "kind_counts": [(k, KIND_NAMES[k], c) for k, c in queue.by_kind.items()],
        },
    )
