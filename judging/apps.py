from django.apps import AppConfig


class JudgingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "judging"

    def ready(self) -> None:
        # job kinds register themselves on import
        from judging.reports import jobs  # noqa: F401
