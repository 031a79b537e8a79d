"""Machine assessors on the People page and in the API: create, edit, judge, stop, calibrate.

Pages and API call the same services (judging.services.machine); both are the campaign's
organizers' only. An organizer picks one of the endpoints the server's operator declared, by name:
no page or API field takes a URL or an environment variable's name (a request that brings one is
refused). No page, API answer or export shows an API key; they say only whether the declared
endpoint's key is set in the web server's environment.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.contrib import messages
from django.contrib.auth.models import User
from django.db.models import Count, Q, Sum
from django.http import Http404, HttpRequest, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.views.decorators.http import require_http_methods, require_POST
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns.apis import CampaignApi, documented, job_accepted
from campaigns.errors import CampaignDataError, CampaignNotFound
from campaigns.inputs import DB_INTEGER_MAX, FormInput, form_problems, validated
from campaigns.models import Campaign
from campaigns.views import organizer_page, refusals_as_messages
from judging.llm.config import JudgeConfig
from judging.llm.prompts import DEFAULT_PROMPT_VERSION, PROMPTS
from judging.models import Judgment, MachineCall, MachineJudge
from judging.reports.selectors import latest_calibration
from judging.selectors import campaign_people
from judging.services.machine import (
    CONFIG_FIELDS,
    NO_ENDPOINT,
    calibration_sample_create,
    cost,
    declared_endpoints,
    judge_endpoint,
    judge_problem,
    last_run,
    machine_judge_create,
    machine_judge_get,
    machine_judge_update,
    machine_judging_start,
    machine_judging_stop,
    running_job,
)
from judging.services.machine_pools import (
    MachinePoolPreview,
    machine_graded_depth,
    machine_pool_depth,
    machine_pool_enqueue,
    machine_pool_labels,
    machine_pool_preview,
    machine_pool_strata,
    machine_sample_pools,
)
from pooling.inputs import NumberListField

FREE_FIELDS = ("base_url", "api_key_env", "key_env")  # the operator's to declare, never an organizer's


def _no_endpoint_declared(value: str) -> None:
    raise serializers.ValidationError(NO_ENDPOINT)


class MachineJudgeInput(FormInput):
    endpoint = serializers.ChoiceField(
        choices=[],
        help_text="the name of a judge endpoint the server's operator declared (WORKBENCH_JUDGE_ENDPOINTS)",
    )
    model = serializers.CharField(max_length=200)
    prompt_version = serializers.ChoiceField(choices=sorted(PROMPTS), default=DEFAULT_PROMPT_VERSION)
    temperature = serializers.FloatField(default=0.0)
    requests_per_minute = serializers.IntegerField(default=60, min_value=1, max_value=100_000)
    concurrency = serializers.IntegerField(default=2, min_value=1, max_value=64)
    max_documents = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=DB_INTEGER_MAX
    )
    timeout = serializers.FloatField(default=60.0)
    max_retries = serializers.IntegerField(default=4, min_value=0, max_value=20)
    price_input = serializers.DecimalField(
        max_digits=10, decimal_places=4, required=False, allow_null=True, min_value=Decimal(0)
    )
    price_output = serializers.DecimalField(
        max_digits=10, decimal_places=4, required=False, allow_null=True, min_value=Decimal(0)
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        declared = sorted(declared_endpoints())  # now: the operator's settings, not those at import time
        field: serializers.ChoiceField = self.fields["endpoint"]  # type: ignore[assignment]
        if not declared:  # no choice to offer (and an empty enum is no valid schema): say why
            self.fields["endpoint"] = serializers.CharField(
                help_text=field.help_text, validators=[_no_endpoint_declared]
            )
            return
        field.choices = declared
        field.error_messages["invalid_choice"] = (
            f"'{{input}}' is not an endpoint the server's operator declared (declared: {', '.join(declared)})"
        )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        initial = getattr(self, "initial_data", {})
        brought = [f for f in FREE_FIELDS if hasattr(initial, "__contains__") and f in initial]
        if brought:
            raise serializers.ValidationError(
                {
                    f: "a machine assessor asks an endpoint the server's operator declared: choose it by "
                    "name (endpoint); its URL and key are the operator's"
                    for f in brought
                }
            )
        chosen: dict[str, Any] = {f: attrs.get(f) for f in CONFIG_FIELDS}
        config = JudgeConfig(declared_endpoints()[attrs["endpoint"]], **chosen)
        problems = config.problems()
        if problems:
            raise serializers.ValidationError({"config": problems})
        attrs["config"] = config
        return attrs


class MachineJudgeCreateInput(MachineJudgeInput):
    username = serializers.CharField(max_length=150)


class CalibrationInput(FormInput):
    assessors = serializers.ListField(child=serializers.CharField(max_length=150), allow_empty=False)
    size = serializers.IntegerField(min_value=1, max_value=DB_INTEGER_MAX)
    seed = serializers.IntegerField(default=0, min_value=0, max_value=DB_INTEGER_MAX)


class MachinePoolPreviewInput(FormInput):
    """A pool sampled by the machine's grades: strata g<grade> (highest first), then 'ungraded'."""

    depth = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=DB_INTEGER_MAX,
        help_text="depth of the runs pooled (default: the depth of the pools the machine judged, else 100)",
    )
    rates = NumberListField(help_text="sampling rate per stratum, in the strata's order")
    budget = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=DB_INTEGER_MAX)
    total_budget = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, max_value=DB_INTEGER_MAX
    )
    weights = NumberListField(help_text="with a budget: relative rate per stratum")
    seed = serializers.IntegerField(default=0, min_value=0, max_value=DB_INTEGER_MAX)


