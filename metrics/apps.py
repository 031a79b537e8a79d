"""The metrics app: evaluation pages, leaderboards, comparisons, live estimates and downloads."""

from django.apps import AppConfig


class MetricsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "metrics"

    def ready(self) -> None:
        from metrics import jobs  # noqa: F401 - registers the evaluation and comparison job kinds
        from metrics.live import jobs as live_jobs  # noqa: F401 - the live leaderboard and reusability kinds
