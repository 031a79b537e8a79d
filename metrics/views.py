"""Metrics pages (server-rendered): the home leaderboards, a campaign's leaderboard, run pages,
the pairwise significance matrix and the downloads. Evaluating and comparing run as background jobs;
the pages show their progress bar and then the stored result.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_http_methods, require_POST

from campaigns.accounts.selectors import invitations_pending
from campaigns.errors import CampaignDataError, CampaignNotFound
from campaigns.models import Campaign, Membership
from campaigns.views import organizer_page, refusals_as_messages
from jobs.selectors import job_status
from metrics import charts
from metrics.comparisons import (
    CI_LABELS,
    CORRECTION_LABELS,
    TEST_LABELS,
    ZERO_METHOD_LABELS,
    SignificanceParams,
    significance_measures,
    significance_state,
)
from metrics.downloads import Download, evaluation_file, significance_file
from metrics.evaluations import evaluation_get
from metrics.inputs import parse_significance, parse_source, parse_source_choice
from metrics.leaderboards import CURVE, RECALLS, column_label, home_boards, source_board
from metrics.models import Evaluation
from metrics.runs import run_summary
from metrics.services import evaluation_enqueue, significance_enqueue
from metrics.sources import source_choices, source_dict, source_from_dict, source_label, source_query

CURVE_RUNS = 8  # P-R curves drawn on a leaderboard: the best runs only, or the chart is a tangle


def _evaluation(campaign: Campaign, pk: int) -> Evaluation:
    try:
        return evaluation_get(campaign=campaign, pk=pk)
    except CampaignDataError as exc:
        raise Http404(str(exc)) from exc


@login_required
def home(request: HttpRequest) -> HttpResponseBase:
    boards = home_boards(user=request.user)
    # invitations to answer come first: an assessor is not sent on to their work before seeing them
    invitations = list(invitations_pending(user=request.user))
    if (
        not boards
        and not invitations
        and Membership.objects.filter(
            user_id=int(request.user.pk or 0),
            role__in=[Membership.Role.ASSESSOR, Membership.Role.ADJUDICATOR],
        ).exists()
    ):
        # an assessor or adjudicator who organizes nothing came to judge: straight to their work
        # (assignments and adjudication queues)
        return redirect("judging:assess_home")
    for b in boards:
        if b.board is not None:
            b.chart = mark_safe(  # charts escape every text
                charts.bar_chart(
                    [r.tag for r in b.board.rows],
                    b.board.values_of(b.board.sort),
                    title=f"{column_label(b.board.sort)} of the runs of {b.campaign.name}",
                    css_id=f"chart-{b.campaign.slug}",
                )
            )
    return render(request, "metrics/home.html", {"boards": boards, "invitations": invitations})


@organizer_page
def leaderboard_page(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    errors: list[str] = []
    source = None
    try:
        source = parse_source_choice(request.GET)
    except CampaignDataError as exc:
        errors = exc.problems
    state = source_board(campaign=campaign, source=source, sort=request.GET.get("sort"))
    source, board, pending = state.source, state.board, state.pending
    context = {
        "campaign": campaign,
        "errors": errors,
        "source": source_dict(source),
        "source_label": source_label(campaign=campaign, source=source),
        "source_query": source_query(source),
        "choices": source_choices(campaign=campaign),
        "evaluation": state.evaluation,
        "board": board,
        "pending": pending,
        "pending_status": job_status(job=pending) if pending else None,
        "failed": state.failed,
    }
    if board is not None:
        context["chart"] = mark_safe(  # charts escape every text
            charts.bar_chart(
                [r.tag for r in board.rows],
                board.values_of(board.sort),
                title=f"{column_label(board.sort)} per run, best first",
                css_id="leaderboard-chart",
            )
        )
        context["sort_label"] = column_label(board.sort)
        shown = [r.tag for r in board.rows[:CURVE_RUNS]]
        context["curve_runs"] = shown
        context["curves"] = mark_safe(
            charts.line_chart(
                [(tag, RECALLS, board.curves.get(tag, [None] * len(CURVE))) for tag in shown],
                title="Interpolated precision at 11 recall levels, mean over topics",
                css_id="pr-chart",
                x_label="recall",
                y_label="precision",
            )
        )
    return render(request, "metrics/leaderboard.html", context)


@organizer_page
@require_POST
def evaluate(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    with refusals_as_messages(request):
        source = parse_source(request.POST)
        evaluation_enqueue(campaign=campaign, source=source, user=request.user)  # type: ignore[arg-type]
        return redirect(f"{reverse('evaluation:leaderboard', args=[campaign.slug])}?{source_query(source)}")
    return redirect("evaluation:leaderboard", slug=campaign.slug)


@organizer_page
def run_page(request: HttpRequest, campaign: Campaign, pk: int, result: int) -> HttpResponse:
    evaluation = _evaluation(campaign, pk)
    try:
        report = run_summary(evaluation=evaluation, result_pk=result, measure=request.GET.get("measure"))
    except CampaignDataError as exc:
        raise Http404(str(exc)) from exc
    label = column_label(report.measure)
    topic_chart = charts.topic_chart(
        [t.topic for t in report.topics],
        [t.value for t in report.topics],
        [t.median for t in report.topics],
        [t.best for t in report.topics],
        title=f"{label} of {report.result.tag} per topic, with each topic's median and best over all runs",
        css_id="topic-chart",
    )
    curve_chart = charts.line_chart(
        [(report.result.tag, RECALLS, report.curve), ("median of all runs", RECALLS, report.median_curve)],
        title=f"Interpolated precision-recall curve of {report.result.tag}",
        css_id="pr-chart",
        x_label="recall",
        y_label="precision",
    )
    return render(
        request,
        "metrics/run.html",
        {
            "campaign": campaign,
            "evaluation": evaluation,
            "report": report,
            "label": label,
            "summary": list(zip(report.columns, report.summary, report.ranks, strict=True)),
            "topic_chart": mark_safe(topic_chart),  # charts escape every text
            "curve_chart": mark_safe(curve_chart),
            "back_query": source_query(source_from_dict(evaluation.source)),
        },
    )


@organizer_page
def download(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponse:
    evaluation = _evaluation(campaign, pk)
    try:
        file = evaluation_file(
            evaluation=evaluation,
            fmt=request.GET.get("format", "trec"),
            tags=request.GET.getlist("run") or None,
        )
    except CampaignNotFound as exc:
        raise Http404(str(exc)) from exc
    except CampaignDataError as exc:
        return HttpResponse("; ".join(exc.problems), status=400, content_type="text/plain; charset=utf-8")
    return _attachment(file)


def _attachment(file: Download) -> HttpResponse:
    response = HttpResponse(file.body, content_type=file.content_type)
    response["Content-Disposition"] = f'attachment; filename="{file.filename}"'
    return response


@organizer_page
@require_http_methods(["GET", "POST"])
def significance_page(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponseBase:
    """GET shows the matrix of the chosen parameters once computed; POST computes it (a job)."""
    evaluation = _evaluation(campaign, pk)
    data = request.POST if request.method == "POST" else request.GET
    errors: list[str] = []
    try:
        params = parse_significance(data, evaluation)
    except CampaignDataError as exc:
        errors, params = exc.problems, SignificanceParams(evaluation=evaluation.pk)
    if request.method == "POST" and not errors:
        try:
            significance_enqueue(evaluation=evaluation, params=params, user=request.user)  # type: ignore[arg-type]
        except CampaignDataError as exc:
            errors = exc.problems
        else:
            return redirect(f"{request.path}?{urlencode(params.query())}")
    state = significance_state(evaluation=evaluation, params=params) if not errors else None
    done = state.done if state else None
    pending = state.pending if state else None
    fmt = request.GET.get("format")
    if done is not None and fmt in ("csv", "json"):
        return _attachment(significance_file(evaluation=evaluation, result=done.result or {}, fmt=fmt))
    return render(
        request,
        "metrics/significance.html",
        {
            "campaign": campaign,
            "evaluation": evaluation,
            "params": params,
            "errors": errors,
            "measures": significance_measures(evaluation=evaluation),
            "tests": TEST_LABELS,
            "zero_methods": ZERO_METHOD_LABELS,
            "ci_methods": CI_LABELS,
            "corrections": CORRECTION_LABELS,
            "label": column_label(params.measure),
            "test_label": TEST_LABELS.get(params.test, params.test),
            "correction_label": CORRECTION_LABELS.get(params.correction, params.correction),
            "query": urlencode(params.query()),
            "matrix": state.matrix if state else None,
            # effect sizes, the ANOVA table, Friedman and the conventions, as the job stored them
            "comparison": (done.result or {}).get("comparison") if done is not None else None,
            "confidence": f"{100 * (1 - params.alpha):g}",
            "done": done,
            "pending": pending,
            "pending_status": job_status(job=pending) if pending else None,
            "back_query": source_query(source_from_dict(evaluation.source)),
        },
    )
