"""Pages of adjudication, the agreement report and the exports (inputs and services shared with the API).

Adjudicators and organizers read disagreements and agreement; assessors are refused (403), so
they never see another assessor's labels; people with no role in the campaign get 404.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
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
from judging.models import MachineJudge
from judging.reports.downloads import export_download
from judging.reports.inputs import (
    AdjudicationQueueInput,
    AdjudicationSettingsInput,
    AgreementInput,
    DecisionInput,
    ExportInput,
)
from judging.reports.selectors import (
    KIND_NAMES,
    LABELS_HIDDEN,
    READERS,
    adjudication_queue,
    agreement_jobs,
    final_labels_hidden,
    machine_rule_counts,
    machine_rule_get,
    topic_numbers_judged,
    topic_titles,
    with_documents,
)
from judging.selectors import campaign_assessors, campaign_grades
from judging.services import adjudication_decide, adjudication_settings_set, agreement_report_start
from pooling.selectors import campaign_pools

PAGE_SIZE = 50

reader_page = campaign_page(*READERS)


# ------------------------------------------------------------------------------- adjudication


@reader_page
@require_GET
def adjudication(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    form = AdjudicationQueueInput(data=request.GET)
    data: dict[str, Any] = (
        form.validated_data if form.is_valid() else {"show": "open", "kind": "all", "topic": "", "page": 1}
    )
    queue = adjudication_queue(
        campaign=campaign,
        show=data["show"],
        topic=data["topic"] or None,
        kind=data["kind"],
        viewer=request.user,
    )
    page = Paginator(queue.rows, PAGE_SIZE).get_page(data["page"])
    grades = campaign_grades(campaign=campaign)
    return render(
        request,
        "judging/adjudicate.html",
        {
            "campaign": campaign,
            "queue": queue,
            "page": page,
            "rows": with_documents(campaign=campaign, rows=list(page.object_list)),
            "grades": grades,
            "labels": {g.value: g.label for g in grades},
            "show": data["show"],
            "kind": data["kind"],
            "kind_names": KIND_NAMES,
            "kind_name": KIND_NAMES[data["kind"]],
            "kind_counts": [(k, KIND_NAMES[k], c) for k, c in queue.by_kind.items()],
            "machine_rule": MACHINE_RULES[queue.machine_rule],
            "topic": data["topic"],
            "topics": topic_numbers_judged(campaign=campaign),
            "topic_titles": topic_titles(campaign=campaign),
            "is_organizer": access.has_role(request.user, campaign, access.Role.ORGANIZER),
            # machine assessors' votes are marked: a disagreement with a machine reads differently
            "machines": set(
                MachineJudge.objects.filter(campaign=campaign).values_list("user__username", flat=True)
            ),
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
        decision = adjudication_decide(adjudicator=request.user, campaign=campaign, **data)  # type: ignore[arg-type]
        messages.success(request, f"topic {data['topic']}, {decision.docno}: final grade {decision.grade}")
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
        },
    )


@login_required
@require_GET
def export(request: HttpRequest, slug: str, kind: str) -> HttpResponseBase:
    campaign = page_campaign(request, slug, *export_roles(kind))
    if final_labels_hidden(campaign=campaign, user=request.user):
        return HttpResponse(LABELS_HIDDEN, status=403, content_type="text/plain")
    try:
        return export_download(campaign=campaign, kind=kind, data=validated(ExportInput(data=request.GET)))
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
