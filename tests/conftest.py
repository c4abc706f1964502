import pytest
from django.db import connections
from rest_framework.authtoken.models import Token

# PostgreSQL, Redis and Chromium fixtures (and the `services` marker).
pytest_plugins = ["tests.services"]


@pytest.fixture
def alice(django_user_model):
    user = django_user_model.objects.create_user("alice", password="alice-password")
    user.token = Token.objects.create(user=user).key
    return user


@pytest.fixture
def bob(django_user_model):
    user = django_user_model.objects.create_user("bob", password="bob-password")
    user.token = Token.objects.create(user=user).key
    return user


@pytest.fixture
def atomic_requests():
    """Turn ATOMIC_REQUESTS on for the default database, as a project's settings would."""
    settings_dict = connections["default"].settings_dict
    previous = settings_dict["ATOMIC_REQUESTS"]
    settings_dict["ATOMIC_REQUESTS"] = True
    yield
    settings_dict["ATOMIC_REQUESTS"] = previous


@pytest.fixture(autouse=True)
def fresh_admin_state():
    """Forget the admin state between tests: each test's database is rolled back after it."""
    from django.core.cache import caches

    from mcp_tools.catalog import VERSION_KEY, catalogs
    from mcp_tools.conf import mcp_settings

    yield
    catalogs.clear()
    caches[mcp_settings.CACHE].delete(VERSION_KEY)
