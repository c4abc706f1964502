from django.db import migrations, models


def create_the_row(apps, schema_editor):
    apps.get_model("mcp_tools", "AdminStateVersion").objects.get_or_create(pk=1)


class Migration(migrations.Migration):

    dependencies = [
        ("mcp_tools", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="AdminStateVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveBigIntegerField(default=0, verbose_name="number")),
            ],
            options={
                "verbose_name": "admin state version",
                "verbose_name_plural": "admin state versions",
            },
        ),
        migrations.RunPython(create_the_row, migrations.RunPython.noop),
    ]
