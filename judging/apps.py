from django.apps import AppConfig


class JudgingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "judging"

    def ready(self) -> None:
        from campaigns.sections import Step, step_register
        from judging import selectors

        # job kinds register themselves on import
        from judging.reports import jobs  # noqa: F401
        from judging.services import machine, machine_pools  # noqa: F401

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
                "agreement",
                "Agreement",
                80,
                selectors.agreement_step,
                "How far assessors agree on the documents they share.",
                optional=True,
            ),
        ):
            step_register(step)
