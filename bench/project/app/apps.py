from django.apps import AppConfig


class BenchAppConfig(AppConfig):
    name = "bench.project.app"
    label = "benchapp"
