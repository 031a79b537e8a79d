"""The metrics app: evaluation pages, leaderboards, comparisons, live estimates and downloads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.apps import AppConfig

if TYPE_CHECKING:
    from campaigns.models import Campaign
    from campaigns.sections import StepState


def evaluation_step(campaign: Campaign) -> StepState:
    """The last step of the campaign's guided workflow: the runs evaluated against the judgments."""
    from django.urls import reverse

    from campaigns.errors import CampaignDataError
    from campaigns.sections import StepLink, StepState
    from metrics.models import Evaluation
    from metrics.sources import source_from_dict, source_query

    def board_of(source: dict[str, object]) -> str:
        try:
            return f"{board}?{source_query(source_from_dict(source))}"
        except CampaignDataError:  # a source stored by an older version: the default board
            return board

    board = reverse("evaluation:leaderboard", args=[campaign.slug])
    evaluations = Evaluation.objects.filter(campaign=campaign)
    results = tuple(
        StepLink(f"{e.source_label} ({e.created_at:%Y-%m-%d %H:%M})", board_of(e.source))
        for e in evaluations.order_by("-created_at")[:5]
    )
    if not results:
        return StepState("not started", "no evaluation yet", StepLink("Evaluate the runs", board))
    return StepState(
        "done", f"{evaluations.count()} evaluation(s)", StepLink("Open the leaderboard", board), results
    )


class MetricsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "metrics"

    def ready(self) -> None:
        from campaigns.sections import Step, step_register
        from jobs.registry import register_module

        register_module(
            "metrics.jobs",
            "metrics_evaluate",
            "metrics_evaluate_part",
            "metrics_evaluate_store",
            "metrics_significance",
        )
        register_module("metrics.live.jobs", "live_reusability", "live_leaderboard")

        step_register(
            Step(
                "evaluation",
                "Evaluation",
                90,
                evaluation_step,
                "Score the runs with the judgments (trec_eval measures).",
            )
        )
