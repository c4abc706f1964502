from django.apps import AppConfig


class TodosConfig(AppConfig):
    name = "demo_project.todos"
    label = "todos"
    default_auto_field = "django.db.models.BigAutoField"
