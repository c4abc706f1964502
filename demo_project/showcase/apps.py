from django.apps import AppConfig


class ShowcaseConfig(AppConfig):
    name = "demo_project.showcase"
    label = "showcase"
    verbose_name = "Result contract showcase"
