from django.db import migrations, models
from django.db.models import F


def count_existing_tasks_against_their_caller(apps, schema_editor):
    apps.get_model("mcp_tools", "ToolTask").objects.update(quota=F("caller"))


class Migration(migrations.Migration):
    dependencies = [
        ("mcp_tools", "0009_adminstateversion_epoch"),
    ]

    operations = [
        migrations.AddField(
            model_name="tooltask",
            name="quota",
            field=models.CharField(blank=True, max_length=200, verbose_name="quota"),
        ),
        migrations.RunPython(count_existing_tasks_against_their_caller, migrations.RunPython.noop),
    ]
