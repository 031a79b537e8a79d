"""Machine assessors ask an endpoint the server's operator declared (WORKBENCH_JUDGE_ENDPOINTS),
chosen by name, instead of a free base URL and key variable: each existing one gets the declared
endpoint its URL and key variable match, or none and the reason it cannot judge until an
organizer chooses one. The free fields go in the next migration."""

from django.conf import settings
from django.db import migrations, models

from judging.llm.endpoints import endpoint_matching, parse_endpoints


def to_declared(apps, schema_editor):
    MachineJudge = apps.get_model("judging", "MachineJudge")
    endpoints = parse_endpoints(getattr(settings, "WORKBENCH_JUDGE_ENDPOINTS", {}))
    for judge in MachineJudge.objects.all():
        judge.endpoint, reason = endpoint_matching(judge.base_url, judge.api_key_env, endpoints)
        judge.unusable_reason = reason[:500]
        judge.save(update_fields=["endpoint", "unusable_reason"])


class Migration(migrations.Migration):
    dependencies = [("judging", "0004_assignment_order_machine")]

    operations = [
        migrations.AddField(
            model_name="machinejudge",
            name="endpoint",
            field=models.CharField(blank=True, max_length=50),
        ),
        migrations.AddField(
            model_name="machinejudge",
            name="unusable_reason",
            field=models.CharField(blank=True, max_length=500),
        ),
        migrations.RunPython(to_declared, migrations.RunPython.noop),
    ]
