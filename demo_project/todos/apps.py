from django.apps import AppConfig


class TodosConfig(AppConfig):
    name = "demo_project.todos"
    label = "todos"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from mcp_tools.resources import updated_by

        from .models import Todo

        # A client that subscribed to todo://7 hears when that todo is saved or deleted
        # (docs/subscriptions.md#resources-that-change).
        updated_by(Todo, "todo://{pk}")
