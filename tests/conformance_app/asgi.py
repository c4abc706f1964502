"""ASGI entry point of the conformance server (``uvicorn tests.conformance_app.asgi:application``).

The settings module defaults to the conformance server's own.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.conformance_app.settings")
application = get_asgi_application()
