from __future__ import annotations

from typing import TYPE_CHECKING

from django.apps import AppConfig

if TYPE_CHECKING:
    from campaigns.models import Campaign
    from campaigns.sections import StepState


def pool_step(campaign: Campaign) -> StepState:
    """The pool step of the campaign's guided workflow: done once a pool is committed."""
    from django.urls import reverse

    from campaigns.sections import StepLink, StepState
    from jobs.models import Job
    from pooling.models import Pool
    from pooling.selectors import DIAGNOSTICS_JOB, campaign_pools

    pools = list(campaign_pools(campaign=campaign))
    done = Job.objects.filter(campaign=campaign, kind=DIAGNOSTICS_JOB, status=Job.Status.DONE)
    diagnostics = tuple(
        StepLink(f"{j.title} ({j.created_at:%Y-%m-%d %H:%M})", reverse("jobs:job", args=[j.id]))
        for j in done.order_by("-created_at")[:5]
    )
    committed = [p for p in pools if p.status == Pool.Status.COMMITTED]
    if committed:
        documents = sum(p.document_count for p in committed)
        summary = f"{len(committed)} committed pool(s), {documents} documents to judge"
        action = StepLink("Build another pool", reverse("pooling:pool_new", args=[campaign.slug]))
        return StepState("done", summary, action, diagnostics)
    if pools:
        draft = pools[0]
        return StepState(
            "in progress",
            f"draft pool '{draft.name}' ({draft.document_count} documents) not committed yet",
            StepLink(
                f"Review and commit '{draft.name}'", reverse("pooling:pool", args=[campaign.slug, draft.pk])
            ),
            diagnostics,
        )
    return StepState(
        "not started",
        "no pool yet",
        StepLink("Build a pool", reverse("pooling:pool_new", args=[campaign.slug])),
    )


class PoolingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "pooling"

    def ready(self) -> None:
        from campaigns.sections import Section, Step, section_register, step_register
        from jobs.registry import register_module
        from pooling.selectors import campaign_pools

        register_module("pooling.jobs", "documents_import", "pool_build", "pool_diagnostics")

        def pools_json(campaign: Campaign) -> list[dict[str, object]]:
            # imported when asked: the API modules (DRF, drf-spectacular) cost 0.15 s of every
            # process's start, commands and workers included, that never serve the API
            from pooling.apis import pool_json

            return [pool_json(p) for p in campaign_pools(campaign=campaign)]

        section_register(
            Section(
                key="pools",
                template="pooling/campaign_pools.html",
                context=lambda campaign: {"pools": list(campaign_pools(campaign=campaign))},
                json=pools_json,
                order=10,
            )
        )
        step_register(
            Step(
                "pool",
                "Pool",
                40,
                pool_step,
                "Choose the documents to judge from the runs, then commit the pool.",
            )
        )