class MachinePoolInput(MachinePoolPreviewInput):
    name = serializers.CharField(max_length=100)


# ------------------------------------------------------------------------------ what pages and API show


def machine_json(judge: MachineJudge) -> dict[str, Any]:
    """A machine assessor as the API gives it: its endpoint's name and its choices (never a URL,
    a variable's name or the key), whether it can judge and why not, its totals, its running job
    and how its last run ended."""
    calls = MachineCall.objects.filter(judge=judge).aggregate(
        calls=Count("id"),
        graded=Count("id", filter=Q(grade__isnull=False)),
        prompt_tokens=Sum("prompt_tokens"),
        completion_tokens=Sum("completion_tokens"),
    )
    job = running_job(judge)
    endpoint = judge_endpoint(judge)
    problem = judge_problem(judge)
    money = cost(judge, calls["prompt_tokens"] or 0, calls["completion_tokens"] or 0)
    return {
        "id": judge.pk,
        "username": judge.user.username,
        "endpoint": judge.endpoint or None,
        **{f: getattr(judge, f) for f in CONFIG_FIELDS},
        "usable": not problem,
        "unusable_reason": problem,
        # only ever about the variable the operator declared for this endpoint (None: no key declared)
        "key_set": endpoint.key_present() if endpoint is not None and endpoint.key_env else None,
        "price_input": str(judge.price_input) if judge.price_input is not None else None,
        "price_output": str(judge.price_output) if judge.price_output is not None else None,
        "judged": Judgment.objects.filter(campaign=judge.campaign, assessor=judge.user).count(),
        "calls": calls["calls"],
        "graded": calls["graded"],
        "cant_judge": calls["calls"] - calls["graded"],
        "prompt_tokens": calls["prompt_tokens"] or 0,
        "completion_tokens": calls["completion_tokens"] or 0,
        "cost": str(money) if money is not None else None,
        "job": str(job.id) if job else None,
        "stop_requested": judge.stop_requested,
        "last_run": last_run(judge),
    }


def machine_judges(campaign: Campaign) -> list[MachineJudge]:
    return list(
        MachineJudge.objects.filter(campaign=campaign).select_related("user").order_by("user__username")
    )


def is_machine(user: User) -> bool:
    return MachineJudge.objects.filter(user=user).exists()


# ------------------------------------------------------------------------------ pages


@organizer_page
@require_POST
def machine_create_page(request: HttpRequest, campaign: Campaign) -> HttpResponseBase:
    form = MachineJudgeCreateInput(data=request.POST)
    if not form.is_valid():
        for problem in form_problems(form):
            messages.error(request, problem)
        request.session["machine_form"] = {
            k: v for k, v in request.POST.items() if k != "csrfmiddlewaretoken"
        }
        return redirect("judging:people", slug=campaign.slug)
    data = form.validated_data
    with refusals_as_messages(request):
        judge = machine_judge_create(
            campaign=campaign, username=data["username"], config=data["config"],
            price_input=data.get("price_input"), price_output=data.get("price_output"),
            created_by=request.user,  # type: ignore[arg-type]
        )  # fmt: skip
        messages.success(
            request,
            f"machine assessor '{judge.user.username}' added: give it topics on the assignments page, then "
            "start it here",
        )
        return redirect("judging:machine", slug=campaign.slug, pk=judge.pk)
    return redirect("judging:people", slug=campaign.slug)


