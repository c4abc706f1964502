"""The call log says how each call ended: ``outcome``, ``refusal`` and ``error_message``.

Rows logged before have only ``is_error``: they become "error" (a refusal then can't be
told from a failure) or "ok".
"""

from django.db import migrations, models


def backfill_outcome(apps, schema_editor):
    ToolCall = apps.get_model("mcp_tools", "ToolCall")
    ToolCall.objects.filter(is_error=True).update(outcome="error")


class Migration(migrations.Migration):
    dependencies = [
        ("mcp_tools", "0004_exposedtool_wording"),
    ]

    operations = [
        migrations.AddField(
            model_name="toolcall",
            name="error_message",
            field=models.TextField(
                blank=True,
                help_text='What the model read, clipped to 1,000 characters; for a masked error, "Internal server error" and its reference.',
                verbose_name="error message",
            ),
        ),
        migrations.AddField(
            model_name="toolcall",
            name="outcome",
            field=models.CharField(
                choices=[("ok", "ok"), ("error", "error"), ("refused", "refused")],
                default="ok",
                help_text="ok: the tool answered a result. error: the view or the tool failed. refused: the endpoint stopped the call (see the refusal).",
                max_length=8,
                verbose_name="outcome",
            ),
        ),
        migrations.RunPython(backfill_outcome, migrations.RunPython.noop, elidable=True),
        migrations.AddField(
            model_name="toolcall",
            name="refusal",
            field=models.CharField(
                blank=True,
                choices=[
                    ("invalid_arguments", "invalid arguments"),
                    ("hidden", "hidden from the caller"),
                    ("too_large", "answer too large"),
                    ("throttled", "throttled"),
                    ("unconfirmed", "not confirmed"),
                    ("cancelled", "cancelled"),
                ],
                help_text="Why the endpoint refused the call; empty when it did not.",
                max_length=20,
                verbose_name="refusal",
            ),
        ),
        migrations.AlterField(
            model_name="toolcall",
            name="error_ref",
            field=models.CharField(
                blank=True,
                db_index=True,
                help_text="The reference a masked error was logged under, for the server's logs.",
                max_length=32,
                verbose_name="error reference",
            ),
        ),
        migrations.AlterField(
            model_name="toolcall",
            name="http_status",
            field=models.PositiveSmallIntegerField(
                blank=True,
                help_text="The status of the view's response. Empty when the view never ran (the call was refused before it) or raised an exception.",
                null=True,
                verbose_name="HTTP status",
            ),
        ),
        migrations.AlterField(
            model_name="toolcall",
            name="is_error",
            field=models.BooleanField(
                default=False,
                help_text="Not ok: an error or a refusal (the outcome).",
                verbose_name="error",
            ),
        ),
        migrations.AddIndex(
            model_name="toolcall",
            index=models.Index(fields=["is_error", "-started_at"], name="mcp_toolcall_errors"),
        ),
    ]
