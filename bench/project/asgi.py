"""ASGI entry point of the bench project (uvicorn)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.project.settings")
application = get_asgi_application()