def _judge(campaign: Campaign, pk: int) -> MachineJudge:
    try:
        return machine_judge_get(campaign=campaign, pk=pk)
    except CampaignDataError as exc:
        raise Http404(str(exc)) from exc


@organizer_page
@require_http_methods(["GET", "POST"])
def machine_page(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponseBase:
    judge = _judge(campaign, pk)
    errors: list[str] = []
    if request.method == "POST":
        form = MachineJudgeInput(data=request.POST)
        if form.is_valid():
            data = form.validated_data
            with refusals_as_messages(request):
                machine_judge_update(
                    judge=judge, config=data["config"],
                    price_input=data.get("price_input"), price_output=data.get("price_output"),
                )  # fmt: skip
                messages.success(request, "configuration saved")
                return redirect("judging:machine", slug=campaign.slug, pk=judge.pk)
        else:
            errors = form_problems(form)
    return _machine_render(request, campaign, judge, errors=errors)


def _machine_render(
    request: HttpRequest,
    campaign: Campaign,
    judge: MachineJudge,
    *,
    errors: list[str] | None = None,
    pool_errors: list[str] | None = None,
    preview: MachinePoolPreview | None = None,
    pool_form: dict[str, str] | None = None,
) -> HttpResponseBase:
    """The machine's page; ``pool_errors``, ``preview`` and ``pool_form``: the sample form's
    refusals, preview and values."""
    info = machine_json(judge)
    recent = MachineCall.objects.filter(judge=judge).select_related("topic").order_by("-asked_at", "-pk")[:25]
    humans = [u for u in campaign_people(campaign=campaign)["assessor"] if not is_machine(u)]
    strata = machine_pool_strata(judge=judge)
    form = pool_form or {}
    for s in strata:  # the rate typed, else the one suggested
        s["value"] = form.get(f"rate_{s['label']}", s["rate"])
        s["preview"] = next((c for c in preview.strata if c.stratum == s["label"]), None) if preview else None
    return render(
        request,
        "judging/machine.html",
        {
            "campaign": campaign,
            "judge": judge,
            "info": info,
            "recent": recent,
            "prompts": PROMPTS,
            "endpoints": sorted(declared_endpoints()),
            "humans": humans,
            "errors": errors or [],
            "pool_errors": pool_errors or [],
            "job": running_job(judge),
            "strata": strata,
            "graded_depth": machine_graded_depth(judge=judge),
            "pool_name": form.get("name", f"{judge.user.username} sample"),
            "pool_depth": form.get("depth") or machine_pool_depth(judge=judge),
            "pool_seed": form.get("seed", "0"),
            "preview": preview,
            "calibration": latest_calibration(campaign=campaign, machine=judge.user.username),
            "sample_pools": machine_sample_pools(judge=judge),
        },
    )


@organizer_page
@require_POST
def machine_start_page(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponseBase:
    judge = _judge(campaign, pk)
    with refusals_as_messages(request):
        job = machine_judging_start(judge=judge, user=request.user)  # type: ignore[arg-type]
        return redirect("jobs:job", job_id=job.id)
    return redirect("judging:machine", slug=campaign.slug, pk=judge.pk)


@organizer_page
@require_POST
def machine_stop_page(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponseBase:
    judge = _judge(campaign, pk)
    running = machine_judging_stop(judge=judge)
    messages.success(
        request,
        "stopping before its next request: start it again to go on, nothing judged is asked twice"
        if running
        else "it was not judging",
    )
    return redirect("judging:machine", slug=campaign.slug, pk=judge.pk)


@organizer_page
@require_POST
def machine_calibration_page(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponseBase:
    judge = _judge(campaign, pk)
    with refusals_as_messages(request):
        data = validated(CalibrationInput(data=request.POST))
        users = list(User.objects.filter(username__in=data["assessors"]))
        touched = calibration_sample_create(
            judge=judge, assessors=users, size=data["size"], seed=data["seed"]
        )
        messages.success(
            request,
            f"calibration sample of {data['size']} documents (seed {data['seed']}) given to "
            f"{', '.join(sorted(u.username for u in users))} in {len(touched)} assignment(s)",
        )
    return redirect("judging:machine", slug=campaign.slug, pk=judge.pk)


@organizer_page
@require_POST
def machine_pool_page(request: HttpRequest, campaign: Campaign, pk: int) -> HttpResponseBase:
    """The machine page's sample form: one rate field per stratum (``rate_<label>``). Its
    "Preview" button shows the machine's page with the counts per stratum, building nothing."""
    judge = _judge(campaign, pk)
    data = request.POST.copy()
    data["rates"] = ",".join(
        request.POST.get(f"rate_{label}", "") for label in machine_pool_labels(judge=judge)
    )
    if "preview" in request.POST:
        errors: list[str] = []
        preview = None
        try:
            preview = machine_pool_preview(judge=judge, **validated(MachinePoolPreviewInput(data=data)))
        except CampaignDataError as exc:
            errors = exc.problems
        form = {k: str(v) for k, v in request.POST.items() if k != "csrfmiddlewaretoken"}
        return _machine_render(request, campaign, judge, pool_errors=errors, preview=preview, pool_form=form)
    with refusals_as_messages(request):
        fields = validated(MachinePoolInput(data=data))
        job = machine_pool_enqueue(judge=judge, user=request.user, **fields)  # type: ignore[arg-type]
        return redirect("jobs:job", job_id=job.id)
    return redirect("judging:machine", slug=campaign.slug, pk=judge.pk)


# ------------------------------------------------------------------------------ API


class LastRunOut(serializers.Serializer):
    job = serializers.CharField()
    state = serializers.ChoiceField(choices=["done", "stopped", "stopped early", "failed", "interrupted"])
    reason = serializers.CharField(
        allow_blank=True, help_text="why it ended so: the HTTP status and the first line of the answer"
    )
    finished_at = serializers.CharField(allow_null=True)


class MachineOut(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    endpoint = serializers.CharField(
        allow_null=True, help_text="the declared endpoint it asks (null: none chosen, see unusable_reason)"
    )
    usable = serializers.BooleanField()
    unusable_reason = serializers.CharField(
        allow_blank=True, help_text="why it cannot judge ('' when it can)"
    )
    model = serializers.CharField()
    key_set = serializers.BooleanField(
        allow_null=True,
        help_text="whether the key the operator declared for its endpoint is set in the web server's "
        "environment (null: the endpoint declares no key)",
    )
    prompt_version = serializers.CharField()
    temperature = serializers.FloatField()
    requests_per_minute = serializers.IntegerField()
    concurrency = serializers.IntegerField()
    max_documents = serializers.IntegerField(allow_null=True)
    timeout = serializers.FloatField()
    max_retries = serializers.IntegerField()
    judged = serializers.IntegerField()
    calls = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    cost = serializers.CharField(allow_null=True)
    job = serializers.CharField(allow_null=True)
    last_run = LastRunOut(allow_null=True, help_text="how its latest finished judging job ended")


def _judge_or_404(campaign: Campaign, pk: int) -> MachineJudge:
    try:
        return machine_judge_get(campaign=campaign, pk=pk)
    except CampaignNotFound as exc:
        raise exceptions.NotFound(str(exc)) from exc


class MachineListApi(CampaignApi):
    @documented(ok=MachineOut(many=True), operation_id="judging_machines_list")
    def get(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        return Response([machine_json(j) for j in machine_judges(campaign)])

    @documented(
        request=MachineJudgeCreateInput,
        ok=MachineOut,
        status_code=201,
        operation_id="judging_machines_create",
    )
    def post(self, request: Request, slug: str) -> Response:
        campaign = self.organizer_campaign(request, slug)
        form = MachineJudgeCreateInput(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        judge = machine_judge_create(
            campaign=campaign, username=data["username"], config=data["config"],
            price_input=data.get("price_input"), price_output=data.get("price_output"),
            created_by=request.user,  # type: ignore[arg-type]
        )  # fmt: skip
        return Response(machine_json(judge), status=status.HTTP_201_CREATED)


class MachineApi(CampaignApi):
    @documented(ok=MachineOut, operation_id="judging_machine_get")
    def get(self, request: Request, slug: str, pk: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        return Response(machine_json(_judge_or_404(campaign, pk)))

    @documented(request=MachineJudgeInput, ok=MachineOut, operation_id="judging_machine_update")
    def put(self, request: Request, slug: str, pk: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        judge = _judge_or_404(campaign, pk)
        form = MachineJudgeInput(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        machine_judge_update(
            judge=judge,
            config=data["config"],
            price_input=data.get("price_input"),
            price_output=data.get("price_output"),
        )
        return Response(machine_json(judge))


class MachineStartApi(CampaignApi):
    @documented(operation_id="judging_machine_start", status_code=202)
    def post(self, request: Request, slug: str, pk: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        judge = _judge_or_404(campaign, pk)
        return job_accepted(machine_judging_start(judge=judge, user=request.user))  # type: ignore[arg-type]


class MachineStopApi(CampaignApi):
    @documented(operation_id="judging_machine_stop")
    def post(self, request: Request, slug: str, pk: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        judge = _judge_or_404(campaign, pk)
        return Response({"stopping": machine_judging_stop(judge=judge)})


class MachineCalibrationApi(CampaignApi):
    @documented(request=CalibrationInput, operation_id="judging_machine_calibration")
    def post(self, request: Request, slug: str, pk: int) -> Response:
        campaign = self.organizer_campaign(request, slug)
        judge = _judge_or_404(campaign, pk)
        form = CalibrationInput(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        users = list(User.objects.filter(username__in=data["assessors"]))
        touched = calibration_sample_create(
            judge=judge, assessors=users, size=data["size"], seed=data["seed"]
        )
        return Response({"assignments": [a.pk for a in touched], "size": data["size"], "seed": data["seed"]})


def preview_json(preview: MachinePoolPreview) -> dict[str, Any]:
    return {
        "depth": preview.depth,
        "topics": preview.topics,
        "candidates": preview.candidates,
        "documents": preview.documents,
        "strata": [c._asdict() for c in preview.strata],
    }


class MachinePoolApi(CampaignApi):
    @extend_schema(
        parameters=[MachinePoolPreviewInput],
        responses={200: OpenApiTypes.OBJECT},
        operation_id="judging_machine_pool_preview",
    )
    def get(self, request: Request, slug: str, pk: int) -> Response:
        """What a pool sampled by this machine's grades would hold (built and counted, not stored):
        the depth read (default: the depth it graded), and per stratum its candidates and those
        drawn for the humans; the suggested rates unless rates or a budget are given."""
        campaign = self.organizer_campaign(request, slug)
        judge = _judge_or_404(campaign, pk)
        form = MachinePoolPreviewInput(data=request.query_params)
        form.is_valid(raise_exception=True)
        preview = machine_pool_preview(judge=judge, **form.validated_data)
        graded = machine_graded_depth(judge=judge)
        return Response(
            preview_json(preview)
            | {
                "graded_depth": None
                if graded is None
                else {"depth": graded.depth, "pools": list(graded.pools)}
            }
        )

    @documented(request=MachinePoolInput, operation_id="judging_machine_pool", status_code=202)
    def post(self, request: Request, slug: str, pk: int) -> Response:
        """Build a draft pool of the campaign's runs sampled by this machine's grades (a job)."""
        campaign = self.organizer_campaign(request, slug)
        judge = _judge_or_404(campaign, pk)
        form = MachinePoolInput(data=request.data)
        form.is_valid(raise_exception=True)
        job = machine_pool_enqueue(judge=judge, user=request.user, **form.validated_data)  # type: ignore[arg-type]
        return job_accepted(job)


page_patterns: list[URLPattern] = [
    path("campaigns/<slug:slug>/people/machines/", machine_create_page, name="machine_create"),
    path("campaigns/<slug:slug>/people/machines/<int:pk>/", machine_page, name="machine"),
    path("campaigns/<slug:slug>/people/machines/<int:pk>/start/", machine_start_page, name="machine_start"),
    path("campaigns/<slug:slug>/people/machines/<int:pk>/stop/", machine_stop_page, name="machine_stop"),
    path(
        "campaigns/<slug:slug>/people/machines/<int:pk>/calibration/",
        machine_calibration_page,
        name="machine_calibration",
    ),
    path("campaigns/<slug:slug>/people/machines/<int:pk>/pool/", machine_pool_page, name="machine_pool"),
]
api_patterns: list[URLPattern] = [
    path("campaigns/<slug:slug>/machines/", MachineListApi.as_view(), name="machines"),
    path("campaigns/<slug:slug>/machines/<int:pk>/", MachineApi.as_view(), name="machine"),
    path("campaigns/<slug:slug>/machines/<int:pk>/start/", MachineStartApi.as_view(), name="machine_start"),
    path("campaigns/<slug:slug>/machines/<int:pk>/stop/", MachineStopApi.as_view(), name="machine_stop"),
    path(
        "campaigns/<slug:slug>/machines/<int:pk>/calibration/",
        MachineCalibrationApi.as_view(),
        name="machine_calibration",
    ),
    path("campaigns/<slug:slug>/machines/<int:pk>/pool/", MachinePoolApi.as_view(), name="machine_pool"),
]
