import json

from django.db import migrations, models


def json_bytes(value):
    if value is None or value == "":
        return 0
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def measure_existing_tasks(apps, schema_editor):
    """Count the tasks kept already against MAX_TASK_BYTES_PER_CALLER, as the store does."""
    ToolTask = apps.get_model("mcp_tools", "ToolTask")
    fields = ("pk", "params", "result", "error", "input_requests", "request_state")
    for row in ToolTask.objects.values(*fields).iterator(chunk_size=100):
        size = sum(json_bytes(row[name]) for name in fields[1:5]) + len(
            row["request_state"].encode()
        )
        ToolTask.objects.filter(pk=row["pk"]).update(size=size)


class Migration(migrations.Migration):
    dependencies = [
        ("mcp_tools", "0011_tooltask_grant"),
    ]

    operations = [
        migrations.AddField(
            model_name="tooltask",
            name="size",
            field=models.PositiveBigIntegerField(default=0, verbose_name="stored bytes"),
        ),
        migrations.AddIndex(
            model_name="tooltask",
            index=models.Index(fields=["quota", "expires_at"], name="mcp_tooltask_quota"),
        ),
        migrations.RunPython(measure_existing_tasks, migrations.RunPython.noop),
    ]
