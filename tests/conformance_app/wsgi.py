"""WSGI entry point of the conformance server (``gunicorn tests.conformance_app.wsgi:application``).

The settings module defaults to the conformance server's own.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.conformance_app.settings")
application = get_wsgi_application()
