from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "campaigns"

    def ready(self) -> None:
        from campaigns import jobs  # noqa: F401 - registers the import job kinds
