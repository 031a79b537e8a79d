from django.apps import AppConfig


class PoolingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "pooling"

    def ready(self) -> None:
        from pooling import jobs  # noqa: F401 - registers pooling's background job kinds
