"""The test project's Celery app, made as a Django project's ``celery.py`` makes one.

``celery -A tests.celery_app worker`` (tests/contrib/test_celery.py) finds the MCP task through
``autodiscover_tasks()``: ``mcp_tools.contrib.celery`` is in the settings' INSTALLED_APPS.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.celery_settings")

app = Celery("mcp_tools_tests")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
