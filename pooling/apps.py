from django.apps import AppConfig


class PoolingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "pooling"

    def ready(self) -> None:
        from campaigns.sections import Section, section_register
        from pooling import jobs  # noqa: F401 - registers pooling's background job kinds
        from pooling.apis import pool_json
        from pooling.selectors import campaign_pools

        section_register(
            Section(
                key="pools",
                template="pooling/campaign_pools.html",
                context=lambda campaign: {"pools": list(campaign_pools(campaign=campaign))},
                json=lambda campaign: [pool_json(p) for p in campaign_pools(campaign=campaign)],
                order=10,
            )
        )
