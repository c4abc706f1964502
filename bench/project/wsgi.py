"""WSGI entry point of the bench project (gunicorn)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.project.settings")
application = get_wsgi_application()
