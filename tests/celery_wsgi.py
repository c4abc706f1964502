"""WSGI entry point of the Celery test project (tests/test_celery.py).

It loads the Celery app first, as a Django project's ``__init__.py`` does
(``from .celery import app``): the web process sends its tasks through that app, not
Celery's default one.
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.celery_settings")

from django.core.wsgi import get_wsgi_application  # noqa: E402

from tests.celery_app import app as celery_app  # noqa: E402, F401

application = get_wsgi_application()
