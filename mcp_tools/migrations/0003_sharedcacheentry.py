from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("mcp_tools", "0002_adminstateversion"),
    ]

    operations = [
        migrations.CreateModel(
            name="SharedCacheEntry",
            fields=[
                ("cache_key", models.CharField(max_length=255, primary_key=True, serialize=False)),
                ("value", models.TextField()),
                ("expires", models.DateTimeField(db_index=True)),
            ],
            options={
                "verbose_name": "shared cache entry",
                "verbose_name_plural": "shared cache entries",
                "db_table": "mcp_tools_cache",
            },
        ),
    ]
