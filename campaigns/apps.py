from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "campaigns"

    def ready(self) -> None:
        from jobs.registry import register_module

        register_module("campaigns.jobs", "topics_import", "runs_import", "qrels_import")
