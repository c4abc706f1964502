"""WSGI entry point of the django-mcp-server peer (gunicorn)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.peers.dms.settings")
application = get_wsgi_application()
