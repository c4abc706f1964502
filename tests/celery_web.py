"""The web entry points of the Celery test project (tests/contrib/test_celery.py): WSGI
(``application``) and ASGI (``asgi_application``, whose sync views run on a thread of
asgiref's, not the one that made the Celery app).

The Celery app is loaded first, as a Django project's ``__init__.py`` loads it
(``from .celery import app``): the web process sends its tasks through that app, not
Celery's default one.
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.celery_settings")

from django.core.asgi import get_asgi_application  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402

from tests.celery_app import app as celery_app  # noqa: E402, F401

application = get_wsgi_application()
asgi_application = get_asgi_application()
