"""The test project on PostgreSQL with persistent connections (CONN_MAX_AGE), as many
projects' settings are: tests/endpoint/test_call_threads.py runs a pytest-django session
with them."""

from tests.postgres_settings import DATABASES as POSTGRES
from tests.settings import *  # noqa: F403

DATABASES = {"default": {**POSTGRES["default"], "CONN_MAX_AGE": 60}}
