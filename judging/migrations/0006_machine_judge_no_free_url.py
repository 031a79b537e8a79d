"""A machine assessor stores no URL and no variable name: its endpoint is the operator's (0005)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("judging", "0005_machine_judge_endpoint")]

    operations = [
        migrations.RemoveField(model_name="machinejudge", name="base_url"),
        migrations.RemoveField(model_name="machinejudge", name="api_key_env"),
    ]
