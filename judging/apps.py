from django.apps import AppConfig


class JudgingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "judging"

    def ready(self) -> None:
        from campaigns.sections import Step, step_register
        from jobs.registry import register_module
        from judging import selectors

        register_module("judging.reports.jobs", "agreement_report")
        register_module("judging.services.machine", "machine_judging")
        register_module("judging.services.machine_pools", "machine_pool")

        # the judging steps of the campaign overview's guided workflow (campaigns.sections)
        for step in (
            Step(
                "people",
                "People",
                50,
                selectors.people_step,
                "Assessors judge; adjudicators settle disagreements.",
            ),
            Step(
                "assignments",
                "Assignments",
                60,
                selectors.assignments_step,
                "Deal each pooled topic's documents to assessors, with overlap if agreement is wanted.",
            ),
            Step(
                "judging", "Judging progress", 70, selectors.judging_step, "Assessors judge their documents."
            ),
            Step(
                "adjudication",
                "Adjudication",
                75,
                selectors.adjudication_step,
                "Settle the documents assessors (or a machine and the assessors) graded differently.",
                optional=True,
            ),
            Step(
                "agreement",
                "Agreement",
                80,
                selectors.agreement_step,
                "How far assessors agree on the documents they share.",
                optional=True,
            ),
        ):
            step_register(step)
