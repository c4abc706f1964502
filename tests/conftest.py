import os
import tempfile
from pathlib import Path

# Hypothesis keeps a cache folder; keep it out of the work tree (examples are not stored).
os.environ.setdefault(
    "HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tempfile.gettempdir(), "mcp-tools-hypothesis")
)

import pytest
from django.db import connections
from django.dispatch import receiver
from django.test import Client
from django.test.signals import setting_changed
from rest_framework.authtoken.models import Token

from mcp_tools.test import MCPClient
from tests.helpers import MODERN

# PostgreSQL, Redis and Chromium fixtures (and the `services` marker).
pytest_plugins = ["tests.services"]


@receiver(setting_changed)
def list_the_suites_tools_in_full(setting, value, enter, **kwargs):
    """Keep discovery mode off for a test's own ``MCP_TOOLS`` unless it names ``DISCOVERY``.

    The suite's project has 193 tools, over ``DISCOVERY_THRESHOLD``: under the default
    ``"auto"`` every listing would be discovery mode's two tools. tests/settings.py says
    ``"never"``; a test that sets ``MCP_TOOLS`` whole keeps it (tests/discovery/ turn it on).
    """
    if setting == "MCP_TOOLS" and enter and isinstance(value, dict):
        value.setdefault("DISCOVERY", "never")


@pytest.fixture(autouse=True, scope="session")
def quick_listener_keep_alive():
    """A listener's keep-alive every half second in the suite's own processes: a threaded
    live server notices within a second that a client of a test left (a TypeScript client
    opens the GET stream), rather than holding its stream, and the watcher's thread, into
    the tests after it (docs/subscriptions.md#servers: 5 s when served)."""
    from mcp_tools.endpoint import listening

    listening.KEEP_ALIVE = 0.5


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
def mcp(alice):
    """An MCP client with alice's token, speaking the handshake era (2025-11-25).

    A view's exception comes back as an ``isError`` result, reported through
    ``got_request_exception`` (from a streamed call's worker thread too): ``MCPClient``
    defaults to ``raise_request_exception=False``, so the test client never re-raises it.
    """
    return MCPClient(headers={"Authorization": f"Token {alice.token}"})


@pytest.fixture
def modern_mcp(alice):
    """An MCP client with alice's token, speaking the modern era (2026-07-28)."""
    return MCPClient(headers={"Authorization": f"Token {alice.token}"}, protocol_version=MODERN)


@pytest.fixture
def anonymous_mcp():
    """An MCP client without credentials."""
    return MCPClient()


@pytest.fixture
def http(alice):
    """A plain Django test client with alice's token, for direct HTTP calls to the views."""
    return Client(headers={"Authorization": f"Token {alice.token}"})


@pytest.fixture
def atomic_requests():
    """Turn ATOMIC_REQUESTS on for the default database, as a project's settings would."""
    settings_dict = connections["default"].settings_dict
    previous = settings_dict["ATOMIC_REQUESTS"]
    settings_dict["ATOMIC_REQUESTS"] = True
    yield
    settings_dict["ATOMIC_REQUESTS"] = previous


@pytest.fixture
def conformance_prompts(db):
    """The conformance app's prompt rows, as its data migration writes them: a test that
    flushes the database (a transactional one) takes them away from the tests after it."""
    from importlib import import_module

    from mcp_tools.models import Prompt

    migration = import_module("tests.conformance_app.migrations.0001_prompts")
    for fields in migration.PROMPTS:
        Prompt.objects.get_or_create(name=fields["name"], defaults=fields)


@pytest.fixture(autouse=True)
def fresh_admin_state():
    """Forget the admin state between tests: each test's database is rolled back after it."""
    from django.core.cache import caches

    from mcp_tools.catalog.admin_state import VERSION_KEY, catalogs
    from mcp_tools.conf import mcp_settings

    yield
    catalogs.clear()
    caches[mcp_settings.CACHE].delete(VERSION_KEY)


def pytest_sessionfinish(session, exitstatus):
    """Remove the test run's file cache (the admin state's version stamps)."""
    import shutil

    from django.conf import settings

    location = settings.CACHES.get("mcp", {}).get("LOCATION")
    if location:
        shutil.rmtree(location, ignore_errors=True)


#: Fixtures that start a server, a browser or a database server (tests/services.py, and
#: endpoint/test_streaming's gunicorn and uvicorn servers).
E2E_FIXTURES = {"live_server", "browser", "chromium", "postgres", "redis", "server"}
#: Modules whose tests start processes of their own: Node clients, served projects, wrk.
#: Each is named by its path under tests/, dotted (``interop.test_conformance``).
E2E_MODULES = {
    "calllog.test_servers",
    "client.test_adapters",
    "interop.test_conformance",
    "interop.test_consistency",
    "interop.test_demo",
    "interop.test_docs",
    "interop.test_inspector_strict",
    "interop.test_oauth_flow",
    "interop.test_per_process_cache",
    "interop.test_prompt_servers",
    "interop.test_push",
    "interop.test_resource_completion_servers",
    "interop.test_resource_servers",
    "interop.test_results_clients",
    "interop.test_scale_out",
    "interop.test_subscription_servers",
    "interop.test_task_clients",
    "interop.test_task_scale_out",
    "interop.test_thirdparty",
    "interop.test_tutorial",
    "interop.test_wagtail",
    "test_bench",
    "test_imports",
}


#: Modules whose subject Django's version can't change, run on the first pass only
#: (``first_pass``; `make test-django6` leaves them out): the bench harness, and what
#: independent clients read on the wire (the conformance suites, the Inspector, the SDKs'
#: results, the TypeScript SDK's resources, prompts and completion, every version's schema,
#: the OAuth flow of the TypeScript SDK against django-oauth-toolkit, the SDKs' live changes
#: against gunicorn and uvicorn). The bytes come from this package's code on both passes,
#: and the in-process tests that check them against the schemas run on both
#: (docs/contributing.md).
FIRST_PASS_MODULES = {
    "interop.test_conformance",
    "interop.test_inspector_strict",
    "interop.test_oauth_flow",
    "interop.test_prompt_servers",
    "interop.test_resource_completion_servers",
    "interop.test_resource_servers",
    "interop.test_results_clients",
    "interop.test_subscription_servers",
    "interop.test_wire_versions",
    "test_bench",
}


def pytest_collection_modifyitems(config, items):
    """Mark the end-to-end tests ``e2e`` (``make test-fast`` leaves them out, README) and
    those of ``FIRST_PASS_MODULES`` ``first_pass``. A listed module that does not exist
    (renamed, moved) stops the run: its tests would silently lose their marker."""
    here = Path(__file__).parent
    stale = sorted(
        name
        for name in E2E_MODULES | FIRST_PASS_MODULES
        if not (here / (name.replace(".", "/") + ".py")).exists()
    )
    if stale:
        raise pytest.UsageError(f"tests/conftest.py names test modules that don't exist: {stale}")
    for item in items:
        module = item.module.__name__.removeprefix("tests.") if item.module else ""
        if module in E2E_MODULES or E2E_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)
        if module in FIRST_PASS_MODULES:
            item.add_marker(pytest.mark.first_pass)
