"""The call log's daily summary, which the admin's overview reads: counts per day, tool,
outcome, client and protocol version, and a latency histogram per day and tool.

Empty at first: the log's writer keeps it from now on, and ``manage.py mcp_summarize``
builds it from the rows logged before (docs/admin.md#the-overview). A backfill here would
hold the migration for as long as a large log takes to read.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("mcp_tools", "0006_tooltask"),
    ]

    operations = [
        migrations.CreateModel(
            name="ToolCallDay",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("day", models.DateField(verbose_name="day")),
                ("tool_name", models.CharField(max_length=64, verbose_name="tool")),
                (
                    "outcome",
                    models.CharField(
                        choices=[("ok", "ok"), ("error", "error"), ("refused", "refused")],
                        max_length=8,
                        verbose_name="outcome",
                    ),
                ),
                (
                    "client_name",
                    models.CharField(blank=True, max_length=200, verbose_name="client"),
                ),
                (
                    "protocol_version",
                    models.CharField(blank=True, max_length=16, verbose_name="protocol version"),
                ),
                ("calls", models.PositiveBigIntegerField(default=0, verbose_name="calls")),
                ("slowest_ms", models.FloatField(verbose_name="slowest (ms)")),
                ("last_at", models.DateTimeField(verbose_name="last call")),
            ],
            options={
                "verbose_name": "day of tool calls",
                "verbose_name_plural": "days of tool calls",
                "constraints": [
                    models.UniqueConstraint(
                        fields=("day", "tool_name", "outcome", "client_name", "protocol_version"),
                        name="mcp_toolcallday_key",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="ToolCallLatency",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("day", models.DateField(verbose_name="day")),
                ("tool_name", models.CharField(max_length=64, verbose_name="tool")),
                ("bucket", models.PositiveSmallIntegerField(verbose_name="bucket")),
                ("calls", models.PositiveBigIntegerField(default=0, verbose_name="calls")),
            ],
            options={
                "verbose_name": "latency of tool calls",
                "verbose_name_plural": "latencies of tool calls",
                "constraints": [
                    models.UniqueConstraint(
                        fields=("day", "tool_name", "bucket"), name="mcp_toolcalllatency_key"
                    )
                ],
            },
        ),
    ]
